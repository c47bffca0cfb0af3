import * as http from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { login } from './support/auth.js';
import { createTestApp, type TestApp } from './support/test-app.js';

const expectErrorHeaders = (res: { headers: Record<string, string> }) => {
  expect(res.headers['cache-control']).toBe('no-cache, private');
  expect(res.headers['access-control-allow-origin']).toBe('*');
  expect(res.headers['content-type']).toMatch(/application\/json/);
  expect(res.headers['x-request-id']).toEqual(expect.any(String));
};

describe('HTTP pipeline', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ config: { rateLimitPerMinute: 10_000, authAttemptsPerMinute: 10_000 } });
  });
  afterAll(() => t.close());

  it('answers 404 with a message for an unknown route', async () => {
    const res = await t.http.get('/api/no-such-route').expect(404);
    expect(res.body).toEqual({ message: 'The route /api/no-such-route could not be found.' });
    expectErrorHeaders(res);
  });

  it.each(['/api/%zz', '/api/customers/%E0%A4%A', '/api/docs/%'])(
    'answers a path with a broken percent-encoding (%s) 400 in the conventions shape',
    async (path) => {
      const res = await t.http.get(path).expect(400);
      expect(res.body).toEqual({ message: 'The request path is not valid percent-encoded text.' });
      expectErrorHeaders(res);
    },
  );

  it('lets the route judge a long path segment (an id of 101 digits is no customer: 404)', async () => {
    const token = await login(t);
    const res = await t.http
      .get(`/api/customers/${'1'.repeat(101)}`)
      .set('Authorization', token)
      .expect(404);
    expect(res.body).toEqual({ message: 'No query results for record.' });
  });

  it('answers 400 for malformed JSON, with the rate-limit headers of a known route', async () => {
    const res = await t.http.post('/api/login').set('Content-Type', 'application/json').send('{"email": ').expect(400);
    expect(res.body).toEqual({ message: 'The request body is not valid JSON.' });
    expectErrorHeaders(res);
    expect(res.headers['x-ratelimit-limit']).toBeDefined();
  });

  it('answers 400 when the JSON body is not an object', async () => {
    const res = await t.http.post('/api/login').set('Content-Type', 'application/json').send('[1,2]').expect(400);
    expect(res.body).toEqual({ message: 'The request body must be a JSON object.' });
  });

  it('answers 413 for a body over 1 MiB', async () => {
    const big = JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(1024 * 1024), device_name: 'd' });
    const res = await t.http.post('/api/login').set('Content-Type', 'application/json').send(big).expect(413);
    expect(res.body).toEqual({ message: 'The request body is larger than 1 MiB.' });
    expectErrorHeaders(res);
  });

  it('answers 415 for a body that is not JSON', async () => {
    const res = await t.http.post('/api/login').set('Content-Type', 'text/plain').send('email=a').expect(415);
    expect(res.body).toEqual({ message: 'Unsupported Media Type: send the body as application/json.' });
    expectErrorHeaders(res);
    const form = await t.http.post('/api/login').type('form').send({ email: 'a@example.com' }).expect(415);
    expect(form.body.message).toMatch(/application\/json/);
  });

  it('answers 401 with the exact body on a protected route without a valid token', async () => {
    for (const authorization of [undefined, 'Bearer not-a-jwt', 'Basic abc']) {
      const req = t.http.get('/api/user');
      if (authorization) req.set('Authorization', authorization);
      const res = await req.expect(401);
      expect(res.body).toEqual({ message: 'Unauthenticated.' });
      expectErrorHeaders(res);
      expect(res.headers['x-ratelimit-remaining']).toBeDefined();
    }
  });

  it('answers 422 in the conventions shape, first message plus the count of the others', async () => {
    const res = await t.http.post('/api/login').send({}).expect(422);
    expect(res.body).toEqual({
      message: 'The email field is required. (and 2 more errors)',
      errors: {
        email: ['The email field is required.'],
        password: ['The password field is required.'],
        device_name: ['The device name field is required.'],
      },
    });
    expectErrorHeaders(res);
    const one = await t.http.post('/api/login').send({ email: 'not-an-email', password: 'x', device_name: 'd' });
    expect(one.status).toBe(422);
    expect(one.body).toEqual({
      message: 'The email field must be a valid email address.',
      errors: { email: ['The email field must be a valid email address.'] },
    });
  });

  it('wraps success answers in the envelope', async () => {
    const token = await login(t);
    const res = await t.http.get('/api/user').set('Authorization', token).expect(200);
    expect(res.body).toEqual({
      code: 200,
      message: expect.any(String),
      data: expect.objectContaining({ email: 'admin@example.com' }),
    });
    expect(res.headers['cache-control']).toBeUndefined();
  });

  it('echoes a well-formed x-request-id and generates one otherwise', async () => {
    const echoed = await t.http.get('/api/db-test').set('x-request-id', 'client-id-123');
    expect(echoed.headers['x-request-id']).toBe('client-id-123');
    const generated = await t.http.get('/api/db-test').set('x-request-id', 'bad id with spaces');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers CORS preflight requests', async () => {
    const res = await t.http
      .options('/api/login')
      .set('Origin', 'https://client.example.com')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type,authorization');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-methods']).toMatch(/POST/);
  });

  // A browser sends a cross-origin PUT or DELETE only if the preflight's allowed methods name it.
  it.each(['PUT', 'DELETE'])('allows %s in CORS preflights', async (method) => {
    const res = await t.http
      .options('/api/campaigns/1')
      .set('Origin', 'https://client.example.com')
      .set('Access-Control-Request-Method', method)
      .set('Access-Control-Request-Headers', 'content-type,authorization');
    expect(res.status).toBe(204);
    expect(String(res.headers['access-control-allow-methods']).split(/,\s*/)).toContain(method);
  });

  it('serves the OpenAPI document and the interactive docs without a token', async () => {
    const json = await t.http.get('/api/docs-json').expect(200);
    expect(json.body.openapi).toMatch(/^3\./);
    const html = await t.http.get('/api/docs').expect(200);
    expect(html.text).toMatch(/swagger/i);
  });

  // The exact request line, as an attacker sends it: supertest and inject() resolve `..` before sending.
  const rawGet = (path: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
      const { port } = t.app.getHttpServer().address() as AddressInfo;
      const req = http.get({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on('error', reject);
    });

  describe('the docs assets (files under /api/docs/)', () => {
    beforeAll(() => t.app.listen(0, '127.0.0.1'));

    it('serves an asset', async () => {
      const res = await rawGet('/api/docs/swagger-ui.css');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/text\/css/);
    });

    // The file server refuses these (403 for a path leaving its folder, 400 for a NUL byte); that
    // refusal reached the exception filter as an unknown error: 500.
    it.each([
      '/api/docs/../../../../etc/passwd',
      '/api/docs/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
      '/api/docs/%2E%2E/%2E%2E/package.json',
      '/api/docs/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd',
      '/api/docs/..%2f..%2fetc%2fpasswd',
      '/api/docs/..%5c..%5cetc%5cpasswd',
      '/api/docs/..',
      '/api/docs/%2e%2e',
      '/api/docs/../swagger-ui.css',
      '/api/docs/docs/../../../etc/passwd',
      '/api/docs/swagger-ui.css%00',
      '/api/docs/%00',
    ])('answers 404 with the conventions body for %s', async (path) => {
      const res = await rawGet(path);
      expect(res.status).toBe(404);
      expect(JSON.parse(res.body)).toEqual({ message: `The route ${path} could not be found.` });
      expectErrorHeaders(res as unknown as { headers: Record<string, string> });
    });

    it('answers a range that is not satisfiable 416, and a failed precondition 412, not 500', async () => {
      const range = await rawGet('/api/docs/swagger-ui.css', { range: 'bytes=99999999-' });
      expect(range.status).toBe(416);
      expect(JSON.parse(range.body)).toEqual({ message: expect.any(String) });
      const precondition = await rawGet('/api/docs/swagger-ui.css', { 'if-match': '"not-this-one"' });
      expect(precondition.status).toBe(412);
      expect(JSON.parse(precondition.body)).toEqual({ message: expect.any(String) });
    });
  });

  /** Sends `bytes` as they are and answers what came back before the server closed the connection. */
  const rawExchange = (bytes: string) =>
    new Promise<string>((resolve, reject) => {
      const { port } = t.app.getHttpServer().address() as AddressInfo;
      const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
      let answer = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (answer += chunk));
      socket.on('close', () => resolve(answer));
      socket.on('error', reject);
    });

  // Node's HTTP parser refuses these before fastify sees a request; fastify's default answer was
  // `{error, message, statusCode}` without the headers of an error answer.
  describe('requests the HTTP parser refuses', () => {
    beforeAll(async () => {
      if (!t.app.getHttpServer().listening) await t.app.listen(0, '127.0.0.1');
    });
    const parse = (answer: string) => {
      const [head, body] = answer.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) as unknown };
    };
    const expectParserErrorHeaders = (headers: Record<string, string>) => {
      expect(headers['cache-control']).toBe('no-cache, private');
      expect(headers['access-control-allow-origin']).toBe('*');
      expect(headers['content-type']).toMatch(/application\/json/);
      expect(headers.connection).toBe('close');
    };

    it('answers headers over the size limit 431 in the conventions shape', async () => {
      const answer = parse(
        await rawExchange(`GET /api/customers HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
      );
      expect(answer.status).toBe(431);
      expect(answer.body).toEqual({
        message: `The request headers are larger than ${Math.round(http.maxHeaderSize / 1024)} KB.`,
      });
      expectParserErrorHeaders(answer.headers);
    });

    it.each([
      ['a request line that is not HTTP', 'HELLO\r\n\r\n'],
      ['a header without a colon', 'GET /api/customers HTTP/1.1\r\nHost x\r\n\r\n'],
      ['an unknown HTTP version', 'GET /api/customers HTTP/7.1\r\nHost: x\r\n\r\n'],
    ])('answers %s 400 in the conventions shape', async (_, bytes) => {
      const answer = parse(await rawExchange(bytes));
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ message: 'The request could not be read as HTTP/1.1.' });
      expectParserErrorHeaders(answer.headers);
    });
  });
});

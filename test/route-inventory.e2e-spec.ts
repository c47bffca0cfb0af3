import { DataSource } from 'typeorm';
import { buildOpenApiDocument } from '../src/common/openapi/openapi.js';
import { ROLE_PERMISSIONS } from '../src/common/auth/permissions.js';
import { PersonalAccessToken } from '../src/modules/auth/entities/personal-access-token.entity.js';
import { login } from './support/auth.js';
import { newUser } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

type Method = 'get' | 'post' | 'put' | 'delete';
interface Route {
  method: Method;
  path: string;
  operationId: string;
  isPublic: boolean;
  permission?: string;
}

/** Every route of the app, read from the OpenAPI document that is generated from the controllers. */
function routes(t: TestApp): Route[] {
  const doc = buildOpenApiDocument(t.app);
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    (
      Object.entries(item) as [
        Method,
        { operationId: string; security?: unknown; responses: Record<string, { description?: string }> },
      ][]
    ).map(([method, op]) => ({
      method,
      path: path.replace(/\{[^}]+\}/g, '1'),
      operationId: op.operationId,
      isPublic: op.security === undefined,
      permission: /`([\w.-]+)`/.exec(op.responses['403']?.description ?? '')?.[1],
    })),
  );
}

describe('route inventory', () => {
  let t: TestApp;
  let all: Route[];
  beforeAll(async () => {
    t = await createTestApp({ config: { rateLimitPerMinute: 100_000, authAttemptsPerMinute: 100_000 } });
    all = routes(t);
  });
  afterAll(() => t.close());

  it('is public only where the contract says so', () => {
    expect(
      all
        .filter((r) => r.isPublic)
        .map((r) => `${r.method.toUpperCase()} ${r.path}`)
        .sort(),
    ).toEqual(
      [
        'GET /api/db-test',
        'GET /api/db/schema',
        'GET /api/db/test',
        'GET /api/health',
        'GET /api/tables',
        'POST /api/forgot-password',
        'POST /api/login',
        'POST /api/reset-password',
      ].filter((route) => all.some((r) => `${r.method.toUpperCase()} ${r.path}` === route)),
    );
    expect(all.filter((r) => !r.isPublic).length).toBeGreaterThan(10);
  });

  it('answers 401 on every protected route without a token, and with a revoked one', async () => {
    const revoked = await login(t, undefined, undefined, 'revoked-device');
    await t.http.post('/api/logout').set('Authorization', revoked).expect(200);
    for (const route of all.filter((r) => !r.isPublic)) {
      for (const authorization of [undefined, revoked]) {
        const req = t.http[route.method](route.path);
        if (authorization) req.set('Authorization', authorization);
        const res = await req.send({});
        expect({
          route: `${route.method} ${route.path}`,
          revoked: !!authorization,
          status: res.status,
          body: res.body,
        }).toEqual({
          route: `${route.method} ${route.path}`,
          revoked: !!authorization,
          status: 401,
          body: { message: 'Unauthenticated.' },
        });
      }
    }
  });

  it('answers 403 to a viewer on every route that needs a permission a viewer lacks', async () => {
    const viewer = await newUser(t, await login(t), ['viewer']);
    const guarded = all.filter((r) => r.permission && !ROLE_PERMISSIONS.viewer.includes(r.permission));
    expect(guarded.length).toBeGreaterThan(5);
    for (const route of guarded) {
      const res = await t.http[route.method](route.path).set('Authorization', viewer.token).send({});
      expect({ route: `${route.method} ${route.path}`, status: res.status }).toEqual({
        route: `${route.method} ${route.path}`,
        status: 403,
      });
      expect(res.body).toEqual({ message: 'This action is unauthorized.' });
    }
  });
});

describe('sessions', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ config: { rateLimitPerMinute: 100_000, authAttemptsPerMinute: 100_000 } });
  });
  afterAll(() => t.close());

  it('gives each device its own token; logout revokes only that one', async () => {
    const laptop = await t.http
      .post('/api/login')
      .send({ email: 'admin@example.com', password: 'admin-password-123', device_name: 'laptop' })
      .expect(200);
    expect(laptop.body.data).toEqual({
      token: expect.any(String),
      token_type: 'Bearer',
      expires_at: expect.stringMatching(/Z$/),
      user: expect.objectContaining({ email: 'admin@example.com', roles: ['super-admin'] }),
    });
    const phone = await login(t, undefined, undefined, 'phone');
    const laptopToken = `Bearer ${laptop.body.data.token}`;
    expect(laptopToken).not.toBe(phone);
    await t.http.post('/api/logout').set('Authorization', laptopToken).expect(200);
    await t.http.get('/api/user').set('Authorization', laptopToken).expect(401);
    await t.http.get('/api/user').set('Authorization', phone).expect(200);
  });

  it('answers 422 on email for a wrong password or an unknown e-mail', async () => {
    for (const body of [
      { email: 'admin@example.com', password: 'wrong-password', device_name: 'd' },
      { email: 'nobody@example.com', password: 'whatever-password', device_name: 'd' },
    ]) {
      const res = await t.http.post('/api/login').send(body).expect(422);
      expect(res.body).toEqual({
        message: 'The provided credentials are incorrect.',
        errors: { email: ['The provided credentials are incorrect.'] },
      });
    }
  });

  it('issues tokens that expire after TOKEN_TTL_MINUTES and refuses them once expired', async () => {
    const short = await createTestApp({ sharedWith: t, config: { tokenTtlMinutes: 1 } });
    try {
      const token = await login(short);
      await short.http.get('/api/user').set('Authorization', token).expect(200);
      const jwt = token.slice('Bearer '.length);
      const payload = JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString());
      expect(payload.exp - payload.iat).toBeLessThanOrEqual(60);
      // The row's expiry is checked on every request, beside the JWT's own exp claim.
      await short.app
        .get(DataSource)
        .getRepository(PersonalAccessToken)
        .update({ id: Number(payload.jti) }, { expires_at: new Date(Date.now() - 1000) });
      await short.http.get('/api/user').set('Authorization', token).expect(401);
      // A token signed with another key is refused too.
      const forged = `${jwt.split('.').slice(0, 2).join('.')}.${Buffer.from('forged').toString('base64url')}`;
      await short.http.get('/api/user').set('Authorization', `Bearer ${forged}`).expect(401);
    } finally {
      await short.app.close();
    }
  });
});

import { loadConfigOrExit } from './main.js';

describe('start-up configuration', () => {
  const run = (env: Record<string, string>) => {
    const errors: string[] = [];
    const spy = jest.spyOn(console, 'error').mockImplementation((line: string) => void errors.push(line));
    let code: number | undefined;
    try {
      loadConfigOrExit({ JWT_SECRET: 'unit-test-signing-key-0123456789', ...env }, ((c: number) => {
        code = c;
        throw new Error('exit');
      }) as (code: number) => never);
    } catch {
      // exit() stops the function, as process.exit would.
    } finally {
      spy.mockRestore();
    }
    return { code, errors };
  };

  it.each([
    ['DATABASE_URL', 'postgres://x'],
    ['DATABASE_URL', 'mysql://u@h1:99999/app'],
    ['DATABASE_URL', 'mysql://u@h1:3306'],
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['RATE_LIMIT_PER_MINUTE', '0'],
    ['REDIS_URL', 'http://localhost'],
    ['MAIL_URL', 'ftp://mail'],
    ['ADMIN_EMAIL', 'not-an-email'],
    ['TOKEN_TTL_MINUTES', '1.5'],
    ['TRUST_PROXY', 'lb.example.com'],
    ['TRUST_PROXY', '10.0.0.0/40'],
    ['METRICS_TOKEN', 'short-token'],
    ['METRICS_TOKEN', 'a token with spaces in it'],
    ['METRICS_TOKEN', 'ünïcödé-token-0123456789'],
    ['METRICS_PORT', 'abc'],
    ['METRICS_PORT', '0'],
    ['METRICS_PORT', '65536'],
    ['METRICS_PORT', '3000'],
  ])('stops with exit code 1 and one line naming %s=%s', (name, value) => {
    const { code, errors } = run({ [name]: value });
    expect(code).toBe(1);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(name);
    expect(errors[0]).not.toContain('\n');
  });

  it.each([
    [undefined, ['loopback']],
    ['true', true],
    ['false', false],
    ['2', 2],
    ['10.0.0.1, 10.1.0.0/16,loopback', ['10.0.0.1', '10.1.0.0/16', 'loopback']],
    ['::1,fd00::/8', ['::1', 'fd00::/8']],
  ])('reads TRUST_PROXY=%s', (value, expected) => {
    const config = loadConfigOrExit({ JWT_SECRET: 'unit-test-signing-key-0123456789', TRUST_PROXY: value });
    expect(config.trustProxy).toEqual(expected);
  });

  it.each([
    ['mysql://root@127.0.0.1:3306/app', [{ host: '127.0.0.1', port: 3306 }], 'root', undefined],
    ['mysql://u:p%40ss@db/app', [{ host: 'db', port: 3306 }], 'u', 'p@ss'],
    [
      'mysql://u:p@h1:3306,h2:3307,[::1]:3308/app',
      [
        { host: 'h1', port: 3306 },
        { host: 'h2', port: 3307 },
        { host: '::1', port: 3308 },
      ],
      'u',
      'p',
    ],
  ])('reads DATABASE_URL=%s', (url, hosts, user, password) => {
    const { database } = loadConfigOrExit({ JWT_SECRET: 'unit-test-signing-key-0123456789', DATABASE_URL: url });
    expect(database).toMatchObject({ kind: 'mysql', name: 'app', hosts, user, password });
  });

  it.each([
    [{}, {}],
    [{ METRICS_TOKEN: '', METRICS_PORT: '' }, {}],
    [{ METRICS_TOKEN: 'scrape-token-0123456789' }, { token: 'scrape-token-0123456789' }],
    [{ METRICS_PORT: '9464' }, { port: 9464 }],
    [
      { METRICS_PORT: '9464', PORT: '8080', METRICS_TOKEN: 'x'.repeat(16) },
      { port: 9464, token: 'x'.repeat(16) },
    ],
  ])('reads METRICS_TOKEN and METRICS_PORT from %j', (env, metrics) => {
    const config = loadConfigOrExit({ JWT_SECRET: 'unit-test-signing-key-0123456789', ...env });
    expect(config.metrics).toEqual({ token: undefined, port: undefined, ...metrics });
  });

  it('names PORT when METRICS_PORT is the same port', () => {
    const { errors } = run({ PORT: '8080', METRICS_PORT: '8080' });
    expect(errors).toEqual(['Configuration error: METRICS_PORT must differ from PORT (8080)']);
  });

  it('accepts a valid environment', () => {
    const { code, errors } = run({
      PORT: '8080',
      DATABASE_URL: 'mysql://u:p@db:3306/app',
      RATE_LIMIT_PER_MINUTE: '120',
    });
    expect(code).toBeUndefined();
    expect(errors).toEqual([]);
  });
});

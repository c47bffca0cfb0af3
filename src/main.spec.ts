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
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['RATE_LIMIT_PER_MINUTE', '0'],
    ['REDIS_URL', 'http://localhost'],
    ['MAIL_URL', 'ftp://mail'],
    ['ADMIN_EMAIL', 'not-an-email'],
    ['TOKEN_TTL_MINUTES', '1.5'],
  ])('stops with exit code 1 and one line naming %s=%s', (name, value) => {
    const { code, errors } = run({ [name]: value });
    expect(code).toBe(1);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(name);
    expect(errors[0]).not.toContain('\n');
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

import { createHash } from 'node:crypto';
import { sign } from 'jsonwebtoken';
import { Strategy } from 'passport-jwt';
import type { AuthUser } from '../../common/auth/auth-user.js';
import type { AppConfig } from '../../common/config/app-config.js';
import type { AccessTokenService } from './access-token.service.js';
import { JwtStrategy } from './jwt.strategy.js';

const SECRET = 'a-secret-of-at-least-thirty-two-characters';
const user = { id: 1 } as AuthUser;

/** One passport attempt, as passport makes it: a per-request copy of the strategy with its outcomes. */
function attempt(strategy: JwtStrategy, token: string): Promise<{ outcome: string; value?: unknown }> {
  return new Promise((resolve) => {
    const run = Object.create(strategy) as JwtStrategy;
    run.success = (value: unknown) => resolve({ outcome: 'success', value });
    run.fail = () => resolve({ outcome: 'fail' });
    run.error = (value: unknown) => resolve({ outcome: 'error', value });
    run.authenticate({ headers: { authorization: `Bearer ${token}` } } as never, {});
  });
}

describe('JwtStrategy', () => {
  let rowValid: boolean;
  const tokens = { authenticate: jest.fn(async () => (rowValid ? user : null)) };
  const strategy = new JwtStrategy({ jwtSecret: SECRET } as AppConfig, tokens as unknown as AccessTokenService);
  const verifier = jest.spyOn(Strategy as unknown as { JwtVerifier: () => void }, 'JwtVerifier');

  beforeEach(() => {
    rowValid = true;
    tokens.authenticate.mockClear();
    verifier.mockClear();
  });
  afterAll(() => jest.restoreAllMocks());

  it("checks a token's signature once and its row on every request", async () => {
    const token = sign({ sub: 1, jti: '5' }, SECRET, { algorithm: 'HS256', expiresIn: 60 });
    await expect(attempt(strategy, token)).resolves.toEqual({ outcome: 'success', value: user });
    await expect(attempt(strategy, token)).resolves.toEqual({ outcome: 'success', value: user });
    expect(verifier).toHaveBeenCalledTimes(1);
    expect(tokens.authenticate).toHaveBeenCalledTimes(2);
    // Both times with the token's SHA-256, which the row's hash is compared with.
    const digest = createHash('sha256').update(token).digest();
    for (const call of tokens.authenticate.mock.calls as unknown[][]) {
      expect(call).toEqual([token, expect.objectContaining({ jti: '5' }), digest]);
    }

    rowValid = false; // logged out: the row is gone
    await expect(attempt(strategy, token)).resolves.toEqual({ outcome: 'fail' });
  });

  it('refuses a remembered token once it has expired, and a token with a bad signature', async () => {
    const token = sign({ sub: 1, jti: '6' }, SECRET, { algorithm: 'HS256', expiresIn: 60 });
    await expect(attempt(strategy, token)).resolves.toMatchObject({ outcome: 'success' });
    const now = jest.spyOn(Date, 'now').mockReturnValue(Date.now() + 61_000);
    await expect(attempt(strategy, token)).resolves.toEqual({ outcome: 'fail' });
    now.mockRestore();

    const forged = sign({ sub: 1, jti: '7' }, 'another-secret-of-thirty-two-characters', { expiresIn: 60 });
    await expect(attempt(strategy, forged)).resolves.toEqual({ outcome: 'fail' });
    expect(tokens.authenticate).toHaveBeenCalledTimes(1);
  });
});

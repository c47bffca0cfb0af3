import fc from 'fast-check';
import type { AppConfig } from '../../../common/config/app-config.js';
import { UnsubscribeTokens } from './unsubscribe-tokens.js';

const tokens = (key = 'a destination key of 16+ characters') =>
  new UnsubscribeTokens({ destinationSecretKey: key, appUrl: 'https://app.example.com' } as AppConfig);

describe('UnsubscribeTokens', () => {
  it('makes a link naming tenant, customer and address, and verifies it', () => {
    const url = tokens().url(12, 3456, ' Ada@Example.com ');
    expect(url).toMatch(/^https:\/\/app\.example\.com\/api\/unsubscribe\/12\.3456\.[\w-]{12}\.[\w-]{22}$/);
    const token = url.split('/').pop()!;
    expect(tokens().verify(token)).toEqual({ tenantId: 12, customerId: 3456, address: token.split('.')[2] });
    // The address is named by a hash, regardless of case and spaces.
    expect(tokens().token(12, 3456, 'ada@example.com')).toBe(token);
    expect(token).not.toContain('ada');
  });

  it('refuses a token made under another key, or changed anywhere', () => {
    const token = tokens().token(1, 2, 'a@b.example');
    expect(tokens('another key of 16+ characters').verify(token)).toBeUndefined();
    fc.assert(
      fc.property(fc.nat(token.length - 1), fc.constantFrom(...'0123456789abcXYZ_-.'), (at, char) => {
        const changed = token.slice(0, at) + char + token.slice(at + 1);
        if (changed !== token) expect(tokens().verify(changed)).toBeUndefined();
      }),
    );
    for (const bad of ['', 'abc', `${token}.x`, token.replace(/^1\./, '01.'), '9'.repeat(20)]) {
      expect({ bad, claim: tokens().verify(bad) }).toEqual({ bad, claim: undefined });
    }
  });
});

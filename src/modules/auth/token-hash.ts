import { createHash, timingSafeEqual } from 'node:crypto';

/** What the database keeps of a token: its SHA-256, hex (64 characters). */
export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export function tokenMatches(token: string, storedHash: string): boolean {
  const actual = Buffer.from(hashToken(token), 'hex');
  const expected = Buffer.from(storedHash, 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

import { hash, timingSafeEqual } from 'node:crypto';

/** What the database keeps of a token: its SHA-256, hex (64 characters). */
export const hashToken = (token: string): string => hash('sha256', token, 'hex');

export function tokenMatches(token: string, storedHash: string): boolean {
  const actual = hash('sha256', token, 'buffer');
  const expected = Buffer.from(storedHash, 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

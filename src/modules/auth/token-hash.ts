import { hash, timingSafeEqual } from 'node:crypto';

/** What the database keeps of a token: its SHA-256, hex (64 characters). */
export const hashToken = (token: string): string => hash('sha256', token, 'hex');

/** A token's SHA-256 as bytes, to compare with what the database keeps. */
export const tokenDigest = (token: string): Buffer => hash('sha256', token, 'buffer');

/** The digest is that of the token whose hash the database keeps (constant time). */
export function digestMatches(digest: Buffer, storedHash: string): boolean {
  const expected = Buffer.from(storedHash, 'hex');
  return digest.length === expected.length && timingSafeEqual(digest, expected);
}

export const tokenMatches = (token: string, storedHash: string): boolean =>
  digestMatches(tokenDigest(token), storedHash);

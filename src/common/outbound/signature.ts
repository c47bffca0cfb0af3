import { createHmac, randomBytes } from 'node:crypto';

/** A new endpoint secret: `whsec_` and the base64 of 32 random bytes (the Standard Webhooks form). */
export const newSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/**
 * The Standard Webhooks signature of one attempt: `v1,` and the base64 HMAC-SHA256 of
 * `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the base64-decoded part of the secret after
 * `whsec_`. Several secrets (a rotation) give several signatures, separated by a space.
 */
export function signatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
      return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
    })
    .join(' ');
}

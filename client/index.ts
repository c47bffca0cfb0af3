import { createHmac, timingSafeEqual } from 'node:crypto';
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type { components, paths };
export type ApiClient = Client<paths>;

/**
 * A typed client of the API (openapi-fetch over the types openapi-typescript generates from
 * openapi.json): paths, parameters, bodies and answers are checked by the compiler.
 *
 *   const api = createApiClient('https://campaigns.example.com');
 *   const { data } = await api.POST('/api/login', { body: { email, password, device_name: 'cli' } });
 *   api.use(bearer(data!.data.token));
 *   const programs = await api.GET('/api/marketing-programs', { params: { query: { limit: 10 } } });
 */
export function createApiClient(baseUrl: string, options: Omit<ClientOptions, 'baseUrl'> = {}): ApiClient {
  return createClient<paths>({ baseUrl, ...options });
}

/** Middleware that sends `Authorization: Bearer <token>` on every request. */
export const bearer = (token: string) => ({
  onRequest({ request }: { request: Request }) {
    request.headers.set('Authorization', `Bearer ${token}`);
    return request;
  },
});

/** A webhook delivery whose signature does not check out (or is too old or too new). */
export class WebhookVerificationError extends Error {}

/**
 * Checks a webhook delivery the Standard Webhooks way and answers its event: the `webhook-signature`
 * header must hold a `v1,` signature equal to the HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`
 * keyed with the secret (the base64 after `whsec_`), and the timestamp must be within
 * `toleranceSeconds` of now (replays of an old delivery are refused). `body` is the raw request
 * body, before any JSON parsing. Throws WebhookVerificationError otherwise.
 *
 *   const event = verifyWebhook(process.env.WEBHOOK_SECRET!, req.headers, rawBody);
 */
export function verifyWebhook(
  secret: string,
  headers: Record<string, string | string[] | undefined> | Headers,
  body: string,
  toleranceSeconds = 300,
  now = Date.now(),
): components['schemas']['EventResponse'] {
  const get = (name: string) => {
    const value = headers instanceof Headers ? headers.get(name) : (headers[name] ?? headers[name.toLowerCase()]);
    return Array.isArray(value) ? value[0] : (value ?? undefined);
  };
  const id = get('webhook-id');
  const timestamp = get('webhook-timestamp');
  const signatures = get('webhook-signature');
  if (!id || !timestamp || !signatures)
    throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature');
  if (!/^\d+$/.test(timestamp) || Math.abs(now / 1000 - Number(timestamp)) > toleranceSeconds) {
    throw new WebhookVerificationError('the webhook-timestamp is too old or too new');
  }
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  const matches = signatures.split(' ').some((signature) => {
    const [version, value] = signature.split(',');
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError('no signature matches');
  return JSON.parse(body) as components['schemas']['EventResponse'];
}

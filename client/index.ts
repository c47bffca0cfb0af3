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

import { DataSource } from 'typeorm';
import { buildOpenApiDocument } from '../src/common/openapi/openapi.js';
import { ROLE_PERMISSIONS } from '../src/common/auth/permissions.js';
import { PersonalAccessToken } from '../src/modules/auth/entities/personal-access-token.entity.js';
import { login } from './support/auth.js';
import { newUser } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

type Method = 'get' | 'post' | 'put' | 'delete';

/**
 * Every API route the app serves and who may call it: `public`, `signed-in` (any valid token), or the
 * permission it needs. Exact: a route that disappears, appears, or changes its access fails the test.
 * Path parameters are named as in openapi.json.
 */
const EXPECTED: Record<string, string> = {
  'DELETE /api/admin/tenants/{tenant_id}': 'tenants.manage',
  'DELETE /api/admin/users/{user_id}': 'users.manage',
  'DELETE /api/audiences/{id}': 'audiences.manage',
  'DELETE /api/campaign-destinations/{campaign_destination_id}': 'destinations.manage',
  'DELETE /api/campaign-groups/{id}': 'marketing.manage',
  'DELETE /api/campaign-kpis/{kpi_id}': 'marketing.manage',
  'DELETE /api/campaigns/{campaign_id}/audiences/{audience_id}': 'audiences.manage',
  'DELETE /api/campaigns/{campaign_id}/validation-rules/{validation_rule_id}': 'validation-rules.manage',
  'DELETE /api/campaigns/{id}': 'marketing.manage',
  'DELETE /api/customer-goals/{goal_id}': 'marketing.manage',
  'DELETE /api/customers/{id}': 'customers.manage',
  'DELETE /api/customers/{id}/unsubscribe': 'customers.manage',
  'DELETE /api/destinations/{id}': 'destinations.manage',
  'DELETE /api/marketing-programs/{id}': 'marketing.manage',
  'DELETE /api/sub-audiences/{id}': 'audiences.manage',
  'DELETE /api/treatment-groups/{id}': 'marketing.manage',
  'DELETE /api/user/tokens/{id}': 'signed-in',
  'DELETE /api/validation-rules/{id}': 'validation-rules.manage',
  'GET /api/admin/activity-log': 'activity-log.view',
  'GET /api/admin/permissions': 'roles.view',
  'GET /api/admin/roles': 'roles.view',
  'GET /api/admin/tenants': 'tenants.view',
  'GET /api/admin/tenants/{tenant_id}': 'tenants.view',
  'GET /api/admin/users': 'users.view',
  'GET /api/admin/users/{user_id}': 'users.view',
  'GET /api/audiences': 'audiences.view',
  'GET /api/audiences/{id}': 'audiences.view',
  'GET /api/audiences/{id}/count': 'audiences.view',
  'GET /api/audiences/{id}/customers': 'audiences.view',
  'GET /api/campaign-groups/{group_id}/campaigns': 'marketing.view',
  'GET /api/campaign-groups/{id}': 'marketing.view',
  'GET /api/campaign-kpis/{kpi_id}': 'marketing.view',
  'GET /api/campaigns/{campaign_id}/audiences': 'audiences.view',
  'GET /api/campaigns/{campaign_id}/customer-goals': 'marketing.view',
  'GET /api/campaigns/{campaign_id}/destinations': 'destinations.view',
  'GET /api/campaigns/{campaign_id}/kpis': 'marketing.view',
  'GET /api/campaigns/{campaign_id}/sub-audiences': 'audiences.view',
  'GET /api/campaigns/{campaign_id}/treatment-groups': 'marketing.view',
  'GET /api/campaigns/{campaign_id}/validation-rules': 'validation-rules.view',
  'GET /api/campaigns/{id}': 'marketing.view',
  'GET /api/campaigns/{id}/assignment-summary': 'marketing.view',
  'GET /api/campaigns/{id}/assignments/{customer_id}': 'marketing.view',
  'GET /api/customer-events/{id}': 'customers.view',
  'GET /api/customers': 'customers.view',
  'GET /api/customers/export': 'customers.view',
  'GET /api/customers/{id}/export': 'customers.view',
  'GET /api/customers/{id}/events': 'customers.view',
  'GET /api/customers/{id}/timeline': 'customers.view',
  'GET /api/event-names': 'customers.view',
  'POST /api/track': 'customers.manage',
  'GET /api/customers/erasures/{job_id}': 'customers.view',
  'GET /api/suppressions': 'customers.view',
  'DELETE /api/suppressions/{id}': 'customers.manage',
  'POST /api/customers/{id}/erase': 'customers.manage',
  'POST /api/customers/{id}/merge': 'customers.manage',
  'GET /api/customers/imports': 'customers.view',
  'GET /api/customers/imports/{id}': 'customers.view',
  'GET /api/customers/imports/{id}/errors': 'customers.view',
  'GET /api/customers/{id}': 'customers.view',
  'GET /api/db-test': 'public',
  'GET /api/db/schema': 'public',
  'GET /api/db/test': 'public',
  'GET /api/destinations': 'destinations.view',
  'GET /api/events': 'events.view',
  'GET /api/events/types': 'events.view',
  'GET /api/events/{id}': 'events.view',
  'GET /api/webhooks': 'webhooks.view',
  'POST /api/webhooks': 'webhooks.manage',
  'GET /api/webhooks/{id}': 'webhooks.view',
  'PUT /api/webhooks/{id}': 'webhooks.manage',
  'DELETE /api/webhooks/{id}': 'webhooks.manage',
  'POST /api/webhooks/{id}/rotate-secret': 'webhooks.manage',
  'POST /api/webhooks/{id}/test': 'webhooks.manage',
  'POST /api/webhooks/{id}/replay': 'webhooks.manage',
  'GET /api/webhooks/{id}/deliveries': 'webhooks.view',
  'GET /api/webhooks/{id}/deliveries/{delivery_id}': 'webhooks.view',
  'POST /api/webhooks/{id}/deliveries/{delivery_id}/retry': 'webhooks.manage',
  'POST /api/campaigns/{id}/runs': 'campaigns.launch',
  'GET /api/campaigns/{id}/runs': 'marketing.view',
  'GET /api/campaigns/{id}/results': 'marketing.view',
  'GET /api/campaign-runs/{id}': 'marketing.view',
  'POST /api/campaign-runs/{id}/pause': 'campaigns.launch',
  'POST /api/campaign-runs/{id}/resume': 'campaigns.launch',
  'POST /api/campaign-runs/{id}/cancel': 'campaigns.launch',
  'POST /api/campaign-runs/{id}/retry': 'campaigns.launch',
  'GET /api/campaign-runs/{id}/recipients': 'marketing.view',
  'GET /api/campaign-runs/{id}/files': 'marketing.view',
  'GET /api/campaign-runs/{id}/files/{name}': 'marketing.view',
  'PUT /api/campaigns/{id}/schedule': 'campaigns.launch',
  'GET /api/campaigns/{id}/schedule': 'marketing.view',
  'DELETE /api/campaigns/{id}/schedule': 'campaigns.launch',
  'GET /api/messaging-limits': 'marketing.view',
  'PUT /api/messaging-limits': 'marketing.manage',
  'GET /api/destinations/{id}': 'destinations.view',
  'GET /api/health': 'public',
  'GET /api/marketing-programs': 'marketing.view',
  'GET /api/marketing-programs/{id}': 'marketing.view',
  'GET /api/marketing-programs/{program_id}/campaign-groups': 'marketing.view',
  'GET /api/sub-audiences/{id}': 'audiences.view',
  'GET /api/sub-audiences/{id}/count': 'audiences.view',
  'GET /api/sub-audiences/{id}/customers': 'audiences.view',
  'GET /api/tables': 'public',
  'GET /api/unsubscribe/{token}': 'public',
  'POST /api/unsubscribe/{token}': 'public',
  'POST /api/destinations/{id}/test': 'destinations.manage',
  'POST /api/destinations/{id}/rotate-secret': 'destinations.manage',
  'GET /api/treatment-groups/{id}': 'marketing.view',
  'GET /api/user': 'signed-in',
  'GET /api/usage': 'signed-in',
  'GET /api/user/tokens': 'signed-in',
  'GET /api/validation-rules': 'validation-rules.view',
  'GET /api/validation-rules/{id}': 'validation-rules.view',
  'POST /api/admin/tenants': 'tenants.manage',
  'POST /api/admin/users': 'users.manage',
  'POST /api/audiences': 'audiences.manage',
  'POST /api/audiences/preview': 'audiences.view',
  'POST /api/campaign-groups/{group_id}/campaigns': 'marketing.manage',
  'POST /api/campaigns/{campaign_id}/audiences': 'audiences.manage',
  'POST /api/campaigns/{campaign_id}/customer-goals': 'marketing.manage',
  'POST /api/campaigns/{campaign_id}/destinations': 'destinations.manage',
  'POST /api/campaigns/{campaign_id}/kpis': 'marketing.manage',
  'POST /api/campaigns/{campaign_id}/sub-audiences': 'audiences.manage',
  'POST /api/campaigns/{campaign_id}/treatment-groups': 'marketing.manage',
  'POST /api/campaigns/{campaign_id}/validation-rules': 'validation-rules.manage',
  'POST /api/customers': 'customers.manage',
  'POST /api/customers/batch': 'customers.manage',
  'POST /api/customers/imports': 'customers.manage',
  'POST /api/customers/imports/{id}/cancel': 'customers.manage',
  'POST /api/destinations': 'destinations.manage',
  'POST /api/forgot-password': 'public',
  'POST /api/login': 'public',
  'POST /api/logout': 'signed-in',
  'POST /api/marketing-programs': 'marketing.manage',
  'POST /api/marketing-programs/{program_id}/campaign-groups': 'marketing.manage',
  'POST /api/reset-password': 'public',
  'POST /api/send-email': 'mail.send',
  'POST /api/validation-rules': 'validation-rules.manage',
  'PUT /api/admin/tenants/{tenant_id}': 'tenants.manage',
  'PUT /api/admin/users/{user_id}': 'users.manage',
  'PUT /api/audiences/{id}': 'audiences.manage',
  'PUT /api/campaign-groups/{id}': 'marketing.manage',
  'PUT /api/campaign-kpis/{kpi_id}': 'marketing.manage',
  'PUT /api/campaigns/{id}': 'marketing.manage',
  'PUT /api/customer-goals/{goal_id}': 'marketing.manage',
  'PUT /api/customers/{id}': 'customers.manage',
  'PUT /api/destinations/{id}': 'destinations.manage',
  'PUT /api/marketing-programs/{id}': 'marketing.manage',
  'PUT /api/sub-audiences/{id}': 'audiences.manage',
  'PUT /api/treatment-groups/{id}': 'marketing.manage',
  'PUT /api/validation-rules/{id}': 'validation-rules.manage',
};

/** Routes of the framework rather than the API: the OpenAPI document and its UI, and CORS preflights. */
const FRAMEWORK_ROUTES = [
  'GET /api/docs',
  'GET /api/docs-json',
  'GET /api/docs-yaml',
  'GET /api/docs/',
  'GET /api/docs/*',
  'GET /api/docs/LICENSE',
  'GET /api/docs/docs/swagger-ui-init.js',
  'GET /api/docs/index.html',
  'GET /api/docs/swagger-ui-init.js',
  'OPTIONS *',
];

/** `{name}` and `:name` both become `{}`: the router merges parameters of one position under several names. */
const shape = (route: string) => route.replace(/\{[^}]+\}/g, '{}');

/**
 * The routes Fastify's router holds (not what the OpenAPI document says), read from `printRoutes()`:
 * a tree whose lines are `<indent>├── <path segment> (<METHODS>)`, four columns per level. HEAD is
 * left out (Fastify adds it to every GET).
 */
function registeredRoutes(t: TestApp): string[] {
  const tree = t.app.getHttpAdapter().getInstance().printRoutes({ commonPrefix: false });
  const prefixes: string[] = [];
  const found = new Set<string>();
  for (const line of tree.split('\n')) {
    const match = /^([│ ]*)[├└]── (.+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1].length / 4;
    const path = (prefixes[depth - 1] ?? '') + match[2].replace(/:[\w|:]+/g, '{}');
    prefixes[depth] = path;
    prefixes.length = depth + 1;
    for (const method of match[3]?.split(', ') ?? []) if (method !== 'HEAD') found.add(`${method} ${path}`);
  }
  return [...found].sort();
}
interface Route {
  method: Method;
  path: string;
  /** The path as documented, with its `{parameters}`. */
  template: string;
  operationId: string;
  isPublic: boolean;
  permission?: string;
}

/** Every route of the app, read from the OpenAPI document that is generated from the controllers. */
function routes(t: TestApp): Route[] {
  const doc = buildOpenApiDocument(t.app);
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    (
      Object.entries(item) as [
        Method,
        { operationId: string; security?: unknown; responses: Record<string, { description?: string }> },
      ][]
    ).map(([method, op]) => ({
      method,
      path: path.replace(/\{[^}]+\}/g, '1'),
      template: path,
      operationId: op.operationId,
      // Public operations carry an empty requirement (`security: []`).
      isPublic: op.security === undefined || (Array.isArray(op.security) && op.security.length === 0),
      permission: /`([\w.-]+)`/.exec(op.responses['403']?.description ?? '')?.[1],
    })),
  );
}

describe('route inventory', () => {
  let t: TestApp;
  let all: Route[];
  beforeAll(async () => {
    t = await createTestApp({ config: { rateLimitPerMinute: 100_000, authAttemptsPerMinute: 100_000 } });
    all = routes(t);
  });
  afterAll(() => t.close());

  it('is public only where the contract says so', () => {
    expect(
      all
        .filter((r) => r.isPublic)
        .map((r) => `${r.method.toUpperCase()} ${r.template}`)
        .sort(),
    ).toEqual([
      'GET /api/db-test',
      'GET /api/db/schema',
      'GET /api/db/test',
      'GET /api/health',
      'GET /api/tables',
      'GET /api/unsubscribe/{token}',
      'POST /api/forgot-password',
      'POST /api/login',
      'POST /api/reset-password',
      'POST /api/unsubscribe/{token}',
    ]);
    expect(all.filter((r) => !r.isPublic).length).toBeGreaterThan(10);
  });

  it('documents exactly the expected routes, each with its expected access', () => {
    const documented = Object.fromEntries(
      all.map((r) => [
        `${r.method.toUpperCase()} ${r.template}`,
        r.isPublic ? 'public' : (r.permission ?? 'signed-in'),
      ]),
    );
    expect(Object.keys(documented).sort()).toEqual(Object.keys(EXPECTED).sort());
    expect(documented).toEqual(EXPECTED);
  });

  it('serves exactly the expected routes, none undocumented and none missing', () => {
    expect(registeredRoutes(t)).toEqual(
      [...new Set([...Object.keys(EXPECTED), ...FRAMEWORK_ROUTES].map(shape))].sort(),
    );
  });

  it('answers 401 on every protected route without a token, and with a revoked one', async () => {
    const revoked = await login(t, undefined, undefined, 'revoked-device');
    await t.http.post('/api/logout').set('Authorization', revoked).expect(200);
    for (const route of all.filter((r) => !r.isPublic)) {
      for (const authorization of [undefined, revoked]) {
        const req = t.http[route.method](route.path);
        if (authorization) req.set('Authorization', authorization);
        const res = await req.send({});
        expect({
          route: `${route.method} ${route.path}`,
          revoked: !!authorization,
          status: res.status,
          body: res.body,
        }).toEqual({
          route: `${route.method} ${route.path}`,
          revoked: !!authorization,
          status: 401,
          body: { message: 'Unauthenticated.' },
        });
      }
    }
  });

  it('claims an Idempotency-Key on exactly the routes whose operation documents it (IdempotentReplays)', async () => {
    const admin = await login(t);
    const doc = buildOpenApiDocument(t.app) as unknown as {
      paths: Record<string, Record<string, { parameters?: { name: string }[] }>>;
    };
    const posts = all.filter((r) => r.method === 'post');
    const documented = (r: Route) =>
      (doc.paths[r.template].post.parameters ?? []).some((p) => p.name === 'Idempotency-Key');
    expect(posts.filter((r) => !r.isPublic).every(documented)).toBe(true);
    for (const route of posts) {
      // A key of 256 characters is refused by the claim, before anything else reads the request.
      const req = t.http.post(route.path).set('Authorization', admin).set('Idempotency-Key', 'k'.repeat(256));
      const res = route.template.endsWith('/imports')
        ? await req.set('Content-Type', 'text/csv').send('external_id\n')
        : await req.send({});
      expect({ route: route.template, claimed: res.body?.errors?.['Idempotency-Key'] !== undefined }).toEqual({
        route: route.template,
        claimed: documented(route),
      });
    }
  });

  it('answers 403 to a viewer on every route that needs a permission a viewer lacks', async () => {
    const viewer = await newUser(t, await login(t), ['viewer']);
    const guarded = all.filter((r) => r.permission && !ROLE_PERMISSIONS.viewer.includes(r.permission));
    expect(guarded.length).toBeGreaterThan(5);
    for (const route of guarded) {
      const res = await t.http[route.method](route.path).set('Authorization', viewer.token).send({});
      expect({ route: `${route.method} ${route.path}`, status: res.status }).toEqual({
        route: `${route.method} ${route.path}`,
        status: 403,
      });
      expect(res.body).toEqual({ message: 'This action is unauthorized.' });
    }
  });
});

describe('login, logout: sessions', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ config: { rateLimitPerMinute: 100_000, authAttemptsPerMinute: 100_000 } });
  });
  afterAll(() => t.close());

  it('gives each device its own token; logout revokes only that one', async () => {
    const laptop = await t.http
      .post('/api/login')
      .send({ email: 'admin@example.com', password: 'admin-password-123', device_name: 'laptop' })
      .expect(200);
    expect(laptop.body.data).toEqual({
      token: expect.any(String),
      token_type: 'Bearer',
      expires_at: expect.stringMatching(/Z$/),
      user: expect.objectContaining({ email: 'admin@example.com', roles: ['super-admin'] }),
    });
    const phone = await login(t, undefined, undefined, 'phone');
    const laptopToken = `Bearer ${laptop.body.data.token}`;
    expect(laptopToken).not.toBe(phone);
    await t.http.post('/api/logout').set('Authorization', laptopToken).expect(200);
    await t.http.get('/api/user').set('Authorization', laptopToken).expect(401);
    await t.http.get('/api/user').set('Authorization', phone).expect(200);
  });

  it('answers 422 on email for a wrong password or an unknown e-mail', async () => {
    for (const body of [
      { email: 'admin@example.com', password: 'wrong-password', device_name: 'd' },
      { email: 'nobody@example.com', password: 'whatever-password', device_name: 'd' },
    ]) {
      const res = await t.http.post('/api/login').send(body).expect(422);
      expect(res.body).toEqual({
        message: 'The provided credentials are incorrect.',
        errors: { email: ['The provided credentials are incorrect.'] },
      });
    }
  });

  it('issues tokens that expire after TOKEN_TTL_MINUTES and refuses them once expired', async () => {
    const short = await createTestApp({ sharedWith: t, config: { tokenTtlMinutes: 1 } });
    try {
      const token = await login(short);
      await short.http.get('/api/user').set('Authorization', token).expect(200);
      const jwt = token.slice('Bearer '.length);
      const payload = JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString());
      expect(payload.exp - payload.iat).toBeLessThanOrEqual(60);
      // The row's expiry is checked on every request, beside the JWT's own exp claim.
      await short.app
        .get(DataSource)
        .getRepository(PersonalAccessToken)
        .update({ id: Number(payload.jti) }, { expires_at: new Date(Date.now() - 1000) });
      await short.http.get('/api/user').set('Authorization', token).expect(401);
      // A token signed with another key is refused too.
      const forged = `${jwt.split('.').slice(0, 2).join('.')}.${Buffer.from('forged').toString('base64url')}`;
      await short.http.get('/api/user').set('Authorization', `Bearer ${forged}`).expect(401);
    } finally {
      await short.app.close();
    }
  });
});

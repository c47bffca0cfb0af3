import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { bearer, createApiClient, type ApiClient } from '../client/index.js';
import { CLIENT_TYPES_FILE, CLIENT_TYPES_HEADER } from '../scripts/client-types.js';
import { ADMIN } from './support/auth.js';
import { createTestApp, type TestApp } from './support/test-app.js';

const root = join(__dirname, '..');
const document = JSON.parse(readFileSync(join(root, 'openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, { tags?: string[] }>>;
};

describe('the typed client (client/: openapi-typescript + openapi-fetch)', () => {
  it('client/schema.ts is what `npm run openapi` generates from openapi.json', () => {
    // openapi-typescript is an ES module, which this (CommonJS) test runner cannot load: a child process runs it.
    const generated = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import openapiTS, { astToString } from 'openapi-typescript';
         import { readFileSync } from 'node:fs';
         process.stdout.write(astToString(await openapiTS(JSON.parse(readFileSync('openapi.json', 'utf8')))));`,
      ],
      { cwd: root, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' },
    );
    expect(readFileSync(join(root, CLIENT_TYPES_FILE), 'utf8')).toBe(CLIENT_TYPES_HEADER + generated);
  });

  describe('walks every tag of the document', () => {
    let t: TestApp;
    let api: ApiClient;
    const walked = new Set<string>();

    beforeAll(async () => {
      t = await createTestApp({ config: { rateLimitPerMinute: 100000 } });
      await t.app.listen(0, '127.0.0.1');
      const { port } = t.app.getHttpServer().address() as AddressInfo;
      api = createApiClient(`http://127.0.0.1:${port}`);
    });
    afterAll(() => t.close());

    /** Answers `data` of a success envelope and records the operation's tag. */
    function ok<T>(tag: string, answer: { data?: { data: T }; error?: unknown; response: Response }): T {
      expect({ tag, status: answer.response.status, error: answer.error }).toEqual({
        tag,
        status: expect.any(Number),
        error: undefined,
      });
      walked.add(tag);
      return answer.data!.data;
    }

    it('signs in, creates and reads through the client', async () => {
      ok('Diagnostics', await api.GET('/api/db/test'));
      const login = ok(
        'Session',
        await api.POST('/api/login', { body: { email: ADMIN.email, password: ADMIN.password, device_name: 'client' } }),
      );
      api.use(bearer(login.token));
      expect(ok('Session', await api.GET('/api/user')).email).toBe(ADMIN.email);
      expect(ok('Session', await api.GET('/api/user/tokens')).some((token) => token.current)).toBe(true);

      const planBody = {
        name: 'Client program',
        description: 'Made through the typed client',
        status: 'draft' as const,
        start_date: '2026-03-01',
        end_date: '2026-05-31',
        budget: 1000,
        goal: 'Sign-ups',
      };
      const program = ok(
        'Marketing programs',
        await api.POST('/api/marketing-programs', {
          body: planBody,
          params: { header: { 'Idempotency-Key': 'client-smoke-1' } },
        }),
      );
      const read = await api.GET('/api/marketing-programs/{id}', { params: { path: { id: program.id } } });
      expect(ok('Marketing programs', read).name).toBe('Client program');
      expect(read.response.headers.get('etag')).toMatch(/^"/);
      ok('Marketing programs', await api.GET('/api/marketing-programs', { params: { query: { limit: 10 } } }));

      const group = ok(
        'Campaign groups',
        await api.POST('/api/marketing-programs/{program_id}/campaign-groups', {
          params: { path: { program_id: program.id } },
          body: { ...planBody, name: 'Client group' },
        }),
      );
      const campaign = ok(
        'Campaigns',
        await api.POST('/api/campaign-groups/{group_id}/campaigns', {
          params: { path: { group_id: group.id } },
          body: { ...planBody, name: 'Client campaign' },
        }),
      );
      const campaignId = campaign.id;
      ok(
        'Treatment groups',
        await api.POST('/api/campaigns/{campaign_id}/treatment-groups', {
          params: { path: { campaign_id: campaignId } },
          body: { name: 'Control', type: 'control', allocation_percentage: 50 },
        }),
      );
      ok(
        'KPIs and customer goals',
        await api.GET('/api/campaigns/{campaign_id}/kpis', { params: { path: { campaign_id: campaignId } } }),
      );
      ok(
        'Treatment assignment',
        await api.GET('/api/campaigns/{id}/assignment-summary', { params: { path: { id: campaign.id } } }),
      );
      ok(
        'Validation rules',
        await api.GET('/api/campaigns/{campaign_id}/validation-rules', {
          params: { path: { campaign_id: campaignId } },
        }),
      );
      ok('Audiences', await api.POST('/api/audiences', { body: { name: 'Client audience', rules: [] } }));
      ok('Destinations', await api.GET('/api/destinations'));
      ok('Customers', await api.POST('/api/customers', { body: { email: 'client@example.com' } }));
      ok('Customers', await api.GET('/api/customers', { params: { query: { q: 'client' } } }));
      ok('Customer imports', await api.GET('/api/customers/imports'));
      ok('Customer events', await api.GET('/api/event-names'));
      ok('Campaign runs', await api.GET('/api/messaging-limits'));
      const results = ok(
        'Campaign results',
        await api.GET('/api/campaigns/{id}/results', { params: { path: { id: campaignId } } }),
      );
      expect(results.srm).toEqual({ p_value: null, mismatch: false });
      ok('Admin: users', await api.GET('/api/admin/users'));
      ok('Admin: tenants', await api.GET('/api/admin/tenants'));
      ok('Admin: roles and permissions', await api.GET('/api/admin/roles'));
      ok('Admin: activity log', await api.GET('/api/admin/activity-log'));
      ok('Events', await api.GET('/api/events', { params: { query: { types: 'customer.created', limit: 10 } } }));
      ok('Webhooks', await api.GET('/api/webhooks'));
      ok('Usage', await api.GET('/api/usage'));

      // Errors come back typed too: a 422 names its fields.
      const mail = await api.POST('/api/send-email', { body: { to: 'not-an-email', subject: 'Hi', content: 'Hello' } });
      expect(mail.response.status).toBe(422);
      expect(Object.keys((mail.error as { errors: Record<string, string[]> }).errors)).toContain('to');
      walked.add('Mail');

      const tags = new Set(
        Object.values(document.paths).flatMap((item) => Object.values(item).flatMap((op) => op.tags ?? [])),
      );
      expect([...walked].sort()).toEqual([...tags].sort());
    });
  });
});

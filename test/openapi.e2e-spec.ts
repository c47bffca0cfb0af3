import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildOpenApiDocument } from '../src/common/openapi/openapi.js';
import { createTestApp, type TestApp } from './support/test-app.js';

type Operation = { security?: unknown[]; responses: Record<string, unknown>; operationId: string };

describe('OpenAPI document', () => {
  let t: TestApp;
  let document: ReturnType<typeof buildOpenApiDocument>;
  beforeAll(async () => {
    t = await createTestApp();
    document = buildOpenApiDocument(t.app);
  });
  afterAll(() => t.close());

  it('matches the checked-in openapi.json (run `npm run openapi` after changing routes)', () => {
    const checkedIn = JSON.parse(readFileSync(join(__dirname, '..', 'openapi.json'), 'utf8'));
    expect(document).toEqual(checkedIn);
  });

  it('is what /api/docs-json serves', async () => {
    const res = await t.http.get('/api/docs-json').expect(200);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(document)));
  });

  it('names every operation after its controller method, uniquely', () => {
    const ids = Object.values(document.paths).flatMap((item) =>
      Object.values(item as Record<string, Operation>).map((op) => op.operationId),
    );
    expect(ids.filter((id) => !/^[a-z][A-Za-z]+$/.test(id))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(
      expect.arrayContaining([
        'listCampaignKpis',
        'createCustomerGoal',
        'addCampaignAudience',
        'removeCampaignDestination',
      ]),
    );
  });

  it('documents the errors of every operation, and the bearer scheme on every protected one', () => {
    const operations = Object.values(document.paths).flatMap((item) =>
      Object.values(item as Record<string, Operation>),
    );
    expect(operations.length).toBeGreaterThan(0);
    const publicOps = new Set([
      'connectionStatus',
      'ping',
      'tables',
      'schema',
      'health',
      'login',
      'forgotPassword',
      'resetPassword',
    ]);
    for (const op of operations) {
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['429', '500', '503']));
      if (publicOps.has(op.operationId)) {
        // Public on purpose: an empty requirement (redocly's security-defined rule).
        expect({ op: op.operationId, security: op.security }).toEqual({ op: op.operationId, security: [] });
      } else {
        expect({ op: op.operationId, security: op.security }).toEqual({
          op: op.operationId,
          security: [{ bearer: [] }],
        });
        expect(op.responses['401']).toBeDefined();
      }
    }
  });
});

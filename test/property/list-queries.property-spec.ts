import fc from 'fast-check';
import { buildOpenApiDocument } from '../../src/common/openapi/openapi.js';
import { campaignBody, planBody } from '../support/marketing-factories.js';
import { mysqlBaseUrl } from '../support/test-database.js';
import { startApiApp, type ApiApp } from './support/api-app.js';
import { ODD_TEXT } from './support/bodies.js';
import type { Schema } from './support/openapi-operations.js';
import { RUNS, SEED, seedOf } from './support/settings.js';
import { endedDryRun, http, make, WEBHOOK_URL, type ApiContext } from './support/targets.js';

/**
 * Query strings of every list of the OpenAPI document: documented parameters with valid values,
 * odd text (`?q=`), and broken ones (out-of-range or non-numeric limits, repeated parameters,
 * undecodable percent-escapes, unknown sort fields, forged cursors). No answer is a 5xx; a refusal
 * is a 422 on a query parameter; a 200 is a page in the conventions' shape.
 * Same PROPERTY_SEED / PROPERTY_RUNS as the write operations.
 */
const database = mysqlBaseUrl() ? 'MariaDB/MySQL' : 'SQLite';

interface Param {
  name: string;
  schema: Schema;
}

/** One query parameter as it goes on the wire: `name=value` already percent-encoded. */
const enc = (name: string, value: string) => `${name}=${encodeURIComponent(value)}`;

function paramArb(param: Param): fc.Arbitrary<string[]> {
  const { name, schema } = param;
  const valid: fc.Arbitrary<string>[] = [];
  if (schema.enum) valid.push(fc.constantFrom(...(schema.enum as string[])));
  else if (schema.type === 'integer')
    valid.push(fc.integer({ min: schema.minimum ?? 1, max: schema.maximum ?? 100 }).map(String));
  else if (schema.type === 'boolean') valid.push(fc.constantFrom('true', 'false', '0', '1'));
  else if (schema.oneOf) valid.push(fc.integer({ min: 1, max: 1000 }).map(String));
  else if (name === 'sort') valid.push(fc.constantFrom('id', '-id', 'name', '-name', 'created_at', '-created_at'));
  else if (schema.format === 'email') valid.push(fc.constantFrom('ada@example.com', ' ADA@Example.com '));
  else if (name !== 'cursor') {
    valid.push(
      fc
        .array(fc.oneof(fc.constantFrom(...ODD_TEXT), fc.string({ unit: 'grapheme', maxLength: 4 })), { maxLength: 4 })
        .map((parts) => [...parts.join('')].slice(0, schema.maxLength ?? 255).join('')),
    );
  }
  const broken: fc.Arbitrary<string[]> = fc.constantFrom(
    [`${name}=%FF`],
    [`${name}=%ED%A0%80`],
    [`${name}=%`],
    [`${name}=a`, `${name}=b`],
    [`${name}[]=1`],
    [enc(name, '1e308')],
    [enc(name, '-0')],
    [enc(name, String(2 ** 53 + 1))],
    [enc(name, '1.5')],
    [enc(name, '')],
    [enc(name, 'x'.repeat(300))],
    [enc(name, '-nope')],
    [enc(name, Buffer.from('{"v":[1,2,3]}').toString('base64url'))],
  );
  return fc.oneof(...valid.map((arbitrary) => ({ weight: 3, arbitrary: arbitrary.map((v) => [enc(name, v)]) })), {
    weight: 2,
    arbitrary: broken,
  });
}

describe(`property tier: list query strings (${database})`, () => {
  let api: ApiApp;
  let ctx: ApiContext;
  let errorLines: string[];
  let lists: { template: string; params: Param[] }[];
  let ids: Record<string, number>;
  let cases = 0;
  const started = Date.now();

  beforeAll(async () => {
    api = await startApiApp('property-q', 'warn');
    ({ ctx, errorLines } = api);
    const program = await make(ctx, '/api/marketing-programs', planBody({ name: 'Zoë 😀 program' }));
    const group = await make(ctx, `/api/marketing-programs/${program.id}/campaign-groups`, planBody());
    const campaign = await make(ctx, `/api/campaign-groups/${group.id}/campaigns`, campaignBody());
    const customer = await make(ctx, '/api/customers', {
      first_name: 'Zoë 😀',
      email: 'ada@example.com',
      external_id: 'crm-1',
    });
    const audience = await make(ctx, '/api/audiences', {
      name: 'Dutch customers',
      rules: [{ rule_type: 'country', rule_value: 'NL' }],
    });
    const sub = await make(ctx, `/api/campaigns/${campaign.id}/sub-audiences`, {
      audience_id: audience.id,
      name: 'Recent buyers',
      segment_definition: '{"last_order_days":30}',
    });
    const upload = await http(ctx)
      .post('/api/customers/imports')
      .set('Authorization', ctx.root)
      .set('Content-Type', 'text/csv')
      .send('external_id,email\nq-1,not-an-email\n');
    if (upload.status !== 202) throw new Error(`fixture import: ${upload.status} ${JSON.stringify(upload.body)}`);
    const webhook = await make(ctx, '/api/webhooks', { url: WEBHOOK_URL, events: ['*'] });
    const { campaign: launched, run } = await endedDryRun(ctx);
    ids = {
      '/api/campaigns/{id}/runs': launched.id as number,
      '/api/campaign-runs/{id}/recipients': run.id as number,
      '/api/webhooks/{id}/deliveries': webhook.id,
      program_id: program.id,
      group_id: group.id,
      campaign_id: campaign.id,
      '/api/audiences/{id}/customers': audience.id,
      '/api/sub-audiences/{id}/customers': sub.id,
      '/api/customers/imports/{id}/errors': upload.body.data.id as number,
      '/api/customers/{id}/events': customer.id,
      '/api/customers/{id}/timeline': customer.id,
    };
    const document = buildOpenApiDocument(ctx.app);
    lists = Object.entries(document.paths).flatMap(([template, item]) => {
      const params = ((item.get?.parameters ?? []) as { in: string; name: string; schema: Schema }[])
        .filter((p) => p.in === 'query')
        .map((p) => ({ name: p.name, schema: p.schema }));
      return params.some((p) => p.name === 'limit') ? [{ template, params }] : [];
    });
  });

  afterAll(async () => {
    process.stdout.write(
      `\nproperty tier (list queries) on ${database}: ${cases} generated cases over ${lists.length} lists in ` +
        `${((Date.now() - started) / 1000).toFixed(1)} s (seed ${SEED})\n`,
    );
    await api?.close();
  });

  it('walks every list of the document', () => {
    expect(lists.length).toBeGreaterThanOrEqual(15);
  });

  it(
    'never answers a 5xx; refuses only with a 422 on a query parameter; a 200 is a page',
    async () => {
      for (const list of lists) {
        // `{id}` is the record the list hangs off, named by the list's template.
        const path = list.template.replace(/\{(\w+)\}/g, (_m, name: string) => {
          const id = name === 'id' ? ids[list.template] : ids[name];
          if (!id) throw new Error(`no id for {${name}} in ${list.template}`);
          return String(id);
        });
        const names = list.params.map((p) => p.name);
        const query = fc
          .tuple(...list.params.map((p) => fc.option(paramArb(p), { freq: 2 })))
          .map((parts) => parts.flatMap((part) => part ?? []));
        const details = await fc.check(
          fc.asyncProperty(query, async (parts) => {
            cases++;
            const url = `${path}?${parts.join('&')}`;
            const errorsBefore = errorLines.length;
            const res = await http(ctx).get(url).set('Authorization', ctx.root).set('Accept', 'application/json');
            const where = `GET ${url} answered ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`;
            if (res.status >= 500 || errorLines.length > errorsBefore)
              throw new Error(`a 5xx or an error log: ${where}`);
            if (res.status === 200) {
              if (!Array.isArray(res.body.data) || typeof res.body.meta?.has_more !== 'boolean')
                throw new Error(`not a page: ${where}`);
              return;
            }
            const keys = Object.keys(res.body.errors ?? {});
            if (res.status !== 422 || !keys.length || !keys.every((k) => names.includes(k.split('.')[0]))) {
              throw new Error(`not a 422 on a query parameter: ${where}`);
            }
          }),
          { seed: seedOf(list.template), numRuns: RUNS, endOnFailure: !!process.env.CI, includeErrorInReport: true },
        );
        if (details.failed) {
          throw new Error(`${list.template}: PROPERTY_SEED=${SEED}\n\n${await fc.asyncDefaultReportMessage(details)}`);
        }
      }
    },
    20 * 60_000,
  );
});

import { MAX_BODY_DEPTH } from '../src/common/http/body-parsing.js';
import { startApiApp, type ApiApp } from './property/support/api-app.js';
import { exampleBody, nestedText, withRawMember } from './property/support/bodies.js';
import { writeOperations, type WriteOperation } from './property/support/openapi-operations.js';
import { prepareTarget, sendRaw, tableCounts, type ApiContext } from './property/support/targets.js';

/**
 * A body holding an unknown key nested 50,000 levels deep, sent to every POST and PUT operation of
 * the OpenAPI document (login and send-email included): a 400 naming the limit, nothing written,
 * and no error-level log line (the parser and the depth check are iterative: no stack overflow).
 */
describe('bodies nested deeper than the limit', () => {
  let api: ApiApp;
  let ctx: ApiContext;
  let errorLines: string[];
  let operations: WriteOperation[];

  beforeAll(async () => {
    api = await startApiApp('deep', 'info');
    ({ ctx, errorLines } = api);
    operations = writeOperations(ctx.app);
  });
  afterAll(() => api?.close());

  it('walks every POST and PUT operation, login and send-email included', () => {
    const ids = operations.map((op) => op.operationId);
    expect(ids).toEqual(expect.arrayContaining(['login', 'sendEmail', 'logout', 'createCustomer', 'updateCampaign']));
    expect(operations.length).toBeGreaterThanOrEqual(30);
  });

  it('answers 400 naming the limit, writes nothing and logs no error', async () => {
    const answers: string[] = [];
    let bodiless = 0;
    for (const op of operations) {
      const target = await prepareTarget(ctx, op);
      // A route that reads no body (the one-click unsubscribe, RFC 8058) takes any: nothing to refuse.
      if (target.anyBody) {
        bodiless++;
        continue;
      }
      const body = exampleBody(target);
      for (const kind of ['objects', 'arrays'] as const) {
        const raw = withRawMember(body, 'zz_unknown', nestedText(50_000, kind));
        const authorization = await target.authorization!();
        const counts = await tableCounts(ctx);
        const record = target.recordId !== undefined ? await target.read!(target.recordId) : undefined;
        const res = await sendRaw(ctx, target, raw, authorization);
        const route = `${op.method.toUpperCase()} ${op.template} (${kind})`;
        answers.push(`${route} ${res.status}`);
        // A route that takes another media type (a CSV upload) refuses any JSON body first.
        expect({ route, status: res.status, body: res.body, cache: res.headers['cache-control'] }).toEqual({
          route,
          status: op.takesJson ? 400 : 415,
          body: op.takesJson
            ? { message: `The request body nests deeper than ${MAX_BODY_DEPTH} levels.` }
            : { message: expect.stringMatching(/^Unsupported Media Type/) },
          cache: 'no-cache, private',
        });
        expect({ route, counts: await tableCounts(ctx) }).toEqual({ route, counts });
        if (target.recordId !== undefined)
          expect({ route, record: await target.read!(target.recordId) }).toEqual({ route, record });
      }
    }
    expect(bodiless).toBeLessThanOrEqual(1);
    expect(answers).toHaveLength((operations.length - bodiless) * 2);
    expect(errorLines).toEqual([]);
  });

  it('still takes a body nested exactly to the limit (the unknown key is ignored)', async () => {
    const op = operations.find((o) => o.operationId === 'createCustomer')!;
    const target = await prepareTarget(ctx, op);
    // The body is level 1, so the unknown key's value may nest 31 levels.
    const res = await sendRaw(
      ctx,
      target,
      withRawMember({ first_name: 'Deep' }, 'zz', nestedText(MAX_BODY_DEPTH - 1)),
      ctx.root,
    );
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ first_name: 'Deep' });
    expect(res.body.data).not.toHaveProperty('zz');
    const deeper = await sendRaw(
      ctx,
      target,
      withRawMember({ first_name: 'Deeper' }, 'zz', nestedText(MAX_BODY_DEPTH)),
      ctx.root,
    );
    expect(deeper.status).toBe(400);
  });
});

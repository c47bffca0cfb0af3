import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import type { Row } from '../support/marketing-factories.js';
import { mysqlBaseUrl } from '../support/test-database.js';
import { startApiApp, type ApiApp } from './support/api-app.js';
import { caseArb, type GeneratedCase } from './support/bodies.js';
import { echoDifferences } from './support/echo.js';
import { writeOperations, type WriteOperation } from './support/openapi-operations.js';
import { PATH, RUNS, SEED, seedOf } from './support/settings.js';
import {
  knownOperations,
  prepareTarget,
  sendRaw,
  tableCounts,
  totalOf,
  type ApiContext,
  type Target,
} from './support/targets.js';

/**
 * The property tier: for every POST and PUT operation of the OpenAPI document, bodies generated
 * from the operation's request schema, valid ones and ones broken field by field (test/property/
 * support/bodies.ts), sent as raw JSON text. For every answer:
 * - it is never a 5xx, and the app logs no error-level line;
 * - a 4xx changes nothing: row counts of every table, the list's `meta.total`, and for a PUT the
 *   record itself are as before;
 * - a body that breaks a rule of the contract is not answered 2xx;
 * - a 2xx stored exactly what was sent: the record read back holds every sent field (after the
 *   normalizations of support/echo.ts), equals the answer's `data`, and a PUT left the fields it
 *   was not sent as they were.
 *
 * PROPERTY_SEED (default in support/settings.ts) and PROPERTY_RUNS (cases per operation) steer
 * it; each operation draws from its own seed derived from PROPERTY_SEED and its operationId. A
 * failure prints the command that replays it (PROPERTY_PATH, the counterexample's path, with -t
 * for its operation):
 *   PROPERTY_SEED=<seed> PROPERTY_PATH=<path> npx jest --selectProjects property -t ' <operationId>:'
 * PROPERTY_DEBUG=1 prints every request and answer.
 */
const database = mysqlBaseUrl() ? 'MariaDB/MySQL' : 'SQLite';

interface Tally {
  cases: number;
  valid: number;
  broken: number;
  byStatus: Record<string, number>;
  ms: number;
}

describe(`property tier (${database})`, () => {
  let api: ApiApp;
  let ctx: ApiContext;
  let operations: WriteOperation[];
  let errorLines: string[];
  const tallies: Record<string, Tally> = {};
  const started = Date.now();

  beforeAll(async () => {
    process.stdout.write(
      `\nproperty tier on ${database}: seed ${SEED}, ${RUNS} cases per operation` +
        ` (replay: PROPERTY_SEED=${SEED} npx jest --selectProjects property -t ' <operationId>:')\n`,
    );
    api = await startApiApp('property', 'warn');
    ({ ctx, errorLines } = api);
    operations = writeOperations(ctx.app);
  });

  afterAll(async () => {
    const rows = Object.entries(tallies).map(
      ([id, t]) =>
        `  ${id.padEnd(28)} ${String(t.cases).padStart(4)} cases (${t.valid} valid, ${t.broken} broken) ` +
        `${(t.ms / 1000).toFixed(1).padStart(6)} s  ${Object.entries(t.byStatus)
          .sort()
          .map(([s, n]) => `${s}×${n}`)
          .join(' ')}`,
    );
    const total = Object.values(tallies).reduce((sum, t) => sum + t.cases, 0);
    process.stdout.write(
      `\nproperty tier on ${database}: ${total} generated cases over ${rows.length} operations in ` +
        `${((Date.now() - started) / 1000).toFixed(1)} s (seed ${SEED})\n${rows.join('\n')}\n`,
    );
    await api?.close();
  });

  it('has a target for every POST and PUT operation of the document', () => {
    expect(operations.map((op) => op.operationId).sort()).toEqual(knownOperations().sort());
  });

  it.each(knownOperations())(
    '%s: no 5xx; a 4xx changes nothing; a 2xx stores what was sent',
    async (operationId) => {
      const op = operations.find((o) => o.operationId === operationId);
      if (!op) throw new Error(`${operationId} is not in the OpenAPI document`);
      const target = await prepareTarget(ctx, op);
      const tally: Tally = (tallies[operationId] = { cases: 0, valid: 0, broken: 0, byStatus: {}, ms: 0 });
      const t0 = Date.now();
      try {
        const details = await fc.check(
          fc.asyncProperty(caseArb(target).map(printable), async (c) => {
            const status = await checkCase(ctx, target, c, errorLines);
            tally.cases++;
            tally[c.kind]++;
            tally.byStatus[status] = (tally.byStatus[status] ?? 0) + 1;
          }),
          // In CI the first failure is reported as it is: no shrinking, so the run stays bounded.
          {
            seed: seedOf(operationId),
            numRuns: RUNS,
            path: PATH,
            endOnFailure: !!process.env.CI,
            includeErrorInReport: true,
          },
        );
        if (details.failed) {
          throw new Error(
            `${operationId} failed. Replay: PROPERTY_SEED=${SEED} PROPERTY_RUNS=${RUNS} ` +
              `PROPERTY_PATH=${details.counterexamplePath} npx jest --selectProjects property -t ' ${operationId}:'\n\n` +
              (await fc.asyncDefaultReportMessage(details)),
          );
        }
      } finally {
        tally.ms = Date.now() - t0;
      }
    },
    20 * 60_000,
  );
});

/** fast-check prints a counterexample with this (a raw body can be a megabyte long). */
function printable(c: GeneratedCase): GeneratedCase {
  const raw = typeof c.raw === 'string' ? c.raw : `<bytes ${c.raw.toString('latin1')}>`;
  return Object.assign(c, {
    [fc.toStringMethod]: () => `${c.label}: ${raw.length > 300 ? `${raw.slice(0, 300)}… (${raw.length} chars)` : raw}`,
  });
}

interface State {
  counts: Record<string, number>;
  total?: number;
  record?: Record<string, unknown>;
}

async function stateOf(ctx: ApiContext, target: Target): Promise<State> {
  return {
    counts: await tableCounts(ctx),
    total: target.list ? await totalOf(ctx, target.list) : undefined,
    record: target.recordId !== undefined ? await target.read!(target.recordId) : undefined,
  };
}

function changes(before: State, after: State): string[] {
  const out: string[] = [];
  for (const table of Object.keys(before.counts)) {
    if (before.counts[table] !== after.counts[table])
      out.push(`${table}: ${before.counts[table]} → ${after.counts[table]} rows`);
  }
  if (before.total !== after.total) out.push(`list total: ${before.total} → ${after.total}`);
  if (!isDeepStrictEqual(before.record, after.record)) {
    out.push(`record: ${JSON.stringify(before.record)} → ${JSON.stringify(after.record)}`);
  }
  return out;
}

const short = (v: unknown) => {
  const text = JSON.stringify(v) ?? '';
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
};

interface BatchResult {
  status: string;
  errors?: object;
}

/** Sends one generated case and checks the answer; answers the status class for the tally. */
async function checkCase(ctx: ApiContext, target: Target, c: GeneratedCase, errorLines: string[]): Promise<string> {
  const authorization = await target.authorization!();
  const before = await stateOf(ctx, target);
  const errorsBefore = errorLines.length;
  const res = await sendRaw(ctx, target, c.raw, authorization);
  const where = `${target.op.method.toUpperCase()} ${target.path} [${c.label}] answered ${res.status} ${short(res.body)}`;
  if (process.env.PROPERTY_DEBUG)
    process.stdout.write(`${where}\n   sent ${short(c.body ?? c.raw.toString().slice(0, 300))}\n`);

  if (res.status >= 500) throw new Error(`a 5xx: ${where}`);
  if (res.status < 300) await target.settle?.(res.body.data as Row);
  if (errorLines.length > errorsBefore)
    throw new Error(`error-level log line: ${where}\n${errorLines.slice(errorsBefore).join('\n')}`);
  if (Object.hasOwn(Object.prototype, 'polluted')) throw new Error(`Object.prototype polluted: ${where}`);
  if (res.status >= 400) {
    const after = await stateOf(ctx, target);
    const changed = changes(before, after);
    if (changed.length) throw new Error(`a ${res.status} changed something: ${where}\n${changed.join('\n')}`);
    if (typeof res.body?.message !== 'string') throw new Error(`an error body without a message: ${where}`);
    if (res.status === 422 && (typeof res.body.errors !== 'object' || !Object.keys(res.body.errors).length)) {
      throw new Error(`a 422 without field errors: ${where}`);
    }
    return `${res.status}`;
  }
  if (c.mustFail && !target.anyBody) {
    // A batch may answer 2xx to a broken item, as long as that item (or, for a broken list, some item) failed.
    const field = target.itemsFailAlone;
    if (!field || !(c.label.startsWith(`${field}.`) || c.label.startsWith(`${field}:`)))
      throw new Error(`accepted a body that breaks the contract: ${where}`);
    const index = new RegExp(`^${field}\\.(\\d+)\\.`).exec(c.label)?.[1];
    const results = (Array.isArray(res.body.data) ? res.body.data : []) as BatchResult[];
    const failed = (r?: BatchResult) => r?.status === 'failed' && !!Object.keys(r.errors ?? {}).length;
    if (index !== undefined ? !failed(results[Number(index)]) : !results.some(failed))
      throw new Error(`a broken item did not fail: ${where}`);
    return `${res.status}`;
  }
  if (!target.read || !c.body) return `${res.status}`;

  // Fields only the write's answer shows (a webhook's secret, once) are not part of the record.
  const data = Object.fromEntries(
    Object.entries(res.body.data as Record<string, unknown>).filter(([key]) => !target.answerOnly?.includes(key)),
  );
  const id = target.recordId ?? (data.id as number);
  const record = await target.read(id);
  if (!record) throw new Error(`the record is not there after a ${res.status}: ${where}`);
  if (!isDeepStrictEqual(record, data)) {
    throw new Error(`the answer is not the stored record: ${where}\nstored: ${short(record)}`);
  }
  const differences = echoDifferences(target.op.body!, target.op.answer, c.body, record);
  if (differences.length) throw new Error(`a ${res.status} stored something else: ${where}\n${differences.join('\n')}`);
  if (target.op.method === 'put' && before.record) {
    const untouched = Object.keys(target.op.body?.properties ?? {}).filter(
      (key) =>
        !Object.hasOwn(c.body!, key) && key in before.record! && !isDeepStrictEqual(before.record![key], record[key]),
    );
    if (untouched.length) throw new Error(`a PUT changed fields it was not sent (${untouched.join(', ')}): ${where}`);
  }
  return `${res.status}`;
}

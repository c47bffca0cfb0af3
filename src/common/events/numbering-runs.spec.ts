import fc from 'fast-check';
import { numberingRuns, type Numbering } from './numbering-runs.js';

const numbered = (rows: [id: number, tenantId: number, sequence: number][]): Numbering[] =>
  rows.map(([id, tenantId, sequence]) => ({ id, tenantId, sequence }));

/** What the runs and the rest together number, as id -> sequence. */
function applied(result: ReturnType<typeof numberingRuns>, ids: readonly number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const run of result.runs) {
    for (const id of ids) {
      if (id >= run.first && id <= run.last && (id - run.first) % run.step === 0) {
        expect(out.has(id)).toBe(false);
        out.set(id, run.sequence + (id - run.first) / run.step);
      }
    }
  }
  for (const event of result.rest) {
    expect(out.has(event.id)).toBe(false);
    out.set(event.id, event.sequence);
  }
  return out;
}

describe('numberingRuns', () => {
  it('numbers one bulk write by one range', () => {
    const rows = numbered(Array.from({ length: 100 }, (_, i) => [500 + i, 7, 41 + i]));
    expect(numberingRuns(rows, 4)).toEqual({ runs: [{ first: 500, last: 599, step: 1, sequence: 41 }], rest: [] });
  });

  it("keeps a cluster's auto-increment step", () => {
    const rows = numbered(Array.from({ length: 5 }, (_, i) => [2 + 3 * i, 1, 10 + i]));
    expect(numberingRuns(rows, 4).runs).toEqual([{ first: 2, last: 14, step: 3, sequence: 10 }]);
  });

  it('breaks a run where the tenant, the step or the numbers change, and leaves short runs to the rest', () => {
    const rows = numbered([
      [1, 1, 1],
      [2, 1, 2],
      [3, 1, 3],
      [4, 2, 1], // another tenant
      [5, 1, 4],
      [6, 1, 5],
      [8, 1, 6], // a gap: a rolled-back write, or one still open
      [9, 1, 7],
      [10, 1, 8],
    ]);
    const result = numberingRuns(rows, 3);
    expect(result.runs).toEqual([
      { first: 1, last: 3, step: 1, sequence: 1 },
      { first: 8, last: 10, step: 1, sequence: 6 },
    ]);
    expect(result.rest.map((event) => event.id)).toEqual([4, 5, 6]);
  });

  it('answers an empty pass with nothing', () => {
    expect(numberingRuns([], 2)).toEqual({ runs: [], rest: [] });
  });

  it('numbers every event of a pass exactly as given, once, whatever the ids and tenants', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ gap: fc.integer({ min: 1, max: 4 }), tenantId: fc.integer({ min: 1, max: 3 }) }), {
          maxLength: 200,
        }),
        fc.integer({ min: 1, max: 8 }),
        (draws, minRun) => {
          // Ids ascend (the pass reads in id order); each tenant's numbers continue from its last.
          let id = 0;
          const last = new Map<number, number>();
          const rows = draws.map(({ gap, tenantId }) => {
            id += gap;
            const sequence = (last.get(tenantId) ?? 0) + 1;
            last.set(tenantId, sequence);
            return { id, tenantId, sequence };
          });
          const result = numberingRuns(rows, minRun);
          // Ids between the pass's ids are other transactions' rows: a range must never number them.
          const everyId = Array.from({ length: id + 1 }, (_, i) => i);
          const got = applied(result, everyId);
          expect(got).toEqual(new Map(rows.map((row) => [row.id, row.sequence])));
          for (const run of result.runs) expect((run.last - run.first) / run.step + 1).toBeGreaterThanOrEqual(minRun);
        },
      ),
    );
  });
});

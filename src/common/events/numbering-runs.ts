/** An event the numbering pass gives a number: its row id, its tenant and the number. */
export interface Numbering {
  id: number;
  tenantId: number;
  sequence: number;
}

/**
 * Events numbered by one range UPDATE: ids `first`, `first + step`, ... `last`, every one of them in
 * the pass, of one tenant, numbered `sequence + (id - first) / step`.
 */
export interface NumberingRun {
  first: number;
  last: number;
  step: number;
  sequence: number;
}

/**
 * Splits a pass's numbering (in id order) into runs that one range UPDATE can number, and the rest
 * (numbered by one UPDATE over a table of values). A run is at least `minRun` events of one tenant,
 * consecutive in the pass, with ids a constant step apart (1, or the cluster's auto-increment step)
 * and numbers one apart: the commits of a bulk write, or of one tenant's writers, make such runs.
 * Updating a range is cheaper for the database than joining a derived table of thousands of rows.
 */
export function numberingRuns(
  numbering: readonly Numbering[],
  minRun: number,
): { runs: NumberingRun[]; rest: Numbering[] } {
  const runs: NumberingRun[] = [];
  const rest: Numbering[] = [];
  let start = 0;
  while (start < numbering.length) {
    const first = numbering[start];
    const step = start + 1 < numbering.length ? numbering[start + 1].id - first.id : 1;
    let end = start + 1;
    while (
      end < numbering.length &&
      numbering[end].tenantId === first.tenantId &&
      numbering[end].id - numbering[end - 1].id === step &&
      numbering[end].sequence === numbering[end - 1].sequence + 1
    ) {
      end++;
    }
    if (end - start >= minRun) {
      runs.push({ first: first.id, last: numbering[end - 1].id, step, sequence: first.sequence });
      start = end;
    } else {
      rest.push(first);
      start++;
    }
  }
  return { runs, rest };
}

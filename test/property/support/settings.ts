/**
 * How the property tier runs: PROPERTY_SEED (a fixed default, printed by each suite), PROPERTY_RUNS
 * (generated cases per operation or list), PROPERTY_PATH (replays one counterexample, with
 * `-t ' <operationId>:'`). Each operation draws from its own seed, derived from PROPERTY_SEED and
 * its name, so that a filtered run replays the same cases.
 */
export const SEED = process.env.PROPERTY_SEED ? Number(process.env.PROPERTY_SEED) : 20260521;
export const RUNS = process.env.PROPERTY_RUNS ? Number(process.env.PROPERTY_RUNS) : 40;
export const PATH = process.env.PROPERTY_PATH || undefined;

export function seedOf(name: string): number {
  let hash = SEED | 0;
  for (const ch of name) hash = (Math.imul(hash, 31) + ch.charCodeAt(0)) | 0;
  return hash;
}

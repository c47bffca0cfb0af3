import { performance } from 'node:perf_hooks';

/**
 * The customers of the audience scale probe and benchmark: one tenant's customers arriving over
 * three years (created_at grows with the id, as the app writes it), with varied names, e-mail
 * domains, phones, activity and attributes (country, plan, ltv, orders, vip, signup, tags,
 * address). Deterministic: the same seed gives the same rows.
 */
export const DAY_MS = 86_400_000;
export const HISTORY_DAYS = 3 * 365;
const CHUNK = 5000;

/** Deterministic pseudo-random numbers (mulberry32), so every run seeds the same data. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Picks from [value, weight] pairs. */
const weighted = <T>(rand: () => number, choices: [T, number][]): T => {
  const total = choices.reduce((sum, [, w]) => sum + w, 0);
  let r = rand() * total;
  for (const [value, w] of choices) if ((r -= w) < 0) return value;
  return choices[choices.length - 1][0];
};

const FIRST = [
  'Ana',
  'Bram',
  'Chloé',
  'Daan',
  'Emma',
  'Finn',
  'Greta',
  'Hugo',
  'Iris',
  'Jonas',
  'Zoë',
  'Noah',
  'Lotte',
];
const LAST = ['de Vries', 'Jansen', 'Müller', 'Smith', 'García', "O'Brien", 'Bakker', 'Visser', 'Dubois', 'Rossi'];
const DOMAINS: [string, number][] = [
  ['gmail.com', 30],
  ['yahoo.com', 8],
  ['outlook.com', 10],
  ['hotmail.com', 7],
  ['example.com', 5],
  ['ziggo.nl', 5],
  ['web.de', 5],
  ['orange.fr', 5],
  ['company', 25],
];
const COUNTRIES: [string | null, number][] = [
  ['NL', 20],
  ['DE', 15],
  ['US', 15],
  ['GB', 10],
  ['FR', 10],
  ['BE', 5],
  ['ES', 5],
  ['IT', 5],
  ['SE', 5],
  ['PL', 5],
  [null, 5],
];
const PLANS: [string, number][] = [
  ['free', 60],
  ['pro', 30],
  ['enterprise', 10],
];
const CITIES = ['Amsterdam', 'Berlin', 'Paris', 'London', 'Madrid', 'Rome', 'Stockholm', 'Warsaw', 'Austin', 'Ghent'];

export const instantText = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

/** One customer row; created_at grows with the index (customers arrive over three years). */
function customerRow(
  tenantId: number,
  batch: number,
  index: number,
  count: number,
  rand: () => number,
  now: Date,
): unknown[] {
  const first = FIRST[Math.floor(rand() * FIRST.length)];
  const last = LAST[Math.floor(rand() * LAST.length)];
  let domain = weighted(rand, DOMAINS);
  if (domain === 'company') domain = `c${Math.floor(rand() * 5000)}.com`;
  const local = `${first}.${last}`.toLowerCase().replace(/[^a-z.]/g, '');
  const createdMs =
    now.getTime() - HISTORY_DAYS * DAY_MS + Math.floor(((index + rand()) / count) * HISTORY_DAYS * DAY_MS);
  const created = Math.min(createdMs, now.getTime());
  const updated = Math.min(created + Math.floor(rand() * 90 * DAY_MS), now.getTime());
  const country = weighted(rand, COUNTRIES);
  const attributes: Record<string, unknown> = {
    plan: weighted(rand, PLANS),
    ltv: Math.round(rand() * 500000) / 100,
    orders: Math.floor(rand() * 40),
    vip: rand() < 0.05,
    signup: new Date(created).toISOString().slice(0, 10),
    tags: rand() < 0.5 ? ['newsletter'] : ['newsletter', 'sms'],
    address: { city: CITIES[Math.floor(rand() * CITIES.length)], zip: String(1000 + Math.floor(rand() * 9000)) },
  };
  if (country !== null) attributes.country = country;
  return [
    tenantId,
    `t${tenantId}-${batch}-${index}`,
    first,
    last,
    `${local}${index}@${domain}`,
    rand() < 0.3 ? null : `+31 6 ${String(Math.floor(rand() * 1e8)).padStart(8, '0')}`,
    rand() < 0.02 ? null : JSON.stringify(attributes),
    rand() < 0.9 ? 1 : 0,
    instantText(created),
    instantText(updated),
  ];
}

/** Runs one statement with positional parameters (a TypeORM DataSource's or a mysql2 connection's query). */
export type RunSql = (sql: string, params: unknown[]) => Promise<unknown>;

/** Inserts `count` customers into the tenant, 5,000 per statement; `seed` names the batch (external ids). */
export async function seedCustomers(
  run: RunSql,
  tenantId: number,
  count: number,
  seed: number,
  now: Date,
  log: (line: string) => void,
): Promise<void> {
  const rand = random(seed);
  const started = performance.now();
  for (let start = 0; start < count; start += CHUNK) {
    const size = Math.min(CHUNK, count - start);
    const params = Array.from({ length: size }, (_, i) =>
      customerRow(tenantId, seed, start + i, count, rand, now),
    ).flat();
    await run(
      'INSERT INTO customers (tenant_id, external_id, first_name, last_name, email, phone, attributes, is_active, created_at, updated_at) VALUES ' +
        Array.from({ length: size }, () => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', '),
      params,
    );
    if ((start / CHUNK) % 40 === 39) log(`  ${start + size} customers of tenant ${tenantId}`);
  }
  log(`seeded ${count} customers in tenant ${tenantId} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

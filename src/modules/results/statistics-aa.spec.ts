import { srm, twoProportionPValue, wilsonInterval, type GroupCounts } from './statistics.js';

/**
 * mulberry32 (Tommy Ettinger's 32-bit generator): uniform in [0, 1). Its state is a Weyl sequence,
 * so the streams of two seeds can overlap; the experiments take consecutive stretches of one
 * seeded stream instead (period 2³², a run draws 16 million), which never do.
 */
function mulberry32(seed: number): () => number {
  // A local binding: in Jest's sandbox every read of a global (Math) is slow, and this runs 16 M times.
  const imul = Math.imul;
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = imul(t ^ (t >>> 15), t | 1);
    t ^= t + imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const EXPERIMENTS = 2000;
const CUSTOMERS = 4000;
const TRUE_RATE = 0.1;

interface Experiment {
  a: GroupCounts;
  b: GroupCounts;
}

/** An A/A test: each customer lands in A or B by a fair coin and converts at the same true rate. */
function simulate(random: () => number): Experiment {
  const a = { members: 0, converted: 0, valueSum: 0 };
  const b = { members: 0, converted: 0, valueSum: 0 };
  for (let customer = 0; customer < CUSTOMERS; customer++) {
    const group = random() < 0.5 ? a : b;
    group.members++;
    if (random() < TRUE_RATE) group.converted++;
  }
  return { a, b };
}

/**
 * Under the null the number of experiments past a 5 % threshold is Binomial(2000, 0.05): mean 100,
 * standard deviation √(2000 · 0.05 · 0.95) ≈ 9.75, a share of 5 % ± 0.49 %. Four standard deviations
 * (± 1.95 %, a chance of about 6·10⁻⁵ to fail a correct test whatever the seed) still fail a test
 * that is off by a factor of two: a one-sided p-value (≈ 10 %) or a 90 % quantile in place of 97.5 %.
 * The 4,000 intervals of a coverage count: √(4000 · 0.05 · 0.95) / 4000 ≈ 0.34 %, four times ± 1.4 %.
 */
const share = (hits: number, total: number): number => hits / total;

describe('an A/A simulation (two identical groups, 2,000 experiments of 4,000 customers)', () => {
  const random = mulberry32(45);
  const experiments = Array.from({ length: EXPERIMENTS }, () => simulate(random));

  it('finds p < 0.05 in about 5 % of the experiments', () => {
    const falsePositives = experiments.filter(({ a, b }) => twoProportionPValue(a, b)! < 0.05).length;
    expect(share(falsePositives, EXPERIMENTS)).toBeGreaterThan(0.0305);
    expect(share(falsePositives, EXPERIMENTS)).toBeLessThan(0.0695);
  });

  it('covers the true rate with the Wilson interval about 95 % of the time', () => {
    const intervals = experiments.flatMap(({ a, b }) => [wilsonInterval(a)!, wilsonInterval(b)!]);
    const covered = intervals.filter(([low, high]) => low <= TRUE_RATE && TRUE_RATE <= high).length;
    expect(share(covered, intervals.length)).toBeGreaterThan(0.936);
    expect(share(covered, intervals.length)).toBeLessThan(0.964);
  });

  it('finds a sample-ratio p < 0.05 in about 5 % of the fair splits, and almost never a mismatch', () => {
    const splits = experiments.map(({ a, b }) =>
      srm([
        { members: a.members, allocationPercentage: 50 },
        { members: b.members, allocationPercentage: 50 },
      ]),
    );
    expect(share(splits.filter((split) => split.p_value! < 0.05).length, EXPERIMENTS)).toBeGreaterThan(0.0305);
    expect(share(splits.filter((split) => split.p_value! < 0.05).length, EXPERIMENTS)).toBeLessThan(0.0695);
    // Mismatches are Binomial(2000, 0.001), mean 2: more than 8 has a probability of about 2·10⁻⁴.
    expect(splits.filter((split) => split.mismatch).length).toBeLessThanOrEqual(8);
  });
});

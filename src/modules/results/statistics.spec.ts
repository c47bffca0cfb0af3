import fc from 'fast-check';
import {
  benjaminiHochberg,
  campaignStatistics,
  compareWithControl,
  describeGroup,
  relativeLiftInterval,
  srm,
  twoProportionPValue,
  wilsonInterval,
  type GoalCounts,
  type GroupCounts,
  type GroupStatistics,
  type Interval,
} from './statistics.js';

/* Every expected number below is written with its source. "python" means computed independently of
 * this implementation with python3's statistics.NormalDist (z = NormalDist().inv_cdf(0.975)) and
 * math (erfc for the chi-squared distribution with 1 degree of freedom, erf for 3), e.g.
 *   python3 -c "from statistics import NormalDist as N; print(2 * N().cdf(-2.886751345948129))"
 */

const counts = (converted: number, members: number, valueSum = 0): GroupCounts => ({ members, converted, valueSum });

function expectInterval(actual: Interval | null, low: number, high: number, digits: number): void {
  expect(actual).not.toBeNull();
  expect(actual![0]).toBeCloseTo(low, digits);
  expect(actual![1]).toBeCloseTo(high, digits);
}

describe('wilsonInterval', () => {
  it("answers Newcombe's examples of the score interval without continuity correction", () => {
    // Newcombe RG (1998), "Two-sided confidence intervals for the single proportion: comparison of
    // seven methods", Statistics in Medicine 17:857-872, method 3 on the paper's worked examples,
    // given there to 4 decimals (python agrees: 0.25529, 0.36621; 0.06239, 0.16049; 0, 0.16113;
    // 0.00611, 0.17176).
    expectInterval(wilsonInterval(counts(81, 263)), 0.2553, 0.3662, 4);
    expectInterval(wilsonInterval(counts(15, 148)), 0.0624, 0.1605, 4);
    expectInterval(wilsonInterval(counts(0, 20)), 0, 0.1611, 4);
    expectInterval(wilsonInterval(counts(1, 29)), 0.0061, 0.1718, 4);
  });

  it('starts at exactly 0 with no conversions and ends at exactly 1 when everyone converted', () => {
    expect(wilsonInterval(counts(0, 20))![0]).toBe(0);
    expect(wilsonInterval(counts(20, 20))![1]).toBe(1);
    // By symmetry with 0/20 (Newcombe, above): 20/20 is [1 - 0.1611, 1].
    expectInterval(wilsonInterval(counts(20, 20)), 1 - 0.1611, 1, 4);
  });

  it('is null for a group with no members', () => {
    expect(wilsonInterval(counts(0, 0))).toBeNull();
  });
});

describe('twoProportionPValue', () => {
  it("agrees with R's prop.test without continuity correction (X² = z²)", () => {
    // R: prop.test(c(30, 50), c(100, 100), correct = FALSE) → X-squared = 8.3333, df = 1,
    // p-value = 0.003892417 (either order). python: z = 2.886751345948129, p = 0.0038924171227786575.
    // The formula is the NIST/SEMATECH e-Handbook's, §7.3.3, with a two-sided p = 2Φ(−|z|).
    expect(twoProportionPValue(counts(50, 100), counts(30, 100))).toBeCloseTo(0.0038924171227786575, 12);
  });

  it('answers the Physicians’ Health Study table', () => {
    // Myocardial infarction: aspirin 104 of 11,037, placebo 189 of 11,034 (the 2×2 table used in
    // Agresti's Categorical Data Analysis). python: z = −5.001388, X² = z² = 25.01, p = 5.69189697e-7.
    const p = twoProportionPValue(counts(104, 11037), counts(189, 11034))!;
    expect(p / 5.69189697374739e-7).toBeCloseTo(1, 8);
  });

  it('answers a campaign-sized difference', () => {
    // 11 % of 10,000 against 10 % of 10,000. python: z = 2.3066347738170103, p = 0.021075189273797812.
    expect(twoProportionPValue(counts(1100, 10000), counts(1000, 10000))).toBeCloseTo(0.021075189273797812, 12);
  });

  it('is symmetric, 1 when the rates are equal, and null without members', () => {
    expect(twoProportionPValue(counts(30, 100), counts(50, 100))).toBe(
      twoProportionPValue(counts(50, 100), counts(30, 100)),
    );
    expect(twoProportionPValue(counts(10, 100), counts(20, 200))).toBe(1);
    // No conversions anywhere (or everyone converted): no standard error, no evidence of a difference.
    expect(twoProportionPValue(counts(0, 100), counts(0, 5000))).toBe(1);
    expect(twoProportionPValue(counts(100, 100), counts(5000, 5000))).toBe(1);
    expect(twoProportionPValue(counts(0, 0), counts(10, 100))).toBeNull();
    expect(twoProportionPValue(counts(10, 100), counts(0, 0))).toBeNull();
  });
});

describe('relativeLiftInterval', () => {
  it('answers the delta-method interval', () => {
    // Treatment 1,100/10,000 against control 1,000/10,000: lift 10 %. python, with
    // Var = p_t(1−p_t)/n_t/p_c² + p_t²·p_c(1−p_c)/n_c/p_c⁴ (GrowthBook's variance_of_ratios without covariance):
    // [0.010870112525621048, 0.18912988747437887].
    expectInterval(
      relativeLiftInterval(counts(1100, 10000), counts(1000, 10000)),
      0.010870112525621,
      0.189129887474379,
      12,
    );
    // Physicians' Health Study (above), aspirin against placebo: lift −44.99 %. python:
    // [−0.5807223040689766, −0.31904773351024834].
    expectInterval(
      relativeLiftInterval(counts(104, 11037), counts(189, 11034)),
      -0.580722304068977,
      -0.319047733510248,
      12,
    );
  });

  it('cuts the lower bound at −100 %', () => {
    // 3/20 against 2/20: lift +50 %, python gives [−2.0176193227224215, 3.0176193227224215].
    expectInterval(relativeLiftInterval(counts(3, 20), counts(2, 20)), -1, 3.0176193227224215, 12);
  });

  it('is null when the control has no conversions or either side no members', () => {
    expect(relativeLiftInterval(counts(5, 100), counts(0, 100))).toBeNull();
    expect(relativeLiftInterval(counts(0, 0), counts(5, 100))).toBeNull();
    expect(relativeLiftInterval(counts(5, 100), counts(0, 0))).toBeNull();
  });
});

describe('compareWithControl', () => {
  it('answers the lifts and the p-value', () => {
    const comparison = compareWithControl(counts(1100, 10000), counts(1000, 10000))!;
    expect(comparison.absolute_lift).toBeCloseTo(0.01, 15);
    expect(comparison.relative_lift).toBeCloseTo(0.1, 15);
    expect(comparison.p_value).toBeCloseTo(0.021075189273797812, 12);
  });

  it('answers an absolute lift but no relative one over a control without conversions', () => {
    expect(compareWithControl(counts(5, 100), counts(0, 100))).toEqual({
      absolute_lift: 0.05,
      relative_lift: null,
      relative_lift_ci: null,
      p_value: expect.any(Number),
    });
  });

  it('is null when either side has no members', () => {
    expect(compareWithControl(counts(0, 0), counts(5, 100))).toBeNull();
    expect(compareWithControl(counts(5, 100), counts(0, 0))).toBeNull();
  });
});

describe('describeGroup', () => {
  it('answers the rate, its interval and the value per member', () => {
    expect(describeGroup(counts(15, 148, 740))).toEqual({
      rate: 15 / 148,
      rate_ci: wilsonInterval(counts(15, 148)),
      value_per_member: 5,
    });
  });

  it('answers zeros and nulls for a group with no members', () => {
    expect(describeGroup(counts(0, 0))).toEqual({ rate: 0, rate_ci: null, value_per_member: 0 });
  });
});

describe('srm', () => {
  it("answers Mendel's 3 : 1 cross as a two-group split", () => {
    // Mendel's 8,023 seeds, 6,022 yellow and 2,001 green against 3 : 1 (Agresti, Categorical Data
    // Analysis, 2nd ed., §1.5: X² = 0.015, P-value = 0.90). python: X² = 0.01499854584735552,
    // p = erfc(√(X²/2)) = 0.9025279515853211.
    const result = srm([
      { members: 6022, allocationPercentage: 75 },
      { members: 2001, allocationPercentage: 25 },
    ]);
    expect(result.p_value).toBeCloseTo(0.9025279515853211, 10);
    expect(result.mismatch).toBe(false);
  });

  it("answers Mendel's 9 : 3 : 3 : 1 dihybrid cross with 3 degrees of freedom", () => {
    // Mendel's 315 round yellow, 108 round green, 101 wrinkled yellow, 32 wrinkled green against
    // 9 : 3 : 3 : 1, the textbook goodness-of-fit example: X² = 0.470, p = 0.925. python (χ² CDF with
    // 3 df = erf(√(x/2)) − √(2x/π)·e^(−x/2)): X² = 0.4700239808153477, p = 0.925425895103616.
    const result = srm([
      { members: 315, allocationPercentage: 56.25 },
      { members: 108, allocationPercentage: 18.75 },
      { members: 101, allocationPercentage: 18.75 },
      { members: 32, allocationPercentage: 6.25 },
    ]);
    expect(result.p_value).toBeCloseTo(0.925425895103616, 10);
  });

  it('renormalizes allocations that add up to less than 100 and leaves groups at 0 % out', () => {
    const dihybrid = [315, 108, 101, 32];
    const held = srm(dihybrid.map((members, i) => ({ members, allocationPercentage: [45, 15, 15, 5][i] })));
    expect(held.p_value).toBeCloseTo(0.925425895103616, 10);
    const withRetired = srm([
      ...dihybrid.map((members, i) => ({ members, allocationPercentage: [45, 15, 15, 5][i] })),
      { members: 7, allocationPercentage: 0 },
    ]);
    expect(withRetired.p_value).toBe(held.p_value);
  });

  it('flags a mismatch below p = 0.001', () => {
    // 50/50 split. python: 10,000 vs 10,400 → X² = 7.8431, p = 0.005101399646004982;
    // 10,000 vs 10,500 → X² = 12.1951, p = 0.00047914643458729997.
    const near = srm([
      { members: 10000, allocationPercentage: 50 },
      { members: 10400, allocationPercentage: 50 },
    ]);
    expect(near).toEqual({ p_value: expect.closeTo(0.005101399646004982, 12), mismatch: false });
    const broken = srm([
      { members: 10000, allocationPercentage: 50 },
      { members: 10500, allocationPercentage: 50 },
    ]);
    expect(broken).toEqual({ p_value: expect.closeTo(0.00047914643458729997, 12), mismatch: true });
  });

  it('answers p = 1 for an exact split and null when there is nothing to test', () => {
    expect(
      srm([
        { members: 500, allocationPercentage: 50 },
        { members: 500, allocationPercentage: 50 },
      ]),
    ).toEqual({
      p_value: 1,
      mismatch: false,
    });
    expect(srm([{ members: 500, allocationPercentage: 100 }])).toEqual({ p_value: null, mismatch: false });
    expect(
      srm([
        { members: 0, allocationPercentage: 50 },
        { members: 0, allocationPercentage: 50 },
      ]),
    ).toEqual({
      p_value: null,
      mismatch: false,
    });
    expect(srm([])).toEqual({ p_value: null, mismatch: false });
  });
});

describe('benjaminiHochberg', () => {
  // Benjamini & Hochberg (1995), "Controlling the false discovery rate", JRSS B 57:289-300, worked example: the
  // 15 p-values of the myocardial infarction study; at q = 0.05 the procedure rejects the four
  // smallest (p ≤ 0.0095); Bonferroni (0.05/15) would reject three.
  const paper = [
    0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459, 0.324, 0.4262, 0.5719, 0.6528, 0.759, 1,
  ];

  it("rejects the paper's four hypotheses", () => {
    const adjusted = benjaminiHochberg(paper);
    expect(adjusted.map((p) => p < 0.05)).toEqual(paper.map((_, i) => i < 4));
  });

  it('answers the adjusted values in the order given', () => {
    // python, min over j ≥ i of m·p₍ⱼ₎/j (as R's p.adjust(p, "BH")).
    const expected = [
      0.0015, 0.003, 0.0095, 0.035625, 0.0603, 0.06385714285714286, 0.06385714285714286, 0.0645, 0.0765, 0.486,
      0.5811818181818182, 0.714875, 0.7532307692307694, 0.8132142857142857, 1,
    ];
    benjaminiHochberg(paper).forEach((p, i) => expect(p).toBeCloseTo(expected[i], 12));
    const shuffled = [7, 0, 14, 3, 9, 1, 12, 5, 2, 11, 4, 13, 6, 10, 8];
    benjaminiHochberg(shuffled.map((i) => paper[i])).forEach((p, k) =>
      expect(p).toBeCloseTo(expected[shuffled[k]], 12),
    );
  });

  it('answers nothing for nothing, and one p-value unchanged', () => {
    expect(benjaminiHochberg([])).toEqual([]);
    expect(benjaminiHochberg([0.03])).toEqual([0.03]);
  });
});

describe('campaignStatistics', () => {
  const treatment = counts(1100, 10000, 5500);
  const control = counts(1000, 10000, 4000);

  it('compares every group with its control; the control answers no comparison', () => {
    const [[ofControl, ofTreatment]] = campaignStatistics([{ groups: [control, treatment], control: 0 }]);
    expect(ofControl).toEqual({ ...describeGroup(control), vs_control: null });
    expect(ofTreatment.value_per_member).toBe(0.55);
    expect(ofTreatment.vs_control).toEqual({
      ...compareWithControl(treatment, control),
      significant: true, // p = 0.0211, alone in the campaign
    });
  });

  it('corrects over every goal passed in, not one goal at a time', () => {
    const flat = counts(1000, 10000);
    const goals: GoalCounts[] = [
      { groups: [control, treatment], control: 0 },
      { groups: [control, flat, flat, flat], control: 0 },
    ];
    // Four comparisons: 0.0211 · 4 / 1 = 0.084 after Benjamini–Hochberg.
    const [[, ofTreatment]] = campaignStatistics(goals);
    expect(ofTreatment.vs_control!.p_value).toBeCloseTo(0.021075189273797812, 12);
    expect(ofTreatment.vs_control!.significant).toBe(false);
  });

  it('answers zeros and nulls for an empty group, and no comparison against an empty control', () => {
    const [[, empty]] = campaignStatistics([{ groups: [control, counts(0, 0)], control: 0 }]);
    expect(empty).toEqual({ rate: 0, rate_ci: null, value_per_member: 0, vs_control: null });
    const [againstEmpty] = campaignStatistics([{ groups: [counts(0, 0), treatment], control: 0 }]);
    expect(againstEmpty.map((group) => group.vs_control)).toEqual([null, null]);
  });

  it('answers no comparison without a control', () => {
    const [groups] = campaignStatistics([{ groups: [control, treatment], control: null }]);
    expect(groups.map((group) => group.vs_control)).toEqual([null, null]);
  });
});

describe('every function, on any counts', () => {
  const anyCount = fc.oneof(
    fc.constantFrom(0, 1, 2, 10_000_000),
    fc.integer({ min: 0, max: 100 }),
    fc.integer({ min: 0, max: 10_000_000 }),
  );
  // The caller's contract: 0 ≤ converted ≤ members.
  const anyGroup = anyCount.chain((members) =>
    fc.record({
      members: fc.constant(members),
      converted: fc.oneof(fc.constantFrom(0, members), fc.integer({ min: 0, max: members })),
      valueSum: fc.oneof(fc.constant(0), fc.double({ min: -1e12, max: 1e12, noNaN: true })),
    }),
  );
  const anyGoal = fc
    .record({ groups: fc.array(anyGroup, { minLength: 1, maxLength: 6 }), pick: fc.option(fc.nat()) })
    .map(({ groups, pick }): GoalCounts => ({ groups, control: pick === null ? null : pick % groups.length }));
  const anyPercentage = fc.oneof(
    fc.constantFrom(0, 100),
    fc.integer({ min: 0, max: 10000 }).map((x) => x / 100),
  );

  // Plain checks that list what is wrong (one expect per run: thousands of expect calls are slow).
  function notFinite(value: unknown, path = 'answer'): string[] {
    if (value === null || typeof value === 'boolean') return [];
    if (typeof value === 'number') return Number.isFinite(value) ? [] : [`${path} = ${value}`];
    if (typeof value === 'object') {
      return Object.entries(value as object).flatMap(([key, inner]) => notFinite(inner, `${path}.${key}`));
    }
    return [`${path} is a ${typeof value}`];
  }

  const notProbability = (p: number | null, name: string): string[] =>
    p === null || (p >= 0 && p <= 1) ? [] : [`${name} = ${p}`];

  const notAround = (interval: Interval | null, point: number | null, name: string): string[] =>
    interval === null || point === null || (interval[0] <= point && point <= interval[1])
      ? []
      : [`${name} [${interval.join(', ')}] misses ${point}`];

  function groupProblems(group: GroupStatistics): string[] {
    const problems = [
      ...notProbability(group.rate, 'rate'),
      ...(group.rate_ci ?? []).flatMap((bound) => notProbability(bound, 'rate_ci')),
      ...notAround(group.rate_ci, group.rate, 'rate_ci'),
    ];
    const versus = group.vs_control;
    if (versus === null) return problems;
    return [
      ...problems,
      ...notProbability(versus.p_value, 'p_value'),
      ...notAround(versus.relative_lift_ci, versus.relative_lift, 'relative_lift_ci'),
      ...((versus.relative_lift_ci === null) === (versus.relative_lift === null) ? [] : ['relative lift without ci']),
    ];
  }

  it('answers finite numbers or nulls, rates and p-values in [0, 1], intervals around their estimate', () => {
    fc.assert(
      fc.property(fc.array(anyGoal, { maxLength: 4 }), (goals) => {
        const answer = campaignStatistics(goals);
        expect([...notFinite(answer), ...answer.flat().flatMap(groupProblems)]).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it('holds for each function on its own', () => {
    fc.assert(
      fc.property(anyGroup, anyGroup, (a, b) => {
        const comparison = compareWithControl(a, b);
        expect([
          ...notFinite([describeGroup(a), comparison, relativeLiftInterval(a, b), wilsonInterval(a)]),
          ...notProbability(twoProportionPValue(a, b), 'p'),
          ...notAround(wilsonInterval(a), describeGroup(a).rate, 'wilson'),
          ...notAround(relativeLiftInterval(a, b), comparison?.relative_lift ?? null, 'relative lift'),
        ]).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });

  it('answers adjusted p-values in [p, 1] that keep the order of the raw ones', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constantFrom(0, 1), fc.double({ min: 0, max: 1, noNaN: true }))), (pValues) => {
        const adjusted = benjaminiHochberg(pValues);
        const order = pValues.flatMap((p, i) =>
          pValues.flatMap((q, j) => (p <= q && adjusted[i] > adjusted[j] ? [`${i} above ${j}`] : [])),
        );
        const bounds = adjusted.flatMap((p, i) => (p >= pValues[i] && p <= 1 ? [] : [`adjusted[${i}] = ${p}`]));
        expect([...notFinite(adjusted), ...bounds, ...order]).toEqual([]);
      }),
    );
  });

  it('answers a sample-ratio p-value in [0, 1] or null', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ members: anyCount, allocationPercentage: anyPercentage }), { maxLength: 30 }),
        (groups) => {
          const result = srm(groups);
          expect([...notFinite(result), ...notProbability(result.p_value, 'p_value')]).toEqual([]);
          expect(result.mismatch).toBe(result.p_value !== null && result.p_value < 0.001);
        },
      ),
    );
  });
});

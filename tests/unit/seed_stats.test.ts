import { describe, expect, it } from 'vitest';
import { intervalAtLevel, seedInterval, seedsToDecide, type DiffCell } from '../../src/report/seed_interval';
import { hierarchicalBootstrap } from './lib/hierarchical_bootstrap';
import { pairedComparison, type PairedCell } from '../../src/report/stats';
import { Rng } from '../../src/util/rng';

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/**
 * One simulated experiment with two arms of the SAME distribution (a null): every (seed, arm)
 * training run has its own effect on the logit (sd `run`), each configuration a difficulty
 * shared by both arms and an arm interaction of the same law in both (sd `configArm`), each task
 * a shared difficulty; outcomes Bernoulli. Tasks differ per seed (as testTasks), configurations
 * are fixed (as the in-space set). Returns cells in both shapes: the old rule's and the new one's.
 */
function simulateNull(
  rng: Rng,
  o: { seeds: number; configs: number; tasks: number; samples: number; run: number; configArm: number; effect?: number },
) {
  const paired: PairedCell[] = [];
  const diffs: DiffCell[] = [];
  const configs = Array.from({ length: o.configs }, (_, c) => ({
    id: `c${c}`,
    v: 0.8 * rng.normal(),
    wA: o.configArm * rng.normal(),
    wB: o.configArm * rng.normal(),
  }));
  for (let s = 0; s < o.seeds; s++) {
    const uA = o.run * rng.normal();
    const uB = o.run * rng.normal() + (o.effect ?? 0);
    for (let t = 0; t < o.tasks; t++) {
      const task = `t${s}-${t}`;
      const k = -0.7 + 1.2 * rng.normal();
      for (const c of configs)
        for (let j = 0; j < o.samples; j++) {
          const a = rng.float() < sigmoid(k + c.v + c.wA + uA);
          const b = rng.float() < sigmoid(k + c.v + c.wB + uB);
          paired.push({
            run: s,
            taskId: task,
            harnessId: c.id,
            sample: j,
            before: { pass: a, score: a ? 1 : 0 },
            after: { pass: b, score: b ? 1 : 0 },
          });
          diffs.push({ seed: s, config: c.id, taskId: task, diff: (b ? 1 : 0) - (a ? 1 : 0) });
        }
    }
  }
  return { paired, diffs };
}

describe('seed-level inference: calibrated on a null where the task bootstrap is not', () => {
  it('false-positive rate: the pooled task bootstrap calls a null "beyond noise" far above 5 %; the seed-level rule stays near 5 %', () => {
    const R = 300;
    const rng = Rng.derive(7, 'calibration');
    // The old presets' shape: 3 seeds, 4 in-space configurations, 16 tasks × 2 samples each.
    let oldHits = 0;
    let newHits = 0;
    for (let r = 0; r < R; r++) {
      const { paired, diffs } = simulateNull(rng, { seeds: 3, configs: 4, tasks: 16, samples: 2, run: 0.3, configArm: 0.1 });
      if (pairedComparison(paired, { seed: r, resamples: 200 }).pass.beyondNoise) oldHits++;
      if (seedInterval(diffs).decided) newHits++;
    }
    const oldRate = oldHits / R;
    const newRate = newHits / R;
    // 300 nulls: the binomial sd at 5 % is 1.3 points. With 3 seeds the rule is conservative (≈ 2 %).
    expect(oldRate).toBeGreaterThan(0.15);
    expect(newRate).toBeLessThan(0.09);
  });

  it('with 10 seeds and 24 configurations (the main preset) the rule stays near 5 % and still detects a real run-level effect', () => {
    const R = 300;
    const rng = Rng.derive(8, 'calibration');
    let nullHits = 0;
    let effectHits = 0;
    for (let r = 0; r < R; r++) {
      const shape = { seeds: 10, configs: 24, tasks: 8, samples: 1, run: 0.25, configArm: 0.15 };
      if (seedInterval(simulateNull(rng, shape).diffs).decided) nullHits++;
      if (seedInterval(simulateNull(rng, { ...shape, effect: 0.5 }).diffs).decided) effectHits++;
    }
    expect(nullHits / R).toBeLessThan(0.09);
    expect(nullHits / R).toBeGreaterThan(0.02);
    expect(effectHits / R).toBeGreaterThan(0.5);
  });

  it('a map of m null cells read together: any "decided" among them far above 5 % at 95 % each, near or under 5 % with Bonferroni intervals (intervalAtLevel 1 − 0.05/m)', () => {
    const R = 150;
    const m = 6;
    const rng = Rng.derive(11, 'familywise');
    let anyRaw = 0;
    let anyBonferroni = 0;
    for (let r = 0; r < R; r++) {
      const cells = Array.from({ length: m }, () =>
        seedInterval(simulateNull(rng, { seeds: 5, configs: 8, tasks: 8, samples: 1, run: 0.25, configArm: 0.1 }).diffs),
      );
      if (cells.some((c) => c.decided)) anyRaw++;
      if (
        cells.some((c) => {
          const { lo, hi } = intervalAtLevel(c, 1 - 0.05 / m);
          return lo > 0 || hi < 0;
        })
      )
        anyBonferroni++;
    }
    // Six independent 95 % intervals: P(any excludes 0) ≈ 1 − 0.95⁶ ≈ 26 % (150 maps: sd ≈ 3.6 points).
    expect(anyRaw / R).toBeGreaterThan(0.12);
    expect(anyBonferroni / R).toBeLessThan(0.09);
    // At its own level the interval is seedInterval's; a higher level is wider; a bad level is refused.
    const c = seedInterval(
      simulateNull(Rng.derive(2, 'x'), { seeds: 5, configs: 8, tasks: 8, samples: 1, run: 0.25, configArm: 0.1 }).diffs,
    );
    expect(intervalAtLevel(c, 0.95).lo).toBeCloseTo(c.lo, 12);
    expect(intervalAtLevel(c, 0.95).hi).toBeCloseTo(c.hi, 12);
    expect(intervalAtLevel(c, 0.99).lo).toBeLessThan(c.lo);
    expect(() => intervalAtLevel(c, 1)).toThrow(/level must be in/);
  });

  it('computes Δ as the mean of per-seed means, a t interval with Satterthwaite df, and refuses to decide on one seed', () => {
    const cells: DiffCell[] = [];
    const perSeed = [0.1, 0.3, 0.2];
    perSeed.forEach((d, s) => {
      // 10 cells per seed with mean d, one configuration: the configuration term is 0.
      for (let i = 0; i < 10; i++) cells.push({ seed: s, config: 'c', taskId: `t${i}`, diff: i < 10 * d ? 1 : 0 });
    });
    const r = seedInterval(cells);
    expect(r.diff).toBeCloseTo(0.2, 12);
    expect(r.seedSd).toBeCloseTo(0.1, 12);
    expect(r.df).toBeCloseTo(2, 12);
    // t_{2, .975} = 4.3027: half-width 4.3027 · 0.1/√3.
    expect(r.hi - r.diff).toBeCloseTo((4.302652729749462 * 0.1) / Math.sqrt(3), 9);
    // 0.2 ± 0.248: three seeds this far apart do not decide; four more alike ones do.
    expect(r.decided).toBe(false);
    const tight = seedInterval([0.18, 0.2, 0.22, 0.2].map((d, s) => ({ seed: s, config: 'c', taskId: 't', diff: d })));
    expect(tight.decided).toBe(true);
    expect(tight.lo).toBeGreaterThan(0);
    const one = seedInterval(cells.filter((c) => c.seed === 0));
    expect(one.decided).toBe(false);
    expect(Number.isNaN(one.lo)).toBe(true);
    expect(() => seedInterval([])).toThrow(/no cells/);
    expect(() => seedInterval([{ seed: 0, config: 'c', taskId: 't', diff: 3 }])).toThrow(/diff must be in/);
  });

  it('seeds needed come from the seed-level spread, and a configuration term that more seeds cannot shrink says so', () => {
    const need = seedsToDecide({ diff: -0.04, seedSd: 0.032, configSe: 0 });
    expect(need.exclude).not.toBeNull();
    expect(need.power80!).toBeGreaterThan(need.exclude!);
    // The main preset's old per-seed spread (−7.8, −2.5, −1.8 points): about 8 seeds to exclude 0.
    const old = seedInterval([-0.078, -0.025, -0.018].map((d, s) => ({ seed: s, config: 'c', taskId: 't', diff: d })));
    expect(old.decided).toBe(false);
    const n = seedsToDecide(old).exclude!;
    expect(n).toBeGreaterThanOrEqual(5);
    expect(n).toBeLessThanOrEqual(10);
    expect(seedsToDecide({ diff: 0.02, seedSd: 0.01, configSe: 0.05 }).exclude).toBeNull();
    // Equivalence: the smallest n with |Δ| + t_{n−1}·s/√n ≤ 0.02: at Δ 0.005, s 0.01 that is n = 5 (t₃/2 = 1.59 > 1.5, t₄/√5 = 1.24).
    expect(seedsToDecide({ diff: 0.005, seedSd: 0.01, configSe: 0 }).equivalent).toBe(5);
    expect(seedsToDecide({ diff: -0.005, seedSd: 0.01, configSe: 0 }).equivalent).toBe(5);
    // Not when the effect itself reaches the margin, nor when the configuration term alone is too wide.
    expect(seedsToDecide({ diff: 0.02, seedSd: 0.001, configSe: 0 }).equivalent).toBeNull();
    expect(seedsToDecide({ diff: 0.005, seedSd: 0.01, configSe: 0.008 }, 200).equivalent).toBeNull();
  });

  it('the hierarchical bootstrap is seeded and covers the estimate', () => {
    const { diffs } = simulateNull(Rng.derive(1, 'x'), { seeds: 5, configs: 6, tasks: 8, samples: 1, run: 0.3, configArm: 0.1 });
    const a = hierarchicalBootstrap(diffs, { seed: 3, resamples: 400 });
    expect(hierarchicalBootstrap(diffs, { seed: 3, resamples: 400 })).toEqual(a);
    const d = seedInterval(diffs).diff;
    expect(a.lo).toBeLessThan(d);
    expect(a.hi).toBeGreaterThan(d);
  });
});

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mcnemarExact, meanStd, pairCells, pairedComparison, wilson, type PairedCell } from '../../src/report/stats';

/** Fewer tasks than this never decide a comparison (stats.ts). */
const MIN_TASKS_FOR_NOISE = 5;

describe('wilson', () => {
  it('matches hand-computed intervals (Wilson 1927 formula, z = 1.95996)', () => {
    // Computed with the closed form in Python: centre ∓ half.
    const cases: [number, number, number, number][] = [
      [0, 12, 0, 0.24249400665524085],
      [6, 12, 0.2537815976337061, 0.7462184023662939],
      [9, 10, 0.5958499732047615, 0.9821237869049271],
      [1, 1, 0.20654931437723745, 1],
    ];
    for (const [k, n, lo, hi] of cases) {
      const w = wilson(k, n);
      expect(w.rate).toBe(k / n);
      expect(w.episodes).toBe(n);
      expect(w.lo).toBeCloseTo(lo, 12);
      expect(w.hi).toBeCloseTo(hi, 12);
    }
    expect(wilson(0, 0)).toEqual({ rate: Number.NaN, passes: 0, episodes: 0, lo: 0, hi: 1 });
    expect(() => wilson(3, 2)).toThrow(/passes must be an integer in \[0, 2\]/);
    expect(() => wilson(1, 2.5)).toThrow(/episodes/);
  });

  it('property: 0 ≤ lo ≤ rate ≤ hi ≤ 1, symmetric under k → n − k, narrower with more episodes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2000 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, f) => {
        const k = Math.round(f * n);
        const w = wilson(k, n);
        expect(w.lo).toBeGreaterThanOrEqual(0);
        expect(w.hi).toBeLessThanOrEqual(1);
        expect(w.lo).toBeLessThanOrEqual(w.rate + 1e-12);
        expect(w.hi).toBeGreaterThanOrEqual(w.rate - 1e-12);
        const m = wilson(n - k, n);
        expect(m.lo).toBeCloseTo(1 - w.hi, 10);
        const w4 = wilson(4 * k, 4 * n);
        expect(w4.hi - w4.lo).toBeLessThan(w.hi - w.lo);
      }),
      { seed: 1, numRuns: 300 },
    );
  });
});

describe('mcnemarExact', () => {
  it('matches hand-computed exact binomial p-values', () => {
    // p = min(1, 2 Σ_{k ≤ min(b,c)} C(b+c, k) / 2^(b+c)).
    expect(mcnemarExact(1, 9).p).toBeCloseTo(0.021484375, 14); // 2·(1 + 10)/1024
    expect(mcnemarExact(0, 5).p).toBeCloseTo(0.0625, 14); // 2/32
    expect(mcnemarExact(2, 10).p).toBeCloseTo(0.03857421875, 14); // 2·(1 + 12 + 66)/4096
    expect(mcnemarExact(3, 3).p).toBe(1);
    expect(mcnemarExact(0, 0).p).toBe(1);
    expect(() => mcnemarExact(-1, 2)).toThrow(/b must be a non-negative integer/);
  });

  it('property: symmetric in (b, c), in (0, 1], no underflow for large n', () => {
    fc.assert(
      fc.property(fc.nat(3000), fc.nat(3000), (b, c) => {
        const p = mcnemarExact(b, c).p;
        expect(p).toBe(mcnemarExact(c, b).p);
        expect(p).toBeLessThanOrEqual(1);
        expect(p).toBeGreaterThanOrEqual(0);
        if (Math.abs(b - c) < 3) expect(p).toBeGreaterThan(0.5);
      }),
      { seed: 2, numRuns: 200 },
    );
  });
});

describe('meanStd', () => {
  it('sample std with Bessel correction; NaN where undefined', () => {
    const r = meanStd([0.2, 0.4, 0.9]);
    expect(r.mean).toBeCloseTo(0.5, 14);
    expect(r.std).toBeCloseTo(0.36055512754639896, 14);
    expect(meanStd([0.3])).toEqual({ mean: 0.3, std: Number.NaN, n: 1 });
    expect(meanStd([]).n).toBe(0);
    expect(() => meanStd([1, Number.NaN])).toThrow(/finite/);
  });
});

const cell = (task: number, harness: string, before: boolean, after: boolean, sample = 0): PairedCell => ({
  taskId: `t${task}`,
  harnessId: harness,
  sample,
  before: { pass: before, score: before ? 1 : 0.25 },
  after: { pass: after, score: after ? 1 : 0.25 },
});

describe('pairedComparison', () => {
  it('hand-computed difference, McNemar counts; a clear gain is beyond noise, no change is not', () => {
    // 10 tasks × 2 harnesses: 16 cells fail → pass, 1 pass → fail, 3 unchanged.
    const cells: PairedCell[] = [];
    for (let t = 0; t < 10; t++) for (const h of ['A', 'B']) cells.push(cell(t, h, false, true));
    cells[0] = cell(0, 'A', true, false);
    cells[1] = cell(0, 'B', true, true);
    cells[2] = cell(1, 'A', false, false);
    cells[3] = cell(1, 'B', true, true);
    const r = pairedComparison(cells, { seed: 7 });
    expect(r.pass.n).toBe(20);
    expect(r.pass.tasks).toBe(10);
    expect(r.pass.before).toBeCloseTo(3 / 20, 14);
    expect(r.pass.after).toBeCloseTo(18 / 20, 14);
    expect(r.pass.diff).toBeCloseTo(15 / 20, 14);
    expect(r.pass.mcnemar).toMatchObject({ b: 1, c: 16 });
    expect(r.pass.lo).toBeGreaterThan(0);
    expect(r.pass.lo).toBeLessThanOrEqual(r.pass.diff);
    expect(r.pass.hi).toBeGreaterThanOrEqual(r.pass.diff);
    expect(r.pass.beyondNoise).toBe(true);
    expect(r.score.diff).toBeCloseTo(0.75 * 0.75, 14);
    // Deterministic in the seed.
    expect(pairedComparison(cells, { seed: 7 })).toEqual(r);

    const same = cells.map((c) => ({ ...c, after: c.before }));
    const s = pairedComparison(same);
    expect(s.pass.diff).toBe(0);
    expect([s.pass.lo, s.pass.hi]).toEqual([0, 0]);
    expect(s.pass.beyondNoise).toBe(false);
  });

  it('too few tasks are never beyond noise; empty input gives NaN; duplicates and bad scores throw', () => {
    const few = Array.from({ length: MIN_TASKS_FOR_NOISE - 1 }, (_, t) => cell(t, 'A', false, true));
    const r = pairedComparison(few);
    expect(r.pass.diff).toBe(1);
    expect(r.pass.beyondNoise).toBe(false);
    expect(pairedComparison([]).pass.diff).toBeNaN();
    expect(() => pairedComparison([cell(0, 'A', true, true), cell(0, 'A', false, true)])).toThrow(/duplicate cell/);
    expect(() => pairedComparison([{ ...cell(0, 'A', true, true), after: { pass: true, score: 2 } }])).toThrow(/\[0, 1\]/);
    expect(() => pairedComparison([], { resamples: 10 })).toThrow(/resamples/);
  });

  it('property: lo ≤ diff ≤ hi approximately, and the interval lies in [−1, 1]', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(7), fc.boolean(), fc.boolean()), { minLength: 1, maxLength: 40 }), fc.nat(1000), (xs, seed) => {
        const cells = xs.map(([t, b, a], i) => cell(t, 'H', b, a, i));
        const r = pairedComparison(cells, { seed, resamples: 400 });
        expect(r.pass.lo).toBeGreaterThanOrEqual(-1);
        expect(r.pass.hi).toBeLessThanOrEqual(1);
        expect(r.pass.lo).toBeLessThanOrEqual(r.pass.hi);
        // The percentile interval brackets the point estimate unless the bootstrap distribution is very skewed.
        expect(r.pass.lo).toBeLessThanOrEqual(r.pass.diff + 0.5);
        expect(r.pass.hi).toBeGreaterThanOrEqual(r.pass.diff - 0.5);
      }),
      { seed: 4, numRuns: 100 },
    );
  });

  it('coverage: on simulated no-change data the 95 % interval holds 0 in most runs', () => {
    // 40 tasks, each with its own pass probability, the same before and after.
    let covered = 0;
    const runs = 60;
    for (let r = 0; r < runs; r++) {
      const cells: PairedCell[] = [];
      let x = r * 7919 + 1;
      const u = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
      for (let t = 0; t < 40; t++) {
        const p = u();
        for (let s = 0; s < 2; s++) cells.push(cell(t, 'H', u() < p, u() < p, s));
      }
      const c = pairedComparison(cells, { seed: r, resamples: 500 });
      if (c.pass.lo <= 0 && c.pass.hi >= 0) covered++;
    }
    expect(covered / runs).toBeGreaterThan(0.85);
  });
});

describe('pairCells', () => {
  it('pairs on (task, harness, sample) and counts the rest', () => {
    const e = (taskId: string, sample: number, pass: boolean) => ({ taskId, harnessId: 'H', sample, pass, score: pass ? 1 : 0 });
    const r = pairCells([e('a', 0, false), e('a', 1, false), e('b', 0, true)], [e('a', 0, true), e('b', 0, true), e('c', 0, true)]);
    expect(r.cells.map((c) => [c.taskId, c.sample, c.before.pass, c.after.pass])).toEqual([
      ['a', 0, false, true],
      ['b', 0, true, true],
    ]);
    expect(r.unpairedBefore).toBe(1);
    expect(r.unpairedAfter).toBe(1);
  });
});

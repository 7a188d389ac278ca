import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  DEFAULT_SPACE,
  enumerateSpace,
  formatHarnessId,
  parseHarnessId,
  selectBalancedSubset,
  selectTraining,
  selectTrainingOA,
  selectTrainingRandom,
  spaceFromLevels,
} from '../../src/design';

const dist = (a: number[], b: number[]) => a.reduce((n, x, i) => n + (x === b[i] ? 0 : 1), 0);

describe('structured selection of the default space', () => {
  const r = selectTrainingOA();

  it('18 distinct training harnesses, balanced per component and per pair, minimal run size', () => {
    expect(r.method).toBe('oa');
    expect(r.runSize).toBe(18);
    expect(r.training).toHaveLength(18);
    expect(new Set(r.training).size).toBe(18);
    expect(r.raoBound).toBe(11);
    expect(r.divisibilityBound).toBe(9);
    expect(r.minimalRunSize).toBe(true);
    expect(r.balance.balanced).toBe(true);
    expect(r.balance.strength2).toBe(true);
    // independent recount from the ids
    const v = r.training.map((id) => parseHarnessId(id));
    for (let c = 0; c < 5; c++) {
      expect([0, 1, 2].map((l) => v.filter((x) => x[c] === l).length)).toEqual([6, 6, 6]);
      for (let d = c + 1; d < 5; d++) {
        for (let a = 0; a < 3; a++) for (let b = 0; b < 3; b++) expect(v.filter((x) => x[c] === a && x[d] === b).length).toBe(2);
      }
    }
    expect(r.balance.columns.map((c) => c.component)).toEqual(['S', 'T', 'O', 'C', 'W']);
    expect(r.balance.pairs).toHaveLength(10);
    expect(r.balance.pairs[0].components).toEqual(['S', 'T']);
    expect(r.balance.pairs.every((p) => p.equal && p.counts.flat().every((c) => c === 2))).toBe(true);
  });

  it('every pair of training harnesses is at Hamming distance ≥ 3', () => {
    expect(r.minPairwiseDistance).toBeGreaterThanOrEqual(3);
    const v = r.training.map((id) => parseHarnessId(id));
    let min = Infinity;
    for (let a = 0; a < v.length; a++) for (let b = a + 1; b < v.length; b++) min = Math.min(min, dist(v[a], v[b]));
    expect(min).toBe(r.minPairwiseDistance);
  });

  it('225 held-out configurations with their distance to the nearest training harness', () => {
    expect(r.heldOut).toHaveLength(225);
    const train = new Set(r.training);
    const tv = r.training.map((id) => parseHarnessId(id));
    const all = enumerateSpace().map((x) => formatHarnessId(x));
    expect(new Set([...r.heldOut.map((h) => h.id), ...r.training])).toEqual(new Set(all));
    for (const h of r.heldOut) {
      expect(train.has(h.id)).toBe(false);
      const hv = parseHarnessId(h.id);
      expect(h.distance).toBe(Math.min(...tv.map((t) => dist(hv, t))));
    }
    const hist = r.heldOutHistogram;
    expect(hist.map((h) => h.distance)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(hist.reduce((a, h) => a + h.count, 0)).toBe(225);
    expect(hist[0].count).toBe(0);
    for (const h of hist) expect(h.count).toBe(r.heldOut.filter((x) => x.distance === h.distance).length);
  });
});

describe('random-k selection', () => {
  it('k distinct configurations, same seed → same set, different seeds usually differ', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 243 }), fc.integer({ min: 0, max: 2 ** 31 }), (k, seed) => {
        const a = selectTrainingRandom(DEFAULT_SPACE, k, seed);
        const b = selectTrainingRandom(DEFAULT_SPACE, k, seed);
        expect(a.training).toEqual(b.training);
        expect(a.training).toHaveLength(k);
        expect(new Set(a.training).size).toBe(k);
        expect(a.heldOut).toHaveLength(243 - k);
        expect(a.seed).toBe(seed);
        expect(a.method).toBe('random');
      }),
      { numRuns: 25 },
    );
    const draws = new Set([0, 1, 2, 3, 4].map((s) => selectTrainingRandom(DEFAULT_SPACE, 18, s).training.join(' ')));
    expect(draws.size).toBe(5);
  });

  it('is roughly uniform: each configuration drawn about k/|H| of the time', () => {
    const counts = new Map<string, number>();
    const reps = 200;
    for (let s = 0; s < reps; s++)
      for (const id of selectTrainingRandom(DEFAULT_SPACE, 18, s).training) counts.set(id, (counts.get(id) ?? 0) + 1);
    // expected 200·18/243 ≈ 14.8 per configuration, binomial sd ≈ 3.7: all drawn, none hugely often
    expect(counts.size).toBe(243);
    expect(Math.max(...counts.values())).toBeLessThan(32);
    expect(Math.min(...counts.values())).toBeGreaterThan(3);
  });

  it('selectTraining defaults random k to the OA run size, and reports balance honestly', () => {
    const r = selectTraining(DEFAULT_SPACE, { method: 'random', seed: 7 });
    expect(r.runSize).toBe(18);
    const v = r.training.map((id) => parseHarnessId(id));
    const equal = [0, 1, 2, 3, 4].every((c) => [0, 1, 2].every((l) => v.filter((x) => x[c] === l).length === 6));
    expect(r.balance.balanced).toBe(equal);
    expect(r.minimalRunSize).toBe(r.balance.strength2);
  });

  it('errors name k and its range', () => {
    expect(() => selectTrainingRandom(DEFAULT_SPACE, 0, 1)).toThrow(/k = 0 out of range 1\.\.243/);
    expect(() => selectTrainingRandom(DEFAULT_SPACE, 244, 1)).toThrow(/k = 244 out of range 1\.\.243/);
    expect(() => selectTraining(DEFAULT_SPACE, { method: 'oa', k: 5 })).toThrow(/k applies only to method random/);
  });
});

describe('structured selection over other spaces', () => {
  it('2^1 3^3 → 18 runs from L18 (Rao bound 8, divisibility bound 18)', () => {
    const r = selectTrainingOA(spaceFromLevels([2, 3, 3, 3]));
    expect(r.runSize).toBe(18);
    expect(r.balance.strength2).toBe(true);
    expect(r.heldOut).toHaveLength(54 - 18);
  });
  it('6·2^3 → 24 distinct runs from the search, proved minimal (12 runs impossible)', () => {
    const r = selectTrainingOA(spaceFromLevels([6, 2, 2, 2]));
    expect(r.runSize).toBe(24);
    expect(new Set(r.training).size).toBe(24);
    expect(r.balance.strength2).toBe(true);
    expect(r.minimalRunSize).toBe(false);
    expect(r.runSizeProvedMinimal).toBe(true);
  });
  it('4^3 → Bose 16 runs, min distance 2', () => {
    const r = selectTrainingOA(spaceFromLevels([4, 4, 4]));
    expect(r.runSize).toBe(16);
    expect(r.balance.strength2).toBe(true);
    expect(r.minPairwiseDistance).toBe(2);
  });
});

describe('balanced subsets of the orthogonal array (harness-count ablation)', () => {
  const oa = selectTrainingOA();
  it('N = 3, 6, 9, 12 use every level of every component N/3 times; the sets are nested; N = 1 is the base harness; N = 18 is the array itself', () => {
    expect(selectBalancedSubset(oa, 1).training).toEqual(['S0-T0-O0-C0-W0']);
    let prev: string[] = [];
    for (const n of [3, 6, 9, 12]) {
      const s = selectBalancedSubset(oa, n);
      expect(s.training).toHaveLength(n);
      for (const c of s.balance.columns) expect(c.counts).toEqual([n / 3, n / 3, n / 3]);
      expect(s.training.every((id) => oa.training.includes(id))).toBe(true);
      expect(prev.every((id) => s.training.includes(id))).toBe(true);
      expect(s.construction).toContain(`${n} of the 18`);
      prev = s.training;
    }
    expect(selectBalancedSubset(oa, 18)).toBe(oa);
  });

  it('every n in 1..17 is column-balanced as far as n allows (level counts differ by at most one) and its held-out set is the rest of the space', () => {
    for (let n = 1; n < 18; n++) {
      const s = selectBalancedSubset(oa, n);
      for (const c of s.balance.columns) expect(Math.max(...c.counts) - Math.min(...c.counts)).toBeLessThanOrEqual(1);
      expect(s.heldOut.length + n).toBe(243);
    }
  });

  it('rejects n outside 1..runSize, naming it', () => {
    expect(() => selectBalancedSubset(oa, 0)).toThrow('n = 0 out of range 1..18');
    expect(() => selectBalancedSubset(oa, 19)).toThrow('n = 19');
    expect(() => selectBalancedSubset(oa, 2.5)).toThrow('n = 2.5');
  });
});

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { NoOrthogonalArrayError } from '../../src/design';
import { GaloisField, primePower } from '../../src/design/galois_field';
import { l18, paley, raoHamming } from '../../src/design/oa_constructions';
import { searchOrthogonalArray } from '../../src/design/oa_search';
import { divisibilityBound, raoBound, smallestAdmissibleRunSize, verifyStrength2 } from '../../src/design/oa_verify';
import { orthogonalArray } from '../../src/design/orthogonal_array';

/** The classic L18 table, as l18() hands out copies of it. */
const L18_TABLE = l18().runs;

/**
 * Independent strength-2 check (written separately from verifyStrength2): every row has k
 * entries in range, and for every pair of columns every level pair occurs N/(s_i s_j) times.
 */
function isStrength2(runs: number[][], levels: number[]): boolean {
  const N = runs.length;
  const k = levels.length;
  for (const row of runs) {
    if (row.length !== k) return false;
    for (let j = 0; j < k; j++) if (!Number.isInteger(row[j]) || row[j] < 0 || row[j] >= levels[j]) return false;
  }
  for (let i = 0; i < k; i++) {
    if (N % levels[i] !== 0) return false;
    for (let j = i + 1; j < k; j++) {
      const cells = levels[i] * levels[j];
      if (N % cells !== 0) return false;
      const seen = new Map<string, number>();
      for (const row of runs) {
        const key = `${row[i]}:${row[j]}`;
        seen.set(key, (seen.get(key) ?? 0) + 1);
      }
      if (seen.size !== cells) return false;
      for (const c of seen.values()) if (c !== N / cells) return false;
    }
  }
  return true;
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

describe('bounds', () => {
  it('3^5: Rao 11, divisibility 9, smallest admissible 18 (docs/ARCHITECTURE.md "Harness space and design")', () => {
    expect(raoBound([3, 3, 3, 3, 3])).toBe(11);
    expect(divisibilityBound([3, 3, 3, 3, 3])).toBe(9);
    expect(smallestAdmissibleRunSize([3, 3, 3, 3, 3])).toBe(18);
  });
  it('mixed levels', () => {
    expect(raoBound([2, 3, 3, 4])).toBe(9);
    expect(divisibilityBound([2, 3, 3, 4])).toBe(72);
    expect(raoBound([2, 3, 3, 3, 3, 3, 3, 3])).toBe(16);
    expect(smallestAdmissibleRunSize([2, 3, 3, 3, 3, 3, 3, 3])).toBe(18);
    expect(smallestAdmissibleRunSize(new Array(11).fill(2))).toBe(12);
  });
});

describe('finite fields', () => {
  it('recognizes prime powers', () => {
    expect(primePower(8)).toEqual({ p: 2, k: 3 });
    expect(primePower(9)).toEqual({ p: 3, k: 2 });
    expect(primePower(7)).toEqual({ p: 7, k: 1 });
    expect(primePower(6)).toBeNull();
    expect(primePower(1)).toBeNull();
    expect(() => GaloisField.of(6)).toThrow(/q = 6 is not a prime power/);
  });
  for (const q of [2, 3, 4, 5, 7, 8, 9, 16, 25, 27]) {
    it(`GF(${q}) satisfies the field axioms`, () => {
      const F = GaloisField.of(q);
      // Count violations instead of asserting per element (q^3 checks).
      const bad: string[] = [];
      for (let a = 0; a < q; a++) {
        if (F.add(a, 0) !== a || F.mul(a, 1) !== a || F.add(a, F.neg(a)) !== 0) bad.push(`identity/negation at ${a}`);
        if (a !== 0) {
          const inverses = Array.from({ length: q }, (_, b) => b).filter((b) => F.mul(a, b) === 1);
          if (inverses.length !== 1) bad.push(`inverse of ${a}: ${inverses}`);
        }
        for (let b = 0; b < q; b++) {
          if (F.mul(a, b) !== F.mul(b, a) || F.add(a, b) !== F.add(b, a)) bad.push(`commutativity ${a},${b}`);
          for (let c = 0; c < q; c++) {
            if (F.mul(a, F.add(b, c)) !== F.add(F.mul(a, b), F.mul(a, c))) bad.push(`distributivity ${a},${b},${c}`);
            if (F.mul(a, F.mul(b, c)) !== F.mul(F.mul(a, b), c)) bad.push(`associativity ${a},${b},${c}`);
          }
        }
      }
      expect(bad.slice(0, 5)).toEqual([]);
    });
  }
});

describe('constructions are strength 2 (independent check)', () => {
  for (const s of [2, 3, 4, 5, 7, 8, 9]) {
    it(`Bose OA(${s * s}; ${s}^${s + 1}; 2)`, () => {
      const b = raoHamming(s, 2);
      expect(b.runs).toHaveLength(s * s);
      expect(b.levels).toEqual(new Array(s + 1).fill(s));
      expect(isStrength2(b.runs, b.levels)).toBe(true);
      expect(verifyStrength2(b.runs, b.levels).strength2).toBe(true);
    });
  }
  for (const [q, m] of [
    [2, 3],
    [2, 4],
    [3, 3],
    [4, 3],
  ] as const) {
    it(`Rao–Hamming q=${q}, m=${m}`, () => {
      const b = raoHamming(q, m);
      expect(b.runs).toHaveLength(q ** m);
      expect(b.levels).toHaveLength((q ** m - 1) / (q - 1));
      expect(isStrength2(b.runs, b.levels)).toBe(true);
    });
  }
  it('L18 (2^1 3^7) is the standard table and is strength 2', () => {
    const b = l18();
    expect(b.runs).toHaveLength(18);
    expect(b.levels).toEqual([2, 3, 3, 3, 3, 3, 3, 3]);
    expect(L18_TABLE[0]).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(L18_TABLE[17]).toEqual([1, 2, 2, 1, 0, 1, 2, 0]);
    expect(isStrength2(b.runs, b.levels)).toBe(true);
    const rep = verifyStrength2(b.runs, b.levels);
    expect(rep.strength2).toBe(true);
    expect(rep.columns[0].counts).toEqual([9, 9]);
    expect(rep.pairs.find((p) => p.columns[0] === 1 && p.columns[1] === 2)!.counts).toEqual([
      [2, 2, 2],
      [2, 2, 2],
      [2, 2, 2],
    ]);
  });
  for (const q of [3, 7, 11, 19]) {
    it(`Paley OA(${q + 1}; 2^${q}; 2)`, () => {
      const b = paley(q);
      expect(isStrength2(b.runs, b.levels)).toBe(true);
    });
  }
});

describe('verifyStrength2 detects broken arrays', () => {
  it('one changed entry of L18 breaks balance and strength, with the unequal column and pairs flagged', () => {
    const runs = L18_TABLE.map((r) => [...r]);
    runs[4][3] = (runs[4][3] + 1) % 3;
    const rep = verifyStrength2(runs, [2, 3, 3, 3, 3, 3, 3, 3]);
    expect(rep.strength2).toBe(false);
    expect(rep.balanced).toBe(false);
    expect(rep.columns.filter((c) => !c.equal).map((c) => c.column)).toEqual([3]);
    expect(rep.pairs.filter((p) => !p.equal).every((p) => p.columns.includes(3))).toBe(true);
    expect(isStrength2(runs, [2, 3, 3, 3, 3, 3, 3, 3])).toBe(false);
  });
  it('every column balanced but one column pair not: balanced, not strength 2, that pair flagged', () => {
    const runs = [
      [0, 0, 0],
      [0, 1, 1],
      [1, 0, 0],
      [1, 1, 1],
    ];
    const rep = verifyStrength2(runs, [2, 2, 2]);
    expect(rep.balanced).toBe(true);
    expect(rep.columns.every((c) => c.equal)).toBe(true);
    expect(rep.pairs.filter((p) => !p.equal).map((p) => p.columns)).toEqual([[1, 2]]);
    expect(rep.pairs.find((p) => p.columns[0] === 1 && p.columns[1] === 2)!.counts).toEqual([
      [2, 0],
      [0, 2],
    ]);
    expect(rep.strength2).toBe(false);
    expect(isStrength2(runs, [2, 2, 2])).toBe(false);
  });
  it('checks all k(k−1)/2 column pairs, each once, in order', () => {
    const b = l18();
    const k = b.levels.length;
    const rep = verifyStrength2(b.runs, b.levels);
    const want: Array<[number, number]> = [];
    for (let i = 0; i < k; i++) for (let j = i + 1; j < k; j++) want.push([i, j]);
    expect(rep.pairs.map((p) => p.columns)).toEqual(want);
    expect(rep.pairs).toHaveLength((k * (k - 1)) / 2);
    // Only one pair (1, 3), not adjacent and not the first, is unbalanced: it is caught.
    const last = [
      [0, 0, 0, 0],
      [0, 1, 1, 1],
      [1, 0, 1, 0],
      [1, 1, 0, 1],
    ];
    const r2 = verifyStrength2(last, [2, 2, 2, 2]);
    expect(r2.pairs.filter((p) => !p.equal).map((p) => p.columns)).toEqual([[1, 3]]);
    expect(r2.strength2).toBe(false);
  });
  it('out-of-range values are reported, not trusted', () => {
    const runs = raoHamming(3, 2).runs.map((r) => [...r]);
    runs[0][0] = 3;
    const rep = verifyStrength2(runs, [3, 3, 3, 3]);
    expect(rep.valuesInRange).toBe(false);
    expect(rep.strength2).toBe(false);
  });
});

describe('exact search', () => {
  it('finds an OA(18; 2^1 3^7; 2) and an OA(12; 2^11; 2)', () => {
    for (const [levels, N] of [
      [[2, 3, 3, 3, 3, 3, 3, 3], 18],
      [new Array(11).fill(2), 12],
    ] as [number[], number][]) {
      const r = searchOrthogonalArray(levels, N);
      expect(r.attempt.outcome).toBe('found');
      expect(r.runs).toHaveLength(N);
      expect(isStrength2(r.runs!, levels)).toBe(true);
    }
  });
  it('proves OA(12; 6·2^3; 2) does not exist (weight-3 vectors of length 6 have even distances)', () => {
    const r = searchOrthogonalArray([6, 2, 2, 2], 12);
    expect(r.runs).toBeNull();
    expect(r.attempt.outcome).toBe('infeasible');
    const oa = orthogonalArray([6, 2, 2, 2]);
    expect(oa.runSize).toBe(24);
    expect(oa.minimalRunSize).toBe(false);
    expect(oa.runSizeProvedMinimal).toBe(true);
    expect(isStrength2(oa.runs, [6, 2, 2, 2])).toBe(true);
  });
  it('property: whatever the search returns at the smallest admissible size is strength 2', () => {
    let found = 0;
    fc.assert(
      fc.property(fc.array(fc.constantFrom(2, 3, 4), { minLength: 2, maxLength: 5 }), (levels) => {
        const N = smallestAdmissibleRunSize(levels);
        const r = searchOrthogonalArray(levels, N, 20_000);
        if (r.attempt.outcome === 'found') {
          found++;
          expect(r.runs).toHaveLength(N);
          expect(isStrength2(r.runs!, levels)).toBe(true);
        } else {
          expect(r.runs).toBeNull();
        }
      }),
      { numRuns: 40 },
    );
    expect(found).toBeGreaterThan(5);
  });
  it('distinctRuns: rejects arrays with repeated runs and still finds a simple OA(24; 6·2^3)', () => {
    const plain = searchOrthogonalArray([6, 2, 2, 2], 24);
    expect(plain.runs).not.toBeNull();
    const simple = searchOrthogonalArray([6, 2, 2, 2], 24, 1_000_000, true);
    expect(simple.attempt.outcome).toBe('found');
    expect(isStrength2(simple.runs!, [6, 2, 2, 2])).toBe(true);
    expect(new Set(simple.runs!.map((r) => r.join(','))).size).toBe(24);
    // Only 8 configurations exist for 2^3, so 16 runs of 2^3 must repeat: no simple OA(16; 2^3).
    expect(searchOrthogonalArray([2, 2, 2], 16, 1_000_000, true).attempt.outcome).toBe('infeasible');
    expect(searchOrthogonalArray([2, 2, 2], 16, 1_000_000, false).attempt.outcome).toBe('found');
  });
  it('reports an exhausted budget as undecided', () => {
    const r = searchOrthogonalArray([3, 3, 3, 3, 3, 3, 3, 3], 18, 1000);
    expect(r.attempt.outcome).toBe('budget-exhausted');
    expect(r.runs).toBeNull();
  });
});

describe('orthogonalArray', () => {
  it('3^5 → L18 on 3-level columns, 18 runs, minimal, min distance 3', () => {
    const oa = orthogonalArray([3, 3, 3, 3, 3]);
    expect(oa.method).toBe('l18');
    expect(oa.runSize).toBe(18);
    expect(oa.minimalRunSize).toBe(true);
    expect(oa.minPairwiseDistance).toBeGreaterThanOrEqual(3);
    expect(oa.columns.every((c) => c.baseColumn >= 1 && c.baseLevels === 3)).toBe(true);
    expect(isStrength2(oa.runs, [3, 3, 3, 3, 3])).toBe(true);
  });
  it('using the first five 3-level columns of L18 would give distance 2 (why columns are chosen)', () => {
    const runs = L18_TABLE.map((r) => r.slice(1, 6));
    let min = Infinity;
    for (let a = 0; a < runs.length; a++)
      for (let b = a + 1; b < runs.length; b++) min = Math.min(min, runs[a].filter((x, j) => x !== runs[b][j]).length);
    expect(min).toBe(2);
  });
  it('collapses 4-level columns of GF(4) to 2 levels: OA(16; 2·4^3)', () => {
    const oa = orthogonalArray([2, 4, 4, 4]);
    expect(oa.runSize).toBe(16);
    expect(oa.method).toBe('rao-hamming');
    expect(oa.columns[0].collapsed).toBe(true);
    expect(isStrength2(oa.runs, [2, 4, 4, 4])).toBe(true);
  });
  it('throws NoOrthogonalArrayError when nothing fits the limits', () => {
    const levels = new Array(8).fill(3);
    expect(() => orthogonalArray(levels, { maxRuns: 20, search: false })).toThrow(NoOrthogonalArrayError);
    expect(() => orthogonalArray(levels, { maxRuns: 20, search: false })).toThrow(
      /no strength-2 orthogonal array found for levels \[3,3,3,3,3,3,3,3\] within maxRuns=20/,
    );
  });
  it('rejects bad level lists naming the entry', () => {
    expect(() => orthogonalArray([3, 1])).toThrow(/levels\[1\] must be an integer ≥ 2, got 1/);
    expect(() => orthogonalArray([])).toThrow(/non-empty/);
  });

  it('property: any array returned for random level lists is strength 2 (else the documented error)', () => {
    const opts = { maxRuns: 1024, searchNodeBudget: 30_000, searchSizes: 2, maxColumnChoices: 200 };
    let returned = 0;
    fc.assert(
      fc.property(fc.array(fc.constantFrom(2, 3, 4, 5), { minLength: 2, maxLength: 6 }), fc.boolean(), (levels, distinctRuns) => {
        let oa;
        try {
          oa = orthogonalArray(levels, { ...opts, distinctRuns });
        } catch (e) {
          expect(e).toBeInstanceOf(NoOrthogonalArrayError);
          return;
        }
        returned++;
        expect(oa.levels).toEqual(levels);
        expect(oa.runs).toHaveLength(oa.runSize);
        expect(isStrength2(oa.runs, levels)).toBe(true);
        expect(oa.verification.strength2).toBe(true);
        // bounds, computed independently
        const rao = 1 + levels.reduce((a, s) => a + s - 1, 0);
        let L = 1;
        for (let i = 0; i < levels.length; i++)
          for (let j = i + 1; j < levels.length; j++) L = (L * levels[i] * levels[j]) / gcd(L, levels[i] * levels[j]);
        expect(oa.raoBound).toBe(rao);
        expect(oa.divisibilityBound).toBe(L);
        expect(oa.runSize).toBeGreaterThanOrEqual(rao);
        expect(oa.runSize % L).toBe(0);
        expect(oa.minimalRunSize).toBe(oa.runSize === Math.ceil(rao / L) * L);
        if (distinctRuns) expect(new Set(oa.runs.map((r) => r.join(','))).size).toBe(oa.runSize);
      }),
      { numRuns: 60 },
    );
    expect(returned).toBeGreaterThan(10);
  });
});

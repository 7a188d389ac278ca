import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  BASE_HARNESS,
  DEFAULT_SPACE,
  enumerateSpace,
  formatHarnessId,
  hammingDistance,
  parseHarnessId,
  spaceFromLevels,
  spaceSize,
} from '../../src/design';
import { spaceLevels, validateSpace } from '../../src/design/space';

describe('default harness space (docs/ARCHITECTURE.md "Harness space and design")', () => {
  it('has S, T, O, C, W with three realizations each, ids key+level, non-empty names and descriptions', () => {
    validateSpace(DEFAULT_SPACE);
    expect(DEFAULT_SPACE.components.map((c) => c.key)).toEqual(['S', 'T', 'O', 'C', 'W']);
    for (const c of DEFAULT_SPACE.components) {
      expect(c.realizations.map((r) => r.id)).toEqual([0, 1, 2].map((l) => `${c.key}${l}`));
      for (const r of c.realizations) {
        expect(r.name.length).toBeGreaterThan(0);
        expect(r.description.length).toBeGreaterThan(0);
        expect(r.description).not.toContain('\n');
      }
    }
    expect(spaceLevels()).toEqual([3, 3, 3, 3, 3]);
    expect(spaceSize()).toBe(243);
    expect(parseHarnessId(BASE_HARNESS)).toEqual([0, 0, 0, 0, 0]);
  });

  it('enumerates 243 distinct configurations, base first, in mixed-radix order', () => {
    const all = enumerateSpace();
    expect(all).toHaveLength(243);
    const ids = all.map((v) => formatHarnessId(v));
    expect(new Set(ids).size).toBe(243);
    expect(ids[0]).toBe(BASE_HARNESS);
    expect(ids[1]).toBe('S0-T0-O0-C0-W1');
    expect(ids[242]).toBe('S2-T2-O2-C2-W2');
  });

  it('parses and formats the example id', () => {
    expect(parseHarnessId('S0-T1-O2-C0-W1')).toEqual([0, 1, 2, 0, 1]);
    expect(formatHarnessId([0, 1, 2, 0, 1])).toBe('S0-T1-O2-C0-W1');
  });
});

describe('harness ids: parse/format round trip over random spaces', () => {
  const spaceAndConfig = fc
    .array(fc.integer({ min: 2, max: 12 }), { minLength: 1, maxLength: 8 })
    .chain((levels) => fc.tuple(fc.constant(levels), fc.tuple(...levels.map((s) => fc.integer({ min: 0, max: s - 1 })))));

  it('formatHarnessId then parseHarnessId is the identity (and vice versa)', () => {
    fc.assert(
      fc.property(spaceAndConfig, ([levels, config]) => {
        const space = spaceFromLevels(levels);
        const id = formatHarnessId(config, space);
        expect(parseHarnessId(id, space)).toEqual(config);
        expect(formatHarnessId(parseHarnessId(id, space), space)).toBe(id);
      }),
      { numRuns: 200 },
    );
  });

  it('a generic space gets keys A, B, C, … and the default levels give DEFAULT_SPACE', () => {
    const sp = spaceFromLevels([2, 3, 3, 4]);
    expect(sp.components.map((c) => c.key)).toEqual(['A', 'B', 'C', 'D']);
    expect(formatHarnessId([1, 0, 2, 3], sp)).toBe('A1-B0-C2-D3');
    expect(enumerateSpace(sp)).toHaveLength(72);
    expect(spaceFromLevels([3, 3, 3, 3, 3])).toBe(DEFAULT_SPACE);
  });
});

describe('harness ids: errors name the bad part', () => {
  const cases: [string, RegExp][] = [
    ['S0-T1-O7-C0-W1', /component 3 'O7': level 7 out of range 0\.\.2/],
    ['S0-T1-O2-C0', /expected 5 parts .* got 4/],
    ['S0-T1-O2-C0-W1-X0', /expected 5 parts .* got 6/],
    ['S0-T1-X2-C0-W1', /component 3 'X2': expected component key 'O'/],
    ['T1-S0-O2-C0-W1', /component 1 'T1': expected component key 'S'/],
    ['S0-Tx-O2-C0-W1', /component 2 'Tx': level must be a decimal integer/],
    ['S0-T-O2-C0-W1', /component 2 'T': level must be a decimal integer/],
    ['', /expected 5 parts/],
  ];
  for (const [id, re] of cases) {
    it(`'${id}'`, () => {
      expect(() => parseHarnessId(id)).toThrow(re);
      expect(() => parseHarnessId(id)).toThrow(`harness id '${id}'`);
    });
  }

  it('formatting an out-of-range level vector names the component', () => {
    expect(() => formatHarnessId([0, 0, 3, 0, 0])).toThrow(/component 3 'O': level 3 out of range 0\.\.2/);
    expect(() => formatHarnessId([0, 0, 0])).toThrow(/expected 5 entries, got 3/);
  });

  it('bad level lists name the entry', () => {
    expect(() => spaceFromLevels([3, 1])).toThrow(/entry 2 must be an integer ≥ 2, got 1/);
    expect(() => spaceFromLevels([])).toThrow(/non-empty/);
  });
});

describe('Hamming distance', () => {
  const pairOfConfigs = fc.array(fc.integer({ min: 2, max: 5 }), { minLength: 1, maxLength: 7 }).chain((levels) => {
    const cfg = fc.tuple(...levels.map((s) => fc.integer({ min: 0, max: s - 1 })));
    return fc.tuple(cfg, cfg, cfg);
  });

  it('is a metric bounded by the number of components, and equals the count of differing positions', () => {
    fc.assert(
      fc.property(pairOfConfigs, ([a, b, c]) => {
        const d = hammingDistance(a, b);
        expect(d).toBe(hammingDistance(b, a));
        expect(hammingDistance(a, a)).toBe(0);
        expect(d === 0).toBe(a.every((x, i) => x === b[i]));
        expect(d).toBeLessThanOrEqual(a.length);
        expect(hammingDistance(a, c)).toBeLessThanOrEqual(d + hammingDistance(b, c));
        // independent count
        let n = 0;
        for (let i = 0; i < a.length; i++) n += a[i] === b[i] ? 0 : 1;
        expect(d).toBe(n);
      }),
      { numRuns: 200 },
    );
  });

  it('accepts ids and rejects configurations of different lengths', () => {
    expect(hammingDistance('S0-T1-O2-C0-W1', 'S0-T0-O2-C1-W1')).toBe(2);
    expect(hammingDistance(BASE_HARNESS, 'S2-T2-O2-C2-W2')).toBe(5);
    expect(() => hammingDistance([0, 1], [0, 1, 2])).toThrow(/differ in length \(2 vs 3\)/);
  });
});

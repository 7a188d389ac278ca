import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { Rng } from '../../src/util/rng';

describe('Rng', () => {
  it('same seed, same stream; state round-trips', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const a = new Rng(seed);
        const b = new Rng(seed);
        for (let i = 0; i < 5; i++) expect(a.nextU32()).toBe(b.nextU32());
        const c = Rng.fromState(a.state());
        for (let i = 0; i < 5; i++) expect(c.nextU32()).toBe(a.nextU32());
      }),
    );
  });
  it('int(n) stays in range and covers it', () => {
    const r = new Rng(1);
    const seen = new Set<number>();
    for (let i = 0; i < 1000; i++) {
      const x = r.int(7);
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(7);
      seen.add(x);
    }
    expect(seen.size).toBe(7);
  });
  it('derived streams differ by label', () => {
    expect(Rng.derive(3, 'a').nextU32()).not.toBe(Rng.derive(3, 'b').nextU32());
    expect(Rng.derive(3, 'a').nextU32()).toBe(Rng.derive(3, 'a').nextU32());
  });
  it('rejects bad seeds and n', () => {
    expect(() => new Rng(1.5)).toThrow(/seed/);
    expect(() => new Rng(0).int(0)).toThrow(/positive integer/);
  });
});

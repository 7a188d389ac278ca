import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { applyMergePatch, mergePatch, specHash } from '../../src/app/spec_patch';
import { smokeSpec } from './lib/smoke_spec';

describe('spec merge patches (Train view URL)', () => {
  it('a small edit gives a small patch that reproduces the edited spec', () => {
    const quick = smokeSpec();
    const edited = structuredClone(quick) as any;
    edited.rl.steps = 3;
    edited.evaluation.blackbox = [];
    edited.model.init = 'scratch';
    const p = mergePatch(quick, edited);
    expect(p).toEqual({ model: { init: 'scratch' }, rl: { steps: 3 }, evaluation: { blackbox: [] } });
    expect(applyMergePatch(quick, p)).toEqual(edited);
    expect(mergePatch(quick, structuredClone(quick))).toBeUndefined();
  });

  it('removed keys become null and are deleted again', () => {
    const p = mergePatch({ a: 1, b: { c: 2, d: 3 } }, { b: { c: 2 } });
    expect(p).toEqual({ a: null, b: { d: null } });
    expect(applyMergePatch({ a: 1, b: { c: 2, d: 3 } }, p)).toEqual({ b: { c: 2 } });
  });

  it('round trip on random JSON without nulls (property)', () => {
    const leaf = fc.oneof(fc.integer(), fc.string(), fc.boolean(), fc.array(fc.integer(), { maxLength: 3 }));
    const obj = fc.letrec((tie) => ({
      node: fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), fc.oneof({ maxDepth: 3 }, leaf, tie('node')), { maxKeys: 4 }),
    })).node;
    fc.assert(
      fc.property(obj, obj, (a, b) => {
        expect(applyMergePatch(a, mergePatch(a, b) ?? {})).toEqual(b);
      }),
      { seed: 7, numRuns: 300 },
    );
  });

  it('canonical JSON and the hash ignore key order and see every change', () => {
    expect(specHash({ b: 1, a: { d: 2, c: 3 } })).toBe(specHash({ a: { c: 3, d: 2 }, b: 1 }));
    expect(specHash({ a: { c: 3, d: 2 } })).not.toBe(specHash({ a: { c: 2, d: 3 } }));
    expect(specHash({ b: 1, a: 2 })).toBe(specHash({ a: 2, b: 1 }));
    expect(specHash({ a: 2, b: 1 })).not.toBe(specHash({ a: 2, b: 2 }));
    expect(specHash({})).toMatch(/^[0-9a-f]{8}$/);
  });
});

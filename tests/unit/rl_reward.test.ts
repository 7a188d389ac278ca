import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { rewardOf } from '../../src/rl/reward';
import { SUITES, runSolver } from '../../src/tasks/index';

describe('rewardOf', () => {
  it('pass mode is 0/1, score mode is the partial credit', () => {
    expect(rewardOf({ pass: true, score: 1 }, 'pass')).toBe(1);
    expect(rewardOf({ pass: false, score: 0.75 }, 'pass')).toBe(0);
    expect(rewardOf({ pass: true, score: 1 }, 'score')).toBe(1);
    expect(rewardOf({ pass: false, score: 0.375 }, 'score')).toBe(0.375);
    expect(rewardOf({ pass: false, score: 0 }, 'score')).toBe(0);
  });

  it('refuses bad modes and inconsistent or out-of-range outcomes', () => {
    expect(() => rewardOf({ pass: true, score: 1 }, 'binary' as never)).toThrow(/mode must be one of pass, score/);
    expect(() => rewardOf({ pass: false, score: 1.5 }, 'score')).toThrow(/\[0, 1\]/);
    expect(() => rewardOf({ pass: false, score: Number.NaN }, 'score')).toThrow(/finite/);
    expect(() => rewardOf({ pass: true, score: 0.5 }, 'pass')).toThrow(/inconsistent/);
    expect(() => rewardOf({ pass: false, score: 1 }, 'score')).toThrow(/inconsistent/);
  });

  it('property: both modes agree on success and lie in [0, 1]; score mode ≥ pass mode', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), (s) => {
        const o = { pass: s === 1, score: s };
        const p = rewardOf(o, 'pass');
        const r = rewardOf(o, 'score');
        expect(r).toBeGreaterThanOrEqual(p);
        expect(r === 1).toBe(p === 1);
      }),
      { seed: 3, numRuns: 200 },
    );
  });

  it('on real verifier outcomes: doing nothing is 0 in both modes, the solver 1', () => {
    for (const suite of Object.values(SUITES)) {
      for (const f of suite.families) {
        const task = suite.generate(f.name, 2, 9);
        const nothing = suite.verify(task, task.initial, { steps: [], answer: 'done' });
        expect(rewardOf(nothing, 'score'), task.id).toBe(0);
        expect(rewardOf(runSolver(suite, task).verification, 'score')).toBe(1);
      }
    }
  });
});

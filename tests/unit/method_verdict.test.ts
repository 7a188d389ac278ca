import { describe, expect, it } from 'vitest';
import { comparedSets, methodVerdict, pairVerdicts } from '../../src/experiment/method_verdict';
import type { RunResult } from '../../src/experiment/results_file';
import { Rng } from '../../src/util/rng';

const A = 'single harness (GRPO)';
const B = 'harness scaling (GRPO, K=4)';
const CONFIGS = ['S1-T0-O0-C0-W1', 'S2-T1-O0-C0-W0', 'S0-T2-O1-C1-W0', 'S1-T1-O2-C0-W2'];

/**
 * Runs of two methods over `seeds`, in-space cells on 4 configurations × 20 tasks × 2 samples: each
 * cell passes with probability pA (A) or pA + effect (B), drawn from an explicit seed; base cells too.
 */
function experiment(seeds: number, pA: number, effect: number, seed = 1): RunResult[] {
  const rng = new Rng(seed);
  const cells = (p: number, harnesses: readonly string[]) =>
    harnesses.flatMap((harnessId) =>
      Array.from({ length: 20 }, (_, t) =>
        [0, 1].map((sample) => {
          const pass = rng.float() < p;
          return { taskId: `t${t}`, harnessId, sample, pass, score: pass ? 1 : 0 };
        }),
      ).flat(),
    );
  const run = (method: string, s: number, p: number): RunResult =>
    ({
      method,
      seed: s,
      after: { base: p, inSpace: p, blackbox: { 'bb-assistant': 0 } },
      episodes: { before: {}, after: { inSpace: cells(p, CONFIGS), base: cells(p, ['S0-T0-O0-C0-W0']), 'bb-assistant': cells(0, ['bb-assistant']) } },
    }) as unknown as RunResult;
  return Array.from({ length: seeds }, (_, s) => [run(A, s, pA), run(B, s, pA + effect)]).flat();
}

describe('method verdict: B − A after RL, told in one sentence under the RESULTS rule', () => {
  it('a large effect over 8 seeds is "ahead"; the same data with the arms swapped is "behind" (a wrong sign fails)', () => {
    const runs = experiment(8, 0.3, 0.25);
    const v = methodVerdict(runs, A, B, 'inSpace')!;
    expect(v.direction).toBe('ahead');
    expect(v.comparison.pass.diff).toBeGreaterThan(0.15);
    expect(v.comparison.pass.seeds).toBe(8);
    expect(v.comparison.pass.configs).toBe(4);
    expect(v.sentence).toMatch(
      /^On held-out configurations \(in-space\), harness scaling \(GRPO, K=4\) is ahead of single harness \(GRPO\): \+\d+\.\d points \[\+\d+\.\d, \+\d+\.\d\] over 8 seeds × 4 configurations; the 95 % interval excludes 0\.$/,
    );
    const w = methodVerdict(runs, B, A, 'inSpace')!;
    expect(w.direction).toBe('behind');
    expect(w.comparison.pass.diff).toBeCloseTo(-v.comparison.pass.diff, 12);
    expect(w.sentence).toContain('is behind');
  });

  it('identical arms are "equivalent" (inside ±2 points); a small effect over 2 seeds is "undecided" and says what would decide it', () => {
    const same = experiment(5, 0.4, 0).map((r) => (r.method === B ? { ...r } : r));
    const bRuns = same.filter((r) => r.method === B);
    // B's episodes are A's, cell for cell: every difference is 0.
    for (const r of bRuns) r.episodes = same.find((x) => x.method === A && x.seed === r.seed)!.episodes;
    const eq = methodVerdict(same, A, B, 'inSpace')!;
    expect(eq.direction).toBe('equivalent');
    expect(eq.sentence).toContain('inside ±2 points');

    const small = methodVerdict(experiment(2, 0.4, 0.03, 7), A, B, 'inSpace')!;
    expect(small.direction).toBe('undecided');
    expect(small.sentence).toMatch(/undecided: .*; (≈ \d+ seeds would decide it|more in-space configurations|at this effect|the effect is too small)/);
  });

  it('one seed is never decided; both arms at the floor are "not measurable"; a missing method gives null', () => {
    const one = methodVerdict(experiment(1, 0.2, 0.6), A, B, 'inSpace')!;
    expect(one.direction).toBe('undecided');
    expect(one.sentence).toContain('one seed');
    const bb = methodVerdict(experiment(4, 0.3, 0.2), A, B, 'bb-assistant')!;
    expect(bb.direction).toBe('not measurable');
    expect(bb.sentence).toContain('every episode fails under both');
    expect(methodVerdict(experiment(3, 0.3, 0.1), A, 'no such method', 'inSpace')).toBeNull();
  });

  it('pairVerdicts reads in-space first, then the base harness, then each black-box harness', () => {
    const runs = experiment(3, 0.3, 0.1);
    expect(comparedSets(runs)).toEqual(['inSpace', 'base', 'bb-assistant']);
    expect(pairVerdicts(runs, A, B).map((v) => v.set.key)).toEqual(['inSpace', 'base', 'bb-assistant']);
  });
});

describe('comparison panel pair', () => {
  it('defaults to the second method against the first, keeps a valid pick, and picking the other side swaps the arms', async () => {
    const { defaultPair, picked } = await import('../../src/app/views/comparison_panel');
    expect(defaultPair(['x'], null)).toBeNull();
    expect(defaultPair(['x', 'y', 'z'], null)).toEqual({ a: 'x', b: 'y' });
    expect(defaultPair(['x', 'y', 'z'], { a: 'z', b: 'x' })).toEqual({ a: 'z', b: 'x' });
    expect(defaultPair(['x', 'y'], { a: 'x', b: 'gone' })).toEqual({ a: 'x', b: 'y' });
    expect(picked({ a: 'x', b: 'y' }, 'b', 'x')).toEqual({ a: 'y', b: 'x' });
    expect(picked({ a: 'x', b: 'y' }, 'b', 'z')).toEqual({ a: 'x', b: 'z' });
  });
});

import { describe, expect, it } from 'vitest';
import { coverageSentence, methodVerdict, pairReport, pairVerdicts } from '../../src/report/method_verdict';
import type { RunResult } from '../../src/report/results_schema';
import { Rng } from '../../src/util/rng';

const A = 'single harness (GRPO)';
const B = 'harness scaling (GRPO, K=4)';
/** What arms a and b pair on in harness set `key` (the pairReport row of that set). */
const pairCoverage = (runs: readonly RunResult[], a: string, b: string, key: string) =>
  pairReport(runs, a, b).find((r) => r.coverage.set.key === key)!.coverage;

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
      episodes: {
        before: {},
        after: { inSpace: cells(p, CONFIGS), base: cells(p, ['S0-T0-O0-C0-W0']), 'bb-assistant': cells(0, ['bb-assistant']) },
      },
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
    expect(small.sentence).toMatch(
      /undecided: .*; (≈ \d+ seeds would decide it|more in-space configurations|at this effect|the effect is too small|.*would show equivalence)/,
    );
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
    expect(pairReport(runs, A, B).map((r) => r.coverage.set.key)).toEqual(['inSpace', 'base', 'bb-assistant']);
    expect(pairVerdicts(runs, A, B).map((v) => v.set.key)).toEqual(['inSpace', 'base', 'bb-assistant']);
  });
});

/**
 * One method's runs as an output of its own would record them: in-space cells on `configs` ×
 * `tasks` tasks × 2 samples and base cells, for each seed; pass with probability p (explicit seed).
 */
function arm(
  method: string,
  seeds: readonly number[],
  configs: readonly string[],
  p: number,
  opts: { tasks?: number; taskFrom?: number; seed?: number; blackbox?: boolean } = {},
): RunResult[] {
  const rng = new Rng(opts.seed ?? 3);
  const cells = (harnesses: readonly string[]) =>
    harnesses.flatMap((harnessId) =>
      Array.from({ length: opts.tasks ?? 10 }, (_, t) =>
        [0, 1].map((sample) => {
          const pass = rng.float() < p;
          return { taskId: `t${(opts.taskFrom ?? 0) + t}`, harnessId, sample, pass, score: pass ? 1 : 0 };
        }),
      ).flat(),
    );
  return seeds.map(
    (seed) =>
      ({
        method,
        seed,
        after: { base: p, inSpace: p, blackbox: opts.blackbox ? { 'bb-assistant': 0 } : {} },
        episodes: {
          before: {},
          after: {
            inSpace: cells(configs),
            base: cells(['S0-T0-O0-C0-W0']),
            ...(opts.blackbox ? { 'bb-assistant': cells(['bb-assistant']) } : {}),
          },
        },
      }) as unknown as RunResult,
  );
}

describe('pairing: what two arms share (seeds, configurations, tasks), said before a verdict', () => {
  it('one experiment pairs in full: no sentence, and pairReport carries pairVerdicts’ verdicts unchanged', () => {
    const runs = experiment(4, 0.3, 0.1);
    const c = pairCoverage(runs, A, B, 'inSpace');
    expect(c.extent).toBe('full');
    expect(c.cells).toEqual({ a: 4 * 160, b: 4 * 160, paired: 4 * 160 });
    expect(c.seeds.shared).toEqual([0, 1, 2, 3]);
    expect(coverageSentence(c, A, B)).toBeNull();
    const report = pairReport(runs, A, B);
    expect(report.map((r) => r.coverage.set.key)).toEqual(['inSpace', 'base', 'bb-assistant']);
    expect(report.map((r) => r.verdict)).toEqual(pairVerdicts(runs, A, B));
  });

  it('two outputs sharing one seed and one configuration pair on those cells only, and the sentence names them', () => {
    // A: seeds 0–3 on four configurations; B: seed 0 on two, one of them A's; B's tasks t5..t14 against A's t0..t9.
    const runs = [...arm('x', [0, 1, 2, 3], CONFIGS, 0.3), ...arm('y', [0], [CONFIGS[1], 'S2-T2-O2-C2-W2'], 0.6, { taskFrom: 5, seed: 9 })];
    const c = pairCoverage(runs, 'x', 'y', 'inSpace');
    expect(c.extent).toBe('partial');
    expect(c.seeds).toEqual({ a: [0, 1, 2, 3], b: [0], shared: [0] });
    expect(c.configs).toEqual({ a: 4, b: 2, shared: 1 });
    expect(c.tasks).toEqual({ a: 10, b: 10, shared: 5 });
    // 1 configuration × 5 tasks × 2 samples of seed 0.
    expect(c.cells).toEqual({ a: 4 * 80, b: 40, paired: 10 });
    const s = coverageSentence(c, 'x', 'y')!;
    expect(s).toBe(
      "On held-out configurations (in-space), y and x pair on part of their episodes only, 10 episodes of y's 40 and x's 320: only seed 0 in common (y: seed 0; x: seeds 0–3); on it, 1 harness configuration in common (y: 2 configurations; x: 4 configurations); on it, 5 test tasks in common (y: 10 tasks; x: 10 tasks). The verdict holds for these shared episodes only.",
    );
    // The verdict is over the shared cells alone: its difference is the mean over those 10 cells.
    const v = methodVerdict(runs, 'x', 'y', 'inSpace')!;
    expect(v.comparison.pass.seeds).toBe(1);
    expect(v.comparison.pass.configs).toBe(1);
    const key = (e: { taskId: string; harnessId: string; sample: number }) => `${e.taskId}|${e.harnessId}|${e.sample}`;
    const xa = new Map(runs[0].episodes!.after.inSpace.map((e) => [key(e), e.pass ? 1 : 0]));
    const shared = runs[4].episodes!.after.inSpace.filter((e) => xa.has(key(e)));
    expect(shared).toHaveLength(10);
    expect(v.comparison.pass.diff).toBeCloseTo(shared.reduce((n, e) => n + (e.pass ? 1 : 0) - xa.get(key(e))!, 0) / 10, 12);
  });

  it('nothing in common gives no verdict and says why: no configuration, no seed, no outcomes; pairVerdicts drops the set, pairReport keeps it', () => {
    const noConfig = [...arm('x', [0, 1], CONFIGS, 0.3, { blackbox: true }), ...arm('y', [0], ['S2-T2-O2-C2-W2', 'S2-T2-O2-C2-W1'], 0.5)];
    const c = pairCoverage(noConfig, 'x', 'y', 'inSpace');
    expect(c.extent).toBe('none');
    expect(c.configs).toEqual({ a: 4, b: 2, shared: 0 });
    expect(methodVerdict(noConfig, 'x', 'y', 'inSpace')).toBeNull();
    expect(coverageSentence(c, 'x', 'y')).toBe(
      'On held-out configurations (in-space), y and x cannot be paired: only seed 0 in common (y: seed 0; x: seeds 0–1); on it, no harness configuration in common (y: 2 configurations; x: 4 configurations).',
    );
    expect(pairVerdicts(noConfig, 'x', 'y').map((v) => v.set.key)).toEqual(['base']);
    const report = pairReport(noConfig, 'x', 'y');
    expect(report.map((r) => [r.coverage.set.key, r.coverage.extent, r.verdict?.direction ?? null])).toEqual([
      ['inSpace', 'none', null],
      ['base', 'partial', 'undecided'],
      ['bb-assistant', 'none', null],
    ]);
    expect(coverageSentence(report[2].coverage, 'x', 'y')).toBe(
      'On the black-box harness bb-assistant, y and x cannot be paired: y has no per-episode outcomes there (not evaluated, not recorded, or not loaded yet).',
    );

    const noSeed = [...arm('x', [0, 1, 2], CONFIGS, 0.3), ...arm('y', [5, 7], CONFIGS, 0.5)];
    const d = pairCoverage(noSeed, 'x', 'y', 'base');
    expect(d.extent).toBe('none');
    expect(coverageSentence(d, 'x', 'y')).toBe(
      'On the base harness, y and x cannot be paired: no training seed in common (y: seeds 5, 7; x: seeds 0–2).',
    );
  });

  it('seed lists in the coverage sentence read as ranges where they are', () => {
    const noSeed = [...arm('x', [0, 1, 2], CONFIGS, 0.3), ...arm('y', [5, 7], CONFIGS, 0.5)];
    const d = pairCoverage(noSeed, 'x', 'y', 'base');
    const seedsSaid = (a: number[], b: number[]) =>
      coverageSentence({ ...d, seeds: { a, b, shared: [] } }, 'x', 'y')?.match(/no training seed in common \((.*)\)\.$/)?.[1];
    expect(seedsSaid([], [3])).toBe('y: seed 3; x: no seed');
    expect(seedsSaid([0, 1, 2, 3], [0, 2, 5])).toBe('y: seeds 0, 2, 5; x: seeds 0–3');
  });
});

describe('Compare: the default pair over several outputs', () => {
  it('within the first output with two methods, else the first method of the first two outputs', async () => {
    const { compareDefaultPair } = await import('../../src/app/views/compare_between');
    const one = (m: string) => arm(m, [0], CONFIGS, 0.3);
    expect(
      compareDefaultPair([
        { tag: 'A', runs: one('s') },
        { tag: 'B', runs: [...one('s'), ...one('h')] },
      ]),
    ).toEqual({ a: 'B · s', b: 'B · h' });
    expect(
      compareDefaultPair([
        { tag: 'A', runs: [...one('s'), ...one('h')] },
        { tag: 'B', runs: [...one('s'), ...one('h')] },
      ]),
    ).toEqual({ a: 'A · s', b: 'A · h' });
    expect(
      compareDefaultPair([
        { tag: 'A', runs: one('s') },
        { tag: 'B', runs: one('s') },
      ]),
    ).toEqual({ a: 'A · s', b: 'B · s' });
    expect(compareDefaultPair([{ tag: 'A', runs: one('s') }])).toBeNull();
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

// What dynamic sampling changed (sampling_effect.ts): one place of the map run without and with
// dynamic sampling, compared per method and as the change of the HS − single gap, on the seeds
// both ran. Synthetic experiments whose pass rates are set per (arm, seed), so each difference
// is known exactly: a swapped side, a wrong sign or a mispaired cell fails.
import { describe, expect, it } from 'vitest';
import type { CommittedResults } from '../../src/experiment/claims';
import { samplingEffects, samplingMarkdown } from '../../src/experiment/sampling_effect';
import type { RunResult } from '../../src/report/results_schema';
import { exactCells as cells } from './lib/exact_cells';

const SINGLE = 'single harness (GRPO)';
const HS = 'harness scaling (GRPO, K=4)';
const BASE = 'S0-T0-O0-C0-W0';
const CONFIGS = ['S1-T1-O0-C0-W0', 'S0-T0-O2-C1-W0', 'S1-T1-O1-C1-W1', 'S2-T2-O2-C2-W2'];
const TRAIN = ['S1-T0-O1-C2-W1', 'S2-T1-O0-C1-W2'];

/** Rates after RL per method: in-space, base, training harnesses. */
type Rates = Record<string, { inSpace: number; base: number; train: number }>;

function preset(dynamicSampling: boolean, seeds: readonly number[], rates: (seed: number) => Rates): CommittedResults {
  const runs = seeds.flatMap((seed) =>
    [SINGLE, HS].map((method) => {
      const r = rates(seed)[method];
      return {
        method,
        seed,
        rlSteps: 60,
        optimizerSteps: 120,
        rlStepsWithoutUpdate: dynamicSampling ? 0 : 2,
        ...(dynamicSampling ? { sampledEpisodes: method === HS ? 9000 : 8000 } : {}),
        before: { base: 0.4, inSpace: 0.15, blackbox: {} },
        after: { base: r.base, inSpace: r.inSpace, blackbox: {} },
        episodes: {
          before: {},
          after: {
            inSpace: cells(r.inSpace, CONFIGS, seed),
            base: cells(r.base, [BASE], seed),
            train: cells(r.train, method === SINGLE ? [BASE] : TRAIN, seed),
          },
        },
      } as unknown as RunResult;
    }),
  );
  const specJson = {
    model: { preset: 'mini', init: 'base' },
    rl: { steps: 60, tasksPerStep: 8, groupSize: 8, ...(dynamicSampling ? { dynamicSampling: { maxRounds: 4 } } : {}) },
    methods: [
      { name: SINGLE, harnesses: 'single', K: 1, algorithm: 'grpo' },
      { name: HS, harnesses: 'scaling', K: 4, algorithm: 'grpo' },
    ],
  };
  return { runs, specJson } as unknown as CommittedResults;
}

// Without dynamic sampling: single 0.30 in-space, HS 0.30; with it, HS gains `gain` (plus a seed wobble of ±0.05), single nothing.
const off = (_seed: number): Rates => ({
  [SINGLE]: { inSpace: 0.3, base: 0.6, train: 0.6 },
  [HS]: { inSpace: 0.3, base: 0.45, train: 0.2 },
});
const on =
  (gain: number) =>
  (seed: number): Rates => ({
    [SINGLE]: { inSpace: 0.3, base: 0.6, train: 0.6 },
    [HS]: { inSpace: 0.3 + gain + (seed % 2 ? 0.05 : -0.05), base: 0.55, train: 0.3 },
  });

const results = (entries: Array<[string, CommittedResults]>) => new Map(entries);

describe('samplingEffects', () => {
  it('pairs the place without and with dynamic sampling on their shared seeds and reads each difference', () => {
    const [e, ...rest] = samplingEffects(
      results([
        ['main', preset(false, [0, 1, 2, 3, 4, 5], off)],
        ['map-broad-60', preset(true, [0, 1, 2, 3], on(0.2))],
      ]),
    );
    expect(rest).toEqual([]);
    expect(e).toMatchObject({ exposure: 'broad', steps: 60, a: 'main', b: 'map-broad-60', seeds: [0, 1, 2, 3] });
    const get = (m: string, k: string) => e.effects.find((x) => x.method === m && x.verdict.set.key === k)?.verdict;
    // HS in-space: +0.2 on average (seeds wobble ±0.05 around it), every seed ahead.
    expect(get(HS, 'inSpace')?.comparison.pass.diff).toBeCloseTo(0.2, 10);
    expect(get(HS, 'inSpace')?.direction).toBe('ahead');
    expect(get(HS, 'base')?.comparison.pass.diff).toBeCloseTo(0.1, 10);
    expect(get(HS, 'train')?.comparison.pass.diff).toBeCloseTo(0.1, 10);
    // Single is unchanged on every cell: a zero difference with zero spread.
    expect(get(SINGLE, 'inSpace')?.comparison.pass.diff).toBe(0);
    // Single trains through the base harness only: no 'train' row repeating 'base'.
    expect(get(SINGLE, 'train')).toBeUndefined();
    // The gap HS − single moved by HS's gain: +0.2 in-space, +0.1 on the base harness.
    const inter = (k: string) => e.interactions.find((x) => x.key === k)!;
    expect(inter('inSpace').comparison.pass.diff).toBeCloseTo(0.2, 10);
    expect(inter('inSpace').direction).toBe('ahead');
    expect(inter('base').comparison.pass.diff).toBeCloseTo(0.1, 10);
    // Costs: recorded with dynamic sampling, steps × tasksPerStep × groupSize without it.
    expect(e.costs.find((c) => c.method === HS)).toMatchObject({ sampled: [3840, 9000], stepsWithoutUpdate: [2, 0] });
  });

  it('a loss under dynamic sampling reads behind, and the gap moves toward single', () => {
    const [e] = samplingEffects(
      results([
        ['main', preset(false, [0, 1, 2, 3], off)],
        ['map-broad-60', preset(true, [0, 1, 2, 3], on(-0.2))],
      ]),
    );
    expect(e.effects.find((x) => x.method === HS && x.verdict.set.key === 'inSpace')?.verdict.direction).toBe('behind');
    expect(e.interactions.find((x) => x.key === 'inSpace')?.comparison.pass.diff).toBeCloseTo(-0.2, 10);
    expect(samplingMarkdown([e])).toMatch(/HS − single gap \(interaction\) \| in-space \| −20\.0 \[[^\]]+\] \| moves it toward single/);
  });

  it('nothing to compare without a place run both ways, or without a shared seed', () => {
    expect(samplingEffects(results([['map-broad-60', preset(true, [0, 1], on(0.2))]]))).toEqual([]);
    expect(
      samplingEffects(
        results([
          ['main', preset(false, [0, 1], off)],
          ['map-broad-60', preset(true, [2, 3], on(0.2))],
        ]),
      ),
    ).toEqual([]);
    expect(samplingMarkdown([])).toMatch(/No place of the map/);
  });
});

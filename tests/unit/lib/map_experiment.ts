// Synthetic committed experiments for the map's tests: seeds × {single harness, harness scaling}
// with a known in-space effect, drawn from an explicit seed.
import { conditionsMap, type MapCell } from '../../../src/experiment/conditions_map';
import type { CommittedResults } from '../../../src/experiment/claims';
import type { RunResult } from '../../../src/report/results_schema';
import { Rng } from '../../../src/util/rng';

export const SINGLE = 'single harness (GRPO)';
export const HS = 'harness scaling (GRPO, K=4)';
// Two configurations at Hamming distance 2 from the base harness, two at 5.
export const CONFIGS = ['S1-T1-O0-C0-W0', 'S0-T0-O2-C1-W0', 'S1-T1-O1-C1-W1', 'S2-T2-O2-C2-W2'];

export interface Place {
  exposure?: string;
  steps: number;
  dynamicSampling?: boolean;
  /** In-space pass probability before RL and of single after it (default 0.3). */
  level?: number;
}

/**
 * A committed experiment: `seeds` seeds × {single, HS}; in-space cells pass with probability p
 * (single) or p + effect (HS, on the configurations `effectOn` keeps), 20 tasks × 2 samples each.
 */
export function experiment(
  place: Place,
  seeds: number,
  effect: number,
  effectOn: (h: string) => boolean = () => true,
  seed = 7,
): CommittedResults {
  const rng = new Rng(seed);
  const level = place.level ?? 0.3;
  const cells = (p: (h: string) => number, harnesses: readonly string[]) =>
    harnesses.flatMap((harnessId) =>
      Array.from({ length: 20 }, (_, t) =>
        [0, 1].map((sample) => {
          const pass = rng.float() < p(harnessId);
          return { taskId: `t${t}`, harnessId, sample, pass, score: pass ? 1 : 0 };
        }),
      ).flat(),
    );
  const run = (method: string, s: number, delta: number): RunResult =>
    ({
      method,
      seed: s,
      optimizerSteps: place.steps,
      ...(place.dynamicSampling ? { sampledEpisodes: method === HS ? 2 * 64 * place.steps : 64 * place.steps } : {}),
      before: { base: 0.4, inSpace: level, blackbox: { 'bb-assistant': 0 } },
      after: { base: 0.4, inSpace: level, blackbox: { 'bb-assistant': 0 } },
      episodes: {
        before: {},
        after: {
          inSpace: cells((h) => level + (effectOn(h) ? delta : 0), CONFIGS),
          base: cells(() => 0.4, ['S0-T0-O0-C0-W0']),
          'bb-assistant': cells(() => 0, ['bb-assistant']),
        },
      },
    }) as unknown as RunResult;
  const specJson = {
    model: { preset: 'mini', init: 'base', ...(place.exposure ? { exposure: place.exposure } : {}) },
    rl: { steps: place.steps, ...(place.dynamicSampling ? { dynamicSampling: { maxRounds: 4 } } : {}) },
    methods: [
      { name: SINGLE, harnesses: 'single', K: 1, algorithm: 'grpo' },
      { name: HS, harnesses: 'scaling', K: 4, algorithm: 'grpo' },
    ],
  };
  const runs = Array.from({ length: seeds }, (_, s) => [run(SINGLE, s, 0), run(HS, s, effect)]).flat();
  return { resultsVersion: 1, spec: 'x', evalSet: '', machine: '', runs, specJson };
}

/** The map cell of one committed experiment (a map preset), or null when it is no cell. */
export const cellOf = (preset: string, res: CommittedResults): MapCell | null => conditionsMap(new Map([[preset, res]]))[0] ?? null;

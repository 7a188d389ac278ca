// Stub policies for tests without a model: random token ids drawn from the sample call's seed, so
// episode outcomes follow the seeds the code under test passes (what seeding is tested against).
import type { MeteredPolicy } from '../../../src/engine/engine_api';
import { Rng } from '../../../src/util/rng';

/** How a stub policy draws: its batch and context sizes, its Rng stream label, the id range, and a seed observer. */
interface RandomPolicyOptions {
  maxB?: number;
  maxT?: number;
  /** Rng.derive label of the draws (default 'stub'). */
  label?: string;
  /** Ids are drawn from [lo, lo + span) (default [0, vocabSize)). */
  lo?: number;
  span?: number;
  /** Called with the seed of every sample call. */
  onSeed?: (seed: number) => void;
}

/**
 * A metered Policy (default maxB 8, maxT 512) whose actions are 1…maxNew random ids, log-prob −1
 * each, seeded by the sample call's seed; it counts tokens and one ms per action.
 */
export function randomTokenPolicy(vocabSize: number, o: RandomPolicyOptions = {}): MeteredPolicy {
  const lo = o.lo ?? 0;
  const span = o.span ?? vocabSize;
  const p: MeteredPolicy = {
    maxB: o.maxB ?? 8,
    maxT: o.maxT ?? 512,
    tokens: 0,
    ms: 0,
    async sample(prompts: Int32Array[], maxNew: number, _t: number, seed: number) {
      o.onSeed?.(seed);
      const rng = Rng.derive(seed, o.label ?? 'stub');
      return prompts.map(() => {
        const ids = Int32Array.from({ length: 1 + rng.int(maxNew) }, () => lo + rng.int(span));
        p.tokens += ids.length;
        p.ms += 1;
        return { ids, logprobs: new Float32Array(ids.length).fill(-1), stop: 'length' as const };
      });
    },
  };
  return p;
}

// A stub policy for evaluation tests: random token ids drawn from the call's seed, so episode
// outcomes follow the batch's seeds (what the evaluation's seeding is tested against).
import type { Policy } from '../../../src/rollout/rollout';
import { Rng } from '../../../src/util/rng';

/** A Policy (maxB 8, maxT 512) whose actions are 1…maxNew random ids < vocabSize, seeded by the sample call's seed. */
export function randomTokenPolicy(vocabSize: number): Policy {
  return {
    maxB: 8,
    maxT: 512,
    tokens: 0,
    ms: 0,
    async sample(prompts: Int32Array[], maxNew: number, _t: number, seed: number) {
      const rng = Rng.derive(seed, 'stub');
      return prompts.map(() => ({
        ids: Int32Array.from({ length: 1 + rng.int(maxNew) }, () => rng.int(vocabSize)),
        logprobs: new Float32Array(1),
        stop: 'length' as const,
      }));
    },
  } as unknown as Policy;
}

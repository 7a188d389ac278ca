import type { EnvApi } from '../../../src/episode/host';
import type { evaluate } from '../../../src/experiment/evaluate';
import type { Tokenizer } from '../../../src/model/tokenizer';
import { inProcessEnv, type Policy } from '../../../src/rollout/rollout';

/** The options of `evaluate`. */
type EvalOptions = Parameters<typeof evaluate>[1];

/**
 * The options of a small evaluation of `policy` in `env` (in process): episodes of 2 turns of up
 * to 8 new tokens, 2 samples per cell at τ = 1, seed 3; `over` replaces any.
 */
export function smallEvalOptions(tok: Tokenizer, policy: Policy, env: EnvApi, over: Partial<EvalOptions> = {}): EvalOptions {
  return { tok, policy, env: inProcessEnv(env), maxTurns: 2, maxNewTokens: 8, samples: 2, temperature: 1, seed: 3, ...over };
}

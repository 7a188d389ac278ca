import type { Tokenizer } from '../../../src/model/tokenizer';
import { localEnvApi, type EnvApi, type EnvStepOut } from '../../../src/episode/host';

/**
 * An in-process environment whose final step reports the verdict `final(n)` returns for the
 * n-th finished episode (0-based) instead of the verifier's: a seam for tests of what the
 * loop and the evaluation do with pass and score.
 */
export function envWithOutcomes(
  tok: Tokenizer,
  final: (n: number) => Pick<EnvStepOut, 'pass' | 'reward' | 'score'>,
): { env: EnvApi; reset(): void } {
  const base = localEnvApi(tok);
  let finals = 0;
  const env: EnvApi = {
    reset: (x) => base.reset(x),
    async step(x, h) {
      const out = await base.step(x, h);
      return out.done ? { ...out, ...final(finals++) } : out;
    },
    close: (k) => base.close(k),
    demonstrate: (r) => base.demonstrate(r),
  };
  return { env, reset: () => void (finals = 0) };
}

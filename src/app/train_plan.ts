/**
 * The plan the Train view's worker runs (train_worker.ts): the spec validated once, the shipped
 * tokenizer and base checkpoints read through the app's asset cache, and the plan made as the
 * CLI makes it (experiment/prepare.ts), so the app and `hlab run` run one experiment per spec.
 */
import { checkSpecConsistency } from '../experiment/plan';
import type { ExperimentPlan } from '../experiment/compile';
import { planExperiment } from '../experiment/prepare';
import { parseSpec } from '../experiment/spec';
import { loadTokenizer, type Tokenizer } from '../model/tokenizer';

/**
 * The plan of `specJson` with the tokenizer it was made with.
 * @param steps overrides spec.rl.steps
 * @throws SpecError naming the bad fields; what planExperiment throws
 */
export async function trainPlan(specJson: unknown, steps?: number): Promise<{ plan: ExperimentPlan; tok: Tokenizer }> {
  const spec = checkSpecConsistency(parseSpec(specJson, 'spec'));
  const tok = await loadTokenizer();
  const { plan } = await planExperiment(spec, tok, { specJson, ...(steps !== undefined ? { steps } : {}) });
  return { plan, tok };
}

/**
 * Before any rollout of an experiment: every opening the run will show — evaluation
 * harnesses (base, held-out in-space, black-box, training) × test tasks, and each method's
 * training harnesses × its train-task pool and its validation split, for every seed — fits the run's context budget
 * min(model maxT, rollout.contextTokens) − rollout.maxNewTokens (src/episode/budget.ts), so a
 * configuration that would cut an instruction fails at once, naming the harness, task and sizes.
 */
import { BASE_HARNESS } from '../design/space';
import { presetConfig } from '../model/config';
import type { Tokenizer } from '../model/tokenizer';
import { checkOpeningsFit, runBudget, type OpeningReport } from '../episode/budget';
import { taskFromId } from '../tasks';
import { inSpaceEvalSet, testTasks, trainingHarnesses, trainPool, validationTasks } from './plan';
import type { ExperimentSpec } from './spec';

/**
 * @param poolPerSuite train tasks per suite of a run's pool (default plan.ts trainPool's)
 * @returns the largest opening per (seed, method)
 * @throws ContextBudgetError (rows.ts) naming the first pair whose opening does not fit.
 */
export function checkSpecOpenings(spec: ExperimentSpec, tok: Tokenizer, poolPerSuite?: number): OpeningReport[] {
  const out: OpeningReport[] = [];
  const inSpace = inSpaceEvalSet(spec).ids;
  for (const seed of spec.seeds) {
    const test = testTasks(spec, seed).map(taskFromId);
    const poolIds = trainPool(spec, seed, poolPerSuite);
    const pool = poolIds.map(taskFromId);
    const nVal = spec.evaluation.validation?.tasks ?? 0;
    const validation = nVal ? validationTasks(spec, seed, poolIds, nVal).map(taskFromId) : null;
    for (const m of spec.methods) {
      const limits = runBudget(presetConfig(m.modelPreset ?? spec.model.preset, tok.vocabSize).maxT, spec.rollout);
      const training = trainingHarnesses(spec, m, seed);
      out.push(checkOpeningsFit(tok, [...new Set([BASE_HARNESS, ...inSpace, ...spec.evaluation.blackbox, ...training])], test, limits));
      if (training.length) out.push(checkOpeningsFit(tok, training, pool, limits));
      if (training.length && validation) out.push(checkOpeningsFit(tok, training, validation, limits));
    }
  }
  return out;
}

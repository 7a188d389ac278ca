/**
 * The context budget shared by SFT rows and rollouts (rows.ts), checked up front:
 *  - `checkOpeningsFit`: every (harness, task) opening (system prompt and task, which the cut
 *    never drops) fits maxT − actionReserve, else a `ContextBudgetError` naming the harness,
 *    the task and the sizes — before any rollout or training step;
 *  - the base checkpoint records the budget it was trained with (metadata `budgetMaxT` and
 *    `actionReserve`), and `checkRunBudget` compares it with a run's spec budget
 *    (min(model maxT, rollout.contextTokens) and rollout.maxNewTokens): a different context
 *    budget (maxT − reserve) means rollouts would cut contexts differently from the rows the base
 *    learned on, which is an error unless the spec overrides it explicitly
 *    (`rollout.allowBudgetMismatch`).
 * Token counts are tokenizer ids (`encodeContext`).
 *
 * Folder: src/episode/, beside rows.ts whose cut it budgets; the spec checks, the feasibility
 * check, the runner, `hlab evaluate` and `hlab heldout` use it.
 */
import type { Tokenizer } from '../model/tokenizer';
import { ComposedHarness } from '../harness/composed';
import { createHarness } from '../harness/registry';
import { renderPrompt } from '../harness/render';
import type { Task } from '../tasks/types';
import type { CheckpointMetadata } from '../model/checkpoint';
import { encodeContext, headLength, type RowLimits } from './rows';
import { ContextBudgetError } from '../harness/context_budget';

/** Context tokens a row or prompt may hold under `l`: maxT − actionReserve. */
function contextBudget(l: RowLimits): number {
  return l.maxT - l.actionReserve;
}

/** The largest opening found by `checkOpeningsFit`. */
export interface OpeningReport {
  /** Most opening tokens over all (harness, task) pairs, and where. */
  maxHeadTokens: number;
  harnessId: string;
  taskId: string;
  /** maxT − actionReserve. */
  budget: number;
  pairs: number;
}

/**
 * Check that the opening of every (harness, task) pair fits the context budget.
 * @param harnessIds composed ids, black-box ids (procedural harnesses: pass `create`)
 * @param create builds a harness from an id (default `createHarness`)
 * @returns the largest opening (tokens) and where it was
 * @throws ContextBudgetError naming the first pair (harness, task, opening tokens, budget) that does not fit;
 *   Error when there are no harnesses or tasks.
 */
export function checkOpeningsFit(
  tok: Tokenizer,
  harnessIds: readonly string[],
  tasks: readonly Task[],
  limits: RowLimits,
  create: (id: string) => { reset(t: Task): unknown; contextText(): string } = (id) => createHarness(id),
): OpeningReport {
  if (harnessIds.length === 0 || tasks.length === 0)
    throw new Error(`checkOpeningsFit: need harnesses and tasks, got ${harnessIds.length} and ${tasks.length}`);
  const budget = contextBudget(limits);
  if (!(budget >= 1)) throw new Error(`checkOpeningsFit: maxT ${limits.maxT} − actionReserve ${limits.actionReserve} leaves no context`);
  const rep: OpeningReport = { maxHeadTokens: 0, harnessId: '', taskId: '', budget, pairs: 0 };
  const memo = new Map<string, number>();
  for (const id of harnessIds) {
    const h = create(id);
    for (const t of tasks) {
      // A composed harness renders its opening without a sandbox; others reset (cheap, small states).
      let text: string;
      if (h instanceof ComposedHarness) text = renderPrompt(h.openingMessages(t));
      else {
        h.reset(t);
        text = h.contextText();
      }
      let head = memo.get(text);
      if (head === undefined) memo.set(text, (head = headLength(tok, encodeContext(tok, text))));
      rep.pairs++;
      if (head > rep.maxHeadTokens) Object.assign(rep, { maxHeadTokens: head, harnessId: id, taskId: t.id });
      if (head > budget) {
        throw new ContextBudgetError(
          `harness ${id}, task ${t.id}: the opening messages take ${head} tokens, more than the context budget maxT ${limits.maxT} − action reserve ${limits.actionReserve} = ${budget}; raise maxT or contextTokens, lower the action reserve, or drop the harness`,
          head,
          budget,
        );
      }
    }
  }
  return rep;
}

/**
 * The budget a base checkpoint was trained with: maxT from `budgetMaxT` (else the model's maxT),
 * the reserve from `actionReserve`.
 * @returns null when the metadata has no action reserve (an older checkpoint).
 */
export function checkpointBudget(modelMaxT: number, metadata: CheckpointMetadata): RowLimits | null {
  const r = metadata.actionReserve;
  if (typeof r !== 'number') return null;
  const m = metadata.budgetMaxT;
  return { maxT: typeof m === 'number' ? m : modelMaxT, actionReserve: r };
}

/** A run's budget from its spec: maxT = min(model maxT, rollout.contextTokens), reserve = rollout.maxNewTokens. */
export function runBudget(modelMaxT: number, rollout: { contextTokens: number; maxNewTokens: number }): RowLimits {
  return { maxT: Math.min(modelMaxT, rollout.contextTokens), actionReserve: rollout.maxNewTokens };
}

export class BudgetMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BudgetMismatchError';
  }
}

/** How a caller names the knobs of a run's budget in checkRunBudget's messages (spec fields or CLI flags). */
interface BudgetKnobNames {
  contextTokens: string;
  maxNewTokens: string;
  /** The switch that allows a mismatch, and the phrase that tells how to set it. */
  allowName: string;
  allow: string;
}

/** The spec's names (hlab run, the app). */
const SPEC_BUDGET_KNOBS: BudgetKnobNames = {
  contextTokens: 'rollout.contextTokens',
  maxNewTokens: 'rollout.maxNewTokens',
  allowName: 'rollout.allowBudgetMismatch',
  allow: 'set rollout.allowBudgetMismatch: true',
};

/**
 * Compare a checkpoint's budget with a run's: the context budgets (maxT − reserve) must be equal,
 * so rollout prompts are cut exactly like the rows the checkpoint learned on. (The action
 * reserves may differ: a row's action longer than the reserve lowers only that row's budget.)
 * @param knobs how the messages name the run's knobs (default: the spec's fields)
 * @returns null when they match; a warning text when they differ and `override` is true or the
 *   checkpoint records no budget
 * @throws BudgetMismatchError naming both budgets when they differ and `override` is false.
 */
export function checkRunBudget(
  ckpt: RowLimits | null,
  run: RowLimits,
  override = false,
  knobs: BudgetKnobNames = SPEC_BUDGET_KNOBS,
): string | null {
  if (ckpt === null)
    return `the base checkpoint records no action reserve; cannot check that its rows were cut like this run's contexts (budget ${contextBudget(run)} tokens)`;
  const a = contextBudget(ckpt);
  const b = contextBudget(run);
  if (a === b) return null;
  const msg = `the base checkpoint was trained on contexts of ≤ ${a} tokens (maxT ${ckpt.maxT} − action reserve ${ckpt.actionReserve}) but this run cuts contexts to ${b} tokens (min(maxT, ${knobs.contextTokens}) ${run.maxT} − ${knobs.maxNewTokens} ${run.actionReserve})`;
  if (override) return `${msg}; allowed by ${knobs.allowName}`;
  throw new BudgetMismatchError(
    `${msg}; choose ${knobs.contextTokens} and ${knobs.maxNewTokens} with min(maxT, contextTokens) − maxNewTokens = ${a}, or ${knobs.allow}`,
  );
}

/** The flags of `hlab evaluate`. */
const EVALUATE_BUDGET_KNOBS: BudgetKnobNames = {
  contextTokens: '--context-tokens',
  maxNewTokens: '--max-new-tokens',
  allowName: '--allow-budget-mismatch',
  allow: 'pass --allow-budget-mismatch',
};

/**
 * The budget of an evaluation of a checkpoint (`hlab evaluate`, in Node before the browser and in
 * the page): max new tokens default to the checkpoint's action reserve (64 when it records none),
 * the context window to its trained maxT; then checkRunBudget with the evaluate flags' names.
 * @returns the run's limits, the sizes chosen and the warning (null when the budgets match)
 * @throws BudgetMismatchError when they differ and `allowMismatch` is false.
 */
export function evaluationBudget(
  modelMaxT: number,
  metadata: CheckpointMetadata,
  req: { maxNewTokens?: number; contextTokens?: number; allowMismatch: boolean },
): { limits: RowLimits; maxNewTokens: number; contextTokens: number; warning: string | null } {
  const ck = checkpointBudget(modelMaxT, metadata);
  const maxNewTokens = req.maxNewTokens ?? ck?.actionReserve ?? 64;
  const contextTokens = req.contextTokens ?? ck?.maxT ?? modelMaxT;
  const limits = runBudget(modelMaxT, { contextTokens, maxNewTokens });
  return { limits, maxNewTokens, contextTokens, warning: checkRunBudget(ck, limits, req.allowMismatch, EVALUATE_BUDGET_KNOBS) };
}

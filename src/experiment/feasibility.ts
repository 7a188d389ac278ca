/**
 * Feasibility of an experiment's (task, harness) cells under the run's own budgets:
 * a cell the honest expert cannot solve within the spec's turns, max new tokens and context
 * window (real tokenizer) measures the budget, not the policy, so it must be excluded and
 * listed rather than scored 0 under some harnesses only.
 *
 * For each cell the spec would train (each method's task → K harness assignment over its train
 * pool, per seed) or evaluate (base, held-out in-space, black-box and training harnesses × test
 * tasks, per seed), the expert (src/harness/expert.ts) runs honestly on what the context cut
 * shows (rows.ts `cutView`) with the harness counting real tokens, and the cell is infeasible
 * when, in this order:
 *   - 'opening': the opening messages alone exceed min(maxT, contextTokens) − maxNewTokens;
 *   - 'expert':  the expert does not pass even without a turn cap (a harness the task cannot
 *                be done through, e.g. no tool for it), with the failing check or error;
 *   - 'turns':   the expert needs more policy turns than the episode cap, rollout.maxTurns
 *                tool-call turns plus the harness's workflow overhead (src/harness/turn_budget.ts
 *                `turnCap`, the cap rollouts and evaluation use);
 *   - 'action':  one of the expert's actions (with its end token) is longer than
 *                rollout.maxNewTokens.
 * Pure apart from CPU time (~10–30 ms a cell); cells are deduplicated over seeds and methods
 * that share a budget.
 */
import { BASE_HARNESS } from '../design/space';
import { runExpertEpisode } from '../harness/expert';
import { presetConfig } from '../model/config';
import type { Tokenizer } from '../model/tokenizer';
import { checkOpeningsFit, runBudget } from '../episode/budget';
import { cutView, encodeAction, tokenCounter, type RowLimits } from '../episode/rows';
import { ContextBudgetError } from '../harness/context_budget';
import { turnCap } from '../harness/turn_budget';
import { taskFromId } from '../tasks';
import { inSpaceEvalSet, taskAssignments, testTasks, trainingHarnesses, trainPool, TRAIN_POOL_PER_SUITE } from './plan';
import { validationPlan } from './validation';
import type { ExperimentSpec } from './spec';

type InfeasibleReason = 'opening' | 'expert' | 'turns' | 'action';

/** The budgets one cell is checked under. */
interface CellBudget {
  /** Tool-call turns (rollout.maxTurns); the cell's cap adds its harness's workflow overhead (`turnCap`). */
  maxTurns: number;
  /** Context and action reserve: maxT = min(model maxT, contextTokens), reserve = maxNewTokens. */
  limits: RowLimits;
}

interface CellFeasibility {
  taskId: string;
  harnessId: string;
  feasible: boolean;
  reason?: InfeasibleReason;
  /** One line: what does not fit, with the numbers. */
  detail?: string;
  /** Policy turns the expert took (0 when the opening does not fit). */
  turns: number;
  /** Longest expert action in tokens, end token included. */
  maxActionTokens: number;
}

/** A (task, harness) cell the spec uses, and where. */
interface SpecCell {
  taskId: string;
  harnessId: string;
  /** 'train' (a method trains it) and/or 'eval' (it is evaluated). */
  roles: ('train' | 'eval')[];
  /** Method names using it. */
  methods: string[];
  budget: CellBudget;
}

/**
 * Check one cell: opening, then the honest expert under the cut, its turns and action lengths.
 * @throws Error naming an unknown harness id or task (a spec error, not an infeasible cell)
 */
export function cellFeasibility(
  tok: Tokenizer,
  taskId: string,
  harnessId: string,
  budget: CellBudget,
  tokenLength: (text: string) => number = tokenCounter(tok),
): CellFeasibility {
  const task = taskFromId(taskId);
  const base = { taskId, harnessId, turns: 0, maxActionTokens: 0 };
  try {
    checkOpeningsFit(tok, [harnessId], [task], budget.limits);
  } catch (e) {
    if (!(e instanceof ContextBudgetError)) throw e;
    return {
      ...base,
      feasible: false,
      reason: 'opening',
      detail: `the opening takes ${e.headTokens} tokens, more than the context budget ${e.budget}`,
    };
  }
  // The harness counts tokens as the rollout host's does: the policy's tokenizer (src/episode/host.ts).
  const ep = runExpertEpisode(task, harnessId, { view: cutView(tok, budget.limits), tokenLength });
  const turns = ep.turns.length;
  let longest = 0;
  let longestAt = -1;
  ep.turns.forEach((t, i) => {
    const n = encodeAction(tok, t.action).length;
    if (n > longest) (longest = n), (longestAt = i);
  });
  const out = { ...base, turns, maxActionTokens: longest };
  if (!ep.pass) {
    const bad = ep.verification.checks.find((c) => !c.pass);
    const why = ep.error ?? (bad ? `${bad.name}${bad.detail ? ': ' + bad.detail : ''}` : 'failed');
    return { ...out, feasible: false, reason: 'expert', detail: `the expert fails under this harness (${why.slice(0, 200)})` };
  }
  const cap = turnCap(budget.maxTurns, harnessId, task);
  if (turns > cap) {
    const extra = cap - budget.maxTurns;
    return {
      ...out,
      feasible: false,
      reason: 'turns',
      detail: `the expert needs ${turns} turns, the budget is ${cap}${extra ? ` (${budget.maxTurns} + ${extra} workflow)` : ''}`,
    };
  }
  if (longest > budget.limits.actionReserve) {
    const first = ep.turns[longestAt].action.split('\n')[0].slice(0, 60);
    return {
      ...out,
      feasible: false,
      reason: 'action',
      detail: `an action takes ${longest} tokens (turn ${longestAt + 1}: ${JSON.stringify(first)}…), more than maxNewTokens ${budget.limits.actionReserve}`,
    };
  }
  return { ...out, feasible: true };
}

/**
 * Every (task, harness) cell the spec trains or evaluates, over its seeds and methods, with the
 * budget of the method's model (the eval cells of methods whose models share maxT merge).
 * @param poolPerSuite train tasks per suite (plan.ts TRAIN_POOL_PER_SUITE)
 */
export function specCells(spec: ExperimentSpec, vocabSize: number, poolPerSuite = spec.rl.trainTasks ?? TRAIN_POOL_PER_SUITE): SpecCell[] {
  const cells = new Map<string, SpecCell>();
  const inSpace = inSpaceEvalSet(spec).ids;
  const add = (taskId: string, harnessId: string, role: 'train' | 'eval', method: string, budget: CellBudget) => {
    const key = `${taskId}\u0000${harnessId}\u0000${budget.maxTurns}\u0000${budget.limits.maxT}\u0000${budget.limits.actionReserve}`;
    let c = cells.get(key);
    if (!c) cells.set(key, (c = { taskId, harnessId, roles: [], methods: [], budget }));
    if (!c.roles.includes(role)) c.roles.push(role);
    if (!c.methods.includes(method)) c.methods.push(method);
  };
  for (const seed of spec.seeds) {
    const test = testTasks(spec, seed);
    const pool = trainPool(spec, seed, poolPerSuite);
    for (const m of spec.methods) {
      const budget: CellBudget = {
        maxTurns: spec.rollout.maxTurns,
        limits: runBudget(presetConfig(m.modelPreset ?? spec.model.preset, vocabSize).maxT, spec.rollout),
      };
      const training = trainingHarnesses(spec, m, seed);
      const trains = training.length > 0;
      for (const h of new Set([BASE_HARNESS, ...inSpace, ...spec.evaluation.blackbox, ...training]))
        for (const t of test) add(t, h, 'eval', m.name, budget);
      if (trains)
        for (const a of taskAssignments(spec, m, pool, seed)) for (const h of a.harnesses) add(String(a.task), h, 'train', m.name, budget);
      // The validation split's cells (validation.ts validationPlan: anchor cells and the base / in-space sets) are evaluated too.
      const vp = trains ? validationPlan(spec, m, seed, pool, undefined, inSpace) : undefined;
      for (const c of [...(vp?.cells ?? []), ...Object.values(vp?.sets ?? {}).flat()]) add(c.taskId, c.harnessId, 'eval', m.name, budget);
    }
  }
  return [...cells.values()];
}

export interface FeasibilityReport {
  cells: number;
  infeasible: (CellFeasibility & Pick<SpecCell, 'roles' | 'methods'>)[];
  /** Infeasible cells per reason. */
  byReason: Record<InfeasibleReason, number>;
  /** Infeasible cells per harness id (those with any). */
  byHarness: Record<string, number>;
  /** Infeasible cells per task family ('suite/family'). */
  byFamily: Record<string, number>;
  /** Infeasible cells per tier. */
  byTier: Record<string, number>;
}

/**
 * Check every cell of the spec.
 * @param opts.onProgress called after each cell (done, total)
 */
export function specFeasibility(
  spec: ExperimentSpec,
  tok: Tokenizer,
  opts: { poolPerSuite?: number; onProgress?: (done: number, total: number) => void } = {},
): FeasibilityReport {
  const cells = specCells(spec, tok.vocabSize, opts.poolPerSuite);
  // One counter for all cells, so its memo is shared.
  const count = tokenCounter(tok);
  const rep: FeasibilityReport = {
    cells: cells.length,
    infeasible: [],
    byReason: { opening: 0, expert: 0, turns: 0, action: 0 },
    byHarness: {},
    byFamily: {},
    byTier: {},
  };
  cells.forEach((c, i) => {
    const f = cellFeasibility(tok, c.taskId, c.harnessId, c.budget, count);
    opts.onProgress?.(i + 1, cells.length);
    if (f.feasible) return;
    rep.infeasible.push({ ...f, roles: c.roles, methods: c.methods });
    rep.byReason[f.reason!]++;
    rep.byHarness[c.harnessId] = (rep.byHarness[c.harnessId] ?? 0) + 1;
    const [suite, family, tier] = c.taskId.split('/');
    rep.byFamily[`${suite}/${family}`] = (rep.byFamily[`${suite}/${family}`] ?? 0) + 1;
    rep.byTier[tier] = (rep.byTier[tier] ?? 0) + 1;
  });
  return rep;
}

/** A cell the runner must leave out of training and evaluation, with why. */
export interface ExcludedCell {
  taskId: string;
  harnessId: string;
  reason: InfeasibleReason;
  detail: string;
}

/**
 * The cells to exclude from a run: every infeasible (task, harness) cell of the spec, sorted by
 * harness then task. The runner drops them from the training assignments and the evaluation
 * sets and lists them in results (a task's other harnesses stay).
 */
export function excludedCells(spec: ExperimentSpec, tok: Tokenizer, opts: { poolPerSuite?: number } = {}): ExcludedCell[] {
  const seen = new Set<string>();
  const out: ExcludedCell[] = [];
  for (const c of specFeasibility(spec, tok, opts).infeasible) {
    const key = `${c.harnessId}\u0000${c.taskId}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ taskId: c.taskId, harnessId: c.harnessId, reason: c.reason!, detail: c.detail! });
  }
  return out.sort((a, b) =>
    a.harnessId < b.harnessId ? -1 : a.harnessId > b.harnessId ? 1 : a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0,
  );
}

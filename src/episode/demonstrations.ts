/**
 * Expert demonstrations as training rows: the expert (src/harness/expert.ts) solves tasks under
 * one harness, the passed episodes become rows (rows.ts), the failed ones are counted by reason.
 * An episode host serves them (host.ts EnvApi `demonstrate`, with its tokenizer) for the in-run
 * SFT phase; src/pretrain/sft.ts builds the base model's and the black-box baseline's
 * demonstrations from the same parts.
 */
import { ContextBudgetError } from '../harness/context_budget';
import { runExpertEpisode, type ExpertEpisode } from '../harness/expert';
import type { Tokenizer } from '../model/tokenizer';
import { taskFromId } from '../tasks';
import type { Task } from '../tasks/types';
import { cutView, encodeTurn, episodeRows, tokenCounter, type Row, type RowLimits } from './rows';

export type DemoFailure = 'opening' | 'driver' | 'verifier';

/** The passed episodes of an expert's runs, and how many failed. */
export interface DemoEpisodes {
  episodes: ExpertEpisode[];
  /** Episodes whose expert run failed (dropped). */
  failed: number;
  /**
   * Why, by `demoFailureReason`: 'opening' (the draw's system prompt and task alone exceed the
   * context budget, so no row of it can be shown: ContextBudgetError, expert.ts errorKind; measured 9 % of
   * tier-1 procedural draws at 512 − 128), 'driver' (the expert's run stopped on another error),
   * 'verifier' (it finished and failed a check).
   */
  failedBy: Record<DemoFailure, number>;
}

/** Why a failed demonstration failed (DemoEpisodes.failedBy). */
function demoFailureReason(ep: Pick<ExpertEpisode, 'errorKind'>): DemoFailure {
  return ep.errorKind ?? 'verifier';
}

/** "N dropped: opening a, driver b" (reasons with a count > 0; "0 dropped" when none) for logs. */
export function describeDropped(d: Pick<DemoEpisodes, 'failed' | 'failedBy'>): string {
  const parts = Object.entries(d.failedBy)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k} ${n}`);
  return parts.length ? `${d.failed} dropped: ${parts.join(', ')}` : `${d.failed} dropped`;
}

/** The passed episodes of `runs` in order; the failed ones counted by reason. */
export function keepPassed(runs: readonly ExpertEpisode[]): DemoEpisodes {
  const episodes: ExpertEpisode[] = [];
  const failedBy: Record<DemoFailure, number> = { opening: 0, driver: 0, verifier: 0 };
  for (const ep of runs) {
    if (ep.pass) episodes.push(ep);
    else failedBy[demoFailureReason(ep)]++;
  }
  return { episodes, failed: runs.length - episodes.length, failedBy };
}

/**
 * The expert on every task under harness `harnessId`, failed episodes dropped and counted.
 * @param view the text the model will see of a context (rows.ts `cutView`): the expert acts only on it
 * @param tokenLength token counter of the harness's context policies (C2 summaries, compaction),
 *   as a rollout counts (rows.ts `tokenCounter`); default ⌈chars/4⌉
 */
export function expertDemonstrations(
  tasks: readonly Task[],
  harnessId: string,
  view?: (context: string, action?: string) => string,
  tokenLength?: (text: string) => number,
): DemoEpisodes {
  const opts = { view, ...(tokenLength ? { tokenLength } : {}) };
  return keepPassed(tasks.map((t) => runExpertEpisode(t, harnessId, opts)));
}

/**
 * Rows of every episode (module doc of rows.ts): with `pack` (default) the appending turns of an
 * episode share one row (`episodeRows`), else one row per turn. Parse errors and cut-offs never
 * occur in expert turns; any non-tool/message turn (or empty action) is skipped (it then breaks
 * a packed run: the next turn starts a new row). A turn whose action is so long that the opening
 * no longer fits beside it in maxT is dropped too (the policy could not emit it within its
 * reserve anyway), counted in `opts.stats.longActionTurns`.
 * @throws ContextBudgetError naming the harness and task when an opening exceeds maxT − actionReserve.
 */
export function demonstrationRows(
  tok: Tokenizer,
  episodes: readonly ExpertEpisode[],
  limits: RowLimits,
  opts: { pack?: boolean; stats?: { longActionTurns: number } } = {},
): Row[] {
  const rows: Row[] = [];
  const pack = opts.pack ?? true;
  const budget = limits.maxT - limits.actionReserve;
  for (const ep of episodes) {
    const named = (e: ContextBudgetError) =>
      new ContextBudgetError(`harness ${ep.harness}, task ${ep.taskId}: ${e.message}`, e.headTokens, e.budget);
    const push = (run: Array<(typeof ep.turns)[number]>) => {
      if (run.length === 0) return;
      try {
        rows.push(...episodeRows(tok, run, limits, pack));
      } catch (e) {
        if (!(e instanceof ContextBudgetError)) throw e;
        if (e.budget >= budget) throw named(e);
        // A long action lowered one row's budget below the opening: drop such turns, keep the rest.
        let sub: typeof run = [];
        for (const t of run) {
          try {
            encodeTurn(tok, t.context, t.action, limits);
            sub.push(t);
          } catch (e2) {
            if (!(e2 instanceof ContextBudgetError)) throw e2;
            if (e2.budget >= budget) throw named(e2);
            if (opts.stats) opts.stats.longActionTurns++;
            if (sub.length) rows.push(...episodeRows(tok, sub, limits, pack));
            sub = [];
          }
        }
        if (sub.length) rows.push(...episodeRows(tok, sub, limits, pack));
      }
    };
    // A skipped turn between two kept ones breaks the chain: pack runs of consecutive kept turns only.
    let run: Array<(typeof ep.turns)[number]> = [];
    for (const t of ep.turns) {
      if ((t.kind === 'tool' || t.kind === 'message') && t.action.length > 0) run.push(t);
      else {
        push(run);
        run = [];
      }
    }
    push(run);
  }
  return rows;
}

/** What a host's `demonstrate` is asked (host.ts EnvApi): the expert on these tasks under one harness, cut to `limits`. */
export interface DemoRequest {
  /** Task ids 'suite/family/tN/seed' (taskFromId), demonstrated in this order. */
  taskIds: string[];
  harnessId: string;
  /** The rows' context budget; the expert acts on the cut view of it (rows.ts `cutView`). */
  limits: RowLimits;
}

/** What `demonstrate` answers: the passed episodes' rows (in task order) and the counts of episodes kept and dropped. */
export interface DemoRows extends Pick<DemoEpisodes, 'failed' | 'failedBy'> {
  rows: Row[];
  /** Episodes kept as demonstrations. */
  demos: number;
}

/**
 * The rows of the expert's passed episodes for `req`, counting context tokens with `tok`
 * (the view and counter a rollout with `tok` has: rows.ts `cutView`, `tokenCounter`).
 * @param tokenLength the host's token counter of `tok` (default a fresh `tokenCounter(tok)`)
 * @throws ContextBudgetError when an opening exceeds the budget (`demonstrationRows`); Error on an unknown task or harness id
 */
export function demonstrate(tok: Tokenizer, req: DemoRequest, tokenLength = tokenCounter(tok)): DemoRows {
  const { episodes, failed, failedBy } = expertDemonstrations(
    req.taskIds.map(taskFromId),
    req.harnessId,
    cutView(tok, req.limits),
    tokenLength,
  );
  return { rows: demonstrationRows(tok, episodes, req.limits), demos: episodes.length, failed, failedBy };
}

/** Several answers of `demonstrate` as one, in order. */
export function joinDemoRows(parts: readonly DemoRows[]): DemoRows {
  const out: DemoRows = { rows: [], demos: 0, failed: 0, failedBy: { opening: 0, driver: 0, verifier: 0 } };
  for (const p of parts) {
    out.rows.push(...p.rows);
    out.demos += p.demos;
    out.failed += p.failed;
    for (const k of Object.keys(out.failedBy) as DemoFailure[]) out.failedBy[k] += p.failedBy[k];
  }
  return out;
}

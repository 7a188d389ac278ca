/**
 * `hlab evaluate` without a GPU (issue 16, "Measure it"): which harnesses and tasks an
 * evaluation of a checkpoint runs, and the report of its episodes. The page side
 * (evaluate_page.ts) runs the episodes; the CLI (src/cli/commands/evaluate.ts) prints this.
 *
 * Harness sets: `base` = BASE_HARNESS; `training` = the OA design's training harnesses (the 18
 * of the default space); `inSpace` = its held-out in-space configurations; `blackbox` = both
 * black-box harnesses; `all` = all four; any other entry is a harness id (reported per harness
 * only). Report: pass@1 and mean verifier score as fractions in [0, 1] per set (mean over the
 * set's episodes; null when the set was not evaluated) and per harness, with the parse-error
 * rate = parse errors / policy turns.
 */
import { BASE_HARNESS } from '../design/space';
import { selectTrainingOA } from '../design/selection';
import { BLACKBOX_IDS, createHarness } from '../harness/registry';
import type { BehaviourTags } from '../harness/types';
import { taskSet } from '../tasks';
import type { SuiteName } from '../tasks/types';

export const EVAL_SET_NAMES = ['base', 'training', 'inSpace', 'blackbox'] as const;
export type EvalSetName = (typeof EVAL_SET_NAMES)[number];

export interface EvalHarnessPlan {
  /** Harness ids of each requested named set (absent: not requested). */
  sets: Partial<Record<EvalSetName, string[]>>;
  /** Every harness to run, each once, in a fixed order. */
  ids: string[];
}

/**
 * Resolve `--harnesses`: comma-separated set names (base, training, inSpace, blackbox, all) or ids.
 * @throws Error naming an entry that is neither a set nor a harness id, or an empty list.
 */
export function resolveEvalHarnesses(list: string): EvalHarnessPlan {
  const entries = list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (entries.length === 0) throw new Error(`--harnesses: expected set names (${[...EVAL_SET_NAMES, 'all'].join(', ')}) or harness ids, got '${list}'`);
  const design = selectTrainingOA();
  const named: Record<EvalSetName, string[]> = { base: [BASE_HARNESS], training: design.training, inSpace: design.heldOut.map((h) => h.id), blackbox: [...BLACKBOX_IDS] };
  const sets: EvalHarnessPlan['sets'] = {};
  const ids: string[] = [];
  const add = (id: string) => {
    if (!ids.includes(id)) ids.push(id);
  };
  for (const e of entries) {
    if (e === 'all') {
      for (const k of EVAL_SET_NAMES) (sets[k] = named[k]).forEach(add);
    } else if ((EVAL_SET_NAMES as readonly string[]).includes(e)) {
      (sets[e as EvalSetName] = named[e as EvalSetName]).forEach(add);
    } else {
      createHarness(e); // throws naming the unknown id
      add(e);
    }
  }
  return { sets, ids };
}

/**
 * `n` test-task ids per suite with tier ≤ maxTier, balanced over families × tiers (taskSet), seeded.
 * @throws Error when a suite has fewer such tasks in the draw than n.
 */
export function evalTaskIds(suites: readonly SuiteName[], maxTier: number, n: number, seed: number): string[] {
  return suites.flatMap((s) => {
    const ids = taskSet(s, 'test', maxTier >= 3 ? n : 3 * n, seed)
      .filter((t) => t.tier <= maxTier)
      .slice(0, n)
      .map((t) => t.id);
    if (ids.length < n) throw new Error(`evalTaskIds: only ${ids.length} ${s} test tasks of tier ≤ ${maxTier} in the draw, asked for ${n}`);
    return ids;
  });
}

/** What the report needs of an episode (a subset of rollout/engine.ts Trajectory). */
export interface EvalEpisodeLike {
  harnessId: string;
  reward: number;
  score: number;
  turns: readonly unknown[];
  tags: BehaviourTags | null;
}

export interface HarnessEvalRow {
  passAt1: number;
  score: number;
  episodes: number;
  /** Parse errors per policy turn. */
  parseErrorRate: number;
}

type SetValues = { base: number | null; training: number | null; inSpace: number | null; blackbox: Record<string, number> };

export interface CheckpointEvalReport {
  checkpoint: Record<string, unknown>;
  passAt1: SetValues;
  score: SetValues;
  perHarness: Record<string, HarnessEvalRow>;
  episodes: number;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);

/**
 * The report (module doc) of `episodes` run for `plan`.
 * @param checkpoint what was evaluated (source, digest, config …), copied into the report
 */
export function evalReport(plan: EvalHarnessPlan, episodes: readonly EvalEpisodeLike[], checkpoint: Record<string, unknown>): CheckpointEvalReport {
  const perHarness: Record<string, HarnessEvalRow> = {};
  for (const id of plan.ids) {
    const eps = episodes.filter((e) => e.harnessId === id);
    const turns = eps.reduce((a, e) => a + e.turns.length, 0);
    const parse = eps.reduce((a, e) => a + (e.tags?.parseErrors ?? 0), 0);
    perHarness[id] = { passAt1: mean(eps.map((e) => e.reward)), score: mean(eps.map((e) => e.score)), episodes: eps.length, parseErrorRate: turns ? parse / turns : NaN };
  }
  const over = (ids: string[] | undefined, key: 'reward' | 'score') => (ids ? mean(episodes.filter((e) => ids.includes(e.harnessId)).map((e) => e[key])) : null);
  const values = (key: 'reward' | 'score'): SetValues => ({
    base: over(plan.sets.base, key),
    training: over(plan.sets.training, key),
    inSpace: over(plan.sets.inSpace, key),
    blackbox: Object.fromEntries((plan.sets.blackbox ?? []).map((b) => [b, over([b], key) as number])),
  });
  return { checkpoint, passAt1: values('reward'), score: values('score'), perHarness, episodes: episodes.length };
}

/**
 * `hlab evaluate` without a GPU: which harnesses and tasks an
 * evaluation of a checkpoint runs, and the report of its episodes. The page side
 * (evaluate_page.ts) runs the episodes; the CLI (src/cli/commands/evaluate.ts) prints this.
 *
 * Harness sets: `base` = BASE_HARNESS; `training` = the OA design's training harnesses (the 18
 * of the default space); `inSpace` = its held-out in-space configurations; `blackbox` = both
 * black-box harnesses; `all` = all four; any other entry is a harness id (reported per harness
 * only). The inSpace set leaves out the checkpoint's pretraining mix (src/pretrain/mix.ts `pretrainMixOf`; the
 * report counts what it removed), as experiments' in-space sets do (plan.ts `inSpaceEvalSet`).
 * Report: pass@1 and mean verifier score as fractions in [0, 1] per set (mean over the set's
 * episodes; null when the set was not evaluated) and per harness, with the parse-error rate =
 * parse errors / policy turns; per set (base, training, inSpace, each black-box id) a table by
 * `suite/family` (per_family.ts); and the policy's mean entropy per sampled token in nats, per
 * set and overall (null when the policy reports none).
 */
import { BASE_HARNESS } from '../design/space';
import { selectTrainingOA } from '../design/selection';
import { BLACKBOX_IDS, createHarness } from '../harness/registry';
import type { BehaviourTags } from '../harness/types';
import { taskSet } from '../tasks';
import type { SuiteName } from '../tasks/types';
import { z } from 'zod';
import { familyTable, meanTokenEntropy, type FamilyTable } from './per_family';

const EVAL_SET_NAMES = ['base', 'training', 'inSpace', 'blackbox'] as const;
type EvalSetName = (typeof EVAL_SET_NAMES)[number];

interface EvalHarnessPlan {
  /** Harness ids of each requested named set (absent: not requested). */
  sets: Partial<Record<EvalSetName, string[]>>;
  /** Every harness to run, each once, in a fixed order. */
  ids: string[];
  /** When inSpace was requested: how many held-out configurations the pretraining mix removed, and which mix. */
  inSpaceExcluded?: { pretrainMix: number; mix: string };
}

/**
 * Resolve `--harnesses`: comma-separated set names (base, training, inSpace, blackbox, all) or ids.
 * @param mix the checkpoint's pretraining mix (src/pretrain/mix.ts): its harness ids leave the inSpace set
 * @throws Error naming an entry that is neither a set nor a harness id, or an empty list.
 */
export function resolveEvalHarnesses(
  list: string,
  mix: { harnesses: readonly string[]; label: string } = { harnesses: [], label: 'no mix recorded' },
): EvalHarnessPlan {
  const entries = list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (entries.length === 0)
    throw new Error(`--harnesses: expected set names (${[...EVAL_SET_NAMES, 'all'].join(', ')}) or harness ids, got '${list}'`);
  const design = selectTrainingOA();
  const mixed = new Set(mix.harnesses);
  const heldOut = design.heldOut.map((h) => h.id);
  const inSpace = heldOut.filter((id) => !mixed.has(id));
  const named: Record<EvalSetName, string[]> = { base: [BASE_HARNESS], training: design.training, inSpace, blackbox: [...BLACKBOX_IDS] };
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
  return sets.inSpace ? { sets, ids, inSpaceExcluded: { pretrainMix: heldOut.length - inSpace.length, mix: mix.label } } : { sets, ids };
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

/** What the report needs of an episode (a subset of rollout/trajectory.ts Trajectory). */
interface EvalEpisodeLike {
  taskId: string;
  harnessId: string;
  /** Verifier pass (pass@1 counts these, whatever the reward). */
  pass: boolean;
  score: number;
  /** Policy turns; `entropies`: the policy's entropy at each sampled token, in nats (absent: not reported). */
  turns: ReadonlyArray<{ entropies?: ArrayLike<number> }>;
  tags: BehaviourTags | null;
}

interface HarnessEvalRow {
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
  /** Set name ('base', 'training', 'inSpace') or black-box id → `suite/family` → row; only the sets evaluated. */
  perFamily: Record<string, FamilyTable>;
  /** Mean policy entropy per sampled token in nats, per set and over every episode (null: not evaluated or not reported). */
  entropy: {
    base: number | null;
    training: number | null;
    inSpace: number | null;
    blackbox: Record<string, number | null>;
    overall: number | null;
  };
  /** When inSpace was evaluated: held-out configurations the checkpoint's pretraining mix removed from it. */
  inSpaceExcluded?: { pretrainMix: number; mix: string };
  episodes: number;
}

const num = z.number().nullable();
const int = (min = 0) => z.number().int().min(min);
const FamilyRowSchema = z.looseObject({ passAt1: z.number().min(0).max(1), score: z.number().min(0).max(1), episodes: int(1) });
const SetNumsSchema = z.looseObject({ base: num, training: num, inSpace: num, blackbox: z.record(z.string(), num) });

/** The report as JSON (NaN written as null) read back: what the app's Results view shows of it. */
export const EvaluationReportSchema = z.looseObject({
  checkpoint: z.record(z.string(), z.unknown()),
  passAt1: SetNumsSchema,
  score: SetNumsSchema,
  perHarness: z.record(z.string(), z.looseObject({ passAt1: num, score: num, episodes: int(), parseErrorRate: num })),
  perFamily: z.record(z.string(), z.record(z.string(), FamilyRowSchema)),
  entropy: SetNumsSchema.extend({ overall: num }).optional(),
  inSpaceExcluded: z.looseObject({ pretrainMix: int(), mix: z.string() }).optional(),
  episodes: int(),
});
export type EvaluationReportJson = z.output<typeof EvaluationReportSchema>;

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);

/**
 * The report (module doc) of `episodes` run for `plan`.
 * @param checkpoint what was evaluated (source, digest, config …), copied into the report
 */
export function evalReport(
  plan: EvalHarnessPlan,
  episodes: readonly EvalEpisodeLike[],
  checkpoint: Record<string, unknown>,
): CheckpointEvalReport {
  const perHarness: Record<string, HarnessEvalRow> = {};
  const passOf = (e: EvalEpisodeLike) => (e.pass ? 1 : 0);
  for (const id of plan.ids) {
    const eps = episodes.filter((e) => e.harnessId === id);
    const turns = eps.reduce((a, e) => a + e.turns.length, 0);
    const parse = eps.reduce((a, e) => a + (e.tags?.parseErrors ?? 0), 0);
    perHarness[id] = {
      passAt1: mean(eps.map(passOf)),
      score: mean(eps.map((e) => e.score)),
      episodes: eps.length,
      parseErrorRate: turns ? parse / turns : NaN,
    };
  }
  const of = (ids: readonly string[]) => episodes.filter((e) => ids.includes(e.harnessId));
  const over = (ids: string[] | undefined, f: (e: EvalEpisodeLike) => number) => (ids ? mean(of(ids).map(f)) : null);
  const values = (f: (e: EvalEpisodeLike) => number): SetValues => ({
    base: over(plan.sets.base, f),
    training: over(plan.sets.training, f),
    inSpace: over(plan.sets.inSpace, f),
    blackbox: Object.fromEntries((plan.sets.blackbox ?? []).map((b) => [b, over([b], f) as number])),
  });
  // The sets as the report names them: base, training, inSpace, then each black-box id.
  const sets: Array<[string, readonly string[]]> = [];
  for (const k of ['base', 'training', 'inSpace'] as const) if (plan.sets[k]) sets.push([k, plan.sets[k]]);
  for (const b of plan.sets.blackbox ?? []) sets.push([b, [b]]);
  const perFamily = Object.fromEntries(sets.map(([k, ids]) => [k, familyTable(of(ids))]));
  const ent = (ids: readonly string[] | undefined) => (ids ? meanTokenEntropy(of(ids)) : null);
  const entropy = {
    base: ent(plan.sets.base),
    training: ent(plan.sets.training),
    inSpace: ent(plan.sets.inSpace),
    blackbox: Object.fromEntries((plan.sets.blackbox ?? []).map((b) => [b, ent([b])])),
    overall: meanTokenEntropy(episodes),
  };
  return {
    checkpoint,
    passAt1: values(passOf),
    score: values((e) => e.score),
    perHarness,
    perFamily,
    entropy,
    ...(plan.inSpaceExcluded ? { inSpaceExcluded: plan.inSpaceExcluded } : {}),
    episodes: episodes.length,
  };
}

/**
 * Held-out demonstrations for pretraining's learning curve: the honest
 * expert on *test* tasks (never trained on), rendered
 *  - `procedural`: under fresh procedural harnesses (the training distribution, unseen tasks);
 *  - `training`: under the 18 training harnesses of the orthogonal-array design (never in the
 *    demonstrations: this is the transfer the base must make);
 *  - `base`: under the base harness alone.
 * The rows are cut by the same rule and budget as the training rows (rows.ts), so their action
 * loss is directly comparable to the training loss. DOM- and GPU-free.
 */
import { BASE_HARNESS, DEFAULT_SPACE, parseHarnessId } from '../design/space';
import { isBlackboxId } from '../harness/registry';
import { runExpertEpisode, type ExpertEpisode } from '../harness/expert';
import { selectTrainingOA } from '../design/selection';
import type { Tokenizer } from '../model/tokenizer';
import { taskSet } from '../tasks';
import type { SuiteName, Task, Tier } from '../tasks/types';
import { Rng } from '../util/rng';
import { runProceduralExpert } from '../corpus/procedural_harness';
import { cutView, type Row, type RowLimits, packBatch } from '../episode/rows';
import { demonstrationRows } from '../episode/demonstrations';
import type { BatchNll } from '../engine/engine_api';

export const HELD_OUT_SETS = ['procedural', 'training', 'base'] as const;
export type HeldOutName = (typeof HELD_OUT_SETS)[number];

/** One held-out set: its rows and how many episodes they came from. */
interface HeldOutSet {
  name: HeldOutName;
  rows: Row[];
  episodes: number;
}

/**
 * Held-out tasks of `suites` with tier ≤ maxTier, `n` in all (an equal share per suite), seeded:
 * test tasks (`split` 'test', for `hlab heldout`, an evaluation), or a validation split of train
 * seeds (`split` 'train', for pretraining's `--eval-every` curve: choices are tuned there, never on
 * test tasks) that leaves out every task id in `exclude` (the demonstrations' tasks).
 * @throws Error when n < 1
 */
export function heldOutTasks(
  n: number,
  seed: number,
  maxTier: Tier,
  suites: readonly SuiteName[],
  split: 'train' | 'test' = 'test',
  exclude: ReadonlySet<string> = new Set(),
): Task[] {
  if (!Number.isInteger(n) || n < 1) throw new Error(`heldOutTasks: n must be an integer ≥ 1, got ${n}`);
  return suites.flatMap((s, i) => {
    const want = Math.floor(n / suites.length) + (i < n % suites.length ? 1 : 0);
    const label = split === 'test' ? 'heldout-tasks' : 'validation-tasks';
    const pool = taskSet(s, split, 3 * want + 18 + exclude.size, Rng.derive(seed, label, s).int(2 ** 31)).filter(
      (t) => t.tier <= maxTier && !exclude.has(t.id),
    );
    return pool.slice(0, want);
  });
}

/**
 * The three held-out sets (module doc) over `tasks`: each task once per set; the `training`
 * set cycles through the 18 training harnesses.
 * @throws ContextBudgetError (rows.ts) when a harness's opening does not fit `limits`
 */
export function heldOutSets(tok: Tokenizer, tasks: readonly Task[], limits: RowLimits, seed: number): HeldOutSet[] {
  const view = cutView(tok, limits);
  const training = selectTrainingOA().training;
  const hr = Rng.derive(seed, 'heldout-harness');
  const make = (name: HeldOutName, run: (t: Task, i: number) => ExpertEpisode): HeldOutSet => {
    const eps = tasks.map(run).filter((e) => e.pass);
    return { name, rows: demonstrationRows(tok, eps, limits), episodes: eps.length };
  };
  return [
    make('procedural', (t) => runProceduralExpert(t, hr.int(2 ** 31), { view })),
    make('training', (t, i) => runExpertEpisode(t, training[i % training.length], { view })),
    make('base', (t) => runExpertEpisode(t, BASE_HARNESS, { view })),
  ];
}

/**
 * Token-mean action loss (nats/token) of `rows` under `score`, in batches of `B` rows.
 * @returns NaN for an empty set
 */
export function heldOutLoss(rows: readonly Row[], B: number, padId: number, maxT: number, score: BatchNll): number {
  const { nll, tokens } = heldOutNll(rows, B, padId, maxT, score);
  return tokens > 0 ? nll / tokens : Number.NaN;
}

/** Σ nll and Σ scored tokens of `rows` under `score`, in batches of `B` rows. */
function heldOutNll(rows: readonly Row[], B: number, padId: number, maxT: number, score: BatchNll): { nll: number; tokens: number } {
  let nll = 0;
  let tokens = 0;
  for (let i = 0; i < rows.length; i += B) {
    const chunk = rows.slice(i, i + B);
    const r = score(packBatch(chunk, chunk.length, padId, { maxT }));
    nll += r.nll;
    tokens += r.tokens;
  }
  return { nll, tokens };
}

/** Held-out action loss under one harness. */
export interface HarnessLoss {
  harness: string;
  /** Token-mean action loss, nats/token (NaN when no episode passed). */
  loss: number;
  /** Expert episodes that passed (the rows' source) out of the tasks. */
  episodes: number;
  rows: number;
  tokens: number;
}

/**
 * The held-out action loss of `tasks` under each harness in `harnesses` (every task under every
 * harness, unlike the `training` set's one harness per task): where a checkpoint's transfer to
 * the evaluated harnesses fails, by harness. Rows are cut by the training rule (`limits`).
 * @throws ContextBudgetError (rows.ts) when a harness's opening does not fit `limits`
 */
export function heldOutByHarness(
  tok: Tokenizer,
  tasks: readonly Task[],
  harnesses: readonly string[],
  limits: RowLimits,
  B: number,
  score: BatchNll,
): HarnessLoss[] {
  const view = cutView(tok, limits);
  return harnesses.map((harness) => {
    const eps = tasks.map((t) => runExpertEpisode(t, harness, { view })).filter((e) => e.pass);
    const rows = demonstrationRows(tok, eps, limits);
    const { nll, tokens } = heldOutNll(rows, B, tok.padId, limits.maxT, score);
    return { harness, loss: tokens > 0 ? nll / tokens : Number.NaN, episodes: eps.length, rows: rows.length, tokens };
  });
}

/**
 * Level means (main effects) of a per-harness value over composed ids `S?-T?-O?-C?-W?`: for each
 * component and level, the unweighted mean over the harnesses at that level, e.g.
 * `{ T: { T0: 1.7, T1: 2.4, T2: 1.4 }, … }`. Over a strength-2 orthogonal array every level of
 * one component meets every level of another equally often, so a level mean is free of the other
 * components' main effects (Hedayat, Sloane & Stufken 1999, *Orthogonal Arrays*, ch. 11).
 * Non-finite values and black-box ids are skipped.
 * @throws Error (design/space.ts parseHarnessId) on any other id that is not of the default space
 */
export function levelMeans(values: ReadonlyArray<{ harness: string; loss: number }>): Record<string, Record<string, number>> {
  const comps = DEFAULT_SPACE.components;
  const acc = comps.map(() => new Map<number, number[]>());
  for (const { harness, loss } of values) {
    if (!Number.isFinite(loss) || isBlackboxId(harness)) continue;
    parseHarnessId(harness).forEach((lv, i) => acc[i].set(lv, [...(acc[i].get(lv) ?? []), loss]));
  }
  const out: Record<string, Record<string, number>> = {};
  comps.forEach((c, i) => {
    if (acc[i].size === 0) return;
    out[c.key] = {};
    for (const lv of [...acc[i].keys()].sort((a, b) => a - b))
      out[c.key][`${c.key}${lv}`] = acc[i].get(lv)!.reduce((a, b) => a + b, 0) / acc[i].get(lv)!.length;
  });
  return out;
}

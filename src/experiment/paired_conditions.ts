/**
 * One comparison of single-harness RL and harness scaling run under two conditions (A and B: without
 * and with dynamic sampling, the mini and the small model), read on the seeds both ran. The two
 * experiments evaluate the same (seed, task, harness, sample) cells, so every difference is paired:
 * - the HS − single gap under each condition, on in-space and the base harness;
 * - per method, B − A after RL, on in-space, the base harness and its training harnesses;
 * - the interaction, (HS − single under B) − (HS − single under A), on in-space and the base
 *   harness: whether the condition moved the gap;
 * - what each run cost: episodes sampled, optimizer steps applied, RL steps without an update, seconds.
 * Intervals and verdicts follow the RESULTS page's rule (method_verdict.ts over seed_interval.ts).
 *
 * Pure and DOM-free: sampling_effect.ts and size_effect.ts read their places with it, and write
 * RESULTS.md's blocks with `pairMarkdown`.
 */
import { directionOf, methodVerdict, undecidedNote, type MethodVerdict } from '../report/method_verdict';
import { pointsInterval } from '../report/points';
import { seedInterval, seedsToDecide, type DiffCell } from '../report/seed_interval';
import type { Comparison } from '../report/seed_stats';
import type { EpisodeCell, RunResult } from '../report/results_schema';
import { sampledEpisodes } from './conditions_map';

/** One side of the pair: a committed experiment. */
interface ConditionSide {
  preset: string;
  runs: readonly RunResult[];
  specJson: unknown;
}

/** The two arms compared, by method name (the same names under both conditions). */
interface Arms {
  single: string;
  scaling: string;
}

/** One method's B − A on one harness set. */
interface MethodEffect {
  method: string;
  verdict: MethodVerdict;
}

/** The gap's change: (HS − single under B) − (HS − single under A) on one harness set. */
interface Interaction {
  key: 'inSpace' | 'base';
  comparison: Comparison;
  direction: ReturnType<typeof directionOf>;
}

/** HS − single under each condition on one harness set, on the shared seeds. */
interface Gap {
  key: 'inSpace' | 'base';
  a: MethodVerdict | null;
  b: MethodVerdict | null;
}

/** What a method's training cost per run, mean over the shared seeds, A → B. */
interface Cost {
  method: string;
  sampled: [number | null, number | null];
  optimizerSteps: [number, number];
  stepsWithoutUpdate: [number | null, number | null];
  seconds: [number | null, number | null];
}

/** The pair, read. */
export interface ConditionPair {
  /** Presets of conditions A and B. */
  a: string;
  b: string;
  /** Seeds both ran, ascending. */
  seeds: number[];
  gaps: Gap[];
  effects: MethodEffect[];
  interactions: Interaction[];
  costs: Cost[];
}

const TAG_A = ' · A';
const TAG_B = ' · B';
const SETS = ['inSpace', 'base', 'train'] as const;

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const meanOrNull = (xs: readonly (number | undefined)[]) =>
  xs.length && xs.every((x): x is number => typeof x === 'number' && Number.isFinite(x)) ? mean(xs) : null;

/** Each after-RL episode of a run on one column, by (task, harness, sample). */
function byCell(r: RunResult | undefined, key: string): Map<string, EpisodeCell> {
  const out = new Map<string, EpisodeCell>();
  for (const e of r?.episodes?.after?.[key] ?? []) out.set(`${e.taskId}\u0000${e.harnessId}\u0000${e.sample}`, e);
  return out;
}

/**
 * (HS − single under B) − (HS − single under A) per paired cell, as the seed-level rule reads it:
 * cells where all four runs evaluated the same (seed, task, harness, sample).
 */
function interaction(
  a: readonly RunResult[],
  b: readonly RunResult[],
  arms: Arms,
  seeds: readonly number[],
  key: 'inSpace' | 'base',
): Interaction | null {
  const pass = (e: EpisodeCell) => (e.pass ? 1 : 0);
  const cells: DiffCell[] = [];
  const scores: DiffCell[] = [];
  let passes = 0;
  for (const seed of seeds) {
    const run = (runs: readonly RunResult[], m: string) =>
      byCell(
        runs.find((r) => r.method === m && r.seed === seed),
        key,
      );
    const [sA, hA, sB, hB] = [run(a, arms.single), run(a, arms.scaling), run(b, arms.single), run(b, arms.scaling)];
    for (const [id, w] of hB) {
      const [x, y, z] = [sB.get(id), hA.get(id), sA.get(id)];
      if (!x || !y || !z) continue;
      if (w.pass || x.pass || y.pass || z.pass) passes++;
      const at = { seed, config: w.harnessId, taskId: w.taskId };
      cells.push({ ...at, diff: pass(w) - pass(x) - (pass(y) - pass(z)) });
      scores.push({ ...at, diff: w.score - x.score - (y.score - z.score) });
    }
  }
  if (!cells.length) return null;
  const p = seedInterval(cells);
  const comparison: Comparison = { pass: p, score: seedInterval(scores), needed: seedsToDecide(p, 100) };
  return { key, comparison, direction: directionOf(comparison, passes) };
}

/** Whether a method's training harnesses are the base harness alone (its 'train' row would repeat 'base'). */
function trainsOnBaseOnly(runs: readonly RunResult[], method: string): boolean {
  const ids = (key: string) =>
    new Set(runs.filter((r) => r.method === method).flatMap((r) => (r.episodes?.after?.[key] ?? []).map((e) => e.harnessId)));
  const [train, base] = [ids('train'), ids('base')];
  return train.size > 0 && [...train].every((h) => base.has(h));
}

/** The runs of a side on the given seeds with each method renamed by its side. */
const tagged = (runs: readonly RunResult[], seeds: readonly number[], tag: string): RunResult[] =>
  runs.filter((r) => seeds.includes(r.seed)).map((r) => ({ ...r, method: r.method + tag }));

/**
 * The pair read on the seeds where both sides ran both arms.
 * @param a condition A (the reference: without dynamic sampling, the smaller model)
 * @param b condition B
 * @param arms method names, the same on both sides
 * @returns null when no seed ran both arms on both sides
 */
export function pairConditions(a: ConditionSide, b: ConditionSide, arms: Arms): ConditionPair | null {
  const ranBoth = (runs: readonly RunResult[], seed: number) =>
    runs.some((r) => r.seed === seed && r.method === arms.single) && runs.some((r) => r.seed === seed && r.method === arms.scaling);
  const seeds = [...new Set(a.runs.map((r) => r.seed))].filter((s) => ranBoth(a.runs, s) && ranBoth(b.runs, s)).sort((x, y) => x - y);
  if (!seeds.length) return null;
  const on = (runs: readonly RunResult[]) => runs.filter((r) => seeds.includes(r.seed));
  const gaps = (['inSpace', 'base'] as const).map((key) => ({
    key,
    a: methodVerdict(on(a.runs), arms.single, arms.scaling, key),
    b: methodVerdict(on(b.runs), arms.single, arms.scaling, key),
  }));
  const both = [...tagged(a.runs, seeds, TAG_A), ...tagged(b.runs, seeds, TAG_B)];
  const methods = [arms.single, arms.scaling];
  const effects = methods.flatMap((m) =>
    SETS.filter((k) => k !== 'train' || !trainsOnBaseOnly(a.runs, m))
      .map((k) => methodVerdict(both, m + TAG_A, m + TAG_B, k))
      .filter((v): v is MethodVerdict => v !== null)
      .map((verdict) => ({ method: m, verdict })),
  );
  const interactions = (['inSpace', 'base'] as const)
    .map((k) => interaction(a.runs, b.runs, arms, seeds, k))
    .filter((x): x is Interaction => x !== null);
  const costs = methods.map((method): Cost => {
    const side = (s: ConditionSide) => s.runs.filter((r) => r.method === method && seeds.includes(r.seed));
    const [ra, rb] = [side(a), side(b)];
    const both = <T>(f: (r: RunResult, s: ConditionSide) => T) => [ra.map((r) => f(r, a)), rb.map((r) => f(r, b))] as const;
    const sampled = both((r, s) => sampledEpisodes(r, s.specJson));
    const noUpdate = both((r) => r.rlStepsWithoutUpdate);
    const seconds = both((r) => r.seconds);
    return {
      method,
      sampled: [meanOrNull(sampled[0]), meanOrNull(sampled[1])],
      optimizerSteps: [mean(ra.map((r) => r.optimizerSteps)), mean(rb.map((r) => r.optimizerSteps))],
      stepsWithoutUpdate: [meanOrNull(noUpdate[0]), meanOrNull(noUpdate[1])],
      seconds: [meanOrNull(seconds[0]), meanOrNull(seconds[1])],
    };
  });
  return { a: a.preset, b: b.preset, seeds, gaps, effects, interactions, costs };
}

const interval = (c: Comparison) => pointsInterval(c.pass);

const WORD: Record<string, string> = {
  ahead: 'raises pass@1',
  behind: 'lowers pass@1',
  equivalent: 'equivalent (inside ±2)',
  undecided: 'undecided',
  'not measurable': 'not measurable',
};

const GAP_WORD: Record<string, string> = {
  ahead: 'HS ahead',
  behind: 'HS behind',
  equivalent: 'equivalent (inside ±2)',
  undecided: 'undecided',
  'not measurable': 'not measurable',
};

const SET_NAME: Record<string, string> = { inSpace: 'in-space', base: 'base harness', train: 'its training harnesses' };

const count = (x: number | null, digits = 0) => (x === null ? '—' : x.toFixed(digits));

/** How the two conditions are named in the markdown. */
interface PairLabels {
  /** Bold lead of the block: "broad base, 60 steps". */
  title: string;
  /** Short names of A and B: "without", "with"; "mini", "small". */
  a: string;
  b: string;
}

/**
 * The pair as markdown: a lead naming both presets, the HS − single gap under each condition, a
 * table of B − A per method and set with the interaction rows, and a cost line per method.
 */
export function pairMarkdown(p: ConditionPair, labels: PairLabels): string {
  const line = (xs: string[]) => `| ${xs.join(' | ')} |`;
  const note = (dir: string, c: Comparison) => (dir === 'undecided' ? undecidedNote(c) : '—');
  const out = [
    `**${labels.title}:** \`${p.b}\` (${labels.b}) − \`${p.a}\` (${labels.a}), ${p.seeds.length} shared seeds, the same test cells.`,
    '',
    line(['method', 'on', `${labels.b} − ${labels.a}, points [95 % interval]`, 'verdict', 'what would decide it']),
    line(['---', '---', '---:', '---', '---']),
  ];
  for (const { method, verdict } of p.effects) {
    const c = verdict.comparison;
    out.push(
      line([method, SET_NAME[verdict.set.key] ?? verdict.set.key, interval(c), WORD[verdict.direction], note(verdict.direction, c)]),
    );
  }
  for (const x of p.interactions) {
    const word = x.direction === 'ahead' ? 'widens it for HS' : x.direction === 'behind' ? 'moves it toward single' : WORD[x.direction];
    out.push(line(['HS − single gap (interaction)', SET_NAME[x.key], interval(x.comparison), word, note(x.direction, x.comparison)]));
  }
  out.push('');
  for (const g of p.gaps) {
    const side = (v: MethodVerdict | null, name: string) =>
      v ? `${interval(v.comparison)} ${GAP_WORD[v.direction]} (${name})` : `— (${name})`;
    out.push(`- HS − single on ${SET_NAME[g.key]}, these seeds: ${side(g.a, labels.a)}; ${side(g.b, labels.b)}.`);
  }
  for (const c of p.costs)
    out.push(
      `- ${c.method}: episodes sampled per run ${count(c.sampled[0])} → ${count(c.sampled[1])}; optimizer steps applied ${c.optimizerSteps[0].toFixed(1)} → ${c.optimizerSteps[1].toFixed(1)}; RL steps without an update ${count(c.stepsWithoutUpdate[0], 1)} → ${count(c.stepsWithoutUpdate[1], 1)}; seconds per run ${count(c.seconds[0])} → ${count(c.seconds[1])} (means over seeds, ${labels.a} → ${labels.b}; seconds on a loaded machine).`,
    );
  return out.join('\n');
}

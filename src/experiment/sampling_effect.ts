/**
 * What dynamic sampling changed: one place of the map (base exposure, budget) run without and
 * with rl.dynamicSampling (DAPO's refill of all-equal-reward groups), read on the seeds both ran.
 * The two experiments start from the same checkpoint and evaluate the same (seed, task, harness,
 * sample) cells, so every difference is paired:
 * - per method, with − without after RL, on in-space, the base harness and its training harnesses;
 * - the interaction, (HS − single with) − (HS − single without), on in-space and the base
 *   harness: whether matching the learning signal moved the gap the map reads;
 * - what it cost: episodes sampled and optimizer steps applied per run.
 * Intervals and verdicts follow the RESULTS page's rule (method_verdict.ts over seed_interval.ts).
 *
 * Source: Yu et al., "DAPO: an open-source LLM reinforcement learning system at scale", 2025
 * (dynamic sampling). Pure and DOM-free: scripts/claims.ts writes the RESULTS.md block from it.
 */
import { directionOf, methodVerdict, undecidedNote, type MethodVerdict } from '../report/method_verdict';
import { signedPoints } from '../report/points';
import { seedInterval, seedsToDecide, type DiffCell } from '../report/seed_interval';
import type { Comparison } from '../report/seed_stats';
import type { EpisodeCell, RunResult } from '../report/results_schema';
import type { CommittedResults } from './claims';
import { conditionsMap, sampledEpisodes, type MapCell } from './conditions_map';

/** One method's with − without dynamic sampling on one harness set. */
interface MethodEffect {
  method: string;
  verdict: MethodVerdict;
}

/** The gap's change: (HS − single with) − (HS − single without) on one harness set. */
interface Interaction {
  key: 'inSpace' | 'base';
  comparison: Comparison;
  direction: ReturnType<typeof directionOf>;
}

/** What a method's training cost per run, mean over the compared seeds, without → with. */
interface Cost {
  method: string;
  sampled: [number | null, number | null];
  optimizerSteps: [number, number];
  stepsWithoutUpdate: [number | null, number | null];
}

/** One place run both ways. */
interface SamplingEffect {
  exposure: string;
  steps: number;
  /** Presets without and with dynamic sampling. */
  off: string;
  on: string;
  /** Seeds both ran, ascending. */
  seeds: number[];
  effects: MethodEffect[];
  interactions: Interaction[];
  costs: Cost[];
}

const OFF = ' · without';
const ON = ' · with';
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
 * (HS − single with) − (HS − single without) per paired cell, as the seed-level rule reads it:
 * cells where all four runs evaluated the same (seed, task, harness, sample).
 */
function interaction(
  off: readonly RunResult[],
  on: readonly RunResult[],
  arms: { single: string; scaling: string },
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
    const [sOff, hOff, sOn, hOn] = [run(off, arms.single), run(off, arms.scaling), run(on, arms.single), run(on, arms.scaling)];
    for (const [id, a] of hOn) {
      const [b, c, d] = [sOn.get(id), hOff.get(id), sOff.get(id)];
      if (!b || !c || !d) continue;
      if (a.pass || b.pass || c.pass || d.pass) passes++;
      const at = { seed, config: a.harnessId, taskId: a.taskId };
      cells.push({ ...at, diff: pass(a) - pass(b) - (pass(c) - pass(d)) });
      scores.push({ ...at, diff: a.score - b.score - (c.score - d.score) });
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

/** The runs of a preset on the given seeds with each method renamed by its dynamic-sampling side. */
const tagged = (runs: readonly RunResult[], seeds: readonly number[], tag: string): RunResult[] =>
  runs.filter((r) => seeds.includes(r.seed)).map((r) => ({ ...r, method: r.method + tag }));

/** One place's effect, from its cell without and with dynamic sampling. */
function effectOf(offCell: MapCell, onCell: MapCell, results: ReadonlyMap<string, CommittedResults>): SamplingEffect | null {
  const seeds = offCell.seeds.filter((s) => onCell.seeds.includes(s));
  if (!seeds.length || offCell.single !== onCell.single || offCell.scaling !== onCell.scaling) return null;
  const offRuns = results.get(offCell.preset)?.runs ?? [];
  const onRuns = results.get(onCell.preset)?.runs ?? [];
  const both = [...tagged(offRuns, seeds, OFF), ...tagged(onRuns, seeds, ON)];
  const methods = [offCell.single, offCell.scaling];
  const effects = methods.flatMap((m) =>
    SETS.filter((k) => k !== 'train' || !trainsOnBaseOnly(offRuns, m))
      .map((k) => methodVerdict(both, m + OFF, m + ON, k))
      .filter((v): v is MethodVerdict => v !== null)
      .map((verdict) => ({ method: m, verdict })),
  );
  const arms = { single: offCell.single, scaling: offCell.scaling };
  const interactions = (['inSpace', 'base'] as const)
    .map((k) => interaction(offRuns, onRuns, arms, seeds, k))
    .filter((x): x is Interaction => x !== null);
  const [offSpec, onSpec] = [results.get(offCell.preset)?.specJson, results.get(onCell.preset)?.specJson];
  const costs = methods.map((method) => {
    const side = (runs: readonly RunResult[]) => runs.filter((r) => r.method === method && seeds.includes(r.seed));
    const [a, b] = [side(offRuns), side(onRuns)];
    return {
      method,
      sampled: [meanOrNull(a.map((r) => sampledEpisodes(r, offSpec))), meanOrNull(b.map((r) => sampledEpisodes(r, onSpec)))] as [
        number | null,
        number | null,
      ],
      optimizerSteps: [mean(a.map((r) => r.optimizerSteps)), mean(b.map((r) => r.optimizerSteps))] as [number, number],
      stepsWithoutUpdate: [meanOrNull(a.map((r) => r.rlStepsWithoutUpdate)), meanOrNull(b.map((r) => r.rlStepsWithoutUpdate))] as [
        number | null,
        number | null,
      ],
    };
  });
  return { exposure: onCell.exposure, steps: onCell.steps, off: offCell.preset, on: onCell.preset, seeds, effects, interactions, costs };
}

/**
 * Every place of the map run both without and with dynamic sampling (conditions_map.ts cells of
 * the same exposure and budget), compared on the seeds both ran.
 * @param results committed results by preset (claims.ts CommittedResults)
 */
export function samplingEffects(results: ReadonlyMap<string, CommittedResults>): SamplingEffect[] {
  const cells = conditionsMap(results);
  const out: SamplingEffect[] = [];
  for (const on of cells.filter((c) => c.dynamicSampling)) {
    const off = cells.find((c) => !c.dynamicSampling && c.exposure === on.exposure && c.steps === on.steps);
    const e = off && effectOf(off, on, results);
    if (e) out.push(e);
  }
  return out;
}

const interval = (c: Comparison) => {
  const p = c.pass;
  return p.seeds < 2 ? `${signedPoints(p.diff)} (1 seed)` : `${signedPoints(p.diff)} [${signedPoints(p.lo)}, ${signedPoints(p.hi)}]`;
};

const WORD: Record<string, string> = {
  ahead: 'raises pass@1',
  behind: 'lowers pass@1',
  equivalent: 'equivalent (inside ±2)',
  undecided: 'undecided',
  'not measurable': 'not measurable',
};

const SET_NAME: Record<string, string> = { inSpace: 'in-space', base: 'base harness', train: 'its training harnesses' };

const count = (x: number | null, digits = 0) => (x === null ? '—' : x.toFixed(digits));

/**
 * The effects as markdown (RESULTS.md's `sampling` block): per place, a table of with − without
 * per method and set, the interaction rows, and a cost line per method.
 */
export function samplingMarkdown(effects: readonly SamplingEffect[]): string {
  if (!effects.length) return '_No place of the map has been run both without and with dynamic sampling._';
  const line = (xs: string[]) => `| ${xs.join(' | ')} |`;
  const out: string[] = [];
  for (const e of effects) {
    out.push(
      `**${e.exposure} base, ${e.steps} steps:** \`${e.on}\` (with) − \`${e.off}\` (without), ${e.seeds.length} shared seeds, the same test cells.`,
      '',
      line(['method', 'on', 'with − without, points [95 % interval]', 'verdict', 'what would decide it']),
      line(['---', '---', '---:', '---', '---']),
    );
    for (const { method, verdict } of e.effects) {
      const c = verdict.comparison;
      const note = verdict.direction === 'undecided' ? undecidedNote(c) : '—';
      out.push(line([method, SET_NAME[verdict.set.key] ?? verdict.set.key, interval(c), WORD[verdict.direction], note]));
    }
    for (const x of e.interactions) {
      const note = x.direction === 'undecided' ? undecidedNote(x.comparison) : '—';
      out.push(
        line([
          'HS − single gap (interaction)',
          SET_NAME[x.key],
          interval(x.comparison),
          x.direction === 'ahead' ? 'widens it for HS' : x.direction === 'behind' ? 'moves it toward single' : WORD[x.direction],
          note,
        ]),
      );
    }
    out.push('');
    for (const c of e.costs)
      out.push(
        `- ${c.method}: episodes sampled per run ${count(c.sampled[0])} → ${count(c.sampled[1])}; optimizer steps applied ${c.optimizerSteps[0].toFixed(1)} → ${c.optimizerSteps[1].toFixed(1)}; RL steps without an update ${count(c.stepsWithoutUpdate[0], 1)} → ${count(c.stepsWithoutUpdate[1], 1)} (means over seeds, without → with).`,
      );
  }
  return out.join('\n');
}

/**
 * The comparison of two methods, told: arm B − arm A after RL on one harness set, with the
 * interval of the RESULTS page's inference rule (seed_stats.comparePaired: over training runs and
 * configurations) and one generated sentence — ahead, behind, equivalent, undecided (and what
 * would decide it) or not measurable. The claims table (claims.ts) and every app view that shows
 * two methods use this rule, so a verdict reads the same everywhere.
 *
 * Rule, for Δ = B − A with 95 % interval [lo, hi] (fractions of pass@1):
 * - ahead: lo > 0; behind: hi < 0 (the interval excludes 0);
 * - equivalent: −0.02 ≤ lo and hi ≤ +0.02 (any difference lies inside ±2 points);
 * - undecided: anything else, or one seed (no interval over training runs);
 * - not measurable: no episode passes under either arm (a floor, not a null).
 *
 * Pure and DOM-free: runs in Node, workers and the app.
 */
import { comparePaired, type Comparison } from './seed_stats';
import { signedPoints } from './points';
import { pairCells, type PairedCell } from './stats';
import type { EpisodeCell, RunResult } from './results_schema';

/** Which side of 0 the interval lies on, or why it says nothing. */
type Direction = 'ahead' | 'behind' | 'equivalent' | 'undecided' | 'not measurable';

/** A harness set that two methods are compared on: a results column. */
interface HarnessSet {
  /** 'base' | 'inSpace' | a black-box harness id (a key of RunEpisodes). */
  key: string;
  /** Plain name for a sentence: "the base harness", "held-out configurations (in-space)". */
  name: string;
  /** What the set is, for a tooltip. */
  explain: string;
}

/** Arm B against arm A on one harness set, with its verdict and sentence. */
export interface MethodVerdict {
  a: string;
  b: string;
  set: HarnessSet;
  comparison: Comparison;
  direction: Direction;
  /** One sentence: what B − A is, its interval and data, and the verdict. */
  sentence: string;
}

/** Equivalence margin of the rule, in fractions of pass@1 (±2 points). */
const EQUIVALENCE_MARGIN = 0.02;

/**
 * The plain name of a results column (base, in-space, a black-box harness, the training harnesses)
 * and a sentence for its tooltip.
 * @param key 'base' | 'inSpace' | 'train' | a black-box harness id
 */
export function harnessSet(key: string): HarnessSet {
  if (key === 'train')
    return {
      key,
      name: 'the training harnesses',
      explain: "the harnesses each method trained through (its own set: one for single-harness RL, the design's for harness scaling)",
    };
  if (key === 'base')
    return { key, name: 'the base harness', explain: 'the one harness configuration single-harness RL trains through (S0-T0-O0-C0-W0)' };
  if (key === 'inSpace')
    return {
      key,
      name: 'held-out configurations (in-space)',
      explain: 'harness configurations of the same five components that no method trained through and the base model was not pretrained on',
    };
  return {
    key,
    name: `the black-box harness ${key}`,
    explain: 'a whole other harness, outside the five-component space: a different prompt, tool syntax and observation format',
  };
}

/**
 * The direction of a comparison under the rule of the module doc (the pass difference).
 * @param passes episodes that pass under either arm; 0 makes it 'not measurable'
 */
export function directionOf(c: Comparison, passes = 1): Direction {
  const p = c.pass;
  if (passes === 0) return 'not measurable';
  if (p.seeds < 2) return 'undecided';
  if (p.lo > 0) return 'ahead';
  if (p.hi < 0) return 'behind';
  if (p.lo >= -EQUIVALENCE_MARGIN && p.hi <= EQUIVALENCE_MARGIN) return 'equivalent';
  return 'undecided';
}

/** Why an undecided comparison is undecided, and what would decide it. */
export function undecidedNote(c: Comparison): string {
  const p = c.pass;
  const n = c.needed.exclude;
  if (p.seeds < 2) return 'one seed: no interval over training runs';
  if (n !== null)
    return n <= p.seeds
      ? `at this effect ≈ ${n} seeds would exclude 0; the observed spread did not`
      : `≈ ${n} seeds would decide it at this effect and spread${n > 10 ? ' (beyond the 10-seed cap)' : ''}`;
  const eq = c.needed.equivalent;
  if (eq !== null)
    return `too small an effect for seeds to exclude 0; ≈ ${eq} seeds${eq > 10 ? ' (beyond the 10-seed cap)' : ''} would show equivalence, the interval inside ±2 points`;
  if (1.96 * p.configSe >= Math.abs(p.diff))
    return `more in-space configurations: the configuration term alone (± ${(196 * p.configSe).toFixed(1)}) is wider than the effect`;
  return 'the effect is too small for seeds to exclude 0; equivalence needs the interval inside ±2';
}

/**
 * The sentence of a verdict, e.g. "On held-out configurations (in-space), harness scaling is
 * equivalent to single harness: −0.2 points [−1.6, +1.2] over 10 seeds × 24 configurations (inside ±2 points)."
 */
function verdictSentence(a: string, b: string, set: HarnessSet, c: Comparison, direction: Direction): string {
  const p = c.pass;
  const data = `${p.seeds} seed${p.seeds === 1 ? '' : 's'} × ${p.configs} configuration${p.configs === 1 ? '' : 's'}`;
  const est =
    p.seeds < 2
      ? `${signedPoints(p.diff)} points (one seed: no interval)`
      : `${signedPoints(p.diff)} points [${signedPoints(p.lo)}, ${signedPoints(p.hi)}] over ${data}`;
  const on = `On ${set.name}`;
  switch (direction) {
    case 'ahead':
      return `${on}, ${b} is ahead of ${a}: ${est}; the 95 % interval excludes 0.`;
    case 'behind':
      return `${on}, ${b} is behind ${a}: ${est}; the 95 % interval excludes 0.`;
    case 'equivalent':
      return `${on}, ${b} and ${a} are equivalent: ${est}, inside ±2 points.`;
    case 'not measurable':
      return `On ${set.name}, ${b} and ${a} cannot be compared: every episode fails under both (a floor, not a null).`;
    default:
      return `On ${set.name}, ${b} − ${a} is undecided: ${est}; ${undecidedNote(c)}.`;
  }
}

/** A run's per-episode outcomes after RL on one column; null when not recorded. */
const afterEpisodes = (r: RunResult, key: string): EpisodeCell[] | null => {
  const list = r.episodes?.after?.[key];
  return Array.isArray(list) ? list : null;
};

/** The paired cells of arm B against arm A on one set (each B run against A's run of its seed), and how many pass under either arm. */
function armCells(
  runs: readonly RunResult[],
  a: string,
  b: string,
  key: string,
  keep?: (harnessId: string) => boolean,
): { cells: PairedCell[]; passes: number } {
  const cells: PairedCell[] = [];
  let passes = 0;
  for (const rb of runs) {
    if (rb.method !== b) continue;
    const ra = runs.find((r) => r.method === a && r.seed === rb.seed);
    const ea = ra && afterEpisodes(ra, key);
    const eb = afterEpisodes(rb, key);
    if (!ea || !eb) continue;
    for (const cell of pairCells(ea, eb).cells) {
      if (keep && !keep(cell.harnessId)) continue;
      cells.push({ ...cell, run: rb.seed });
      if (cell.before.pass || cell.after.pass) passes++;
    }
  }
  return { cells, passes };
}

/**
 * B − A after RL on one harness set, paired on the same (seed, task, harness, sample) cells
 * (stats.pairCells with A as "before"); seeds where either method has no run are left out.
 * @param runs an experiment's runs (RunResult with per-episode outcomes)
 * @param keep only the cells under these harnesses (e.g. one distance band of the in-space set); absent: all
 * @returns null when no cell pairs (a method absent, outcomes not recorded, the set not evaluated)
 * @throws Error from comparePaired on a duplicate cell
 */
export function methodVerdict(
  runs: readonly RunResult[],
  a: string,
  b: string,
  key: string,
  keep?: (harnessId: string) => boolean,
): MethodVerdict | null {
  const { cells, passes } = armCells(runs, a, b, key, keep);
  if (!cells.length) return null;
  const comparison = comparePaired(cells);
  const set = harnessSet(key);
  const direction = directionOf(comparison, passes);
  return { a, b, set, comparison, direction, sentence: verdictSentence(a, b, set, comparison, direction) };
}

/**
 * The harness sets two methods can be compared on, in reading order: in-space first (the
 * question the lab asks), then the base harness, then each black-box harness.
 */
function comparedSets(runs: readonly RunResult[]): string[] {
  const bb = [...new Set(runs.flatMap((r) => Object.keys(r.after.blackbox)))].sort();
  return ['inSpace', 'base', ...bb];
}

/**
 * Every harness set's verdict for one method pair (comparedSets order; sets where nothing pairs
 * are left out).
 */
export function pairVerdicts(runs: readonly RunResult[], a: string, b: string): MethodVerdict[] {
  return comparedSets(runs)
    .map((k) => methodVerdict(runs, a, b, k))
    .filter((v): v is MethodVerdict => v !== null);
}

/**
 * How much of two arms' evaluation on one harness set pairs. Arms pair on the same (seed, task,
 * harness, sample) cell, so two outputs evaluated on other seeds, configurations or tasks (a
 * browser run against a committed preset, `lesson` against `main`) pair on what they share only,
 * or on nothing; a verdict then holds for the shared cells alone, and this says which they are.
 */
interface PairCoverage {
  set: HarnessSet;
  /** Seeds with per-episode outcomes on the set, ascending: each arm's and both's. */
  seeds: { a: number[]; b: number[]; shared: number[] };
  /** Harness configurations evaluated on the shared seeds: each arm's count and the common ones. */
  configs: { a: number; b: number; shared: number };
  /** Test tasks evaluated on the shared seeds: each arm's count and the common ones. */
  tasks: { a: number; b: number; shared: number };
  /** Episodes recorded per arm (every seed) and the episodes paired (the verdict's cells, per arm). */
  cells: { a: number; b: number; paired: number };
  /** full: every episode of both arms pairs; partial: some do; none: none does. */
  extent: 'full' | 'partial' | 'none';
}

/** One harness set of a method pair: what pairs, and the verdict on it (null when nothing pairs). */
export interface PairRow {
  coverage: PairCoverage;
  verdict: MethodVerdict | null;
}

/** One arm's runs with recorded outcomes on a set: its seeds and episodes. */
function armRuns(runs: readonly RunResult[], method: string, key: string) {
  const list = runs.flatMap((r) => {
    const e = r.method === method ? afterEpisodes(r, key) : null;
    return e?.length ? [{ seed: r.seed, episodes: e }] : [];
  });
  return {
    list,
    seeds: [...new Set(list.map((r) => r.seed))].sort((x, y) => x - y),
    cells: list.reduce((n, r) => n + r.episodes.length, 0),
  };
}

/** Configurations and tasks of an arm's episodes on the given seeds. */
function evaluatedOn(arm: ReturnType<typeof armRuns>, seeds: readonly number[]) {
  const configs = new Set<string>();
  const tasks = new Set<string>();
  for (const r of arm.list) if (seeds.includes(r.seed)) for (const e of r.episodes) configs.add(e.harnessId), tasks.add(e.taskId);
  return { configs, tasks };
}

const common = <T>(x: Set<T>, y: Set<T>): number => [...x].filter((v) => y.has(v)).length;

/**
 * What of arm A's and arm B's after-RL episodes on one set pairs (methodVerdict's cells).
 * Configurations and tasks are counted on the seeds both arms have (test tasks may differ per seed).
 * @param key 'base' | 'inSpace' | a black-box harness id
 */
function pairCoverage(runs: readonly RunResult[], a: string, b: string, key: string): PairCoverage {
  const ra = armRuns(runs, a, key);
  const rb = armRuns(runs, b, key);
  const shared = ra.seeds.filter((s) => rb.seeds.includes(s));
  const ea = evaluatedOn(ra, shared);
  const eb = evaluatedOn(rb, shared);
  const paired = armCells(runs, a, b, key).cells.length;
  const extent = paired === 0 ? 'none' : paired === ra.cells && paired === rb.cells ? 'full' : 'partial';
  return {
    set: harnessSet(key),
    seeds: { a: ra.seeds, b: rb.seeds, shared },
    configs: { a: ea.configs.size, b: eb.configs.size, shared: common(ea.configs, eb.configs) },
    tasks: { a: ea.tasks.size, b: eb.tasks.size, shared: common(ea.tasks, eb.tasks) },
    cells: { a: ra.cells, b: rb.cells, paired },
    extent,
  };
}

/** "seed 0", "seeds 0–9", "seeds 0, 2, 5". */
function seedList(seeds: readonly number[]): string {
  if (!seeds.length) return 'no seed';
  if (seeds.length === 1) return `seed ${seeds[0]}`;
  const run = seeds.every((s, i) => i === 0 || s === seeds[i - 1] + 1);
  return `seeds ${run ? `${seeds[0]}–${seeds[seeds.length - 1]}` : seeds.join(', ')}`;
}

const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/**
 * What limits the pairing, in plain words, arm B first (as in "B − A"): the seeds, then on the
 * shared seeds the configurations and tasks the arms do not share; empty when they share all.
 */
function limits(c: PairCoverage, a: string, b: string): string[] {
  const { seeds, configs, tasks } = c;
  const both = (x: string, y: string) => `(${b}: ${x}; ${a}: ${y})`;
  if (!seeds.shared.length) return [`no training seed in common ${both(seedList(seeds.b), seedList(seeds.a))}`];
  const out: string[] = [];
  if (seeds.shared.length < Math.max(seeds.a.length, seeds.b.length))
    out.push(`only ${seedList(seeds.shared)} in common ${both(seedList(seeds.b), seedList(seeds.a))}`);
  const on = seeds.shared.length === 1 ? 'on it' : 'on them';
  if (configs.shared < Math.max(configs.a, configs.b))
    out.push(
      `${on}, ${configs.shared ? `${count(configs.shared, 'harness configuration')} in common` : 'no harness configuration in common'} ${both(count(configs.b, 'configuration'), count(configs.a, 'configuration'))}`,
    );
  if (tasks.shared < Math.max(tasks.a, tasks.b))
    out.push(
      `${on}, ${tasks.shared ? `${count(tasks.shared, 'test task')} in common` : 'no test task in common'} ${both(count(tasks.b, 'task'), count(tasks.a, 'task'))}`,
    );
  return out;
}

/**
 * The pairing of a set in one sentence: null when every episode of both arms pairs; otherwise
 * what is missing, what is shared, and (partial) that the verdict holds for the shared cells only.
 */
export function coverageSentence(c: PairCoverage, a: string, b: string): string | null {
  const on = `On ${c.set.name}`;
  if (c.extent === 'full') return null;
  if (!c.cells.a || !c.cells.b) {
    const missing = !c.cells.a && !c.cells.b ? `neither ${b} nor ${a} has` : `${c.cells.a ? b : a} has`;
    return `${on}, ${b} and ${a} cannot be paired: ${missing} no per-episode outcomes there (not evaluated, not recorded, or not loaded yet).`;
  }
  const why = limits(c, a, b);
  if (c.extent === 'none')
    return `${on}, ${b} and ${a} cannot be paired: ${why.length ? why.join('; ') : 'no (seed, task, harness, sample) cell in common'}.`;
  return `${on}, ${b} and ${a} pair on part of their episodes only, ${count(c.cells.paired, 'episode')} of ${b}'s ${c.cells.b.toLocaleString('en-US')} and ${a}'s ${c.cells.a.toLocaleString('en-US')}: ${why.length ? why.join('; ') : 'their samples differ'}. The verdict holds for these shared episodes only.`;
}

/**
 * Every harness set either arm was evaluated on (comparedSets over the two arms' runs), with what
 * pairs and the verdict; unlike pairVerdicts, sets where nothing pairs are kept (verdict null).
 */
export function pairReport(runs: readonly RunResult[], a: string, b: string): PairRow[] {
  const arms = runs.filter((r) => r.method === a || r.method === b);
  return comparedSets(arms).map((k) => ({ coverage: pairCoverage(runs, a, b, k), verdict: methodVerdict(runs, a, b, k) }));
}

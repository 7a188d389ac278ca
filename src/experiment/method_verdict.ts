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
import { pairCells, type PairedCell } from './stats';
import type { EpisodeCell, RunResult } from './results_file';

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
 * The plain name of a results column (base, in-space, a black-box harness).
 * @param key 'base' | 'inSpace' | a black-box harness id
 */
function harnessSet(key: string): HarnessSet {
  if (key === 'base') return { key, name: 'the base harness', explain: 'the one harness configuration single-harness RL trains through (S0-T0-O0-C0-W0)' };
  if (key === 'inSpace')
    return {
      key,
      name: 'held-out configurations (in-space)',
      explain: 'harness configurations of the same five components that no method trained through and the base model was not pretrained on',
    };
  return { key, name: `the black-box harness ${key}`, explain: 'a whole other harness, outside the five-component space: a different prompt, tool syntax and observation format' };
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
  if (1.96 * p.configSe >= Math.abs(p.diff)) return `more in-space configurations: the configuration term alone (± ${(196 * p.configSe).toFixed(1)}) is wider than the effect`;
  return 'the effect is too small for seeds to exclude 0; equivalence needs the interval inside ±2';
}

/** Points of a fraction, signed: "+4.2", "−0.7". */
export const signedPoints = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;

/**
 * The sentence of a verdict, e.g. "On held-out configurations (in-space), harness scaling is
 * equivalent to single harness: −0.2 points [−1.6, +1.2] over 10 seeds × 24 configurations (inside ±2 points)."
 */
function verdictSentence(a: string, b: string, set: HarnessSet, c: Comparison, direction: Direction): string {
  const p = c.pass;
  const data = `${p.seeds} seed${p.seeds === 1 ? '' : 's'} × ${p.configs} configuration${p.configs === 1 ? '' : 's'}`;
  const est = p.seeds < 2 ? `${signedPoints(p.diff)} points (one seed: no interval)` : `${signedPoints(p.diff)} points [${signedPoints(p.lo)}, ${signedPoints(p.hi)}] over ${data}`;
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

/**
 * B − A after RL on one harness set, paired on the same (seed, task, harness, sample) cells
 * (stats.pairCells with A as "before"); seeds where either method has no run are left out.
 * @param runs an experiment's runs (RunResult with per-episode outcomes)
 * @returns null when no cell pairs (a method absent, outcomes not recorded, the set not evaluated)
 * @throws Error from comparePaired on a duplicate cell
 */
export function methodVerdict(runs: readonly RunResult[], a: string, b: string, key: string): MethodVerdict | null {
  const cells: PairedCell[] = [];
  let passes = 0;
  for (const rb of runs) {
    if (rb.method !== b) continue;
    const ra = runs.find((r) => r.method === a && r.seed === rb.seed);
    const ea = ra && afterEpisodes(ra, key);
    const eb = afterEpisodes(rb, key);
    if (!ea || !eb) continue;
    for (const cell of pairCells(ea, eb).cells) {
      cells.push({ ...cell, run: rb.seed });
      if (cell.before.pass || cell.after.pass) passes++;
    }
  }
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
export function comparedSets(runs: readonly RunResult[]): string[] {
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

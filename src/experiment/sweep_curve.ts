/**
 * A sweep curve: pass@1 after RL against a number the arms of one experiment vary at equal
 * budget, on the in-space configurations and on the base harness. Two sweeps exist:
 * - N, the number of training harnesses (`harness-count`: N = 1 is single-harness RL through the
 *   base harness, N = 3, 6, 9 the first N of the orthogonal array in a balanced order, N = 18 the
 *   whole array);
 * - K, the harnesses each task is trained under (`diversity`: the task's anchor harness and its
 *   K − 1 nearest by Hamming distance, all over the same 18 training harnesses).
 * - Each point: the mean over seeds of a run's after-RL pass@1, with a 95 % t-interval over the
 *   seeds' values (descriptive: a level, not a decision).
 * - Each value > 1 against 1: the paired difference under the RESULTS page's rule
 *   (method_verdict.ts: intervals over seeds and configurations), which decides.
 * Pure and DOM-free: scripts/claims.ts writes RESULTS.md's `harness-count` and `k-sweep` blocks and
 * their figures from it; the app's Results view draws the same for a loaded experiment.
 */
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { methodVerdict, type MethodVerdict } from '../report/method_verdict';
import { signedPoints } from '../report/points';
import type { RunResult } from '../report/results_schema';
import type { CommittedResults, RerunProgress } from './claims';

/** The two sets the curve reads. */
const SETS = ['inSpace', 'base'] as const;
type CurveSet = (typeof SETS)[number];

/** A method as the resolved spec lists it (the fields a sweep reads). */
interface SpecMethod {
  name: string;
  harnesses?: string;
  K?: number;
  harnessCount?: number;
}

/** What a sweep varies: its symbol, its words and each method's value (null: not on the sweep). */
interface SweepAxis {
  symbol: 'N' | 'K';
  /** e.g. "the number N of training harnesses" */
  words: string;
  /** The axis label of the figure. */
  label: string;
  valueOf(m: SpecMethod, designK: number): number | null;
}

/** N: harnessCount, 1 for a single-harness method, the design's size for all-harness scaling. */
export const HARNESS_COUNT: SweepAxis = {
  symbol: 'N',
  words: 'the number N of training harnesses',
  label: 'N training harnesses (log scale)',
  valueOf: (m, designK) => m.harnessCount ?? (m.harnesses === 'single' ? 1 : m.harnesses === 'scaling' ? designK : null),
};

/** K: the harnesses per task of a harness-scaling method. */
export const HARNESSES_PER_TASK: SweepAxis = {
  symbol: 'K',
  words: 'the number K of harnesses per task (its anchor and the K − 1 nearest)',
  label: 'K harnesses per task (log scale)',
  valueOf: (m) => (m.harnesses === 'scaling' && m.harnessCount === undefined ? (m.K ?? null) : null),
};

/**
 * The sweep a spec's methods make, or null: N when some method sets `harnessCount`; K when every
 * method is all-harness scaling and their K values are distinct, one of them 1.
 * @param specJson the resolved spec (results.json `specJson`)
 */
function sweepAxis(specJson: unknown): SweepAxis | null {
  const methods = (specJson as { methods?: SpecMethod[] } | null | undefined)?.methods ?? [];
  if (methods.some((m) => m.harnessCount !== undefined)) return HARNESS_COUNT;
  const ks = methods.map((m) => HARNESSES_PER_TASK.valueOf(m, 0));
  const distinct = new Set(ks);
  return methods.length >= 2 && !ks.includes(null) && distinct.size === ks.length && distinct.has(1) ? HARNESSES_PER_TASK : null;
}

/** A level with its 95 % t-interval over seeds (fractions of pass@1); lo = hi = NaN with one seed. */
interface Level {
  mean: number;
  lo: number;
  hi: number;
  seeds: number;
}

/** One value of the sweep. */
interface SweepPoint {
  value: number;
  method: string;
  /** After-RL pass@1 per set. */
  after: Record<CurveSet, Level>;
  /** Against value 1 per set (null for 1 itself, or when nothing pairs). */
  vsOne: Record<CurveSet, MethodVerdict | null>;
}

/** The curve with the starting level every arm shares. */
export interface SweepCurve {
  axis: SweepAxis;
  points: SweepPoint[];
  /** Before-RL pass@1 per set, mean over every run. */
  before: Record<CurveSet, number>;
}

/** 95 % t-interval of a mean over seeds. */
function level(xs: readonly number[]): Level {
  const n = xs.length;
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return { mean, lo: Number.NaN, hi: Number.NaN, seeds: n };
  const sd = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1));
  const half = tQuantile(0.975, n - 1) * (sd / Math.sqrt(n));
  return { mean, lo: mean - half, hi: mean + half, seeds: n };
}

/**
 * The sweep curve of a committed experiment.
 * @param res its results with the resolved spec (methods, `design.k`)
 * @param axis the sweep to read (default: the one its spec makes, sweepAxis)
 * @returns null when the spec makes no sweep, has no arm at value 1 or fewer than two values
 */
export function sweepCurve(res: CommittedResults, axis: SweepAxis | null = sweepAxis(res.specJson)): SweepCurve | null {
  if (!axis) return null;
  const spec = res.specJson as { design?: { k?: number }; methods?: SpecMethod[] } | undefined;
  const arms = (spec?.methods ?? [])
    .map((m) => ({ method: m.name, value: axis.valueOf(m, spec?.design?.k ?? 18) }))
    .filter((a): a is { method: string; value: number } => a.value !== null)
    .sort((x, y) => x.value - y.value);
  const one = arms.find((a) => a.value === 1);
  if (!one || arms.length < 2) return null;
  const runsOf = (method: string) => res.runs.filter((r) => r.method === method);
  const pick = (r: RunResult, set: CurveSet) => (set === 'base' ? r.after.base : r.after.inSpace);
  const points = arms.map(({ method, value }) => {
    const runs = runsOf(method);
    const after = Object.fromEntries(SETS.map((s) => [s, level(runs.map((r) => pick(r, s)))])) as Record<CurveSet, Level>;
    const vsOne = Object.fromEntries(SETS.map((s) => [s, value === 1 ? null : methodVerdict(res.runs, one.method, method, s)])) as Record<
      CurveSet,
      MethodVerdict | null
    >;
    return { value, method, after, vsOne };
  });
  const all = arms.flatMap((a) => runsOf(a.method));
  const meanBefore = (s: CurveSet) => all.reduce((a, r) => a + (s === 'base' ? r.before.base : r.before.inSpace), 0) / all.length;
  return { axis, points, before: { inSpace: meanBefore('inSpace'), base: meanBefore('base') } };
}

const pct = (x: number) => (100 * x).toFixed(1);

/** "+3.2 [+1.0, +5.4] ahead" in points, or "—". */
function vsText(v: MethodVerdict | null): string {
  if (!v) return '—';
  const p = v.comparison.pass;
  const est = p.seeds < 2 ? signedPoints(p.diff) : `${signedPoints(p.diff)} [${signedPoints(p.lo)}, ${signedPoints(p.hi)}]`;
  return `${est} ${v.direction}`;
}

/**
 * The curve as a markdown table (RESULTS.md's `harness-count` and `k-sweep` blocks).
 * @param curve sweepCurve's, or null (then `none` is the block)
 * @param none what the block says without a curve
 */
export function sweepMarkdown(curve: SweepCurve | null, none: string): string {
  if (!curve) return none;
  const x = curve.axis.symbol;
  const line = (xs: string[]) => `| ${xs.join(' | ')} |`;
  const lvl = (l: Level) => (l.seeds < 2 ? `${pct(l.mean)} %` : `${pct(l.mean)} % [${pct(l.lo)}, ${pct(l.hi)}]`);
  return [
    line([x, 'method', 'seeds', 'in-space after RL', `in-space: ${x} − (${x} = 1)`, 'base harness after RL', `base: ${x} − (${x} = 1)`]),
    line(['---:', '---', '---:', '---:', '---', '---:', '---']),
    ...curve.points.map((p) =>
      line([
        String(p.value),
        p.method,
        String(p.after.inSpace.seeds),
        lvl(p.after.inSpace),
        vsText(p.vsOne.inSpace),
        lvl(p.after.base),
        vsText(p.vsOne.base),
      ]),
    ),
    '',
    `Before RL (every arm starts from the same base): in-space ${pct(curve.before.inSpace)} %, base harness ${pct(curve.before.base)} %.`,
  ].join('\n');
}

/**
 * RESULTS.md's `k-sweep` block: the K sweep of committed `diversity` when it ran the current design
 * (claims.ts currentDesign); otherwise why it is not read and how far its re-run is.
 * @param res committed `diversity` (absent: not run)
 * @param current whether `res` ran the current design
 * @param rerun its re-run's seed chunks committed so far
 */
export function kSweepMarkdown(res: CommittedResults | undefined, current: boolean, rerun?: RerunProgress): string {
  const progress = rerun
    ? `its re-run on the current design has ${rerun.done.length} of ${rerun.planned} seeds committed in seed chunks (${rerun.done.map((s) => `s${s}`).join(', ')})`
    : 'its re-run on the current design has no seed committed yet';
  if (!res) return `_No committed \`diversity\` results; ${progress}._`;
  if (!current)
    return `_Not read: committed \`diversity\` is the old design (4 in-space configurations; a schedule under which K ≥ 4 changed at most 2 of 480 draws per run, so its arms barely differed); ${progress}. The sweep is read here when every seed is in._`;
  return sweepMarkdown(sweepCurve(res, HARNESSES_PER_TASK), '_Committed `diversity` makes no K sweep._');
}

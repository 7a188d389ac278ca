/**
 * The harness-count curve: pass@1 after RL against the number N of training harnesses at equal
 * budget (the `harness-count` preset: N = 1 is single-harness RL through the base harness, N = 3,
 * 6, 9 the first N of the orthogonal array in a balanced order, N = 18 the whole array), on the
 * in-space configurations and on the base harness.
 * - Each point: the mean over seeds of a run's after-RL pass@1, with a 95 % t-interval over the
 *   seeds' values (descriptive: a level, not a decision).
 * - Each N > 1 against N = 1: the paired difference under the RESULTS page's rule
 *   (method_verdict.ts: intervals over seeds and configurations), which decides.
 * Pure and DOM-free: scripts/claims.ts writes RESULTS.md's `harness-count` block and
 * docs/results/harness-count/scaling.svg from it.
 */
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { methodVerdict, type MethodVerdict } from '../report/method_verdict';
import { signedPoints } from '../report/points';
import type { RunResult } from '../report/results_schema';
import type { CommittedResults } from './claims';

/** The two sets the curve reads. */
const SETS = ['inSpace', 'base'] as const;
type CurveSet = (typeof SETS)[number];

/** A level with its 95 % t-interval over seeds (fractions of pass@1); lo = hi = NaN with one seed. */
interface Level {
  mean: number;
  lo: number;
  hi: number;
  seeds: number;
}

/** One N of the curve. */
interface CountPoint {
  n: number;
  method: string;
  /** After-RL pass@1 per set. */
  after: Record<CurveSet, Level>;
  /** Against N = 1 per set (null for N = 1 itself, or when nothing pairs). */
  vsOne: Record<CurveSet, MethodVerdict | null>;
}

/** The curve with the starting level both arms share. */
export interface CountCurve {
  points: CountPoint[];
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

/** A method's N: its harnessCount, 1 for a single-harness method, the design's k for all-harness scaling. */
function countOf(m: { harnesses?: string; harnessCount?: number }, designK: number): number | null {
  if (m.harnessCount !== undefined) return m.harnessCount;
  if (m.harnesses === 'single') return 1;
  if (m.harnesses === 'scaling') return designK;
  return null;
}

/**
 * The curve of a committed harness-count experiment.
 * @param res its results with the resolved spec (methods with `harnessCount`, `design.k`)
 * @returns null when the spec has no N = 1 arm or fewer than two counts
 */
export function harnessCountCurve(res: CommittedResults): CountCurve | null {
  const spec = res.specJson as
    | { design?: { k?: number }; methods?: Array<{ name: string; harnesses?: string; harnessCount?: number }> }
    | undefined;
  const arms = (spec?.methods ?? [])
    .map((m) => ({ method: m.name, n: countOf(m, spec?.design?.k ?? 18) }))
    .filter((a): a is { method: string; n: number } => a.n !== null)
    .sort((x, y) => x.n - y.n);
  const one = arms.find((a) => a.n === 1);
  if (!one || arms.length < 2) return null;
  const runsOf = (method: string) => res.runs.filter((r) => r.method === method);
  const pick = (r: RunResult, set: CurveSet) => (set === 'base' ? r.after.base : r.after.inSpace);
  const points = arms.map(({ method, n }) => {
    const runs = runsOf(method);
    const after = Object.fromEntries(SETS.map((s) => [s, level(runs.map((r) => pick(r, s)))])) as Record<CurveSet, Level>;
    const vsOne = Object.fromEntries(SETS.map((s) => [s, n === 1 ? null : methodVerdict(res.runs, one.method, method, s)])) as Record<
      CurveSet,
      MethodVerdict | null
    >;
    return { n, method, after, vsOne };
  });
  const all = arms.flatMap((a) => runsOf(a.method));
  const meanBefore = (s: CurveSet) => all.reduce((a, r) => a + (s === 'base' ? r.before.base : r.before.inSpace), 0) / all.length;
  return { points, before: { inSpace: meanBefore('inSpace'), base: meanBefore('base') } };
}

const pct = (x: number) => (100 * x).toFixed(1);

/** "+3.2 [+1.0, +5.4] ahead" in points, or "—". */
function vsText(v: MethodVerdict | null): string {
  if (!v) return '—';
  const p = v.comparison.pass;
  const est = p.seeds < 2 ? signedPoints(p.diff) : `${signedPoints(p.diff)} [${signedPoints(p.lo)}, ${signedPoints(p.hi)}]`;
  return `${est} ${v.direction}`;
}

/** The curve as a markdown table (RESULTS.md's `harness-count` block). */
export function harnessCountMarkdown(curve: CountCurve | null): string {
  if (!curve) return '_No committed `harness-count` results._';
  const line = (xs: string[]) => `| ${xs.join(' | ')} |`;
  const lvl = (l: Level) => (l.seeds < 2 ? `${pct(l.mean)} %` : `${pct(l.mean)} % [${pct(l.lo)}, ${pct(l.hi)}]`);
  return [
    line(['N', 'method', 'seeds', 'in-space after RL', 'in-space: N − (N = 1)', 'base harness after RL', 'base: N − (N = 1)']),
    line(['---:', '---', '---:', '---:', '---', '---:', '---']),
    ...curve.points.map((p) =>
      line([
        String(p.n),
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

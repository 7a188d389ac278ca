/**
 * The statistics of results tables, pure and seeded: a 95 % interval for a pass
 * rate, a paired before→after comparison on the same (task, harness, sample) cells, and
 * mean ± std over seeds. Nothing here reads files or clocks; the bootstrap's randomness is
 * Rng.derive(seed, 'paired-bootstrap'), so a table is reproducible from its inputs.
 *
 * Sources: Wilson, "Probable inference, the law of succession, and statistical inference",
 * JASA 22 (1927); Efron & Tibshirani, "An Introduction to the Bootstrap" (1993), ch. 6 and 13
 * (bootstrap standard errors, percentile intervals), and for resampling whole tasks (clusters)
 * rather than single episodes, Davison & Hinkley (1997) §3.8; McNemar, "Note on the sampling
 * error of the difference between correlated proportions or percentages", Psychometrika 12
 * (1947), in its exact (binomial) form.
 */
import { Rng } from '../util/rng';

/** z such that P(|N(0,1)| ≤ z) = 0.95 (Φ⁻¹(0.975)). */
const Z95 = 1.959963984540054;

/** A pass rate with its episode count and a 95 % interval. */
export interface RateInterval {
  /** Passes / episodes; NaN when episodes = 0. */
  rate: number;
  passes: number;
  episodes: number;
  /** 95 % Wilson interval; [0, 1] when episodes = 0 (nothing is known). */
  lo: number;
  hi: number;
}

/**
 * Wilson score interval for a binomial proportion (Wilson 1927). With p̂ = k/n and z = Z95:
 *
 *   centre = (p̂ + z²/2n) / (1 + z²/n),   half = z/(1 + z²/n) · √(p̂(1 − p̂)/n + z²/4n²)
 *
 * and [lo, hi] = [centre − half, centre + half], clamped to [0, 1] against rounding. Unlike the
 * normal (Wald) interval it is never empty at p̂ ∈ {0, 1} and keeps near-nominal coverage at
 * the small n of these tables (e.g. 0/12 → [0, 0.243]).
 * @param passes k, an integer in [0, n]
 * @param episodes n, a non-negative integer; n = 0 gives rate NaN and [0, 1]
 * @throws Error when k or n is not an integer or k ∉ [0, n]
 */
export function wilson(passes: number, episodes: number, z = Z95): RateInterval {
  if (!Number.isInteger(episodes) || episodes < 0) throw new Error(`wilson: episodes must be a non-negative integer, got ${episodes}`);
  if (!Number.isInteger(passes) || passes < 0 || passes > episodes)
    throw new Error(`wilson: passes must be an integer in [0, ${episodes}], got ${passes}`);
  if (episodes === 0) return { rate: Number.NaN, passes, episodes, lo: 0, hi: 1 };
  const n = episodes;
  const p = passes / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z / denom) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { rate: p, passes, episodes, lo: Math.max(0, centre - half), hi: Math.min(1, centre + half) };
}

/** Mean ± sample standard deviation over seeds. */
interface MeanStd {
  mean: number;
  /** Sample std (Bessel's n − 1); NaN when n < 2 (one seed says nothing about spread). */
  std: number;
  n: number;
}

/**
 * mean = Σx/n, std = √(Σ(x − mean)²/(n − 1)) (two-pass, so no cancellation).
 * @returns mean NaN and std NaN for an empty list
 * @throws Error on a non-finite value (a missing seed must be left out, not passed as NaN)
 */
export function meanStd(xs: readonly number[]): MeanStd {
  for (const x of xs) if (!Number.isFinite(x)) throw new Error(`meanStd: values must be finite, got ${x}`);
  const n = xs.length;
  if (n === 0) return { mean: Number.NaN, std: Number.NaN, n };
  const mean = xs.reduce((a, x) => a + x, 0) / n;
  if (n < 2) return { mean, std: Number.NaN, n };
  const ss = xs.reduce((a, x) => a + (x - mean) * (x - mean), 0);
  return { mean, std: Math.sqrt(ss / (n - 1)), n };
}

/** Discordant pairs of a paired binary comparison and the exact McNemar p-value. */
interface McNemar {
  /** Cells that passed before and fail after. */
  b: number;
  /** Cells that failed before and pass after. */
  c: number;
  /** Two-sided exact p-value: 2·P(X ≤ min(b, c)), X ~ Binomial(b + c, ½), capped at 1; 1 when b + c = 0. */
  p: number;
}

/**
 * Exact McNemar test (McNemar 1947; the binomial form for small counts): under H0 (no change)
 * each of the n = b + c discordant pairs goes either way with probability ½, so
 *
 *   p = min(1, 2 · Σ_{k=0}^{min(b,c)} C(n, k) / 2ⁿ)
 *
 * Summed in log space (log C(n, k) accumulated term by term), so n in the thousands does not
 * underflow 2⁻ⁿ. Concordant pairs carry no information about the difference and are ignored.
 * @throws Error when b or c is not a non-negative integer
 */
export function mcnemarExact(b: number, c: number): McNemar {
  for (const [k, v] of [
    ['b', b],
    ['c', c],
  ] as const)
    if (!Number.isInteger(v) || v < 0) throw new Error(`mcnemarExact: ${k} must be a non-negative integer, got ${v}`);
  const n = b + c;
  if (n === 0) return { b, c, p: 1 };
  const m = Math.min(b, c);
  const log2n = n * Math.LN2;
  let logC = 0; // log C(n, 0)
  let tail = 0;
  for (let k = 0; k <= m; k++) {
    if (k > 0) logC += Math.log((n - k + 1) / k);
    tail += Math.exp(logC - log2n);
  }
  return { b, c, p: Math.min(1, 2 * tail) };
}

/** One (task, harness, sample) cell measured before and after: pass (0/1) and score. */
export interface PairedCell {
  /** Which run (seed) the cell belongs to, when cells of several runs are pooled; part of the key. */
  run?: string | number;
  taskId: string;
  harnessId: string;
  /** Sample index of the episode within the cell (0 for greedy evaluation). */
  sample: number;
  before: { pass: boolean; score: number };
  after: { pass: boolean; score: number };
}

/** The before→after comparison of one metric on paired cells. */
interface PairedDiff {
  /** Cells paired (present before and after). */
  n: number;
  /** Distinct tasks among them: the bootstrap's resampling unit. */
  tasks: number;
  before: number;
  after: number;
  /** after − before, the mean over cells. */
  diff: number;
  /** 95 % percentile-bootstrap interval of diff, resampling tasks; NaN when n = 0. */
  lo: number;
  hi: number;
  /** The interval excludes 0 and there are at least MIN_TASKS_FOR_NOISE tasks. */
  beyondNoise: boolean;
}

export interface PairedComparison {
  pass: PairedDiff & { mcnemar: McNemar };
  score: PairedDiff;
  resamples: number;
  seed: number;
}

/**
 * Below this many tasks a percentile bootstrap over tasks has too few distinct resamples to be
 * trusted (with 2 tasks it has 3), so no difference is called beyond noise.
 */
const MIN_TASKS_FOR_NOISE = 5;

/** Default bootstrap resamples: Efron & Tibshirani (ch. 13) suggest ≥ 1000 for percentile intervals. */
const DEFAULT_RESAMPLES = 2000;

/** The q-quantile of a sorted sample (type 1: the inverse of the empirical CDF, no interpolation). */
function quantileSorted(sorted: Float64Array, q: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i];
}

/**
 * Paired before→after comparison over cells measured both times.
 *
 * diff = (1/n) Σ_i (after_i − before_i) over the n paired cells. Its 95 % interval is a
 * percentile bootstrap (Efron & Tibshirani ch. 13) that resamples *tasks* with replacement
 * (cells of one task — its harnesses and samples — move together, since they share the task's
 * difficulty; Davison & Hinkley §3.8): for b = 1…B draw T task indices uniformly, take
 * diff*_b = Σ(cell differences of the drawn tasks) / Σ(their cell counts), and report the 2.5 %
 * and 97.5 % quantiles of diff*. For pass, the exact McNemar test on the discordant cells is
 * given beside it (cells treated as independent, which ignores the task clustering).
 *
 * A difference is "beyond noise" when its interval excludes 0 and there are at least
 * MIN_TASKS_FOR_NOISE tasks.
 * @param cells must have distinct (run, taskId, harnessId, sample); tasks are clustered across runs
 *   (the same task under several seeds shares its difficulty)
 * @param opts.seed the bootstrap stream (Rng.derive(seed, 'paired-bootstrap')); opts.resamples B ≥ 100
 * @throws Error on a duplicate cell, a non-finite or out-of-range score, or B < 100
 */
export function pairedComparison(cells: readonly PairedCell[], opts: { seed?: number; resamples?: number } = {}): PairedComparison {
  const seed = opts.seed ?? 0;
  const B = opts.resamples ?? DEFAULT_RESAMPLES;
  if (!Number.isInteger(B) || B < 100) throw new Error(`pairedComparison: resamples must be an integer ≥ 100, got ${B}`);
  const seen = new Set<string>();
  const byTask = new Map<string, { pass: number[]; score: number[] }>();
  let b = 0;
  let c = 0;
  const sum = { passBefore: 0, passAfter: 0, scoreBefore: 0, scoreAfter: 0 };
  for (const cell of cells) {
    const key = `${cell.run ?? ''}\u0000${cell.taskId}\u0000${cell.harnessId}\u0000${cell.sample}`;
    if (seen.has(key))
      throw new Error(
        `pairedComparison: duplicate cell (${cell.run === undefined ? '' : `run ${cell.run}, `}${cell.taskId}, ${cell.harnessId}, ${cell.sample})`,
      );
    seen.add(key);
    for (const s of [cell.before.score, cell.after.score])
      if (!Number.isFinite(s) || s < 0 || s > 1)
        throw new Error(`pairedComparison: score must be in [0, 1], got ${s} in (${cell.taskId}, ${cell.harnessId}, ${cell.sample})`);
    const pb = cell.before.pass ? 1 : 0;
    const pa = cell.after.pass ? 1 : 0;
    if (pb > pa) b++;
    if (pa > pb) c++;
    sum.passBefore += pb;
    sum.passAfter += pa;
    sum.scoreBefore += cell.before.score;
    sum.scoreAfter += cell.after.score;
    let g = byTask.get(cell.taskId);
    if (!g) byTask.set(cell.taskId, (g = { pass: [], score: [] }));
    g.pass.push(pa - pb);
    g.score.push(cell.after.score - cell.before.score);
  }
  const n = cells.length;
  const groups = [...byTask.values()];
  const T = groups.length;
  // Per task: sum of differences and cell count, so a resample is two sums over drawn tasks.
  const passSum = groups.map((g) => g.pass.reduce((a, x) => a + x, 0));
  const scoreSum = groups.map((g) => g.score.reduce((a, x) => a + x, 0));
  const count = groups.map((g) => g.pass.length);
  const bootPass = new Float64Array(B);
  const bootScore = new Float64Array(B);
  if (T > 0) {
    const rng = Rng.derive(seed, 'paired-bootstrap');
    for (let r = 0; r < B; r++) {
      let sp = 0;
      let ss = 0;
      let m = 0;
      for (let t = 0; t < T; t++) {
        const j = rng.int(T);
        sp += passSum[j];
        ss += scoreSum[j];
        m += count[j];
      }
      bootPass[r] = sp / m;
      bootScore[r] = ss / m;
    }
    bootPass.sort();
    bootScore.sort();
  }
  const diffOf = (before: number, after: number, boot: Float64Array): PairedDiff => {
    if (n === 0)
      return { n, tasks: T, before: Number.NaN, after: Number.NaN, diff: Number.NaN, lo: Number.NaN, hi: Number.NaN, beyondNoise: false };
    const lo = quantileSorted(boot, 0.025);
    const hi = quantileSorted(boot, 0.975);
    return {
      n,
      tasks: T,
      before: before / n,
      after: after / n,
      diff: (after - before) / n,
      lo,
      hi,
      beyondNoise: T >= MIN_TASKS_FOR_NOISE && (lo > 0 || hi < 0),
    };
  };
  return {
    pass: { ...diffOf(sum.passBefore, sum.passAfter, bootPass), mcnemar: mcnemarExact(b, c) },
    score: diffOf(sum.scoreBefore, sum.scoreAfter, bootScore),
    resamples: B,
    seed,
  };
}

/**
 * Pair two lists of per-episode outcomes on (taskId, harnessId, sample); cells present in only
 * one list are left out and counted.
 */
export function pairCells(
  before: readonly EpisodeOutcomeCell[],
  after: readonly EpisodeOutcomeCell[],
): { cells: PairedCell[]; unpairedBefore: number; unpairedAfter: number } {
  const key = (e: EpisodeOutcomeCell) => `${e.taskId}\u0000${e.harnessId}\u0000${e.sample}`;
  const a = new Map(after.map((e) => [key(e), e]));
  const cells: PairedCell[] = [];
  let unpairedBefore = 0;
  for (const e of before) {
    const x = a.get(key(e));
    if (!x) {
      unpairedBefore++;
      continue;
    }
    a.delete(key(e));
    cells.push({
      taskId: e.taskId,
      harnessId: e.harnessId,
      sample: e.sample,
      before: { pass: e.pass, score: e.score },
      after: { pass: x.pass, score: x.score },
    });
  }
  return { cells, unpairedBefore, unpairedAfter: a.size };
}

/** One evaluated episode: the unit of pairing (results.ts `EpisodeCell`). */
export interface EpisodeOutcomeCell {
  taskId: string;
  harnessId: string;
  /** Index of the sample within the (task, harness) cell (0 for greedy or one-sample evaluation). */
  sample: number;
  pass: boolean;
  /** The verifier's partial credit in [0, 1] (src/tasks/common.ts `verification`). */
  score: number;
}

/**
 * Strength-2 orthogonal arrays OA(N; s_1 … s_k; 2) (docs/ARCHITECTURE.md "Harness space and
 * design"): N runs × k columns in which every pair of columns shows every level pair equally
 * often. This file chooses among the constructions (oa_constructions.ts: Rao–Hamming, L18,
 * Paley, full factorial; Hedayat, Sloane & Stufken, *Orthogonal Arrays*, 1999) and the exact
 * search (oa_search.ts).
 *
 * Invariant: every array `orthogonalArray` returns has been re-verified by `verifyStrength2`
 * (oa_verify.ts); when none is found within the limits it throws `NoOrthogonalArrayError`.
 */
import { isPrime, primePower } from './galois_field';
import {
  type RunSizeBounds,
  type Runs,
  type Strength2Report,
  verifyStrength2,
  raoBound,
  divisibilityBound,
  smallestAdmissibleRunSize,
} from './oa_verify';
import { type BaseArray, type OaMethod, raoHamming, l18, paley, fullFactorial } from './oa_constructions';
import { type SearchAttempt, searchOrthogonalArray } from './oa_search';

/** Thrown when no verified strength-2 array is found within the limits. */
export class NoOrthogonalArrayError extends Error {
  constructor(
    message: string,
    readonly attempts: SearchAttempt[],
  ) {
    super(message);
    this.name = 'NoOrthogonalArrayError';
  }
}

/** Options of `orthogonalArray`. */
export interface OrthogonalArrayOptions {
  /** Largest run size considered by any construction (default 4096). */
  maxRuns?: number;
  /** Node budget of the search at each run size (default 1 000 000, roughly 0.1 s). */
  searchNodeBudget?: number;
  /** Number of run sizes the search tries, from the smallest admissible upward (default 6). */
  searchSizes?: number;
  /** Turn the search off (algebraic constructions and full factorial only). */
  search?: boolean;
  /**
   * How factors are assigned to columns of a larger base array: 'maxMinDistance' picks the
   * assignment maximizing the minimum pairwise Hamming distance between runs (ties: first in
   * enumeration order; at most `maxColumnChoices` assignments evaluated, then the best so far);
   * 'first' takes the first fitting columns. Default 'maxMinDistance'.
   */
  columnChoice?: 'maxMinDistance' | 'first';
  maxColumnChoices?: number;
  /**
   * Require pairwise distinct runs (a *simple* array), as a training set of distinct harnesses
   * needs. Arrays and column assignments with repeated runs are then skipped. Default false.
   */
  distinctRuns?: boolean;
}

/** A verified strength-2 orthogonal array for a list of factor levels. */
interface OrthogonalArray extends RunSizeBounds {
  /** s_j per factor, as requested. */
  levels: number[];
  /** N × k runs, column j = factor j. */
  runs: Runs;
  runSize: number;
  method: OaMethod;
  detail: string;
  /** For each factor, the column of the base array it uses (and the collapse, if any). */
  columns: { baseColumn: number; baseLevels: number; collapsed: boolean }[];
  verification: Strength2Report;
  /** Search attempts made (run sizes below the chosen one, and their outcome). */
  searchAttempts: SearchAttempt[];
}

function provedMinimal(N: number, smallest: number, div: number, attempts: SearchAttempt[]): boolean {
  for (let n = smallest; n < N; n += div) {
    if (!attempts.some((a) => a.runSize === n && a.outcome === 'infeasible')) return false;
  }
  return true;
}

/** Minimum pairwise Hamming distance over pairs of rows (Infinity for < 2 rows). */
export function minPairwiseDistance(runs: Runs): number {
  let best = Infinity;
  for (let a = 0; a < runs.length; a++) {
    for (let b = a + 1; b < runs.length; b++) {
      let d = 0;
      const x = runs[a],
        y = runs[b];
      for (let j = 0; j < x.length; j++) if (x[j] !== y[j]) d++;
      if (d < best) best = d;
    }
  }
  return best;
}

/**
 * Assign factors (levels s_i) to distinct base columns with s_i | baseLevels (collapse by
 * l mod s_i). Factors with equal level counts get column sets in increasing order (their order
 * does not change distances). Returns null when no assignment fits.
 */
function assignColumns(
  base: BaseArray,
  levels: readonly number[],
  choice: 'maxMinDistance' | 'first',
  maxChoices: number,
  distinctRuns: boolean,
) {
  const k = levels.length;
  const project = (cols: number[]): Runs => base.runs.map((row) => cols.map((c, i) => row[c] % levels[i]));
  // Order factors by decreasing level count so constrained ones pick first.
  const order = levels.map((_, i) => i).sort((a, b) => levels[b] - levels[a] || a - b);
  const chosen = new Array<number>(k).fill(-1);
  const used = new Set<number>();
  let best: { cols: number[]; dist: number } | null = null;
  let evaluated = 0;
  const rec = (pos: number): boolean => {
    if (pos === k) {
      evaluated++;
      const cols = chosen.slice();
      const dist = minPairwiseDistance(project(cols));
      if (distinctRuns && dist === 0) return evaluated >= maxChoices; // repeated runs: not acceptable
      if (!best || dist > best.dist) best = { cols, dist };
      return choice === 'first' || evaluated >= maxChoices || dist >= k; // k is the largest possible distance
    }
    const f = order[pos];
    const prev = pos > 0 && levels[order[pos - 1]] === levels[f] ? chosen[order[pos - 1]] : -1;
    for (let c = prev + 1; c < base.levels.length; c++) {
      if (used.has(c) || base.levels[c] % levels[f] !== 0) continue;
      chosen[f] = c;
      used.add(c);
      if (rec(pos + 1)) return true;
      used.delete(c);
      chosen[f] = -1;
    }
    return false;
  };
  rec(0);
  if (!best) return null;
  const b = best as { cols: number[]; dist: number };
  return { cols: b.cols, runs: project(b.cols), dist: b.dist };
}

/** Algebraic base arrays that could host `levels` (not yet checked for fit), smallest first. */
function baseCandidates(levels: readonly number[], maxRuns: number): BaseArray[] {
  const k = levels.length;
  const out: BaseArray[] = [];
  // Rao–Hamming over q = smallest power of p ≥ max s, when every s_i is a power of one prime p.
  const pps = levels.map((s) => primePower(s));
  if (pps.every((x) => x !== null) && pps.every((x) => x!.p === pps[0]!.p)) {
    // q = max s_i is itself a power of p and every s_i divides it.
    const q = Math.max(...levels);
    if (q <= 256) {
      let m = 2;
      while ((q ** m - 1) / (q - 1) < k) m++;
      if (q ** m <= maxRuns) out.push(raoHamming(q, m));
    }
  }
  if (
    levels.every((s) => s === 2 || s === 3) &&
    levels.filter((s) => s === 2).length <= 1 &&
    levels.filter((s) => s === 3).length <= 7 &&
    maxRuns >= 18
  ) {
    out.push(l18());
  }
  if (levels.every((s) => s === 2)) {
    for (let q = 3; q + 1 <= maxRuns; q += 4) {
      if (!isPrime(q)) continue;
      if (q >= k) {
        out.push(paley(q));
        break;
      }
    }
  }
  const ff = levels.reduce((a, s) => a * s, 1);
  if (ff <= maxRuns) out.push(fullFactorial(levels));
  return out.sort((a, b) => a.runs.length - b.runs.length);
}

/**
 * A verified strength-2 orthogonal array for the factor level counts `levels`, with the
 * smallest run size among the constructions tried: the algebraic ones (Rao–Hamming with
 * collapsing, L18, Paley, full factorial ≤ maxRuns) and, for run sizes below the best
 * algebraic one, the exact search (`searchOrthogonalArray`, from the smallest admissible run
 * size upward, at most `searchSizes` sizes, each within `searchNodeBudget` nodes).
 * @param levels s_i ≥ 2 per factor, 1 ≤ k ≤ 64 factors.
 * @throws Error naming the bad entry of `levels`; NoOrthogonalArrayError when nothing is found
 *   within the limits (its message lists what was tried).
 */
export function orthogonalArray(levels: readonly number[], opts: OrthogonalArrayOptions = {}): OrthogonalArray {
  if (!Array.isArray(levels) || levels.length === 0) throw new Error('orthogonalArray: levels must be a non-empty list');
  if (levels.length > 64) throw new Error(`orthogonalArray: at most 64 factors, got ${levels.length}`);
  levels.forEach((s, i) => {
    if (!Number.isInteger(s) || s < 2) throw new Error(`orthogonalArray: levels[${i}] must be an integer ≥ 2, got ${s}`);
  });
  const maxRuns = opts.maxRuns ?? 4096;
  const budget = opts.searchNodeBudget ?? 1_000_000;
  const searchSizes = opts.searchSizes ?? 6;
  const choice = opts.columnChoice ?? 'maxMinDistance';
  const maxChoices = opts.maxColumnChoices ?? 2000;
  const distinctRuns = opts.distinctRuns ?? false;
  const rao = raoBound(levels);
  const div = divisibilityBound(levels);
  const smallest = smallestAdmissibleRunSize(levels);

  type Cand = { base: BaseArray; cols: number[]; runs: Runs; dist: number };
  let best: Cand | null = null;
  const tried: string[] = [];
  for (const base of baseCandidates(levels, maxRuns)) {
    if (best && base.runs.length >= best.runs.length) break;
    const a = assignColumns(base, levels, choice, maxChoices, distinctRuns);
    if (!a) continue;
    tried.push(`${base.detail} (${base.runs.length} runs)`);
    const rep = verifyStrength2(a.runs, levels);
    if (!rep.strength2) continue; // never trust a construction
    best = { base, cols: a.cols, runs: a.runs, dist: a.dist };
  }
  const attempts: SearchAttempt[] = [];
  if (opts.search !== false) {
    const limit = Math.min(best ? best.runs.length - 1 : maxRuns, maxRuns);
    for (let N = smallest, n = 0; N <= limit && n < searchSizes; N += div, n++) {
      const { runs, attempt } = searchOrthogonalArray(levels, N, budget, distinctRuns);
      attempts.push(attempt);
      if (runs && verifyStrength2(runs, levels).strength2) {
        best = {
          base: { method: 'search', detail: `exact backtracking search (${attempt.nodes} nodes)`, runs, levels: [...levels] },
          cols: levels.map((_, i) => i),
          runs,
          dist: minPairwiseDistance(runs),
        };
        break;
      }
    }
  }
  if (!best) {
    const searched = attempts.map((a) => `N=${a.runSize}: ${a.outcome}`).join(', ') || 'none';
    throw new NoOrthogonalArrayError(
      `no strength-2 orthogonal array found for levels [${levels.join(',')}] within maxRuns=${maxRuns} ` +
        `(Rao bound ${rao}, divisibility ${div}; constructions fitting: ${tried.join('; ') || 'none'}; search: ${searched})`,
      attempts,
    );
  }
  const verification = verifyStrength2(best.runs, levels);
  if (!verification.strength2) throw new Error('orthogonalArray: internal error, chosen array failed verification');
  return {
    levels: [...levels],
    runs: best.runs,
    runSize: best.runs.length,
    method: best.base.method,
    detail: best.base.detail,
    columns: best.cols.map((c, i) => ({ baseColumn: c, baseLevels: best!.base.levels[c], collapsed: best!.base.levels[c] !== levels[i] })),
    raoBound: rao,
    divisibilityBound: div,
    smallestAdmissibleRunSize: smallest,
    minimalRunSize: best.runs.length === smallest,
    runSizeProvedMinimal: provedMinimal(best.runs.length, smallest, div, attempts),
    minPairwiseDistance: best.dist,
    verification,
    searchAttempts: attempts,
  };
}

/**
 * Exact search for a strength-2 orthogonal array where no construction fits
 * (orthogonal_array.ts): column-by-column backtracking with symmetry breaking, bounded by a node budget.
 */
import { type Runs, raoBound, divisibilityBound } from './oa_verify';

/** Outcome of the search at one run size. */
export interface SearchAttempt {
  runSize: number;
  outcome: 'found' | 'infeasible' | 'budget-exhausted' | 'too-large';
  nodes: number;
}

/** All permutations of 0..s−1 (memoized per s). */
const perms = new Map<number, number[][]>();
function permutations(s: number): number[][] {
  let ps = perms.get(s);
  if (ps) return ps;
  const out: number[][] = [];
  const a = Array.from({ length: s }, (_, i) => i);
  const rec = (i: number) => {
    if (i === s) {
      out.push(a.slice());
      return;
    }
    for (let j = i; j < s; j++) {
      [a[i], a[j]] = [a[j], a[i]];
      rec(i + 1);
      [a[i], a[j]] = [a[j], a[i]];
    }
  };
  rec(0);
  ps = out;
  perms.set(s, ps);
  return ps;
}

/** Mark in `g` the rows that start a block of rows equal on columns 0..j−1 (`g[r]` = 1). */
function markGroups(cols: readonly Int32Array[], j: number, g: Uint8Array): void {
  const N = g.length;
  g[0] = 1;
  for (let r = 1; r < N; r++) {
    let same = true;
    for (let i = 0; i < j && same; i++) if (cols[i][r] !== cols[i][r - 1]) same = false;
    g[r] = same ? 0 : 1;
  }
}

/**
 * Is column `c` (levels 0..s−1, blocks marked in `g`) the lexicographic minimum over
 * relabelings followed by within-block sorting? Columns of more than 5 levels are not checked
 * (5! relabelings is the most tried).
 */
function isCanonical(c: Int32Array, s: number, g: Uint8Array): boolean {
  if (s > 5) return true;
  const N = c.length;
  const tmp = new Int32Array(N);
  for (const p of permutations(s)) {
    for (let r = 0; r < N; r++) tmp[r] = p[c[r]];
    // sort within blocks
    let start = 0;
    for (let r = 1; r <= N; r++) {
      if (r === N || g[r]) {
        tmp.subarray(start, r).sort();
        start = r;
      }
    }
    for (let r = 0; r < N; r++) {
      if (tmp[r] !== c[r]) {
        if (tmp[r] < c[r]) return false;
        break;
      }
    }
  }
  return true;
}

/**
 * Exact search for OA(N; s_1 … s_k; 2) by column-by-column backtracking.
 *
 * Columns are filled in order of decreasing level count, each row by row, keeping every
 * level count ≤ N/s_j and every level-pair count with each earlier column ≤ N/(s_i s_j)
 * (with the totals fixed, a completed column therefore balances exactly). Symmetry breaking,
 * valid because any OA can be brought to this form: rows are lexicographically sorted (the
 * first column is 0…0 1…1 …; in later columns, entries are non-decreasing within each block
 * of rows equal on the earlier columns), and each column (levels ≤ 5) is the lexicographic
 * minimum of its level relabelings after that sort.
 *
 * Limits: the search is exponential; it stops after `nodeBudget` value assignments
 * (deterministic, machine-independent) and then reports 'budget-exhausted', which proves
 * nothing. 'infeasible' means the search space was exhausted: no OA of that size exists.
 * Practical for N up to a few dozen runs and up to ~8 columns; larger cases usually exhaust
 * the budget. Measured: L18-type OA(18; 2^1 3^7) in ~11k nodes, OA(27; 3^8) in ~1M, OA(12; 6·2^3)
 * proved infeasible in ~900 nodes; OA(32; 4^6) (exists) and OA(18; 3^8) (does not) exhaust
 * 2M nodes undecided. The recursion is one frame per cell, so sizes with N·k > 4096 are not
 * searched (outcome 'too-large'). About 10–20M nodes per second in Node.
 * @param levels s_j ≥ 2 per column.
 * @param N run size (must be a multiple of every s_i s_j; else 'infeasible' immediately).
 * @param distinctRuns require pairwise distinct runs; since rows are lexicographically sorted,
 *   repeats are adjacent and are rejected when the last column is complete (the symmetry
 *   breaking preserves distinctness, so the search stays exact).
 * @returns the runs in the order of `levels`, or null, plus the attempt record.
 */
export function searchOrthogonalArray(
  levels: readonly number[],
  N: number,
  nodeBudget = 1_000_000,
  distinctRuns = false,
): { runs: Runs | null; attempt: SearchAttempt } {
  const k = levels.length;
  if (N % divisibilityBound(levels) !== 0 || N < raoBound(levels)) {
    return { runs: null, attempt: { runSize: N, outcome: 'infeasible', nodes: 0 } };
  }
  if (N * k > 4096) return { runs: null, attempt: { runSize: N, outcome: 'too-large', nodes: 0 } };
  // Search order: decreasing level count.
  const order = levels.map((_s, j) => j).sort((a, b) => levels[b] - levels[a] || a - b);
  const lv = order.map((j) => levels[j]);
  const cols: Int32Array[] = lv.map(() => new Int32Array(N));
  let nodes = 0;
  let exhausted = false;

  // Column 0: sorted and balanced.
  for (let r = 0; r < N; r++) cols[0][r] = Math.floor(r / (N / lv[0]));

  // groupStart[j][r]: true when row r starts a block of rows equal on columns 0..j−1.
  const groupStart: Uint8Array[] = lv.map(() => new Uint8Array(N));

  const fillColumn = (j: number): boolean => {
    if (j === k) {
      if (!distinctRuns) return true;
      for (let r = 1; r < N; r++) {
        let same = true;
        for (let i = 0; i < k && same; i++) if (cols[i][r] !== cols[i][r - 1]) same = false;
        if (same) return false;
      }
      return true;
    }
    markGroups(cols, j, groupStart[j]);
    const s = lv[j];
    const c = cols[j];
    const g = groupStart[j];
    const levelCap = N / s;
    const levelCount = new Int32Array(s);
    // pairCount[i][a * s + b]
    const pairCount: Int32Array[] = [];
    const pairCap: number[] = [];
    for (let i = 0; i < j; i++) {
      pairCount.push(new Int32Array(lv[i] * s));
      pairCap.push(N / (lv[i] * s));
    }
    const rec = (r: number): boolean => {
      if (r === N) return isCanonical(cols[j], lv[j], groupStart[j]) && fillColumn(j + 1);
      const lo = r === 0 ? 0 : g[r] ? 0 : c[r - 1];
      const hi = r === 0 ? 0 : s - 1;
      for (let v = lo; v <= hi; v++) {
        if (++nodes > nodeBudget) {
          exhausted = true;
          return false;
        }
        if (levelCount[v] >= levelCap) continue;
        let ok = true;
        for (let i = 0; i < j; i++) {
          if (pairCount[i][cols[i][r] * s + v] >= pairCap[i]) {
            ok = false;
            break;
          }
        }
        if (!ok) continue;
        c[r] = v;
        levelCount[v]++;
        for (let i = 0; i < j; i++) pairCount[i][cols[i][r] * s + v]++;
        if (rec(r + 1)) return true;
        levelCount[v]--;
        for (let i = 0; i < j; i++) pairCount[i][cols[i][r] * s + v]--;
        if (exhausted) return false;
      }
      return false;
    };
    return rec(0);
  };

  // Column 0 is fixed; check its balance trivially holds (N multiple of s_0).
  const found = k <= 1 ? !distinctRuns || N === lv[0] : fillColumn(1);
  if (!found) {
    return {
      runs: null,
      attempt: { runSize: N, outcome: exhausted ? 'budget-exhausted' : 'infeasible', nodes: Math.min(nodes, nodeBudget) },
    };
  }
  const runs: Runs = [];
  for (let r = 0; r < N; r++) {
    const row = new Array<number>(k);
    order.forEach((orig, pos) => (row[orig] = cols[pos][r]));
    runs.push(row);
  }
  return { runs, attempt: { runSize: N, outcome: 'found', nodes } };
}

/**
 * Strength-2 orthogonal arrays OA(N; s_1 … s_k; 2) (docs/ARCHITECTURE.md "Harness space and design").
 *
 * An array is N runs (rows) × k columns, column j taking levels 0..s_j−1. It has strength 2
 * when every pair of columns (i, j) shows every level pair (a, b) exactly N/(s_i s_j) times;
 * this implies component balance (every level of column j appears N/s_j times).
 *
 * Constructions (Hedayat, Sloane & Stufken, *Orthogonal Arrays*, 1999):
 * - **Rao–Hamming** (Bose for m = 2): OA(q^m; q^((q^m−1)/(q−1)); 2) over GF(q) for prime
 *   powers q ≤ 256 (HSS ch. 3). Factors whose level count s divides q use a column of q levels
 *   collapsed by l ↦ l mod s (collapsing keeps strength 2 because every residue class has
 *   q/s preimages).
 * - **L18** (2^1 3^7): the standard Taguchi table, 18 runs.
 * - **Paley / Plackett–Burman** OA(q+1; 2^q; 2) for primes q ≡ 3 (mod 4) (HSS ch. 7): normalized
 *   Hadamard matrix of order q+1 without its constant column.
 * - **Full factorial**: all Π s_i level combinations (strength k), used when small enough.
 * - **Search** (`searchOrthogonalArray`): exact column-by-column backtracking for other
 *   mixed-level cases; see its docstring for its limits.
 *
 * Every array returned by `orthogonalArray` has been re-verified by `verifyStrength2`; when no
 * verified array is found within the limits, it throws `NoOrthogonalArrayError`.
 */

import { GaloisField, isPrime, primePower } from './galois_field';

/** An array as rows: `runs[r][j]` is the level of column j in run r, `N × k`. */
export type Runs = number[][];

/** Per-column level counts. */
export interface ColumnBalance {
  column: number;
  /** counts[l] = number of runs at level l; length s_j. */
  counts: number[];
  /** True when every level appears N/s_j times. */
  equal: boolean;
}

/** Level-pair counts of a pair of columns. */
export interface PairBalance {
  columns: [number, number];
  /** counts[a][b] = number of runs with column i at a and column j at b; s_i × s_j. */
  counts: number[][];
  /** True when every level pair appears N/(s_i s_j) times. */
  equal: boolean;
}

/** Result of `verifyStrength2`. */
export interface Strength2Report {
  runSize: number;
  levels: number[];
  /** False when some entry is not an integer in 0..s_j−1 (or a row has the wrong length). */
  valuesInRange: boolean;
  columns: ColumnBalance[];
  pairs: PairBalance[];
  /** Every column balanced. */
  balanced: boolean;
  /** Values in range and every pair of columns balanced: OA of strength 2. */
  strength2: boolean;
}

/**
 * Check an array independently of how it was built: per-column level counts and per-pair
 * level-pair counts, each with an `equal` flag.
 * @param runs N × k levels.
 * @param levels s_j per column (length k).
 * Never throws on a bad array (it reports it); throws only when `levels` is not a list of
 * integers ≥ 1.
 */
export function verifyStrength2(runs: Runs, levels: readonly number[]): Strength2Report {
  levels.forEach((s, j) => {
    if (!Number.isInteger(s) || s < 1) throw new Error(`verifyStrength2: levels[${j}] must be an integer ≥ 1, got ${s}`);
  });
  const N = runs.length;
  const k = levels.length;
  let valuesInRange = true;
  for (const row of runs) {
    if (!Array.isArray(row) || row.length !== k) {
      valuesInRange = false;
      continue;
    }
    row.forEach((v, j) => {
      if (!Number.isInteger(v) || v < 0 || v >= levels[j]) valuesInRange = false;
    });
  }
  const inRange = (row: number[], j: number) => Array.isArray(row) && Number.isInteger(row[j]) && row[j] >= 0 && row[j] < levels[j];
  const columns: ColumnBalance[] = levels.map((s, j) => {
    const counts = new Array<number>(s).fill(0);
    for (const row of runs) if (inRange(row, j)) counts[row[j]]++;
    return { column: j, counts, equal: N % s === 0 && counts.every((c) => c === N / s) };
  });
  const pairs: PairBalance[] = [];
  for (let i = 0; i < k; i++) {
    for (let j = i + 1; j < k; j++) {
      const counts = Array.from({ length: levels[i] }, () => new Array<number>(levels[j]).fill(0));
      for (const row of runs) if (inRange(row, i) && inRange(row, j)) counts[row[i]][row[j]]++;
      const target = N / (levels[i] * levels[j]);
      pairs.push({ columns: [i, j], counts, equal: Number.isInteger(target) && counts.every((r) => r.every((c) => c === target)) });
    }
  }
  const balanced = valuesInRange && columns.every((c) => c.equal);
  return { runSize: N, levels: [...levels], valuesInRange, columns, pairs, balanced, strength2: balanced && pairs.every((p) => p.equal) };
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}
function lcm(a: number, b: number): number {
  return (a / gcd(a, b)) * b;
}

/** Rao bound for strength 2: N ≥ 1 + Σ (s_i − 1) (Rao 1947; HSS ch. 2, with t = 2). */
export function raoBound(levels: readonly number[]): number {
  return 1 + levels.reduce((a, s) => a + (s - 1), 0);
}

/**
 * Divisibility bound: N must be a multiple of lcm over pairs i < j of s_i·s_j (each level
 * pair appears N/(s_i s_j) times). With one column: s_1; with none: 1.
 */
export function divisibilityBound(levels: readonly number[]): number {
  if (levels.length === 0) return 1;
  if (levels.length === 1) return levels[0];
  let L = 1;
  for (let i = 0; i < levels.length; i++) for (let j = i + 1; j < levels.length; j++) L = lcm(L, levels[i] * levels[j]);
  return L;
}

/**
 * The smallest N satisfying both necessary conditions: N ≥ Rao bound and N a multiple of the
 * divisibility bound. An OA of that size need not exist; no smaller one can.
 */
export function smallestAdmissibleRunSize(levels: readonly number[]): number {
  const L = divisibilityBound(levels);
  return Math.ceil(raoBound(levels) / L) * L;
}

/** A constructed array before its columns are assigned to factors. */
export interface BaseArray {
  method: OaMethod;
  /** Human-readable construction, e.g. 'Rao–Hamming over GF(3), m = 3'. */
  detail: string;
  /** N × c. */
  runs: Runs;
  /** Level count of each of the c columns. */
  levels: number[];
}

export type OaMethod = 'rao-hamming' | 'l18' | 'paley' | 'full-factorial' | 'search';

/**
 * Rao–Hamming OA(q^m; q^n; 2), n = (q^m − 1)/(q − 1): rows are all x ∈ GF(q)^m (mixed radix,
 * first coordinate most significant), columns all nonzero c ∈ GF(q)^m whose first nonzero
 * coordinate is 1, entry ⟨x, c⟩. For m = 2 this is Bose's OA(q²; q^(q+1); 2).
 * @throws Error when q is not a prime power ≤ 256, m < 1, or q^m > 65536.
 */
export function raoHamming(q: number, m: number): BaseArray {
  const F = GaloisField.of(q);
  if (!Number.isInteger(m) || m < 1) throw new Error(`raoHamming: m must be an integer ≥ 1, got ${m}`);
  const N = q ** m;
  if (N > 65536) throw new Error(`raoHamming: q^m = ${N} exceeds 65536 runs`);
  const vec = (idx: number) => {
    const v = new Array<number>(m);
    for (let i = m - 1; i >= 0; i--) {
      v[i] = idx % q;
      idx = Math.floor(idx / q);
    }
    return v;
  };
  const cols: number[][] = [];
  for (let idx = 1; idx < N; idx++) {
    const c = vec(idx);
    const first = c.find((x) => x !== 0);
    if (first === 1) cols.push(c);
  }
  const runs: Runs = [];
  for (let r = 0; r < N; r++) {
    const x = vec(r);
    runs.push(
      cols.map((c) => {
        let s = 0;
        for (let i = 0; i < m; i++) s = F.add(s, F.mul(x[i], c[i]));
        return s;
      }),
    );
  }
  return { method: 'rao-hamming', detail: `Rao–Hamming over GF(${q}), m = ${m}${m === 2 ? ' (Bose)' : ''}`, runs, levels: cols.map(() => q) };
}

/**
 * The standard L18 (2^1 3^7) table as printed in Taguchi's catalogue of orthogonal arrays
 * (Taguchi, *System of Experimental Design*, 1987), levels 0-based: column 0 has 2 levels,
 * columns 1..7 have 3. Verified as strength 2 in the tests (and by `orthogonalArray` on use).
 */
export const L18_TABLE: readonly (readonly number[])[] = [
  [1, 1, 1, 1, 1, 1, 1, 1],
  [1, 1, 2, 2, 2, 2, 2, 2],
  [1, 1, 3, 3, 3, 3, 3, 3],
  [1, 2, 1, 1, 2, 2, 3, 3],
  [1, 2, 2, 2, 3, 3, 1, 1],
  [1, 2, 3, 3, 1, 1, 2, 2],
  [1, 3, 1, 2, 1, 3, 2, 3],
  [1, 3, 2, 3, 2, 1, 3, 1],
  [1, 3, 3, 1, 3, 2, 1, 2],
  [2, 1, 1, 3, 3, 2, 2, 1],
  [2, 1, 2, 1, 1, 3, 3, 2],
  [2, 1, 3, 2, 2, 1, 1, 3],
  [2, 2, 1, 2, 3, 1, 3, 2],
  [2, 2, 2, 3, 1, 2, 1, 3],
  [2, 2, 3, 1, 2, 3, 2, 1],
  [2, 3, 1, 3, 2, 3, 1, 2],
  [2, 3, 2, 1, 3, 1, 2, 3],
  [2, 3, 3, 2, 1, 2, 3, 1],
].map((row) => row.map((v) => v - 1));

/** L18 as a base array (columns numbered 1..8 in the classic table are 0..7 here). */
export function l18(): BaseArray {
  return { method: 'l18', detail: 'L18 (2^1 3^7), standard Taguchi table', runs: L18_TABLE.map((r) => [...r]), levels: [2, 3, 3, 3, 3, 3, 3, 3] };
}

/**
 * Paley construction: for a prime q ≡ 3 (mod 4), the Hadamard matrix H = I + S of order
 * q + 1 (S skew: first row 0,1,…,1; below, −1 and the Jacobsthal matrix Q[i][j] = χ(j − i),
 * χ the quadratic character mod q), rows normalized to start with +1; dropping the constant
 * first column gives OA(q+1; 2^q; 2) (+1 ↦ 0, −1 ↦ 1).
 * @throws Error when q is not a prime ≡ 3 (mod 4).
 */
export function paley(q: number): BaseArray {
  if (!isPrime(q) || q % 4 !== 3) throw new Error(`paley: q must be a prime ≡ 3 (mod 4), got ${q}`);
  const chi = new Array<number>(q).fill(-1);
  chi[0] = 0;
  for (let x = 1; x < q; x++) chi[(x * x) % q] = 1;
  const n = q + 1;
  const H = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let s: number;
      if (i === 0) s = j === 0 ? 0 : 1;
      else if (j === 0) s = -1;
      else s = chi[(((j - i) % q) + q) % q];
      H[i][j] = s + (i === j ? 1 : 0);
    }
  }
  const runs: Runs = H.map((row) => {
    const sign = row[0];
    return row.slice(1).map((v) => (v * sign === 1 ? 0 : 1));
  });
  return { method: 'paley', detail: `Paley / Plackett–Burman, Hadamard order ${n}`, runs, levels: new Array<number>(q).fill(2) };
}

/** Full factorial: all Π s_i combinations, first column most significant. */
export function fullFactorial(levels: readonly number[]): BaseArray {
  const N = levels.reduce((a, s) => a * s, 1);
  const runs: Runs = [];
  for (let idx = 0; idx < N; idx++) {
    const v = new Array<number>(levels.length);
    let x = idx;
    for (let i = levels.length - 1; i >= 0; i--) {
      v[i] = x % levels[i];
      x = Math.floor(x / levels[i]);
    }
    runs.push(v);
  }
  return { method: 'full-factorial', detail: `full factorial (${levels.join('×')})`, runs, levels: [...levels] };
}

/** Outcome of the search at one run size. */
export interface SearchAttempt {
  runSize: number;
  outcome: 'found' | 'infeasible' | 'budget-exhausted' | 'too-large';
  nodes: number;
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
export function searchOrthogonalArray(levels: readonly number[], N: number, nodeBudget = 1_000_000, distinctRuns = false): { runs: Runs | null; attempt: SearchAttempt } {
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

  const perms = new Map<number, number[][]>();
  const permutations = (s: number): number[][] => {
    let ps = perms.get(s);
    if (ps) return ps;
    ps = [];
    const a = Array.from({ length: s }, (_, i) => i);
    const rec = (i: number) => {
      if (i === s) {
        ps!.push(a.slice());
        return;
      }
      for (let j = i; j < s; j++) {
        [a[i], a[j]] = [a[j], a[i]];
        rec(i + 1);
        [a[i], a[j]] = [a[j], a[i]];
      }
    };
    rec(0);
    perms.set(s, ps);
    return ps;
  };

  // groupStart[j][r]: true when row r starts a block of rows equal on columns 0..j−1.
  const groupStart: Uint8Array[] = lv.map(() => new Uint8Array(N));
  const computeGroups = (j: number) => {
    const g = groupStart[j];
    g[0] = 1;
    for (let r = 1; r < N; r++) {
      let same = true;
      for (let i = 0; i < j && same; i++) if (cols[i][r] !== cols[i][r - 1]) same = false;
      g[r] = same ? 0 : 1;
    }
  };

  /** Is column j the lexicographic minimum over relabelings followed by within-block sorting? */
  const isCanonical = (j: number): boolean => {
    const s = lv[j];
    if (s > 5) return true;
    const c = cols[j];
    const g = groupStart[j];
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
  };

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
    computeGroups(j);
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
      if (r === N) return isCanonical(j) && fillColumn(j + 1);
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
    return { runs: null, attempt: { runSize: N, outcome: exhausted ? 'budget-exhausted' : 'infeasible', nodes: Math.min(nodes, nodeBudget) } };
  }
  const runs: Runs = [];
  for (let r = 0; r < N; r++) {
    const row = new Array<number>(k);
    order.forEach((orig, pos) => (row[orig] = cols[pos][r]));
    runs.push(row);
  }
  return { runs, attempt: { runSize: N, outcome: 'found', nodes } };
}

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
export interface OrthogonalArray {
  /** s_j per factor, as requested. */
  levels: number[];
  /** N × k runs, column j = factor j. */
  runs: Runs;
  runSize: number;
  method: OaMethod;
  detail: string;
  /** For each factor, the column of the base array it uses (and the collapse, if any). */
  columns: { baseColumn: number; baseLevels: number; collapsed: boolean }[];
  raoBound: number;
  divisibilityBound: number;
  /** Smallest N ≥ raoBound that is a multiple of divisibilityBound. */
  smallestAdmissibleRunSize: number;
  /**
   * True when runSize equals smallestAdmissibleRunSize, i.e. the array is minimal with
   * respect to the Rao and divisibility bounds (hence truly minimal). False does not prove a
   * smaller array exists; see `searchAttempts` for sizes proved infeasible.
   */
  minimalRunSize: boolean;
  /**
   * True when no smaller strength-2 array exists: either `minimalRunSize`, or every admissible
   * run size below runSize (multiples of divisibilityBound ≥ raoBound) was exhausted by the
   * search ('infeasible' attempts). With `distinctRuns`, "exists" reads "exists with
   * distinct runs".
   */
  runSizeProvedMinimal: boolean;
  /** Minimum Hamming distance over pairs of distinct runs (0 when runs repeat). */
  minPairwiseDistance: number;
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
function assignColumns(base: BaseArray, levels: readonly number[], choice: 'maxMinDistance' | 'first', maxChoices: number, distinctRuns: boolean) {
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
  if (levels.every((s) => s === 2 || s === 3) && levels.filter((s) => s === 2).length <= 1 && levels.filter((s) => s === 3).length <= 7 && maxRuns >= 18) {
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

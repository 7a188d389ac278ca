/**
 * Strength-2 orthogonal arrays (orthogonal_array.ts): the array type, the verification of
 * strength 2 (`verifyStrength2`) and the necessary conditions on the run size (Rao and
 * divisibility bounds).
 */

/** An array as rows: `runs[r][j]` is the level of column j in run r, `N × k`. */
export type Runs = number[][];

/** Per-column level counts. */
interface ColumnBalance {
  column: number;
  /** counts[l] = number of runs at level l; length s_j. */
  counts: number[];
  /** True when every level appears N/s_j times. */
  equal: boolean;
}

/** Level-pair counts of a pair of columns. */
interface PairBalance {
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

/** How a set of N runs (an array, or a training set of harnesses) stands against the run-size bounds. */
export interface RunSizeBounds {
  /** 1 + Σ (s_i − 1). */
  raoBound: number;
  /** lcm over factor pairs of s_i s_j. */
  divisibilityBound: number;
  /** Smallest N ≥ raoBound that is a multiple of divisibilityBound. */
  smallestAdmissibleRunSize: number;
  /**
   * True when the runs form a strength-2 array whose run size equals smallestAdmissibleRunSize,
   * i.e. minimal with respect to the Rao and divisibility bounds (hence truly minimal). False
   * does not prove a smaller array exists.
   */
  minimalRunSize: boolean;
  /**
   * True when no smaller strength-2 array exists: minimalRunSize, or every admissible run size
   * below N was proved infeasible by exhaustive search (with distinct runs where asked).
   */
  runSizeProvedMinimal: boolean;
  /** Minimum Hamming distance over pairs of distinct runs (0 when runs repeat). */
  minPairwiseDistance: number;
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

/**
 * The algebraic constructions of strength-2 orthogonal arrays (orthogonal_array.ts has the
 * references): Rao–Hamming over GF(q), the L18 table, Paley (Plackett–Burman) and the full factorial.
 */
import { GaloisField, isPrime } from './galois_field';
import type { Runs } from './oa_verify';

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
  return {
    method: 'rao-hamming',
    detail: `Rao–Hamming over GF(${q}), m = ${m}${m === 2 ? ' (Bose)' : ''}`,
    runs,
    levels: cols.map(() => q),
  };
}

/**
 * The standard L18 (2^1 3^7) table as printed in Taguchi's catalogue of orthogonal arrays
 * (Taguchi, *System of Experimental Design*, 1987), levels 0-based: column 0 has 2 levels,
 * columns 1..7 have 3. Verified as strength 2 in the tests (and by `orthogonalArray` on use).
 */
const L18_TABLE: readonly (readonly number[])[] = [
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
  return {
    method: 'l18',
    detail: 'L18 (2^1 3^7), standard Taguchi table',
    runs: L18_TABLE.map((r) => [...r]),
    levels: [2, 3, 3, 3, 3, 3, 3, 3],
  };
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

/**
 * Finite fields GF(q), q = p^k a prime power, as add/mul tables over the integers 0..q−1.
 *
 * Element x ↔ polynomial Σ d_i X^i over GF(p) with d_i the base-p digits of x; addition is
 * digit-wise mod p, multiplication is polynomial multiplication modulo the lexicographically
 * first monic irreducible polynomial of degree k (found by search: a candidate is irreducible
 * iff the product table has no zero divisors). 0 and 1 are the field's zero and one.
 * Supported: every prime power q ≤ 256 (tables are q×q). Source: Lidl & Niederreiter,
 * *Finite Fields* (1997), ch. 1–2.
 */

/** `{p, k}` with q = p^k for a prime p and k ≥ 1, or null when q is not a prime power (or q < 2). */
export function primePower(q: number): { p: number; k: number } | null {
  if (!Number.isInteger(q) || q < 2) return null;
  let p = 2;
  while (p * p <= q && q % p !== 0) p++;
  if (q % p !== 0) p = q; // q is prime
  let k = 0;
  let r = q;
  while (r % p === 0) {
    r /= p;
    k++;
  }
  return r === 1 ? { p, k } : null;
}

/** True when n is a prime. */
export function isPrime(n: number): boolean {
  const pp = primePower(n);
  return pp !== null && pp.k === 1;
}

const GF_MAX_ORDER = 256;

export class GaloisField {
  readonly q: number;
  readonly p: number;
  readonly k: number;
  /** Coefficients c_0..c_{k−1} of the monic modulus X^k + Σ c_i X^i (empty for k = 1). */
  readonly modulus: number[];
  private readonly addT: Uint16Array;
  private readonly mulT: Uint16Array;
  private readonly negT: Uint16Array;

  private static cache = new Map<number, GaloisField>();

  /** The field of order q (cached). @throws Error when q is not a prime power ≤ 256. */
  static of(q: number): GaloisField {
    let f = GaloisField.cache.get(q);
    if (!f) {
      f = new GaloisField(q);
      GaloisField.cache.set(q, f);
    }
    return f;
  }

  private constructor(q: number) {
    const pp = primePower(q);
    if (!pp) throw new Error(`GF(q): q = ${q} is not a prime power`);
    if (q > GF_MAX_ORDER) throw new Error(`GF(q): q = ${q} exceeds the supported maximum ${GF_MAX_ORDER}`);
    this.q = q;
    this.p = pp.p;
    this.k = pp.k;
    const { p, k } = pp;
    this.addT = new Uint16Array(q * q);
    for (let a = 0; a < q; a++) {
      for (let b = 0; b < q; b++) {
        let x = a,
          y = b,
          s = 0,
          w = 1;
        for (let i = 0; i < k; i++) {
          s += (((x % p) + (y % p)) % p) * w;
          x = Math.floor(x / p);
          y = Math.floor(y / p);
          w *= p;
        }
        this.addT[a * q + b] = s;
      }
    }
    this.negT = new Uint16Array(q);
    for (let a = 0; a < q; a++) for (let b = 0; b < q; b++) if (this.addT[a * q + b] === 0) this.negT[a] = b;
    // Search monic irreducible moduli in lexicographic order of their low coefficients.
    for (let c = 0; c < q; c++) {
      const mod = digits(c, p, k);
      if (k > 1 && mod[0] === 0) continue; // divisible by X
      const mul = new Uint16Array(q * q);
      let ok = true;
      for (let a = 1; a < q && ok; a++) {
        for (let b = 1; b < q; b++) {
          const r = polyMulMod(digits(a, p, k), digits(b, p, k), mod, p, k);
          if (r === 0) {
            ok = false;
            break;
          }
          mul[a * q + b] = r;
        }
      }
      if (ok) {
        this.modulus = k > 1 ? mod : [];
        this.mulT = mul;
        return;
      }
    }
    throw new Error(`GF(${q}): no irreducible modulus found (internal error)`);
  }

  add(a: number, b: number): number {
    return this.addT[a * this.q + b];
  }
  mul(a: number, b: number): number {
    return this.mulT[a * this.q + b];
  }
  neg(a: number): number {
    return this.negT[a];
  }
  sub(a: number, b: number): number {
    return this.add(a, this.negT[b]);
  }
}

function digits(x: number, p: number, k: number): number[] {
  const d = new Array<number>(k);
  for (let i = 0; i < k; i++) {
    d[i] = x % p;
    x = Math.floor(x / p);
  }
  return d;
}

/** (a·b) mod (X^k + Σ mod_i X^i) over GF(p); a, b as k digits; result as an integer. */
function polyMulMod(a: number[], b: number[], mod: number[], p: number, k: number): number {
  const prod = new Array<number>(2 * k - 1).fill(0);
  for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) prod[i + j] = (prod[i + j] + a[i] * b[j]) % p;
  // Reduce: X^k ≡ −Σ mod_i X^i.
  for (let d = 2 * k - 2; d >= k; d--) {
    const c = prod[d];
    if (c === 0) continue;
    prod[d] = 0;
    for (let i = 0; i < k; i++) prod[d - k + i] = (((prod[d - k + i] - c * mod[i]) % p) + p) % p;
  }
  let r = 0;
  for (let i = k - 1; i >= 0; i--) r = r * p + prod[i];
  return r;
}

/**
 * Seeded pseudo-random numbers: xoshiro128** (Blackman & Vigna 2018) seeded by splitmix32.
 *
 * Every random choice in Harness Lab flows from an explicit seed through this class. Its state
 * is four u32 words, serializable for checkpoints; `derive` makes independent named streams
 * (e.g. `Rng.derive(seed, 'assignment')`) so adding a draw in one place never shifts another.
 */
type RngState = [number, number, number, number];

function splitmix32(x: number): () => number {
  let s = x >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** FNV-1a 32-bit hash of a string: stable stream labels → seeds. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export class Rng {
  private s: Uint32Array;

  /**
   * @param seed any integer (taken mod 2^32); the same seed gives the same stream everywhere.
   * @throws Error when seed is not a finite integer.
   */
  constructor(seed: number) {
    if (!Number.isInteger(seed)) throw new Error(`Rng: seed must be an integer, got ${seed}`);
    const sm = splitmix32((seed >>> 0) ^ Math.floor(seed / 2 ** 32));
    this.s = new Uint32Array([sm(), sm(), sm(), sm()]);
    if ((this.s[0] | this.s[1] | this.s[2] | this.s[3]) === 0) this.s[0] = 1;
  }

  /** A stream determined by `seed` and the labels, independent of other labels' streams. */
  static derive(seed: number, ...labels: (string | number)[]): Rng {
    let h = seed >>> 0;
    for (const l of labels) h = Math.imul(h ^ hashString(String(l)), 0x9e3779b1) >>> 0;
    return new Rng(h);
  }

  /** Rebuild a generator from `state()`. @throws Error on a malformed state. */
  static fromState(state: RngState): Rng {
    if (!Array.isArray(state) || state.length !== 4 || state.some((w) => !Number.isInteger(w))) {
      throw new Error(`Rng.fromState: expected four u32 words, got ${JSON.stringify(state)}`);
    }
    const r = new Rng(0);
    r.s = new Uint32Array(state);
    return r;
  }

  /** The four state words (for checkpoints). */
  state(): RngState {
    return [this.s[0], this.s[1], this.s[2], this.s[3]];
  }

  /** Next u32. */
  nextU32(): number {
    const s = this.s;
    const result = Math.imul(rotl(Math.imul(s[1], 5) >>> 0, 7), 9) >>> 0;
    const t = (s[1] << 9) >>> 0;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 11);
    return result;
  }

  /** Uniform float in [0, 1) with 32 bits of randomness. */
  float(): number {
    return this.nextU32() / 4294967296;
  }

  /** Uniform integer in [0, n). @throws Error when n is not a positive integer. */
  int(n: number): number {
    if (!Number.isInteger(n) || n <= 0) throw new Error(`Rng.int: n must be a positive integer, got ${n}`);
    // Rejection sampling: no modulo bias.
    const limit = Math.floor(4294967296 / n) * n;
    let x = this.nextU32();
    while (x >= limit) x = this.nextU32();
    return x % n;
  }

  /** Uniform integer in [lo, hi] inclusive. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  /** One element of a non-empty array. @throws Error on an empty array. */
  pick<T>(xs: readonly T[]): T {
    if (xs.length === 0) throw new Error('Rng.pick: empty array');
    return xs[this.int(xs.length)];
  }

  /** Fisher–Yates shuffle of a copy. */
  shuffle<T>(xs: readonly T[]): T[] {
    const a = xs.slice();
    for (let i = a.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [a[i], a[j]] = [a[j], a[i]];
    }
    return a;
  }

  /** Standard normal (Box–Muller). */
  normal(): number {
    let u = this.float();
    while (u === 0) u = this.float();
    const v = this.float();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

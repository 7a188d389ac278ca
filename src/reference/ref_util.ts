/**
 * Shared helpers of the CPU kernel references (`src/reference/*.ref.ts`).
 *
 * The references accept `Float32Array` (what the GPU kernels see) or `Float64Array` (what the
 * finite-difference gradient tests use, so that checks can be tight); every output array has
 * the type of the op's first float input. All arithmetic is done in JS numbers (f64); only the
 * stores round to the array type. Integer inputs (token ids, targets) are `Int32Array`.
 */

/** A float array a reference reads or writes. */
export type Floats = Float32Array | Float64Array;

/** A new zero-filled array of the same element type as `like`. */
export function alloc<A extends Floats>(like: A, n: number): A {
  return (like instanceof Float64Array ? new Float64Array(n) : new Float32Array(n)) as A;
}

/** @throws Error unless `v` is a positive integer; the message names `op` and `name`. */
export function checkDim(op: string, name: string, v: number): void {
  if (!Number.isInteger(v) || v <= 0) throw new Error(`${op}: ${name} must be a positive integer, got ${v}`);
}

/** @throws Error unless `arr.length === want`; the message names the argument and its shape. */
export function checkLen(op: string, name: string, arr: ArrayLike<number> | null | undefined, want: number, shape: string): void {
  if (!arr) throw new Error(`${op}: ${name} is missing, expected ${shape} = ${want} values`);
  if (arr.length !== want) {
    throw new Error(`${op}: ${name} has ${arr.length} values, expected ${shape} = ${want}`);
  }
}

/** @throws Error unless every entry of `ids` is an integer in [0, V); names the first bad index. */
export function checkIds(op: string, name: string, ids: Int32Array, V: number): void {
  for (let i = 0; i < ids.length; i++) {
    const a = ids[i];
    if (a < 0 || a >= V) throw new Error(`${op}: ${name}[${i}] = ${a} is outside [0, ${V})`);
  }
}

/**
 * Stable log Σ exp(z[off .. off+V) / τ) with the max subtracted, accumulated in f64 (τ =
 * `temperature`, default 1; the logits are divided by τ as the sampler and verl do). Finite for any finite z (tested at |z| ≈ 1e4); returns the max itself when it is ±Infinity.
 */
export function logSumExp(z: ArrayLike<number>, off: number, V: number, temperature = 1): number {
  let mx = -Infinity;
  for (let j = 0; j < V; j++) if (z[off + j] / temperature > mx) mx = z[off + j] / temperature;
  if (!Number.isFinite(mx)) return mx;
  let s = 0;
  for (let j = 0; j < V; j++) s += Math.exp(z[off + j] / temperature - mx);
  return mx + Math.log(s);
}

/**
 * Check a softmax temperature τ of the RL log-prob / entropy kernels: finite, > 0 and ≤ 10
 * (the range spec.rl.temperature accepts). @throws Error naming `op` and the value.
 */
export function checkTemperature(op: string, temperature: number): void {
  if (!(Number.isFinite(temperature) && temperature > 0 && temperature <= 10))
    throw new Error(`${op}: temperature must be finite, > 0 and ≤ 10, got ${temperature}`);
}

/** Rows × tokens of a (B, T) batch of the RL kernels. */
export interface RowDims {
  /** Rows. */
  B: number;
  /** Tokens per row (padded). */
  T: number;
}

/** @internal @throws Error naming the argument unless B, T are positive integers and each array is (B,T). */
export function checkRows(op: string, d: RowDims, arrays: Record<string, Floats | null | undefined>): void {
  checkDim(op, 'B', d.B);
  checkDim(op, 'T', d.T);
  for (const [name, a] of Object.entries(arrays)) checkLen(op, name, a, d.B * d.T, '(B,T)');
}

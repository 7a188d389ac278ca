// Seeded synthetic RL batches for the unit and browser tests of the RL kernels: interleaved
// policy/observation spans, an empty row, right padding with finite garbage, and helpers that
// split a batch into micro-batches or pad it. Pure TS (runs in Node and in the page).
import { Rng } from '../../../src/util/rng';
import type { RlBatch } from '../../../src/rl/loss_ref';

export interface BatchOptions {
  /** Vocabulary size of the logits (0: no logits). */
  V?: number;
  /** Std of ℓ − ℓ_old (0: first minibatch, ℓ = ℓ_old). */
  drift?: number;
}

/** A (B,T) batch in f64: row 1 (when B > 2) is empty; others alternate policy and masked spans. */
export function makeRlBatch(seed: number, B: number, T: number, opts: BatchOptions = {}): RlBatch<Float64Array> {
  const rng = new Rng(seed);
  const n = B * T;
  const V = opts.V ?? 0;
  const drift = opts.drift ?? 0.3;
  const mask = new Float64Array(n);
  for (let b = 0; b < B; b++) {
    if (B > 2 && b === 1) continue;
    const len = Math.max(2, T - rng.int(Math.ceil(T / 3))); // right padding after len
    let on = rng.float() < 0.5;
    for (let t = 0; t < len; t++) {
      if (rng.float() < 0.3) on = !on; // interleaved spans
      mask[b * T + t] = on ? 1 : 0;
    }
    mask[b * T + len - 1] = 1; // the row ends on a policy token
  }
  const oldLogprobs = Float64Array.from({ length: n }, () => -(0.05 + 6 * rng.float()));
  const logprobs = Float64Array.from(oldLogprobs, (x) => x + drift * rng.normal());
  const refLogprobs = Float64Array.from(oldLogprobs, (x) => x + 0.5 * rng.normal());
  const advantages = Float64Array.from(mask, (m) => (m > 0 ? rng.normal() : 0));
  const oldValues = Float64Array.from({ length: n }, () => rng.normal());
  const values = Float64Array.from(oldValues, (x) => x + 0.3 * rng.normal());
  const returns = Float64Array.from(oldValues, (x) => x + rng.normal());
  const logits = V > 0 ? Float64Array.from({ length: n * V }, () => 2 * rng.normal()) : undefined;
  return { B, T, logprobs, oldLogprobs, refLogprobs, advantages, mask, values, oldValues, returns, logits, vocab: V || undefined };
}

const TENSORS = ['logprobs', 'oldLogprobs', 'refLogprobs', 'advantages', 'mask', 'values', 'oldValues', 'returns'] as const;

/** Rows [r0, r1) of a batch. */
export function sliceRows<A extends Float32Array | Float64Array>(b: RlBatch<A>, r0: number, r1: number): RlBatch<A> {
  const out: RlBatch<A> = { ...b, B: r1 - r0 };
  for (const k of TENSORS) {
    const x = b[k];
    if (x) out[k] = x.slice(r0 * b.T, r1 * b.T) as A;
  }
  if (b.logits && b.vocab) out.logits = b.logits.slice(r0 * b.T * b.vocab, r1 * b.T * b.vocab) as A;
  return out;
}

/**
 * The same trajectories with `extraT` more padded columns per row and `extraRows` all-padding
 * rows appended; padding holds finite garbage (mask 0). Position (b, t) maps to b·(T+extraT) + t.
 */
export function padBatch(b: RlBatch<Float64Array>, extraT: number, extraRows: number, seed: number): RlBatch<Float64Array> {
  const rng = new Rng(seed);
  const B = b.B + extraRows;
  const T = b.T + extraT;
  const V = b.vocab ?? 0;
  const out: RlBatch<Float64Array> = { ...b, B, T };
  for (const k of TENSORS) {
    const x = b[k];
    if (!x) continue;
    const y = Float64Array.from({ length: B * T }, () => (k === 'mask' ? 0 : 50 * rng.normal()));
    for (let r = 0; r < b.B; r++) for (let t = 0; t < b.T; t++) y[r * T + t] = x[r * b.T + t];
    out[k] = y;
  }
  if (b.logits && V) {
    const y = Float64Array.from({ length: B * T * V }, () => 30 * rng.normal());
    for (let r = 0; r < b.B; r++)
      for (let t = 0; t < b.T; t++) for (let j = 0; j < V; j++) y[(r * T + t) * V + j] = b.logits[(r * b.T + t) * V + j];
    out.logits = y;
  }
  return out;
}

/** The batch in f32 storage. */
export function toF32(b: RlBatch<Float64Array>): RlBatch<Float32Array> {
  const out = { ...b } as unknown as RlBatch<Float32Array>;
  for (const k of TENSORS) {
    const x = b[k];
    if (x) out[k] = Float32Array.from(x);
  }
  if (b.logits) out.logits = Float32Array.from(b.logits);
  return out;
}

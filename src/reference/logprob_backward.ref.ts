import { checkLogits, type LogitsDims } from './logprob_forward.ref';
import { alloc, checkLen, checkTemperature, type Floats } from './ref_util';

/**
 * CPU reference of src/engine/webgpu/shaders/logprob_backward.wgsl at temperature τ: with ℓ = z[a]/τ − lse(z/τ),
 * dlogits[i,j] = dlogprob[i]·(1[j = a_i] − p_ij)/τ, p_ij = exp(z_ij/τ − lse_i) with the saved
 * lse of logprobForwardRef at the same τ (so p ≤ 1 and never overflows). A row with
 * dlogprob = 0 (masked or padded) gets exactly zeros. With an f32 lse, p inherits its
 * rounding: at |lse| ≈ 1e4 (ulp ≈ 1e-3) p is off by ≈ 5e-4 relative; kernels share this.
 * @param logits (N,V) @param targets (N) i32 @param lse (N) from logprobForwardRef
 * @param dlogprob (N) upstream gradient
 * @param temperature τ ∈ (0, 10], default 1
 * @returns dlogits (N,V), written
 * @throws Error naming the argument on a size mismatch, a target out of range or a bad τ.
 */
export function logprobBackwardRef<A extends Floats>(
  logits: A,
  targets: Int32Array,
  lse: A,
  dlogprob: A,
  d: LogitsDims,
  temperature = 1,
): A {
  const op = 'logprobBackwardRef';
  checkLogits(op, logits, targets, d);
  checkTemperature(op, temperature);
  const { N, V } = d;
  checkLen(op, 'lse', lse, N, '(N)');
  checkLen(op, 'dlogprob', dlogprob, N, '(N)');
  const dlogits = alloc(logits, N * V);
  for (let i = 0; i < N; i++) {
    if (dlogprob[i] === 0) continue;
    const g = dlogprob[i] / temperature;
    const o = i * V;
    for (let j = 0; j < V; j++) dlogits[o + j] = -g * Math.exp(logits[o + j] / temperature - lse[i]);
    dlogits[o + targets[i]] += g;
  }
  return dlogits;
}

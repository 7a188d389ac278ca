import { alloc, checkDim, checkLen, checkTemperature, type Floats } from './ref_util';

/**
 * CPU reference of src/engine/webgpu/shaders/entropy_backward.wgsl: with p = softmax(z/τ) and H = −Σ p log p,
 * ∂H/∂z_j = −p_j·(log p_j + H)/τ, so dlogits[i,j] = dentropy[i]·(−p_ij·(z_ij/τ − lse_i + H_i))/τ
 * (lse, H from entropyForwardRef at the same τ; τ = `temperature`, default 1).
 * The kernel ADDS this to dlogits (after logprob_backward wrote them); the reference returns
 * the contribution alone. Rows with dentropy = 0 (masked) contribute exactly 0.
 * @param logits (N,V) @param lse (N) @param entropy (N) @param dentropy (N) from entropy_forward
 * @returns the contribution to dlogits (N,V)
 * @throws Error naming the argument on a size mismatch or a bad τ.
 */
export function entropyBackwardRef<A extends Floats>(
  logits: A,
  lse: A,
  entropy: A,
  dentropy: A,
  d: { N: number; V: number },
  temperature = 1,
): A {
  const op = 'entropyBackwardRef';
  checkTemperature(op, temperature);
  checkDim(op, 'N', d.N);
  checkDim(op, 'V', d.V);
  checkLen(op, 'logits', logits, d.N * d.V, '(N,V)');
  checkLen(op, 'lse', lse, d.N, '(N)');
  checkLen(op, 'entropy', entropy, d.N, '(N)');
  checkLen(op, 'dentropy', dentropy, d.N, '(N)');
  const out = alloc(logits, d.N * d.V);
  for (let i = 0; i < d.N; i++) {
    if (dentropy[i] === 0) continue;
    const g = dentropy[i] / temperature;
    for (let j = 0; j < d.V; j++) {
      const lp = logits[i * d.V + j] / temperature - lse[i];
      out[i * d.V + j] = -g * Math.exp(lp) * (lp + entropy[i]);
    }
  }
  return out;
}

import { rowWeight } from './rl_math';
import { ROW, ROW_STATS } from './rl_metrics';
import { checkRows } from './ref_util';
import { alloc, checkDim, checkLen, checkTemperature, logSumExp, type Floats } from './ref_util';
import { rowCount, rowStatsFor, type AggParams } from './surrogate_forward.ref';

/** Rows × tokens × vocabulary of the entropy kernels. */
interface EntropyDims {
  B: number;
  T: number;
  V: number;
}

/** Parameters of entropy_forward. */
export interface EntropyParams extends AggParams {
  /** Weight of the entropy bonus: the loss gets −entCoef·Σ w·H. */
  entCoef: number;
  /** τ ∈ (0, 10]: H is the entropy of softmax(z/τ), the policy the rollouts sampled from (default 1). */
  temperature?: number;
}

/**
 * CPU reference of src/engine/webgpu/shaders/entropy_forward.wgsl: the entropy of the full softmax at temperature
 * τ (p.temperature, default 1) at each valid token, p = softmax(z/τ), H = −Σ_j p_j log p_j =
 * lse − Σ_j p_j z_j/τ with lse = logsumexp(z/τ) (max-subtracted, finite at |z| ≈ 1e4; a p_j
 * that underflows to 0 contributes 0), and the loss weight dentropy = ∂L/∂H = −entCoef·w
 * that entropy_backward consumes. Writes rowStats columns ENT_SUM and ENT_LOSS (Σ w·H).
 * Masked tokens: H = lse = dentropy = 0 (their logits are never read).
 * @param logits (B·T, V) @param mask (B,T)
 * @returns entropy (B·T) nats, lse (B·T) of z/τ, dentropy (B·T), rowStats, loss = Σ w·H (before entCoef)
 * @throws Error naming the argument on a size mismatch or a bad τ.
 */
export function entropyForwardRef<A extends Floats>(
  logits: A,
  mask: A,
  d: EntropyDims,
  p: EntropyParams,
  rowStats?: A,
): { entropy: A; lse: A; dentropy: A; rowStats: A; loss: number } {
  const op = 'entropyForwardRef';
  checkRows(op, d, { mask });
  checkDim(op, 'V', d.V);
  const { B, T, V } = d;
  checkLen(op, 'logits', logits, B * T * V, '(B·T, V)');
  const tau = p.temperature ?? 1;
  checkTemperature(op, tau);
  const rs = rowStatsFor(logits, B, rowStats);
  const entropy = alloc(logits, B * T);
  const lse = alloc(logits, B * T);
  const dentropy = alloc(logits, B * T);
  let loss = 0;
  for (let b = 0; b < B; b++) {
    const w = rowWeight(p.aggregation, rowCount(mask, b, T), p.norm);
    let s = 0;
    for (let t = 0; t < T; t++) {
      const i = b * T + t;
      if (!(mask[i] > 0)) continue;
      const l = logSumExp(logits, i * V, V, tau);
      let pz = 0;
      for (let j = 0; j < V; j++) {
        const z = logits[i * V + j] / tau;
        pz += Math.exp(z - l) * (z - l);
      }
      const h = -pz;
      lse[i] = l;
      entropy[i] = h;
      dentropy[i] = -p.entCoef * w;
      s += h;
    }
    rs[b * ROW_STATS + ROW.ENT_SUM] = s;
    rs[b * ROW_STATS + ROW.ENT_LOSS] = w * s;
    loss += w * s;
  }
  return { entropy, lse, dentropy, rowStats: rs, loss };
}

import { alloc, checkDim, checkIds, checkLen, logSumExp, type Floats } from './ref_util';

/** Rows × vocabulary of a logits matrix. */
export interface LogitsDims {
  /** Rows (B·T flattened positions). */
  N: number;
  /** Vocabulary size. */
  V: number;
}

/** @internal */
export function checkLogits(op: string, logits: Floats, targets: Int32Array, d: LogitsDims): void {
  checkDim(op, 'N', d.N);
  checkDim(op, 'V', d.V);
  checkLen(op, 'logits', logits, d.N * d.V, '(N,V)');
  checkLen(op, 'targets', targets, d.N, '(N)');
  checkIds(op, 'targets', targets, d.V);
}

/**
 * CPU reference of shaders/logprob_forward.wgsl: the log-probability of the target token,
 * logprob = z[a] − logsumexp(z), with logsumexp = max(z) + log Σ exp(z − max(z)) in f64
 * (finite and accurate at |z| ≈ 1e4, where a naive exp overflows). These are the log-probs
 * that the sampler returns and that PPO/GRPO ratios use (docs/ARCHITECTURE.md "RL objective").
 * @param logits (N,V)
 * @param targets (N) i32 in [0, V) (padded positions carry a real id, e.g. <pad>)
 * @returns logprob (N) ≤ 0, lse (N) (saved for the backward pass)
 * @throws Error naming the argument on a size mismatch or a target out of range.
 */
export function logprobForwardRef<A extends Floats>(logits: A, targets: Int32Array, d: LogitsDims): { logprob: A; lse: A } {
  checkLogits('logprobForwardRef', logits, targets, d);
  const { N, V } = d;
  const logprob = alloc(logits, N);
  const lse = alloc(logits, N);
  for (let i = 0; i < N; i++) {
    const l = logSumExp(logits, i * V, V);
    lse[i] = l;
    logprob[i] = logits[i * V + targets[i]] - l;
  }
  return { logprob, lse };
}

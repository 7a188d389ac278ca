import { alloc, checkDim, checkIds, checkLen, checkTemperature, logSumExp, type Floats } from './ref_util';

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
 * CPU reference of src/engine/webgpu/shaders/logprob_forward.wgsl: the log-probability of the target token at
 * temperature τ, logprob = z[a]/τ − logsumexp(z/τ), with logsumexp(x) = max(x) + log Σ exp(x −
 * max(x)) in f64 (finite and accurate at |z| ≈ 1e4, where a naive exp overflows). These are
 * the log-probs that the sampler returns at its temperature and that PPO/GRPO ratios use, so
 * the trainer scores at the rollout's τ (verl `logits.div_(temperature)`; docs/ARCHITECTURE.md
 * "RL objective"). τ = 1 is plain log softmax.
 * @param logits (N,V)
 * @param targets (N) i32 in [0, V) (padded positions carry a real id, e.g. <pad>)
 * @param temperature τ ∈ (0, 10], default 1
 * @returns logprob (N) ≤ 0, lse (N) = logsumexp(z/τ) (saved for the backward pass)
 * @throws Error naming the argument on a size mismatch, a target out of range or a bad τ.
 */
export function logprobForwardRef<A extends Floats>(
  logits: A,
  targets: Int32Array,
  d: LogitsDims,
  temperature = 1,
): { logprob: A; lse: A } {
  checkLogits('logprobForwardRef', logits, targets, d);
  checkTemperature('logprobForwardRef', temperature);
  const { N, V } = d;
  const logprob = alloc(logits, N);
  const lse = alloc(logits, N);
  for (let i = 0; i < N; i++) {
    const l = logSumExp(logits, i * V, V, temperature);
    lse[i] = l;
    logprob[i] = logits[i * V + targets[i]] / temperature - l;
  }
  return { logprob, lse };
}

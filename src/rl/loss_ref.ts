/**
 * The whole RL loss of one micro-batch on the CPU, composed from the kernel references in the
 * same order as the GPU loss head (src/engine/webgpu/gpu_loss.ts): the specification the GPU composite is
 * tested against, and the oracle of the micro-batch invariance and padding tests.
 */
import { resolveTokenSumNorm, type RlLossConfig } from './config';
import { stepNormalizer, type StepNormalizer } from '../reference/rl_math';
import { nonfiniteCheckRef } from '../reference/nonfinite_check.ref';
import { surrogateForwardRef, rowStatsFor } from '../reference/surrogate_forward.ref';
import { surrogateBackwardRef } from '../reference/surrogate_backward.ref';
import { klForwardRef } from '../reference/kl_forward.ref';
import { klBackwardRef } from '../reference/kl_backward.ref';
import { valueLossForwardRef } from '../reference/value_loss_forward.ref';
import { valueLossBackwardRef } from '../reference/value_loss_backward.ref';
import { entropyForwardRef } from '../reference/entropy_forward.ref';
import { entropyBackwardRef } from '../reference/entropy_backward.ref';
import { NONFINITE, decodeRlMetrics, type RlMetrics } from '../reference/rl_metrics';
import { rlAccInit, rlMetricsAccumulateRef, rlMetricsFinalizeRef } from '../reference/rl_metrics_forward.ref';
import type { Floats } from '../reference/ref_util';

/** One micro-batch of the loss: (B,T) tensors, row-major, right-padded. */
export interface RlBatch<A extends Floats = Floats> {
  B: number;
  T: number;
  /** ℓ (B,T): log-probs of the sampled ids under the current parameters, at cfg.temperature. */
  logprobs: A;
  /** ℓ_old (B,T): the sampler's log-probs at rollout time. */
  oldLogprobs: A;
  /** A (B,T): advantages (GRPO broadcast or GAE, 0 where masked). */
  advantages: A;
  /** M (B,T): 1 at policy tokens, 0 elsewhere. */
  mask: A;
  /** ℓ_ref (B,T): reference-policy log-probs; required when klCoef > 0. */
  refLogprobs?: A;
  /** V (B,T), V_old (B,T), R (B,T): required for PPO. */
  values?: A;
  oldValues?: A;
  returns?: A;
  /** z (B·T, V): raw logits (not divided by τ), required when entCoef > 0. */
  logits?: A;
  /** Vocabulary size of `logits`. */
  vocab?: number;
}

/** Everything the loss head produces for one micro-batch. */
interface RlLossOutput<A extends Floats> {
  /** (B, ROW_STATS) per-row partials (src/reference/rl_metrics.ts), to accumulate over micro-batches. */
  rowStats: A;
  /** ∂L/∂ℓ (B,T): surrogate + klCoef·KL term (logprob_backward turns it into dlogits). */
  dlogprob: A;
  /** ∂L/∂V (B,T) (PPO), else null. */
  dvalues: A | null;
  /** ∂L/∂z (B·T, V) of the −entCoef·H term alone (to add to logprob_backward's dlogits), or null. */
  dlogitsEntropy: A | null;
  /** Bits of NONFINITE found in the inputs (0: the step may be applied). */
  nonfinite: number;
}

/**
 * The RL loss of one micro-batch: forward row statistics and gradients (docs/ARCHITECTURE.md "RL objective").
 * @param norm the step-global normalizer (stepNormalizer over ALL micro-batches of the step)
 * @throws Error naming a tensor the config needs but the batch lacks.
 */
function rlLossRef<A extends Floats>(batch: RlBatch<A>, cfg: RlLossConfig, norm: StepNormalizer): RlLossOutput<A> {
  const d = { B: batch.B, T: batch.T };
  const agg = { aggregation: cfg.aggregation, norm };
  const rowStats = rowStatsFor(batch.logprobs, batch.B);
  let nonfinite = nonfiniteCheckRef(batch.logprobs, NONFINITE.logprobs) | nonfiniteCheckRef(batch.oldLogprobs, NONFINITE.oldLogprobs);
  nonfinite |= nonfiniteCheckRef(batch.advantages, NONFINITE.advantages);
  const sp = { ...agg, clipLow: cfg.clipLow, clipHigh: cfg.clipHigh, dualClip: cfg.dualClip };
  surrogateForwardRef(batch.logprobs, batch.oldLogprobs, batch.advantages, batch.mask, d, sp, rowStats);
  const dlogprob = surrogateBackwardRef(batch.logprobs, batch.oldLogprobs, batch.advantages, batch.mask, d, sp);
  if (cfg.klCoef > 0) {
    const ref = batch.refLogprobs;
    if (!ref) throw new Error('rlLossRef: klCoef > 0 needs batch.refLogprobs');
    nonfinite |= nonfiniteCheckRef(ref, NONFINITE.refLogprobs);
    const kp = { ...agg, estimator: cfg.klEstimator };
    klForwardRef(batch.logprobs, ref, batch.mask, d, kp, rowStats);
    const g = klBackwardRef(batch.logprobs, ref, batch.mask, d, kp, cfg.klCoef);
    for (let i = 0; i < g.length; i++) dlogprob[i] += g[i];
  }
  let dvalues: A | null = null;
  if (cfg.algorithm === 'ppo') {
    const { values, oldValues, returns } = batch;
    if (!values || !oldValues || !returns) throw new Error('rlLossRef: algorithm ppo needs batch.values, oldValues and returns');
    nonfinite |= nonfiniteCheckRef(values, NONFINITE.values) | nonfiniteCheckRef(oldValues, NONFINITE.oldValues);
    nonfinite |= nonfiniteCheckRef(returns, NONFINITE.returns);
    const vp = { ...agg, vfClip: cfg.vfClip };
    valueLossForwardRef(values, oldValues, returns, batch.mask, d, vp, rowStats);
    dvalues = valueLossBackwardRef(values, oldValues, returns, batch.mask, d, vp, cfg.vfCoef);
  }
  let dlogitsEntropy: A | null = null;
  if (cfg.entCoef > 0) {
    const { logits, vocab } = batch;
    if (!logits || !vocab) throw new Error('rlLossRef: entCoef > 0 needs batch.logits and batch.vocab');
    nonfinite |= nonfiniteCheckRef(logits, NONFINITE.logits);
    // H of softmax(z/τ), the policy the rollouts sampled from (cfg.temperature).
    const e = entropyForwardRef(
      logits,
      batch.mask,
      { ...d, V: vocab },
      { ...agg, entCoef: cfg.entCoef, temperature: cfg.temperature },
      rowStats,
    );
    dlogitsEntropy = entropyBackwardRef(logits, e.lse, e.entropy, e.dentropy, { N: d.B * d.T, V: vocab }, cfg.temperature);
  }
  return { rowStats, dlogprob, dvalues, dlogitsEntropy, nonfinite };
}

/**
 * The normalizer of an optimizer step made of `microBatches` (all with the same T): N and S
 * counted over all of them (stepNormalizer of their concatenation).
 * @throws Error when the micro-batches disagree on T.
 */
export function stepNormalizerOf(microBatches: ReadonlyArray<Pick<RlBatch, 'B' | 'T' | 'mask'>>, tokenSumNorm: number): StepNormalizer {
  if (microBatches.length === 0) throw new Error('stepNormalizerOf: no micro-batches');
  const T = microBatches[0].T;
  let n = 0;
  let s = 0;
  for (const [k, mb] of microBatches.entries()) {
    if (mb.T !== T) throw new Error(`stepNormalizerOf: microBatches[${k}].T = ${mb.T} differs from T = ${T}`);
    const z = stepNormalizer(mb.mask, mb.B, mb.T, tokenSumNorm);
    n += z.globalTokens;
    s += z.globalSeqs;
  }
  return { globalTokens: n, globalSeqs: s, tokenSumNorm };
}

/**
 * One optimizer step's loss over micro-batches that arrive one at a time (gradient
 * accumulation: a minibatch larger than the engine's row limit is scored chunk by chunk, each
 * chunk's gradient added, one optimizer step at the end — as verl's micro-batches within a PPO
 * mini-batch). Every micro-batch uses the step-global normalizer `norm` (stepNormalizerOf over
 * all of them, known from the masks alone), so the summed gradient and the finished metrics
 * equal those of one batch holding every row.
 */
export class RlStepAccumulator {
  private readonly acc = rlAccInit();
  private flags: number;
  /** @param extraFlags non-finite bits found elsewhere (e.g. NONFINITE.rewards before advantages) */
  constructor(
    private readonly cfg: RlLossConfig,
    readonly norm: StepNormalizer,
    extraFlags = 0,
  ) {
    this.flags = extraFlags;
  }

  /** The loss of one micro-batch (its gradients), its row statistics folded in. */
  add<A extends Floats>(mb: RlBatch<A>): RlLossOutput<A> {
    const o = rlLossRef(mb, this.cfg, this.norm);
    rlMetricsAccumulateRef(this.acc, o.rowStats, mb.B);
    this.flags |= o.nonfinite;
    return o;
  }

  /** The step's named metrics over every micro-batch added so far, and the raw accumulator. */
  finish(): { acc: Float64Array; metrics: RlMetrics } {
    return { acc: this.acc, metrics: decodeRlMetrics(rlMetricsFinalizeRef(this.acc, this.flags, this.cfg)) };
  }
}

/**
 * One optimizer step's loss on the CPU: every micro-batch with the step-global normalizer,
 * rowStats folded into one accumulator in order, then the named metrics (as the GPU's one
 * readback would report them).
 * @param extraFlags non-finite bits found elsewhere (e.g. NONFINITE.rewards before advantages)
 * @param maxT the policy's context length: the 'seq-mean-token-sum-norm' constant when
 *   cfg.tokenSumNorm is null (resolveTokenSumNorm), as the GPU head uses
 * @returns per-micro-batch outputs, the accumulator and the metrics
 */
export function rlStepRef<A extends Floats>(
  microBatches: ReadonlyArray<RlBatch<A>>,
  cfg: RlLossConfig,
  extraFlags = 0,
  maxT?: number,
): { outputs: RlLossOutput<A>[]; acc: Float64Array; metrics: RlMetrics; norm: StepNormalizer } {
  const step = new RlStepAccumulator(cfg, stepNormalizerOf(microBatches, resolveTokenSumNorm(cfg, maxT)), extraFlags);
  const outputs = microBatches.map((mb) => step.add(mb));
  return { outputs, ...step.finish(), norm: step.norm };
}

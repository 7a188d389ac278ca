/**
 * The RL loss head's kernels on the GPU (docs/ARCHITECTURE.md "RL objective"), which the training
 * step (gpu_train.ts) encodes around its forward and backward passes; the CPU specification is
 * src/reference/loss_ref.ts. Per optimizer step: `prepareRlStepBegin` once, then per chunk
 * `prepareRlLossHead` (non-finite checks, surrogate / KL / value / entropy) and
 * `prepareRlEntropyBackward`, then `prepareRlStepEnd` once. The prepare* functions are built once
 * per shape; `writeNormalizer` sets each step's N and S without re-recording.
 *
 * Invariant: `state.flags` is non-zero when any checked tensor held NaN/±Inf; the training step
 * feeds word 0 to global_norm_forward, which writes gradScale = −1 so adamw_update leaves params,
 * m and v untouched (gradScale = 0 alone would not: m, v and weight decay still move).
 */
import type { Gpu } from './device';
import { createStorage } from './buffers';
import type { RlLossConfig } from '../../rl/config';
import type { StepNormalizer } from '../../reference/rl_math';
import { NONFINITE, ROW_STATS, RL_METRICS } from '../../reference/rl_metrics';
import type { PreparedDispatch, TensorView } from './kernels/dispatch_plan';
import { prepareNonfiniteCheck, prepareNonfiniteClear } from './kernels/nonfinite_check';
import { prepareRlAccInit, prepareRlAccumulate, prepareRlMetricsFinalize, prepareRlRowsZero } from './kernels/rl_metrics_forward';
import { prepareSurrogateForward } from './kernels/surrogate_forward';
import { prepareSurrogateBackward } from './kernels/surrogate_backward';
import { prepareKlForward } from './kernels/kl_forward';
import { prepareKlBackward } from './kernels/kl_backward';
import { prepareValueLossForward } from './kernels/value_loss_forward';
import { prepareValueLossBackward } from './kernels/value_loss_backward';
import { prepareEntropyForward } from './kernels/entropy_forward';
import { prepareEntropyBackward } from './kernels/entropy_backward';
import type { LossPrepared } from './kernels/rl_launch';

/** The per-step GPU state of the loss head: accumulator, non-finite flags, metrics. */
export interface RlStepState {
  /** (ROW_STATS) f32 accumulator over the step's micro-batches. */
  acc: GPUBuffer;
  /** (4) u32; flags[0] = OR of NONFINITE bits seen this step. */
  flags: GPUBuffer;
  /** (RL_METRICS) f32, written by prepareRlStepEnd's dispatch. */
  metrics: GPUBuffer;
}

/** Allocate the step state (labelled buffers). */
export function createRlStepState(gpu: Gpu): RlStepState {
  return {
    acc: createStorage(gpu.device, 'rl-acc', ROW_STATS * 4),
    flags: createStorage(gpu.device, 'rl-nonfinite-flags', 16),
    metrics: createStorage(gpu.device, 'rl-metrics', RL_METRICS * 4),
  };
}

/** Prepare the start of an optimizer step: flags ← 0, acc ← initial values. */
export function prepareRlStepBegin(gpu: Gpu, s: RlStepState): PreparedDispatch[] {
  return [prepareNonfiniteClear(gpu, { flags: { buffer: s.flags } }), prepareRlAccInit(gpu, { acc: { buffer: s.acc } })];
}

/** One micro-batch's buffers for the loss head, (B,T) f32 unless noted. */
export interface RlLossBuffers {
  B: number;
  T: number;
  logprobs: GPUBuffer;
  oldLogprobs: GPUBuffer;
  advantages: GPUBuffer;
  mask: GPUBuffer;
  /** Required when klCoef > 0. */
  refLogprobs?: GPUBuffer;
  /** Required for PPO. */
  values?: GPUBuffer;
  oldValues?: GPUBuffer;
  returns?: GPUBuffer;
  /** (B, ROW_STATS) f32 scratch. */
  rowStats: GPUBuffer;
  /** Out: ∂L/∂ℓ, written. */
  dlogprob: GPUBuffer;
  /** Out (PPO): ∂L/∂V, written. */
  dvalues?: GPUBuffer;
  /** Required when entCoef > 0: logits (B·T, V), V, mask (B,T), and entropy/lse/dentropy (B·T) scratch. */
  entropy?: { V: number; logits: GPUBuffer; mask: GPUBuffer; entropy: GPUBuffer; lse: GPUBuffer; dentropy: GPUBuffer };
}

function need<T>(x: T | undefined, what: string): T {
  if (x === undefined) throw new Error(`prepareRlLossHead: ${what}`);
  return x;
}

/** The prepared loss head of one micro-batch shape and the LossParams uniforms it reads. */
interface PreparedRlLossHead {
  dispatches: PreparedDispatch[];
  /** LossParams uniforms: `writeNormalizer(gpu, normUniforms, norm)` retargets a new step. */
  normUniforms: GPUBuffer[];
}

/**
 * Prepare one micro-batch of the loss head (see the module comment for the step's order):
 * non-finite checks, rowStats ← 0, surrogate fwd/bwd, KL fwd/bwd, value fwd/bwd, entropy fwd,
 * acc ⊕= rowStats. Built once per shape by a training step; before each step's submit,
 * `writeNormalizer(gpu, head.normUniforms, norm)` sets that step's N and S.
 * @param norm the step-global normalizer (stepNormalizerOf over all micro-batches)
 * @throws Error naming a buffer the config needs but `b` lacks.
 */
export function prepareRlLossHead(gpu: Gpu, s: RlStepState, b: RlLossBuffers, cfg: RlLossConfig, norm: StepNormalizer): PreparedRlLossHead {
  const { B, T } = b;
  const n = B * T;
  const agg = { aggregation: cfg.aggregation, norm };
  const ds: PreparedDispatch[] = [];
  const normUniforms: GPUBuffer[] = [];
  const add = (lp: LossPrepared): void => {
    ds.push(...lp.dispatches);
    normUniforms.push(lp.uniform);
  };
  const v = (buffer: GPUBuffer): TensorView => ({ buffer });
  const flags = v(s.flags);
  const check = (x: GPUBuffer, count: number, bit: number) => ds.push(prepareNonfiniteCheck(gpu, { n: count, x: v(x), flags, bit }));
  check(b.logprobs, n, NONFINITE.logprobs);
  check(b.oldLogprobs, n, NONFINITE.oldLogprobs);
  check(b.advantages, n, NONFINITE.advantages);
  const rowStats = v(b.rowStats);
  ds.push(prepareRlRowsZero(gpu, { B, rowStats }));
  const sa = { B, T, logprobs: v(b.logprobs), oldLogprobs: v(b.oldLogprobs), advantages: v(b.advantages), mask: v(b.mask) };
  const sp = { ...agg, clipLow: cfg.clipLow, clipHigh: cfg.clipHigh, dualClip: cfg.dualClip };
  add(prepareSurrogateForward(gpu, { ...sa, p: sp, rowStats }));
  add(prepareSurrogateBackward(gpu, { ...sa, p: sp, dlogprob: v(b.dlogprob) }));
  if (cfg.klCoef > 0) {
    const ref = need(b.refLogprobs, 'klCoef > 0 needs refLogprobs');
    check(ref, n, NONFINITE.refLogprobs);
    const ka = { B, T, logprobs: v(b.logprobs), refLogprobs: v(ref), mask: v(b.mask), p: { ...agg, estimator: cfg.klEstimator } };
    add(prepareKlForward(gpu, { ...ka, rowStats }));
    add(prepareKlBackward(gpu, { ...ka, klCoef: cfg.klCoef, dlogprob: v(b.dlogprob) }));
  }
  if (cfg.algorithm === 'ppo') {
    const values = need(b.values, 'ppo needs values');
    const oldValues = need(b.oldValues, 'ppo needs oldValues');
    const returns = need(b.returns, 'ppo needs returns');
    check(values, n, NONFINITE.values);
    check(oldValues, n, NONFINITE.oldValues);
    check(returns, n, NONFINITE.returns);
    const va = {
      B,
      T,
      values: v(values),
      oldValues: v(oldValues),
      returns: v(returns),
      mask: v(b.mask),
      p: { ...agg, vfClip: cfg.vfClip },
    };
    add(prepareValueLossForward(gpu, { ...va, rowStats }));
    add(prepareValueLossBackward(gpu, { ...va, vfCoef: cfg.vfCoef, dvalues: v(need(b.dvalues, 'ppo needs dvalues')) }));
  }
  if (cfg.entCoef > 0) {
    const e = need(b.entropy, 'entCoef > 0 needs entropy buffers (logits, V, entropy, lse, dentropy)');
    check(e.logits, n * e.V, NONFINITE.logits);
    const ea = { B, T, V: e.V, logits: v(e.logits), mask: v(e.mask), entropy: v(e.entropy), lse: v(e.lse), dentropy: v(e.dentropy) };
    add(prepareEntropyForward(gpu, { ...ea, rowStats, p: { ...agg, entCoef: cfg.entCoef, temperature: cfg.temperature } }));
  }
  ds.push(prepareRlAccumulate(gpu, { B, rowStats, acc: v(s.acc) }));
  return { dispatches: ds, normUniforms };
}

/**
 * Prepare dlogits (B·T, V) += the entropy bonus's gradient (after logprob_backward wrote
 * dlogits). Null when entCoef = 0 (no dispatch).
 * @throws Error when entCoef > 0 and `b.entropy` is missing, or naming a bad dimension or view.
 */
export function prepareRlEntropyBackward(
  gpu: Gpu,
  b: RlLossBuffers,
  dlogits: GPUBuffer,
  cfg: RlLossConfig,
  norm: StepNormalizer,
): LossPrepared | null {
  if (!(cfg.entCoef > 0)) return null;
  const e = need(b.entropy, 'entCoef > 0 needs entropy buffers');
  const v = (buffer: GPUBuffer): TensorView => ({ buffer });
  const p = { aggregation: cfg.aggregation, norm, entCoef: cfg.entCoef, temperature: cfg.temperature };
  return prepareEntropyBackward(gpu, {
    B: b.B,
    T: b.T,
    V: e.V,
    logits: v(e.logits),
    entropy: v(e.entropy),
    lse: v(e.lse),
    dentropy: v(e.dentropy),
    dlogits: v(dlogits),
    p,
  });
}

/** Prepare the end of a step: metrics ← finalize(acc, flags). */
export function prepareRlStepEnd(gpu: Gpu, s: RlStepState, cfg: RlLossConfig): PreparedDispatch {
  return prepareRlMetricsFinalize(gpu, { acc: { buffer: s.acc }, flags: { buffer: s.flags }, metrics: { buffer: s.metrics }, c: cfg });
}

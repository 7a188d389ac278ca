/**
 * The RL loss head on the GPU (docs/ARCHITECTURE.md "RL objective"): what the training step (src/model/gpu_train.ts)
 * encodes around its forward and backward passes. CPU specification: src/rl/loss_ref.ts.
 *
 * One optimizer step, all in one compute pass where possible, one readback at the end:
 *
 *   encodeRlStepBegin              flags ← 0, acc ← init
 *   encodeGrpoAdvantages / encodePpoAdvantages   (once per rollout batch; checks rewards, values)
 *   for each micro-batch:
 *     model forward → logits, logprobs (logprob_forward), values (value head)
 *     encodeRlLossHead             non-finite checks; rowStats ← 0; surrogate fwd/bwd (dlogprob
 *                                  written), KL fwd/bwd (dlogprob +=), value fwd/bwd (dvalues
 *                                  written), entropy fwd; acc ⊕= rowStats
 *     logprob_backward(dlogprob) → dlogits (written)
 *     encodeRlEntropyBackward      dlogits += entropy term (entCoef > 0 only)
 *     model backward (dlogits, dvalues) → parameter gradients (accumulated)
 *   global_norm_forward → norm, gradScale; encodeNonfiniteCheck(norm, NONFINITE.gradNorm)
 *   adamw_update — must be a no-op when flags[0] ≠ 0 (see below)
 *   encodeRlStepEnd                metrics ← finalize(acc, flags); copy the norm into
 *                                  METRIC.gradNorm; one readback (readRlMetrics)
 *
 * A training step that prepares its dispatches once per shape (src/model/gpu_train.ts
 * `LossHead.prepare`) uses `prepareRlLossHead` and, before each submit,
 * `writeNormalizer(gpu, head.normUniforms, norm)` to set that step's N and S (no re-recording,
 * no buffers or bind groups created per step); the encode* functions are the one-off form.
 *
 * Consuming the skip flag. `state.flags` is a u32 storage buffer, non-zero when any checked
 * tensor held a NaN/±Inf. `gradScale = 0` alone does NOT make AdamW a no-op (m and v still
 * decay, and decoupled weight decay still shrinks p). The training step (src/model/gpu_train.ts,
 * `LossHead.skipFlag`, set by src/rl/trainer_head.ts) binds `flags` word 0 to
 * global_norm_forward's finalize, which then writes gradScale = −1 — the state in which
 * adamw_update returns before touching params, m and v — and GpuTrainer does not advance the
 * AdamW step counter t or the LR schedule for that step (tests/browser/train_step.spec.ts). (A NaN gradient also makes the
 * norm NaN; checking the norm with NONFINITE.gradNorm catches overflow inside the backward pass.)
 */
import type { Gpu } from '../gpu/device';
import { createStorage, readF32 } from '../gpu/buffers';
import type { RlLossConfig } from './config';
import type { StepNormalizer } from '../kernels/rl_math';
import { METRIC, NONFINITE, ROW_STATS, RL_METRICS, decodeRlMetrics, type RlMetrics } from '../kernels/rl_metrics';
import { encodePrepared, type PreparedDispatch, type TensorView } from '../kernels/dispatch_plan';
import { encodeNonfiniteCheck, encodeNonfiniteClear, prepareNonfiniteCheck } from '../kernels/nonfinite_check';
import { encodeRlAccInit, encodeRlMetricsFinalize, prepareRlAccumulate, prepareRlRowsZero } from '../kernels/rl_metrics_forward';
import { prepareSurrogateForward } from '../kernels/surrogate_forward';
import { prepareSurrogateBackward } from '../kernels/surrogate_backward';
import { prepareKlForward } from '../kernels/kl_forward';
import { prepareKlBackward } from '../kernels/kl_backward';
import { prepareValueLossForward } from '../kernels/value_loss_forward';
import { prepareValueLossBackward } from '../kernels/value_loss_backward';
import { prepareEntropyForward, type EntropyBuffers } from '../kernels/entropy_forward';
import { encodeEntropyBackward } from '../kernels/entropy_backward';
import type { LossPrepared } from '../kernels/rl_launch';
import { encodeGrpoAdvantageForward, type GrpoBuffers } from '../kernels/grpo_advantage_forward';
import { encodeGaeForward, type GaeBuffers } from '../kernels/gae_forward';
import { advNormalizeScratchBytes, encodeAdvNormalizeForward } from '../kernels/adv_normalize_forward';

/** The per-step GPU state of the loss head: accumulator, non-finite flags, metrics. */
export interface RlStepState {
  /** (ROW_STATS) f32 accumulator over the step's micro-batches. */
  acc: GPUBuffer;
  /** (4) u32; flags[0] = OR of NONFINITE bits seen this step. */
  flags: GPUBuffer;
  /** (RL_METRICS) f32, written by encodeRlStepEnd. */
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

/** Encode the start of an optimizer step: flags ← 0, acc ← initial values. */
export function encodeRlStepBegin(gpu: Gpu, pass: GPUComputePassEncoder, s: RlStepState): void {
  encodeNonfiniteClear(gpu, pass, s.flags);
  encodeRlAccInit(gpu, pass, s.acc);
}

/**
 * Encode GRPO advantages: rewards checked (NONFINITE.rewards), then group-normalized and
 * broadcast to the rows' policy tokens.
 * @param E episode count (length of rewards)
 */
export function encodeGrpoAdvantages(
  gpu: Gpu,
  pass: GPUComputePassEncoder,
  s: RlStepState,
  bufs: GrpoBuffers,
  E: number,
  numGroups: number,
  B: number,
  T: number,
  cfg: RlLossConfig,
): void {
  encodeNonfiniteCheck(gpu, pass, bufs.rewards, E, s.flags, NONFINITE.rewards);
  encodeGrpoAdvantageForward(gpu, pass, bufs, numGroups, B, T, cfg);
}

/**
 * Encode PPO advantages: rewards and V_old checked, GAE, then (cfg.normalizeAdvantages) masked
 * whitening in place.
 * @param scratch ≥ (B + 1)·16 bytes, used only when normalizing
 */
export function encodePpoAdvantages(
  gpu: Gpu,
  pass: GPUComputePassEncoder,
  s: RlStepState,
  bufs: GaeBuffers,
  scratch: GPUBuffer | null,
  B: number,
  T: number,
  cfg: RlLossConfig,
): void {
  encodeNonfiniteCheck(gpu, pass, bufs.rewards, B, s.flags, NONFINITE.rewards);
  encodeNonfiniteCheck(gpu, pass, bufs.values, B * T, s.flags, NONFINITE.oldValues);
  encodeNonfiniteCheck(gpu, pass, bufs.nextValue, B, s.flags, NONFINITE.oldValues);
  encodeGaeForward(gpu, pass, bufs, B, T, cfg);
  if (cfg.normalizeAdvantages) {
    if (!scratch) throw new Error(`encodePpoAdvantages: normalizeAdvantages needs a scratch buffer of ${advNormalizeScratchBytes(B)} bytes`);
    encodeAdvNormalizeForward(gpu, pass, bufs.advantages, bufs.mask, scratch, B, T, cfg.eps);
  }
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
  /** Required when entCoef > 0: logits (B·T, V), V, and entropy/lse/dentropy (B·T) scratch. */
  entropy?: EntropyBuffers & { V: number };
}

function need<T>(x: T | undefined, what: string): T {
  if (x === undefined) throw new Error(`encodeRlLossHead: ${what}`);
  return x;
}

/** The prepared loss head of one micro-batch shape and the LossParams uniforms it reads. */
export interface PreparedRlLossHead {
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
  ds.push(prepareNonfiniteCheck(gpu, b.logprobs, n, s.flags, NONFINITE.logprobs));
  ds.push(prepareNonfiniteCheck(gpu, b.oldLogprobs, n, s.flags, NONFINITE.oldLogprobs));
  ds.push(prepareNonfiniteCheck(gpu, b.advantages, n, s.flags, NONFINITE.advantages));
  ds.push(prepareRlRowsZero(gpu, b.rowStats, B));
  const v = (buffer: GPUBuffer): TensorView => ({ buffer });
  const rowStats = v(b.rowStats);
  const sa = { B, T, logprobs: v(b.logprobs), oldLogprobs: v(b.oldLogprobs), advantages: v(b.advantages), mask: v(b.mask) };
  const sp = { ...agg, clipLow: cfg.clipLow, clipHigh: cfg.clipHigh, dualClip: cfg.dualClip };
  add(prepareSurrogateForward(gpu, { ...sa, p: sp, rowStats }));
  add(prepareSurrogateBackward(gpu, { ...sa, p: sp, dlogprob: v(b.dlogprob) }));
  if (cfg.klCoef > 0) {
    const ref = need(b.refLogprobs, 'klCoef > 0 needs refLogprobs');
    ds.push(prepareNonfiniteCheck(gpu, ref, n, s.flags, NONFINITE.refLogprobs));
    const ka = { B, T, logprobs: v(b.logprobs), refLogprobs: v(ref), mask: v(b.mask), p: { ...agg, estimator: cfg.klEstimator } };
    add(prepareKlForward(gpu, { ...ka, rowStats }));
    add(prepareKlBackward(gpu, { ...ka, klCoef: cfg.klCoef, dlogprob: v(b.dlogprob) }));
  }
  if (cfg.algorithm === 'ppo') {
    const values = need(b.values, 'ppo needs values');
    const oldValues = need(b.oldValues, 'ppo needs oldValues');
    const returns = need(b.returns, 'ppo needs returns');
    ds.push(prepareNonfiniteCheck(gpu, values, n, s.flags, NONFINITE.values));
    ds.push(prepareNonfiniteCheck(gpu, oldValues, n, s.flags, NONFINITE.oldValues));
    ds.push(prepareNonfiniteCheck(gpu, returns, n, s.flags, NONFINITE.returns));
    const va = { B, T, values: v(values), oldValues: v(oldValues), returns: v(returns), mask: v(b.mask), p: { ...agg, vfClip: cfg.vfClip } };
    add(prepareValueLossForward(gpu, { ...va, rowStats }));
    add(prepareValueLossBackward(gpu, { ...va, vfCoef: cfg.vfCoef, dvalues: v(need(b.dvalues, 'ppo needs dvalues')) }));
  }
  if (cfg.entCoef > 0) {
    const e = need(b.entropy, 'entCoef > 0 needs entropy buffers (logits, V, entropy, lse, dentropy)');
    ds.push(prepareNonfiniteCheck(gpu, e.logits, n * e.V, s.flags, NONFINITE.logits));
    const ea = { B, T, V: e.V, logits: v(e.logits), mask: v(e.mask), entropy: v(e.entropy), lse: v(e.lse), dentropy: v(e.dentropy) };
    add(prepareEntropyForward(gpu, { ...ea, rowStats, p: { ...agg, entCoef: cfg.entCoef } }));
  }
  ds.push(prepareRlAccumulate(gpu, b.rowStats, s.acc, B));
  return { dispatches: ds, normUniforms };
}

/** Encode prepareRlLossHead's dispatches (one-off use). */
export function encodeRlLossHead(gpu: Gpu, pass: GPUComputePassEncoder, s: RlStepState, b: RlLossBuffers, cfg: RlLossConfig, norm: StepNormalizer): void {
  encodePrepared(pass, prepareRlLossHead(gpu, s, b, cfg, norm).dispatches);
}

/**
 * Encode dlogits += the entropy bonus's gradient (after logprob_backward wrote dlogits).
 * No-op when entCoef = 0.
 * @throws Error when entCoef > 0 and `b.entropy` is missing.
 */
export function encodeRlEntropyBackward(gpu: Gpu, pass: GPUComputePassEncoder, b: RlLossBuffers, dlogits: GPUBuffer, cfg: RlLossConfig, norm: StepNormalizer): void {
  if (!(cfg.entCoef > 0)) return;
  const e = need(b.entropy, 'entCoef > 0 needs entropy buffers');
  encodeEntropyBackward(gpu, pass, e, dlogits, b.B, b.T, e.V, { aggregation: cfg.aggregation, norm, entCoef: cfg.entCoef });
}

/** Encode the end of a step: metrics ← finalize(acc, flags). */
export function encodeRlStepEnd(gpu: Gpu, pass: GPUComputePassEncoder, s: RlStepState, cfg: RlLossConfig): void {
  encodeRlMetricsFinalize(gpu, pass, s.acc, s.flags, s.metrics, cfg);
}

/**
 * Copy the global gradient norm (one f32 at byte `normOffset` of `norm`) into the metrics'
 * gradNorm slot. Encoded on the command encoder after the pass that ran encodeRlStepEnd.
 */
export function copyGradNormToMetrics(enc: GPUCommandEncoder, s: RlStepState, norm: GPUBuffer, normOffset = 0): void {
  enc.copyBufferToBuffer(norm, normOffset, s.metrics, METRIC.gradNorm * 4, 4);
}

/** The step's one readback: decode the metrics buffer. */
export async function readRlMetrics(gpu: Gpu, s: RlStepState): Promise<RlMetrics> {
  return decodeRlMetrics(await readF32(gpu.device, s.metrics, RL_METRICS));
}

/**
 * The RL loss head plugged into the training step (`LossHead` of gpu_train.ts): log-probs of the
 * sampled ids at the rollout temperature τ (ℓ = log softmax(z/τ)[a]), the masked clipped
 * surrogate (PPO: plus the clipped value loss), optional KL to the reference policy
 * (`batch.extra.refLogprobs`) and entropy bonus, with their gradients written to dlogits (and
 * dvalues), using the kernels of gpu_loss.ts.
 *
 * Invariants: every chunk of a step is normalized by the whole step's valid tokens N and
 * sequences S, so the summed gradient and metrics equal one batch holding every row
 * (loss_ref.ts `RlStepAccumulator`); one non-finite chunk skips the whole step (`skipFlag`).
 * Dispatches are prepared once per shape and their number and order never depend on the data.
 */
import type { Gpu } from './device';
import { createStorage } from './buffers';
import type { PreparedDispatch } from './kernels/dispatch_plan';
import { prepareLogprobForward } from './kernels/logprob_forward';
import { prepareLogprobBackward } from './kernels/logprob_backward';
import { prepareGatherRows } from './kernels/gather_rows';
import type { LossContext, LossHead, StepChunk, TrainBatch } from './loss_head';
import { resolveTokenSumNorm, type RlLossConfig } from '../../rl/config';
import type { StepNormalizer } from '../../reference/rl_math';
import { stepNormalizerOf } from '../../rl/loss_ref';
import { RL_METRIC_NAMES, ROW_STATS } from '../../reference/rl_metrics';
import {
  createRlStepState,
  prepareRlEntropyBackward,
  prepareRlLossHead,
  prepareRlStepBegin,
  prepareRlStepEnd,
  type RlLossBuffers,
  type RlStepState,
} from './gpu_loss';
import { writeNormalizer } from './kernels/rl_launch';

/** Per-token inputs the head expects in `TrainBatch.extra`, (B·T) f32 each. */
const RL_EXTRA = ['oldLogprobs', 'advantages', 'oldValues', 'returns', 'refLogprobs'] as const;

/**
 * Advantages (and PPO returns) of a whole rollout batch, (R,T) f32 on the GPU (computed by the
 * GRPO / GAE kernels in the trainer's command buffer). With a source set, the head gathers each
 * chunk's rows from it (gather_rows, row indices from `TrainBatch.rowIndex`) instead of uploading them.
 */
interface AdvantageSource {
  /** Rows in the source tensors. */
  R: number;
  /** Row length; must equal the steps' T. */
  T: number;
  advantages: GPUBuffer;
  /** Required for PPO. */
  returns: GPUBuffer | null;
}

export interface RlHead extends LossHead {
  /** Step state: flags (non-finite bits), accumulator, finalized metrics (readRlMetrics). */
  readonly state: RlStepState;
  /**
   * Read advantages/returns from `src` on the GPU (null: upload them in batch.extra). The
   * gathers are part of the cached per-shape plan, so keep the choice (source or none) the same
   * for every step of a trainer; the source's buffers may change between steps.
   */
  useAdvantages(src: AdvantageSource | null): void;
  destroy(): void;
}

/**
 * The RL loss head for a model with at most maxN = maxB·maxT token positions.
 * With klCoef > 0 every batch must carry `extra.refLogprobs`; with an AdvantageSource, `rowIndex`.
 */
export function rlLossHead(gpu: Gpu, cfg: RlLossConfig, maxN: number): RlHead {
  const r: HeadResources = {
    gpu,
    cfg,
    maxN,
    bufs: createHeadBuffers(gpu.device, maxN),
    state: createRlStepState(gpu),
    rowIdx: createStorage(gpu.device, `rl-head rowIdx (maxN=${maxN})`, maxN * 4),
    rowStats: null,
  };
  const state = r.state;
  let src: AdvantageSource | null = null;
  /** The normalizer of the step being written (set at its first chunk). */
  let stepNorm: StepNormalizer | null = null;
  const prepared = new Map<string, ShapeEntry>();

  return {
    name: `rl-${cfg.algorithm}`,
    usesValues: cfg.algorithm === 'ppo',
    // Every RL metric rides on the training step's one readback (no second map per step).
    metricNames: RL_METRIC_NAMES,
    state,
    // flags[0] is cleared once per step (perStep.begin) and OR-ed by every non-finite check of
    // every chunk; global_norm_forward turns it into gradScale = −1.
    skipFlag: { buffer: state.flags, offset: 0 },
    perStep: { begin: prepareRlStepBegin(gpu, state), end: [prepareRlStepEnd(gpu, state, cfg)] },
    prepare(ctx) {
      // The 'seq-mean-token-sum-norm' constant: cfg.tokenSumNorm or the model's maxT, never ctx.T
      // (the padded row length), so a row's loss does not depend on its padding.
      const e = buildShape(r, ctx, src, { globalTokens: 1, globalSeqs: 1, tokenSumNorm: resolveTokenSumNorm(cfg, ctx.model.cfg.maxT) });
      prepared.set(`${ctx.B}:${ctx.T}`, e);
      return { dispatches: e.dispatches, metrics: { buffer: state.metrics, offset: 0 } };
    },
    write(ctx, batch: TrainBatch, step: StepChunk) {
      const e = prepared.get(`${ctx.B}:${ctx.T}`);
      if (!e) throw new Error('rlLossHead.write: prepare() was not called for this shape');
      writeChunkInputs(r, ctx, batch, src);
      if (e.src !== src) refreshGathers(r, ctx, e, src);
      // The whole step's normalizer (every chunk's mask, known up front), written into this
      // chunk shape's uniforms: N, S and the token-sum norm.
      if (step.chunk === 0 || !stepNorm) stepNorm = stepNormalizerOf(step.chunks, resolveTokenSumNorm(cfg, ctx.model.cfg.maxT));
      writeNormalizer(gpu, e.normUniforms, stepNorm);
    },
    useAdvantages(s) {
      src = s;
    },
    destroy() {
      r.rowIdx.destroy();
      for (const b of Object.values(r.bufs)) b.destroy();
      r.rowStats?.destroy();
      for (const b of [state.acc, state.flags, state.metrics]) b.destroy();
    },
  };
}

// ── The head's buffers ───────────────────────────────────────────────────────────────────────────

/** The head's per-token (maxN) f32 buffers: log-probs and their gradient, the uploaded (or gathered) inputs, the entropy terms. */
type HeadBuffers = Record<
  | 'logprobs'
  | 'lse'
  | 'dlogprob'
  | 'oldLogprobs'
  | 'advantages'
  | 'oldValues'
  | 'returns'
  | 'refLogprobs'
  | 'entropy'
  | 'entLse'
  | 'dentropy',
  GPUBuffer
>;

/** Everything one head owns, shared by its shape builders and its per-chunk writes. */
interface HeadResources {
  gpu: Gpu;
  cfg: RlLossConfig;
  maxN: number;
  bufs: HeadBuffers;
  state: RlStepState;
  /** (maxN) row indices of the chunk's rows into the advantage source. */
  rowIdx: GPUBuffer;
  /** (B, ROW_STATS) per-row statistics, grown to the largest B prepared (null before the first prepare). */
  rowStats: GPUBuffer | null;
}

/** One prepared shape: its dispatches (the cached plan's objects), norm uniforms, gathers. */
interface ShapeEntry {
  dispatches: PreparedDispatch[];
  normUniforms: GPUBuffer[];
  /** The source the gathers (dispatches[0 … nGathers)) were prepared for. */
  src: AdvantageSource | null;
  nGathers: number;
}

function createHeadBuffers(d: GPUDevice, maxN: number): HeadBuffers {
  const f = (name: string) => createStorage(d, `rl-head ${name} (N=${maxN})`, maxN * 4);
  return {
    logprobs: f('logprobs'),
    lse: f('lse'),
    dlogprob: f('dlogprob'),
    oldLogprobs: f('oldLogprobs'),
    advantages: f('advantages'),
    oldValues: f('oldValues'),
    returns: f('returns'),
    refLogprobs: f('refLogprobs'),
    entropy: f('entropy'),
    entLse: f('entropy-lse'),
    dentropy: f('dentropy'),
  };
}

// ── Preparing one (B,T) shape ────────────────────────────────────────────────────────────────────

/** The gathers of a chunk's advantages (and PPO returns) from `s` (none without a source). @throws Error on a T mismatch or a PPO source without returns. */
function gathersFor(r: HeadResources, ctx: LossContext, s: AdvantageSource | null): PreparedDispatch[] {
  const { B, T } = ctx;
  const out: PreparedDispatch[] = [];
  if (!s) return out;
  if (s.T !== T) throw new Error(`rlLossHead: advantage source rows have T = ${s.T}, step has T = ${T}`);
  out.push(prepareGatherRows(r.gpu, { B, C: T, R: s.R, inp: s.advantages, idx: r.rowIdx, out: r.bufs.advantages }, 'rl gather advantages'));
  if (r.cfg.algorithm === 'ppo') {
    if (!s.returns) throw new Error('rlLossHead: a PPO advantage source needs returns');
    out.push(prepareGatherRows(r.gpu, { B, C: T, R: s.R, inp: s.returns, idx: r.rowIdx, out: r.bufs.returns }, 'rl gather returns'));
  }
  return out;
}

/** The row-statistics buffer, (re)allocated for at least max(B, maxB) rows. */
function ensureRowStats(r: HeadResources, B: number, maxB: number): GPUBuffer {
  if (!r.rowStats || r.rowStats.size < B * ROW_STATS * 4) {
    r.rowStats?.destroy();
    r.rowStats = createStorage(r.gpu.device, `rl-head rowStats (B=${B}, ${ROW_STATS})`, Math.max(B, maxB) * ROW_STATS * 4);
  }
  return r.rowStats;
}

/** The loss kernels' buffers for one shape: the value terms only for PPO, the KL and entropy terms only when their coefficient is on. */
function lossBuffers(r: HeadResources, ctx: LossContext, rowStats: GPUBuffer): RlLossBuffers {
  const { cfg, bufs } = r;
  const acts = ctx.model.acts;
  return {
    B: ctx.B,
    T: ctx.T,
    logprobs: bufs.logprobs,
    oldLogprobs: bufs.oldLogprobs,
    advantages: bufs.advantages,
    mask: ctx.mask,
    rowStats,
    dlogprob: bufs.dlogprob,
    ...(cfg.algorithm === 'ppo' ? { values: acts.values, oldValues: bufs.oldValues, returns: bufs.returns, dvalues: ctx.dvalues } : {}),
    ...(cfg.klCoef > 0 ? { refLogprobs: bufs.refLogprobs } : {}),
    ...(cfg.entCoef > 0
      ? { entropy: { logits: acts.logits, mask: ctx.mask, entropy: bufs.entropy, lse: bufs.entLse, dentropy: bufs.dentropy, V: ctx.V } }
      : {}),
  };
}

/**
 * Every dispatch of one chunk of shape ctx.(B,T), in order: gathers, logprob_forward, the loss
 * kernels, logprob_backward, entropy_backward; `norm` is the placeholder the uniforms start with.
 * @throws Error when N exceeds maxN, or from gathersFor.
 */
function buildShape(r: HeadResources, ctx: LossContext, src: AdvantageSource | null, norm: StepNormalizer): ShapeEntry {
  const { gpu, cfg, bufs } = r;
  const { N, V } = ctx;
  if (N > r.maxN) throw new Error(`rlLossHead: batch of ${N} positions exceeds maxN = ${r.maxN}`);
  const lb = lossBuffers(r, ctx, ensureRowStats(r, ctx.B, ctx.model.maxB));
  const logits = { buffer: ctx.model.acts.logits };
  const gathers = gathersFor(r, ctx, src);
  const head = prepareRlLossHead(gpu, r.state, lb, cfg, norm);
  const normUniforms = [...head.normUniforms];
  // dlogits += the entropy bonus's gradient (no dispatch when entCoef = 0).
  const eb = prepareRlEntropyBackward(gpu, lb, ctx.dlogits, cfg, norm);
  if (eb) normUniforms.push(eb.uniform);
  const dispatches = [
    ...gathers,
    prepareLogprobForward(
      gpu,
      {
        N,
        V,
        logits,
        targets: { buffer: ctx.targets },
        logprob: { buffer: bufs.logprobs },
        lse: { buffer: bufs.lse },
        temperature: cfg.temperature,
      },
      'rl logprob_forward',
    ),
    ...head.dispatches,
    prepareLogprobBackward(
      gpu,
      {
        N,
        V,
        logits,
        targets: { buffer: ctx.targets },
        lse: { buffer: bufs.lse },
        dlogprob: { buffer: bufs.dlogprob },
        dlogits: { buffer: ctx.dlogits },
        temperature: cfg.temperature,
      },
      'rl logprob_backward',
    ),
    ...(eb?.dispatches ?? []),
  ];
  return { dispatches, normUniforms, src, nGathers: gathers.length };
}

// ── Writing one chunk ────────────────────────────────────────────────────────────────────────────

/** The per-token inputs a chunk must carry in `batch.extra`: what a source does not provide, plus refLogprobs for KL. */
function requiredExtras(cfg: RlLossConfig, hasSource: boolean): Array<(typeof RL_EXTRA)[number]> {
  const ppo = cfg.algorithm === 'ppo';
  const need: Array<(typeof RL_EXTRA)[number]> = hasSource
    ? ppo
      ? ['oldLogprobs', 'oldValues']
      : ['oldLogprobs']
    : ppo
      ? ['oldLogprobs', 'advantages', 'oldValues', 'returns']
      : ['oldLogprobs', 'advantages'];
  if (cfg.klCoef > 0) need.push('refLogprobs');
  return need;
}

/** Validate and upload a chunk's per-token inputs and (with a source) its row indices. @throws Error naming the bad field. */
function writeChunkInputs(r: HeadResources, ctx: LossContext, batch: TrainBatch, src: AdvantageSource | null): void {
  const d = r.gpu.device;
  const ex = batch.extra ?? {};
  const n = ctx.N;
  for (const k of requiredExtras(r.cfg, src !== null)) {
    const a = ex[k];
    if (!a || a.length !== n) throw new Error(`rlLossHead: batch.extra.${k} must hold (B·T) = ${n} values, got ${a?.length ?? 'none'}`);
    d.queue.writeBuffer(r.bufs[k], 0, a.buffer, a.byteOffset, a.byteLength);
  }
  if (!src) return;
  const idx = batch.rowIndex;
  if (!idx || idx.length !== ctx.B)
    throw new Error(
      `rlLossHead: batch.rowIndex must hold B = ${ctx.B} row indices (an advantage source is set), got ${idx?.length ?? 'none'}`,
    );
  for (let i = 0; i < idx.length; i++) {
    if (!(idx[i] >= 0 && idx[i] < src.R))
      throw new Error(`rlLossHead: batch.rowIndex[${i}] = ${idx[i]} is outside the advantage source's [0, ${src.R}) rows`);
  }
  d.queue.writeBuffer(r.rowIdx, 0, idx.buffer, idx.byteOffset, idx.byteLength);
}

/**
 * A new advantage source (once per rollout batch): re-prepare the gathers, in place in the cached
 * plan (the dispatch count must not change). @throws Error when the number of gathers changed.
 */
function refreshGathers(r: HeadResources, ctx: LossContext, e: ShapeEntry, src: AdvantageSource | null): void {
  const g = gathersFor(r, ctx, src);
  if (g.length !== e.nGathers)
    throw new Error(
      `rlLossHead: ${g.length} gathers for the current advantage source, prepared ${e.nGathers} (keep useAdvantages on or off for every step of a trainer)`,
    );
  g.forEach((x, i) => Object.assign(e.dispatches[i], x));
  e.src = src;
}

/**
 * The RL loss head plugged into the one-submit training step (`LossHead` of
 * src/model/gpu_train.ts): log-probs of the sampled ids, the masked clipped surrogate (and for
 * PPO the clipped value loss) with the RL kernels of src/rl/gpu_loss.ts, and their gradient
 * written to dlogits (and dvalues). One head call = one optimizer step, so the step normalizer
 * (token-mean: N = Σ mask of the step) is exactly this batch's.
 *
 * Adapter note: the RL kernels encode straight into a compute pass and bake the step normalizer
 * into a fresh uniform per call, while `LossHead.prepare` must return prepared dispatches once
 * per shape. A recording pass captures each (pipeline, bind group, grid) as a PreparedDispatch;
 * `write` (called before every step's submit) re-records with the step's normalizer and updates
 * the same PreparedDispatch objects in place, so the trainer's cached plan encodes the current
 * bind groups. The number and order of dispatches depend only on the config (and on whether an
 * AdvantageSource is used), never on the data.
 *
 * Non-finite steps: the head's flag word (`state.flags[0]`) is its `skipFlag`; the training step
 * feeds it to global_norm_forward, whose skip state makes AdamW a no-op for a flagged step.
 *
 * KL to the reference policy (klCoef > 0): the reference log-probs of the sampled ids come in
 * `batch.extra.refLogprobs` (computed once per rollout batch by trainer.ts with the frozen
 * starting parameters); kl_forward/backward add to the loss and to dlogprob. Entropy bonus
 * (entCoef > 0): entropy_forward over the step's logits (valid tokens only), and its gradient
 * added to dlogits after logprob_backward wrote them (entropy_backward).
 */
import type { Gpu } from '../gpu/device';
import { createStorage } from '../gpu/buffers';
import type { PreparedDispatch } from '../kernels/dispatch_plan';
import { prepareLogprobForward } from '../kernels/logprob_forward';
import { prepareLogprobBackward } from '../kernels/logprob_backward';
import { prepareGatherRows } from '../kernels/gather_rows';
import type { LossContext, LossHead, TrainBatch } from '../model/gpu_train';
import type { RlLossConfig } from './config';
import { stepNormalizer, type StepNormalizer } from './math';
import { ROW_STATS } from './metrics';
import { createRlStepState, encodeRlEntropyBackward, encodeRlLossHead, encodeRlStepBegin, encodeRlStepEnd, type RlLossBuffers, type RlStepState } from './gpu_loss';

/** Per-token inputs the head expects in `TrainBatch.extra`, (B·T) f32 each. */
export const RL_EXTRA = ['oldLogprobs', 'advantages', 'oldValues', 'returns', 'refLogprobs'] as const;

/** A fake compute pass that records dispatches instead of encoding them. */
class RecordingPass {
  readonly out: PreparedDispatch[] = [];
  private pipeline: GPUComputePipeline | null = null;
  private bindGroup: GPUBindGroup | null = null;
  label = 'rl-head-recorder';
  setPipeline(p: GPUComputePipeline): void {
    this.pipeline = p;
  }
  setBindGroup(index: number, g: GPUBindGroup | null): void {
    if (index !== 0 || !g) throw new Error(`RecordingPass: only bind group 0 is supported, got index ${index}`);
    this.bindGroup = g;
  }
  dispatchWorkgroups(x: number, y = 1, z = 1): void {
    if (!this.pipeline || !this.bindGroup) throw new Error('RecordingPass: dispatch before setPipeline/setBindGroup');
    this.out.push({ label: this.pipeline.label || 'rl-kernel', pipeline: this.pipeline, bindGroup: this.bindGroup, groups: [x, y, z], flops: 0, bytes: 0 });
  }
}

function record(fn: (pass: GPUComputePassEncoder) => void): PreparedDispatch[] {
  const rec = new RecordingPass();
  const proxy = new Proxy(rec, {
    get(t, k) {
      if (k in t) return (t as unknown as Record<PropertyKey, unknown>)[k];
      throw new Error(`RecordingPass: the RL kernels called pass.${String(k)}, which a prepared dispatch cannot hold`);
    },
  });
  fn(proxy as unknown as GPUComputePassEncoder);
  return rec.out;
}

/**
 * Advantages (and PPO returns) of a whole rollout batch, (R,T) f32 on the GPU (computed by the
 * GRPO / GAE kernels in the trainer's command buffer). With a source set, the head gathers each
 * step's rows from it (gather_rows, row indices from `selectRows`) instead of uploading them.
 */
export interface AdvantageSource {
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
  /** The source rows (indices into the AdvantageSource) of the next step's B rows. */
  selectRows(idx: Int32Array): void;
  destroy(): void;
}

/**
 * The RL loss head for a model with at most maxN = maxB·maxT token positions.
 * With klCoef > 0 every batch must carry `extra.refLogprobs`.
 */
export function rlLossHead(gpu: Gpu, cfg: RlLossConfig, maxN: number): RlHead {
  const d = gpu.device;
  const f = (name: string) => createStorage(d, `rl-head ${name} (N=${maxN})`, maxN * 4);
  const bufs = {
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
  const state = createRlStepState(gpu);
  const rowIdx = createStorage(d, `rl-head rowIdx (maxN=${maxN})`, maxN * 4);
  let src: AdvantageSource | null = null;
  let rowStats: GPUBuffer | null = null;
  const prepared = new Map<string, PreparedDispatch[]>();

  const build = (ctx: LossContext, norm: StepNormalizer): PreparedDispatch[] => {
    const { B, T, N, V } = ctx;
    if (N > maxN) throw new Error(`rlLossHead: batch of ${N} positions exceeds maxN = ${maxN}`);
    if (!rowStats || rowStats.size < B * ROW_STATS * 4) {
      rowStats?.destroy();
      rowStats = createStorage(d, `rl-head rowStats (B=${B}, ${ROW_STATS})`, Math.max(B, ctx.model.maxB) * ROW_STATS * 4);
    }
    const logits = { buffer: ctx.model.acts.logits };
    const ppo = cfg.algorithm === 'ppo';
    const lb: RlLossBuffers = {
      B, T, logprobs: bufs.logprobs, oldLogprobs: bufs.oldLogprobs, advantages: bufs.advantages, mask: ctx.mask, rowStats: rowStats!, dlogprob: bufs.dlogprob,
      ...(ppo ? { values: ctx.model.acts.values, oldValues: bufs.oldValues, returns: bufs.returns, dvalues: ctx.dvalues } : {}),
      ...(cfg.klCoef > 0 ? { refLogprobs: bufs.refLogprobs } : {}),
      ...(cfg.entCoef > 0 ? { entropy: { logits: ctx.model.acts.logits, mask: ctx.mask, entropy: bufs.entropy, lse: bufs.entLse, dentropy: bufs.dentropy, V } } : {}),
    };
    const gathers: PreparedDispatch[] = [];
    if (src) {
      if (src.T !== T) throw new Error(`rlLossHead: advantage source rows have T = ${src.T}, step has T = ${T}`);
      gathers.push(prepareGatherRows(gpu, { B, C: T, R: src.R, inp: src.advantages, idx: rowIdx, out: bufs.advantages }, 'rl gather advantages'));
      if (ppo) {
        if (!src.returns) throw new Error('rlLossHead: a PPO advantage source needs returns');
        gathers.push(prepareGatherRows(gpu, { B, C: T, R: src.R, inp: src.returns, idx: rowIdx, out: bufs.returns }, 'rl gather returns'));
      }
    }
    return [
      ...gathers,
      ...record((pass) => encodeRlStepBegin(gpu, pass, state)),
      prepareLogprobForward(gpu, { N, V, logits, targets: { buffer: ctx.targets }, logprob: { buffer: bufs.logprobs }, lse: { buffer: bufs.lse } }, 'rl logprob_forward'),
      ...record((pass) => encodeRlLossHead(gpu, pass, state, lb, cfg, norm)),
      prepareLogprobBackward(gpu, { N, V, logits, targets: { buffer: ctx.targets }, lse: { buffer: bufs.lse }, dlogprob: { buffer: bufs.dlogprob }, dlogits: { buffer: ctx.dlogits } }, 'rl logprob_backward'),
      // dlogits += the entropy bonus's gradient (no dispatch when entCoef = 0).
      ...record((pass) => encodeRlEntropyBackward(gpu, pass, lb, ctx.dlogits, cfg, norm)),
      ...record((pass) => encodeRlStepEnd(gpu, pass, state, cfg)),
    ];
  };

  return {
    name: `rl-${cfg.algorithm}`,
    usesValues: cfg.algorithm === 'ppo',
    metricNames: ['loss'],
    state,
    // flags[0] is cleared by encodeRlStepBegin (the head's first dispatch) and OR-ed by every
    // non-finite check of the step; global_norm_forward turns it into gradScale = −1.
    skipFlag: { buffer: state.flags, offset: 0 },
    prepare(ctx) {
      const ds = build(ctx, { globalTokens: 1, globalSeqs: 1, tokenSumNorm: cfg.tokenSumNorm ?? ctx.T });
      prepared.set(`${ctx.B}:${ctx.T}`, ds);
      return { dispatches: ds, metrics: { buffer: state.metrics, offset: 0 } };
    },
    write(ctx, batch: TrainBatch) {
      const ds = prepared.get(`${ctx.B}:${ctx.T}`);
      if (!ds) throw new Error('rlLossHead.write: prepare() was not called for this shape');
      const ex = batch.extra ?? {};
      const n = ctx.N;
      const ppo = cfg.algorithm === 'ppo';
      const need: Array<(typeof RL_EXTRA)[number]> = src ? (ppo ? ['oldLogprobs', 'oldValues'] : ['oldLogprobs']) : ppo ? ['oldLogprobs', 'advantages', 'oldValues', 'returns'] : ['oldLogprobs', 'advantages'];
      if (cfg.klCoef > 0) need.push('refLogprobs');
      for (const k of need) {
        const a = ex[k];
        if (!a || a.length !== n) throw new Error(`rlLossHead: batch.extra.${k} must hold (B·T) = ${n} values, got ${a?.length ?? 'none'}`);
        d.queue.writeBuffer(bufs[k], 0, a.buffer, a.byteOffset, a.byteLength);
      }
      // Re-record with this step's normalizer; update the cached plan's dispatch objects in place.
      const fresh = build(ctx, stepNormalizer(batch.mask, ctx.B, ctx.T, cfg.tokenSumNorm));
      if (fresh.length !== ds.length) throw new Error(`rlLossHead: re-recorded ${fresh.length} dispatches, prepared ${ds.length}`);
      fresh.forEach((x, i) => Object.assign(ds[i], x));
    },
    useAdvantages(s) {
      src = s;
    },
    selectRows(idx) {
      if (idx.length > maxN) throw new Error(`rlLossHead.selectRows: ${idx.length} rows exceed maxN = ${maxN}`);
      d.queue.writeBuffer(rowIdx, 0, idx.buffer, idx.byteOffset, idx.byteLength);
    },
    destroy() {
      rowIdx.destroy();
      for (const b of Object.values(bufs)) b.destroy();
      rowStats?.destroy();
      for (const b of [state.acc, state.flags, state.metrics]) b.destroy();
    },
  };
}

/**
 * The RL update on the GPU (docs/ARCHITECTURE.md "RL objective"): trajectories → rows →
 * advantages → epochs × minibatches with the RL loss head (trainer_head.ts); GRPO or PPO.
 *
 * Invariants:
 * - Each minibatch is ONE optimizer step whatever the model's maxB: more rows than maxB are
 *   scored in chunks, each normalized by the whole minibatch's tokens and sequences, their
 *   gradients summed before one clip + AdamW (as the CPU engine, wasm_rl_trainer.ts). So
 *   `optimizerSteps` = epochs × minibatches (docs/RESULTS.md).
 * - Advantages are computed on the GPU inside the first step's command buffer; the CPU
 *   estimators of advantages.ts are the test oracle (tests/browser/rl_trainer.spec.ts).
 * - A NaN/Inf loss, advantage or gradient skips the step on the GPU (params, m, v untouched,
 *   t and the LR schedule not advanced) and counts it in `skippedSteps`.
 * - The KL reference is the frozen starting policy (a resumed run keeps the base model); the
 *   head scores log softmax(z/τ) at the rollouts' temperature τ, so the ratio is 1 at the first
 *   minibatch. Groups whose rewards are all equal are dropped (`dropZeroVarianceGroups`).
 */
import { decodeRlMetrics, RL_METRIC_NAMES } from '../../reference/rl_metrics';
import type { Gpu } from './device';
import { GpuModel } from './gpu_model';
import { GpuTrainer } from './gpu_train';
import type { TrainBatch } from './loss_head';
import { rlLossHead, type RlHead } from './trainer_head';
import { createStorage, readF32 } from './buffers';
import { mapReadChecked } from '../device_lost';
import { encodePrepared, type PreparedDispatch, type TensorView } from './kernels/dispatch_plan';
import { prepareLogprobForward } from './kernels/logprob_forward';
import { prepareGrpoAdvantageForward } from './kernels/grpo_advantage_forward';
import { prepareGaeForward } from './kernels/gae_forward';
import { advNormalizeScratchBytes, prepareAdvNormalizeForward } from './kernels/adv_normalize_forward';
import { buildRows, minibatchIndices, sliceRows, type RlRows, type TrajectoryLike } from '../../rl/trainer_batch';
import { UpdateMetricsAccumulator } from '../../rl/update_metrics';
import { ADVANTAGE_ESTIMATORS, gaeRowInputs, grpoGroupOffsets, type AppliedAdvantages } from '../../rl/advantages';
import { filteredUpdate, type RlTrainerOptions, type RlUpdate, type RlUpdateMetrics } from '../../rl/update';

/** The rollout batch's advantages on the GPU: uploaded inputs, outputs, and the encoder. */
interface GpuAdvantages {
  /** (B_all,T) f32 advantages at policy tokens. */
  advantages: GPUBuffer;
  /** (B_all,T) f32 GAE returns (PPO), null for GRPO. */
  returns: GPUBuffer | null;
  /** (E) f32 per-episode advantages (GRPO), null for PPO. */
  episodeAdvantages: GPUBuffer | null;
  /** Encode the kernels in their own compute pass. */
  encode(enc: GPUCommandEncoder): void;
  destroy(): void;
}

export class RlTrainer {
  readonly trainer: GpuTrainer;
  readonly head: RlHead;
  /** The frozen reference policy (klCoef > 0 only): a copy of the starting parameters. */
  private readonly refModel: GpuModel | null;
  /** logprob_forward at cfg.temperature over the reference model's logits, per (B,T) shape. */
  private readonly refLogprobPlans = new Map<string, PreparedDispatch>();

  private constructor(
    readonly gpu: Gpu,
    readonly model: GpuModel,
    readonly opts: RlTrainerOptions,
  ) {
    this.head = rlLossHead(gpu, opts.cfg, model.maxB * model.maxT);
    this.trainer = GpuTrainer.create(model, {
      lr: opts.lr,
      weightDecay: opts.weightDecay,
      maxNorm: opts.maxGradNorm,
      lossHead: this.head,
      onSkip: 'report',
    });
    this.refModel = null;
    if (opts.cfg.klCoef > 0) {
      const ref = GpuModel.create(gpu, model.cfg, { maxB: model.maxB, maxT: model.maxT });
      const enc = gpu.device.createCommandEncoder({ label: 'rl reference params (frozen copy)' });
      enc.copyBufferToBuffer(model.params, 0, ref.params, 0, this.trainer.P * 4);
      gpu.device.queue.submit([enc.finish()]);
      this.refModel = ref;
    }
  }

  /**
   * log π_ref of every row's targets at cfg.temperature (log softmax(z_ref/τ)), (B·T), 0 at
   * unmasked positions (chunked by maxB).
   */
  private async refLogprobs(rows: RlRows): Promise<Float32Array> {
    const ref = this.refModel;
    if (!ref) throw new Error('RlTrainer.refLogprobs: no reference model (klCoef = 0)');
    const { B, T } = rows;
    const out = new Float32Array(B * T);
    for (let b0 = 0; b0 < B; b0 += ref.maxB) {
      const n = Math.min(ref.maxB, B - b0);
      const key = `${n}:${T}`;
      let lp = this.refLogprobPlans.get(key);
      if (!lp) {
        const N = n * T;
        const a = {
          N,
          V: ref.cfg.vocabSize,
          logits: { buffer: ref.acts.logits },
          targets: { buffer: ref.targets },
          logprob: { buffer: ref.acts.logprob },
          lse: { buffer: ref.acts.lse },
        };
        lp = prepareLogprobForward(this.gpu, { ...a, temperature: this.opts.cfg.temperature }, 'rl reference logprob_forward');
        this.refLogprobPlans.set(key, lp);
      }
      out.set(
        await forwardRead(ref, rows.ids.subarray(b0 * T, (b0 + n) * T), n, T, 'logprob', rows.targets.subarray(b0 * T, (b0 + n) * T), lp),
        b0 * T,
      );
    }
    for (let i = 0; i < B * T; i++) if (!(rows.mask[i] > 0)) out[i] = 0;
    return out;
  }

  /** @throws Error naming a bad option or an unsupported loss term. */
  static create(gpu: Gpu, model: GpuModel, opts: RlTrainerOptions): RlTrainer {
    for (const k of ['epochs', 'minibatches'] as const) {
      if (!Number.isInteger(opts[k]) || opts[k] < 1) throw new Error(`RlTrainer: ${k} must be an integer ≥ 1, got ${opts[k]}`);
    }
    return new RlTrainer(gpu, model, opts);
  }

  /** V at every position of (B,T) rows, chunked by maxB (PPO's V_old, before any update). */
  private async values(ids: Int32Array, B: number, T: number): Promise<Float32Array> {
    const out = new Float32Array(B * T);
    const mb = this.model.maxB;
    for (let b0 = 0; b0 < B; b0 += mb) {
      const n = Math.min(mb, B - b0);
      out.set(await forwardRead(this.model, ids.subarray(b0 * T, (b0 + n) * T), n, T, 'values'), b0 * T);
    }
    return out;
  }

  /**
   * One RL update from a step's trajectories (GRPO: groups contiguous, see advantages.ts grpoAdvantages).
   *
   * Zero-variance groups: when cfg.algorithm = 'grpo', `opts.dropZeroVarianceGroups` is not
   * false, cfg.klCoef = 0 and cfg.entCoef = 0, the contiguous groups (grpoGroupOffsets) whose
   * rewards are all equal (as the f32 values the advantage kernel reads, all finite) are removed
   * and the update runs on the remaining trajectories exactly as if only those had been passed
   * (same rows, T, minibatch shuffles and optimizer steps). Why: such a group has A = 0 on every
   * token (r − mean = 0; exactly so when the f32 group mean is exact, as for 0/1 rewards, and a
   * rounding-level value carrying no signal otherwise), so with no KL and no entropy term its rows
   * add exactly zero policy gradient and computing them is wasted GPU work. What changes: the
   * token-mean normalizer (and the sequence count of the seq-mean modes) counts only the kept
   * rows, as in DAPO, and the clipFrac / approxKl / loss metrics are over kept tokens. Source:
   * Yu et al. 2025, "DAPO" (arXiv:2503.14476) §3.2 dynamic sampling (which also re-samples to
   * refill the batch; we do not). A group with a non-finite reward is kept, so the loss head's
   * NaN/Inf check still reports it (`skippedSteps`).
   * If no group is left, no optimizer step is applied: parameters, AdamW moments and the AdamW
   * step counter (hence weight decay and the LR schedule) are unchanged, and the metrics are
   * optimizerSteps = rows = tokens = 0 and losses / clipFrac / approxKl / gradNorm = 0.
   * Whenever a group was dropped, `entropy` is the token-mean of −log π_old over the policy
   * tokens of ALL `trajs` (the same definition as without the filter), so the curve stays
   * comparable; `droppedGroups` counts the groups left out.
   * The advantages the loss read are read back from the GPU after the last optimizer step
   * (`applied`; GRPO: per episode and (B,T), PPO: (B,T) advantages and returns), so a caller
   * displays or checks exactly what was trained on.
   * @param trajs the step's trajectories, groups contiguous (GRPO)
   * @param step 1-based RL step (seeds the minibatch shuffles)
   * @throws Error from buildRows (bad or too long turns, no sampled tokens) or grpoGroupOffsets
   *   (a group not contiguous).
   */
  async update(trajs: readonly TrajectoryLike[], step: number): Promise<RlUpdate> {
    const t0 = performance.now();
    return filteredUpdate(trajs, this.opts, t0, (kept) => this.updateRows(kept, step, t0));
  }

  /** `update` on exactly these trajectories (no group filtering). */
  private async updateRows(trajs: readonly TrajectoryLike[], step: number, t0: number): Promise<RlUpdate> {
    const cfg = this.opts.cfg;
    const rows = buildRows(trajs, this.opts.padId, this.model.maxT);
    const { B, T } = rows;
    const usesValues = ADVANTAGE_ESTIMATORS[cfg.algorithm].usesValues;
    const oldValues = usesValues ? await this.values(rows.ids, B, T) : new Float32Array(B * T);
    const refLogprobs = cfg.klCoef > 0 ? await this.refLogprobs(rows) : null;
    const adv = this.gpuAdvantages(trajs, rows, oldValues);
    this.head.useAdvantages({ R: B, T, advantages: adv.advantages, returns: adv.returns });
    let prelude: ((enc: GPUCommandEncoder) => void) | undefined = (enc) => adv.encode(enc);
    try {
      const metrics = await this.runEpochs(rows, oldValues, refLogprobs, step, t0, () => {
        const p = prelude;
        prelude = undefined;
        return p;
      });
      const [advantages, returns, episodeAdvantages] = await readF32s(this.gpu.device, [
        { src: adv.advantages, count: B * T },
        adv.returns ? { src: adv.returns, count: B * T } : null,
        adv.episodeAdvantages ? { src: adv.episodeAdvantages, count: trajs.length } : null,
      ]);
      const applied: AppliedAdvantages = {
        kept: trajs.map((_, e) => e),
        rows,
        oldValues: usesValues ? oldValues : null,
        advantages: advantages!,
        returns,
        episodeAdvantages,
      };
      return { metrics: { ...metrics, ms: performance.now() - t0 }, applied };
    } finally {
      this.head.useAdvantages(null);
      adv.destroy();
    }
  }

  /**
   * Upload a rollout batch's advantage inputs and prepare the GRPO / GAE (+ normalization)
   * kernels over all its rows (see the module note).
   * @param oldValues (B·T) V_old (PPO; ignored for GRPO)
   */
  private gpuAdvantages(trajs: readonly TrajectoryLike[], rows: RlRows, oldValues: Float32Array): GpuAdvantages {
    const d = this.gpu.device;
    const cfg = this.opts.cfg;
    const { B, T } = rows;
    const owned: GPUBuffer[] = [];
    const up = (label: string, a: Float32Array | Int32Array): GPUBuffer => {
      const b = createStorage(d, `rl-adv ${label} (${a.length})`, a.byteLength);
      d.queue.writeBuffer(b, 0, a.buffer, a.byteOffset, a.byteLength);
      owned.push(b);
      return b;
    };
    const out = (label: string, bytes: number): GPUBuffer => {
      const b = createStorage(d, `rl-adv ${label}`, bytes, GPUBufferUsage.COPY_SRC);
      owned.push(b);
      return b;
    };
    const v = (buffer: GPUBuffer): TensorView => ({ buffer });
    const mask = up('mask (B,T)', rows.mask);
    const advantages = out(`advantages (${B},${T})`, B * T * 4);
    const destroy = () => owned.forEach((b) => b.destroy());
    if (cfg.algorithm === 'ppo') {
      const g = gaeRowInputs(trajs, rows, oldValues);
      const returns = out(`returns (${B},${T})`, B * T * 4);
      const ds = [
        prepareGaeForward(this.gpu, {
          B,
          T,
          rewards: v(up('rewards (B)', g.rewards)),
          values: v(up('V_old (B,T)', oldValues)),
          mask: v(mask),
          nextValue: v(up('nextValue (B)', g.nextValue)),
          truncated: v(up('truncated (B)', g.truncated)),
          advantages: v(advantages),
          returns: v(returns),
          p: cfg,
        }),
      ];
      if (cfg.normalizeAdvantages) {
        const scratch = v(out('adv_normalize scratch', advNormalizeScratchBytes(B)));
        ds.push(...prepareAdvNormalizeForward(this.gpu, { B, T, advantages: v(advantages), mask: v(mask), scratch, eps: cfg.eps }));
      }
      return {
        advantages,
        returns,
        episodeAdvantages: null,
        encode: (enc) => {
          const pass = enc.beginComputePass({ label: `rl advantages (gae, B=${B}, T=${T})` });
          encodePrepared(pass, ds);
          pass.end();
        },
        destroy,
      };
    }
    const offsets = grpoGroupOffsets(trajs);
    const episodeAdvantages = out(`episodeAdvantages (${trajs.length})`, trajs.length * 4);
    const ds = prepareGrpoAdvantageForward(this.gpu, {
      E: trajs.length,
      numGroups: offsets.length - 1,
      B,
      T,
      rewards: v(
        up(
          'rewards (E)',
          Float32Array.from(trajs, (t) => t.reward),
        ),
      ),
      groupOffsets: v(up('groupOffsets (G+1)', offsets)),
      episodeAdvantages: v(episodeAdvantages),
      rowEpisode: v(up('rowEpisode (B)', rows.rowEpisode)),
      mask: v(mask),
      advantages: v(advantages),
      p: cfg,
    });
    return {
      advantages,
      returns: null,
      episodeAdvantages,
      encode: (enc) => {
        const pass = enc.beginComputePass({ label: `rl advantages (grpo, B=${B}, T=${T})` });
        encodePrepared(pass, ds);
        pass.end();
      },
      destroy,
    };
  }

  /** The epochs × minibatches loop of `update` (advantages already on the GPU). */
  private async runEpochs(
    rows: RlRows,
    oldValues: Float32Array,
    refLogprobs: Float32Array | null,
    step: number,
    t0: number,
    takePrelude: () => ((enc: GPUCommandEncoder) => void) | undefined,
  ): Promise<RlUpdateMetrics> {
    const { B, T } = rows;
    const acc = new UpdateMetricsAccumulator(rows);
    for (let epoch = 0; epoch < this.opts.epochs; epoch++) {
      for (const mb of minibatchIndices(B, this.opts.minibatches, this.opts.seed, step, epoch)) {
        // One optimizer step per minibatch: chunks of ≤ maxB rows, gradients summed (module note).
        const chunks: TrainBatch[] = [];
        for (let c = 0; c < mb.length; c += this.model.maxB) {
          const idx = mb.slice(c, c + this.model.maxB);
          chunks.push({
            B: idx.length,
            T,
            ids: sliceRows(rows.ids, T, idx),
            targets: sliceRows(rows.targets, T, idx),
            mask: sliceRows(rows.mask, T, idx),
            rowIndex: Int32Array.from(idx),
            extra: {
              oldLogprobs: sliceRows(rows.oldLogprobs, T, idx),
              oldValues: sliceRows(oldValues, T, idx),
              ...(refLogprobs ? { refLogprobs: sliceRows(refLogprobs, T, idx) } : {}),
            },
          });
        }
        const sm = await this.trainer.trainStep(chunks, takePrelude());
        const m = decodeRlMetrics(RL_METRIC_NAMES.map((n) => sm.head[n]));
        if (sm.skipped) {
          acc.add(null);
          continue;
        }
        // The GPU gate and the head's metrics must agree: a flagged step is always skipped.
        if (m.skipped !== 0)
          throw new Error(
            `RlTrainer.update: the loss head flagged step ${sm.step} non-finite (mask ${m.nonfiniteMask}) but AdamW applied it`,
          );
        acc.add({
          policyLoss: m.policyLoss,
          valueLoss: m.valueLoss,
          clipFrac: m.clipFracLow + m.clipFracHigh,
          approxKl: m.approxKl,
          klRef: m.klRef,
          gradNorm: sm.gradNorm,
        });
      }
    }
    return acc.metrics(t0);
  }

  /** Parameters, AdamW moments and step counter (checkpoints). */
  async readState(): Promise<{ params: Float32Array; m: Float32Array; v: Float32Array; adamStep: number }> {
    const params = await this.model.readParams();
    const { m, v } = await this.trainer.readMoments();
    return { params, m, v, adamStep: this.trainer.step };
  }

  /** Restore what readState returned. @throws Error on a size mismatch. */
  writeState(s: { params: Float32Array; m: Float32Array; v: Float32Array; adamStep: number }): void {
    this.model.writeParams(s.params);
    this.trainer.writeMoments(s.m, s.v, s.adamStep);
  }

  destroy(): void {
    this.trainer.destroy();
    this.head.destroy();
    this.refModel?.destroy();
  }
}

/**
 * One forward of (B,T) rows (one submit) that reads back only what the RL update needs: V at
 * every position ('values', the PPO V_old) or log π(targets) ('logprob', the KL reference,
 * scored by `logprob`: a logprob_forward prepared over the model's logits, targets and
 * acts.logprob/lse at the trainer's temperature).
 * Unlike `GpuModel.forward` (a test convenience) it never reads the (B,T,V) logits, which are
 * B·T·V·4 bytes per chunk thrown away; the dispatches are the same, so the values are identical.
 * @param targets (B,T) next-token ids, required for 'logprob'
 * @param logprob the prepared logprob_forward of shape (B·T, V), required for 'logprob'
 * @returns (B·T) f32
 * @throws Error on a bad shape or id (GpuModel.writeIds).
 */
async function forwardRead(
  model: GpuModel,
  ids: Int32Array,
  B: number,
  T: number,
  what: 'values' | 'logprob',
  targets?: Int32Array,
  logprob?: PreparedDispatch,
): Promise<Float32Array> {
  model.writeIds(ids, B, T);
  if (what === 'logprob') {
    if (!targets || !logprob) throw new Error("forwardRead: 'logprob' needs targets and a prepared logprob_forward");
    model.writeIds(targets, B, T, 'targets');
  }
  const d = model.gpu.device;
  const enc = d.createCommandEncoder({ label: `rl forward (${what}, B=${B}, T=${T})` });
  // The value head only when its output is read; the logits feed logprob_forward (at τ) on the GPU.
  model.encodeForward(enc, B, T, what === 'logprob' ? { values: false } : {});
  if (logprob) {
    const pass = enc.beginComputePass({ label: `rl reference logprob (B=${B}, T=${T})` });
    encodePrepared(pass, [logprob]);
    pass.end();
  }
  d.queue.submit([enc.finish()]);
  return readF32(d, what === 'logprob' ? model.acts.logprob : model.acts.values, B * T);
}

/**
 * Read several f32 buffers back in one submit and one map (a staging buffer with each source
 * copied at a 4-byte aligned offset): the update's advantages cost one round trip, not three.
 * @returns one array per source, null where the source is null
 */
async function readF32s(
  device: GPUDevice,
  srcs: ReadonlyArray<{ src: GPUBuffer; count: number } | null>,
): Promise<Array<Float32Array | null>> {
  const offsets: number[] = [];
  let bytes = 0;
  for (const s of srcs) {
    offsets.push(bytes);
    if (s) bytes += s.count * 4;
  }
  const staging = device.createBuffer({
    label: 'rl applied advantages (readback)',
    size: Math.max(4, bytes),
    usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
  });
  try {
    const enc = device.createCommandEncoder({ label: 'rl applied advantages (readback)' });
    srcs.forEach((s, i) => s && s.count > 0 && enc.copyBufferToBuffer(s.src, 0, staging, offsets[i], s.count * 4));
    device.queue.submit([enc.finish()]);
    await mapReadChecked(device, staging);
    const all = staging.getMappedRange();
    const out = srcs.map((s, i) => (s ? new Float32Array(all.slice(offsets[i], offsets[i] + s.count * 4)) : null));
    staging.unmap();
    return out;
  } finally {
    staging.destroy();
  }
}

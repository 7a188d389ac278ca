/**
 * The RL update on the GPU (DESIGN.md §9): trajectories → rows → advantages → epochs ×
 * minibatches of one-submit training steps (src/model/gpu_train.ts) with the RL loss head
 * (trainer_head.ts). GRPO (group-relative outcome advantages) or PPO (value head, GAE over
 * policy tokens, clipped value loss around V_old).
 *
 * - Advantages are computed on the CPU with the RL kernels' references (grpo_advantage,
 *   gae, adv_normalize .ref.ts — the specification the WGSL kernels are tested against): a
 *   few thousand numbers per step, not worth a GPU round trip.
 * - PPO V_old: the sampler does not return values, so before any update of the step one
 *   forward pass over all rows computes V at every position; those are V_old.
 * - Each minibatch is one optimizer step; token-mean divides by that step's valid tokens.
 *   A minibatch with more rows than the model's maxB is split into several optimizer steps
 *   (reported as `optimizerSteps`).
 * - Non-finite safety: params and AdamW moments are copied on the GPU before every optimizer
 *   step; when the step's loss head flagged a NaN/Inf (RL metric `skipped`) or the gradient
 *   norm is not finite, they are copied back and the AdamW step counter is rewound, so the
 *   step is never applied; it is counted in `skippedSteps`.
 * - The sampler's log-probs are at the sampling temperature; the training step scores
 *   log softmax(z) (τ = 1). Rollouts for training must therefore use τ = 1 (checked).
 */
import type { Gpu } from '../gpu/device';
import { createStorage } from '../gpu/buffers';
import type { GpuModel } from '../model/gpu_model';
import { GpuTrainer } from '../model/gpu_train';
import type { RlLossConfig } from './config';
import { readRlMetrics } from './gpu_loss';
import { rlLossHead, type RlHead } from './trainer_head';
import { buildRows, grpoAdvantages, minibatchIndices, ppoAdvantages, sliceRows, type TrajectoryLike } from './trainer_batch';

export interface RlTrainerOptions {
  cfg: RlLossConfig;
  lr: number;
  weightDecay: number;
  maxGradNorm: number;
  epochs: number;
  minibatches: number;
  padId: number;
  /** Seed of the minibatch shuffles. */
  seed: number;
}

/** Metrics of one RL update (one RL step), averaged over its applied optimizer steps. */
export interface RlUpdateMetrics {
  policyLoss: number;
  valueLoss: number;
  /** Fraction of valid tokens whose ratio was clipped (low + high). */
  clipFrac: number;
  /** k3 estimate of KL(π_old‖π) over valid tokens. */
  approxKl: number;
  /** Mean −log π_old(a) of the sampled tokens: a Monte-Carlo estimate of the policy entropy (nats/token, τ = 1). */
  entropy: number;
  gradNorm: number;
  /** Optimizer steps attempted / skipped (non-finite loss or gradient). */
  optimizerSteps: number;
  skippedSteps: number;
  /** Training rows and valid (policy) tokens of the step. */
  rows: number;
  tokens: number;
  /** Wall time of the update (ms). */
  ms: number;
}

export class RlTrainer {
  readonly trainer: GpuTrainer;
  readonly head: RlHead;
  private readonly backup: { params: GPUBuffer; m: GPUBuffer; v: GPUBuffer };

  private constructor(readonly gpu: Gpu, readonly model: GpuModel, readonly opts: RlTrainerOptions) {
    this.head = rlLossHead(gpu, opts.cfg, model.maxB * model.maxT);
    this.trainer = GpuTrainer.create(model, { lr: opts.lr, weightDecay: opts.weightDecay, maxNorm: opts.maxGradNorm, lossHead: this.head });
    const P = this.trainer.P;
    this.backup = {
      params: createStorage(gpu.device, `rl backup params (P=${P})`, P * 4),
      m: createStorage(gpu.device, `rl backup adamw-m (P=${P})`, P * 4),
      v: createStorage(gpu.device, `rl backup adamw-v (P=${P})`, P * 4),
    };
  }

  /** @throws Error naming a bad option or an unsupported loss term. */
  static create(gpu: Gpu, model: GpuModel, opts: RlTrainerOptions): RlTrainer {
    for (const k of ['epochs', 'minibatches'] as const) {
      if (!Number.isInteger(opts[k]) || opts[k] < 1) throw new Error(`RlTrainer: ${k} must be an integer ≥ 1, got ${opts[k]}`);
    }
    return new RlTrainer(gpu, model, opts);
  }

  private copyAll(toBackup: boolean): void {
    const P4 = this.trainer.P * 4;
    const enc = this.gpu.device.createCommandEncoder({ label: toBackup ? 'rl backup' : 'rl restore' });
    const pairs: Array<[GPUBuffer, GPUBuffer]> = [
      [this.model.params, this.backup.params],
      [this.trainer.m, this.backup.m],
      [this.trainer.v, this.backup.v],
    ];
    for (const [live, bak] of pairs) enc.copyBufferToBuffer(toBackup ? live : bak, 0, toBackup ? bak : live, 0, P4);
    this.gpu.device.queue.submit([enc.finish()]);
  }

  /** V at every position of (B,T) rows, chunked by maxB (PPO's V_old, before any update). */
  private async values(ids: Int32Array, B: number, T: number): Promise<Float32Array> {
    const out = new Float32Array(B * T);
    const mb = this.model.maxB;
    for (let b0 = 0; b0 < B; b0 += mb) {
      const n = Math.min(mb, B - b0);
      const r = await this.model.forward(ids.subarray(b0 * T, (b0 + n) * T), n, T);
      out.set(r.values.subarray(0, n * T), b0 * T);
    }
    return out;
  }

  /**
   * One RL update from a step's trajectories (GRPO: groups contiguous, see grpoAdvantages).
   * @param step 1-based RL step (seeds the minibatch shuffles)
   */
  async update(trajs: readonly TrajectoryLike[], step: number): Promise<RlUpdateMetrics> {
    const t0 = performance.now();
    const cfg = this.opts.cfg;
    const rows = buildRows(trajs, this.opts.padId, this.model.maxT);
    const { B, T } = rows;
    let advantages: Float32Array;
    let oldValues: Float32Array = new Float32Array(B * T);
    let returns: Float32Array = new Float32Array(B * T);
    if (cfg.algorithm === 'ppo') {
      oldValues = await this.values(rows.ids, B, T);
      ({ advantages, returns } = ppoAdvantages(trajs, rows, oldValues, cfg));
    } else {
      ({ advantages } = grpoAdvantages(trajs, rows, cfg));
    }
    let entSum = 0;
    let tokens = 0;
    for (let i = 0; i < B * T; i++) if (rows.mask[i] > 0) (entSum -= rows.oldLogprobs[i]), tokens++;
    const acc = { policyLoss: 0, valueLoss: 0, clipFrac: 0, approxKl: 0, gradNorm: 0, applied: 0, attempted: 0, skipped: 0 };
    for (let epoch = 0; epoch < this.opts.epochs; epoch++) {
      for (const mbAll of minibatchIndices(B, this.opts.minibatches, this.opts.seed, step, epoch)) {
        for (let c = 0; c < mbAll.length; c += this.model.maxB) {
          const idx = mbAll.slice(c, c + this.model.maxB);
          const mask = sliceRows(rows.mask, T, idx);
          const batch = {
            B: idx.length,
            T,
            ids: sliceRows(rows.ids, T, idx),
            targets: sliceRows(rows.targets, T, idx),
            mask,
            extra: {
              oldLogprobs: sliceRows(rows.oldLogprobs, T, idx),
              advantages: sliceRows(advantages, T, idx),
              oldValues: sliceRows(oldValues, T, idx),
              returns: sliceRows(returns, T, idx),
            },
          };
          this.copyAll(true);
          const sm = await this.trainer.trainStep(batch);
          const m = await readRlMetrics(this.gpu, this.head.state);
          acc.attempted++;
          if (m.skipped !== 0 || !Number.isFinite(sm.gradNorm) || !Number.isFinite(m.loss)) {
            this.copyAll(false);
            this.trainer.step -= 1;
            acc.skipped++;
            continue;
          }
          acc.applied++;
          acc.policyLoss += m.policyLoss;
          acc.valueLoss += m.valueLoss;
          acc.clipFrac += m.clipFracLow + m.clipFracHigh;
          acc.approxKl += m.approxKl;
          acc.gradNorm += sm.gradNorm;
        }
      }
    }
    const k = Math.max(1, acc.applied);
    return {
      policyLoss: acc.policyLoss / k,
      valueLoss: acc.valueLoss / k,
      clipFrac: acc.clipFrac / k,
      approxKl: acc.approxKl / k,
      entropy: tokens > 0 ? entSum / tokens : 0,
      gradNorm: acc.gradNorm / k,
      optimizerSteps: acc.attempted,
      skippedSteps: acc.skipped,
      rows: B,
      tokens,
      ms: performance.now() - t0,
    };
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
    for (const b of Object.values(this.backup)) b.destroy();
  }
}

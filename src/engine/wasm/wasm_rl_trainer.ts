/**
 * The RL update on the CPU engine, with the semantics of the WGSL path (src/engine/webgpu/gpu_rl_trainer.ts):
 * trajectories → rows (trainer_batch buildRows) → advantages (GRPO group-relative outcome, or
 * PPO GAE over policy tokens with V_old from one value forward before any update) → epochs ×
 * seeded minibatches, each ONE optimizer step: a minibatch of more than maxB rows is scored in
 * chunks of at most maxB rows whose gradients are summed before the step (gradient
 * accumulation), every chunk with the minibatch's token-mean normalizer (RlStepAccumulator), so
 * the update does not depend on maxB. Why: with an engine row limit of 48, stepping per chunk
 * took 2–6 optimizer steps (mean 3.0) per 64-episode RL step with `minibatches: 2`, each on a
 * few groups, where 2 were meant (docs/RESULTS.md).
 *
 * Per optimizer step: WasmModel forward (logits only at policy tokens; values for PPO) →
 * logprob_forward at τ = cfg.temperature (ℓ = log softmax(z/τ)[a], the sampler's τ, so the
 * first minibatch is on-policy for any τ; the KL reference and the entropy bonus at the same τ) → the RL loss of the CPU references (src/rl/loss_ref.ts RlStepAccumulator: ratio,
 * clipped surrogate in every aggregation mode, clipped value loss, KL k1–k3 to the frozen
 * reference policy, entropy bonus, non-finite checks, the named metrics) → ∂L/∂ℓ turned into
 * ∂L/∂z by logprob_backward (+ the entropy term's ∂L/∂z) → backward → clip + AdamW. A step whose
 * inputs or gradient norm are non-finite applies nothing and does not advance the AdamW step
 * (`skippedSteps`), as on the GPU. Zero-variance GRPO groups are dropped first exactly as
 * `RlTrainer.update` documents (DAPO dynamic sampling without re-sampling).
 */
import { ADAMW_MOMENTS } from '../../model/optimizer';
import { RlStepAccumulator, stepNormalizerOf, type RlBatch } from '../../rl/loss_ref';
import { resolveTokenSumNorm } from '../../rl/config';
import { ADVANTAGE_ESTIMATORS } from '../../rl/advantages';
import { filteredUpdate, type RlTrainerOptions, type RlUpdate } from '../../rl/update';
import { buildRows, minibatchIndices, sliceRows, type RlRows, type TrajectoryLike } from '../../rl/trainer_batch';
import { logprobBackward, logprobForward } from './wasm_kernels';
import { UpdateMetricsAccumulator, type StepMetrics } from '../../rl/update_metrics';
import { WasmModel } from './wasm_model';

/** Per-row inputs of the update's optimizer steps, (B,T) f32 each. */
interface StepInputs {
  advantages: Float32Array;
  returns: Float32Array | null;
  oldValues: Float32Array;
  refLogprobs: Float32Array | null;
}

export class WasmRlTrainer {
  /** The frozen reference policy (klCoef > 0 only). */
  private readonly refModel: WasmModel | null;
  /** AdamW steps applied so far. */
  adamStep = 0;
  /** (P) f64 sum of a chunked minibatch's gradients, allocated once at the first chunked step. */
  private gradSum: Float64Array | null = null;

  private constructor(
    readonly model: WasmModel,
    readonly opts: RlTrainerOptions,
    readonly maxB: number,
  ) {
    this.refModel = null;
    if (opts.cfg.klCoef > 0) {
      const ref = WasmModel.create(model.engine, model.cfg);
      ref.writeParams(model.readParams());
      this.refModel = ref;
    }
  }

  /** @param maxB rows per optimizer step (the GPU path's model.maxB) @throws Error naming a bad option. */
  static create(model: WasmModel, opts: RlTrainerOptions, maxB: number): WasmRlTrainer {
    for (const k of ['epochs', 'minibatches'] as const) {
      if (!Number.isInteger(opts[k]) || opts[k] < 1) throw new Error(`WasmRlTrainer: ${k} must be an integer ≥ 1, got ${opts[k]}`);
    }
    if (!Number.isInteger(maxB) || maxB < 1) throw new Error(`WasmRlTrainer: maxB must be an integer ≥ 1, got ${maxB}`);
    return new WasmRlTrainer(model, opts, maxB);
  }

  /** One RL update (the contract of RlTrainer.update, module doc); `applied` is the registry's CPU estimate it trained on. */
  async update(trajs: readonly TrajectoryLike[], step: number): Promise<RlUpdate> {
    const t0 = performance.now();
    return filteredUpdate(trajs, this.opts, t0, (kept) => this.updateRows(kept, step, t0));
  }

  private updateRows(trajs: readonly TrajectoryLike[], step: number, t0: number): RlUpdate {
    const cfg = this.opts.cfg;
    const rows = buildRows(trajs, this.opts.padId, this.model.cfg.maxT);
    const { B, T } = rows;
    const lengths = rowLengths(rows);
    const estimator = ADVANTAGE_ESTIMATORS[cfg.algorithm];
    const oldValues = estimator.usesValues ? this.valuesOf(this.model, rows, lengths) : new Float32Array(B * T);
    const refLogprobs = this.refModel ? this.logprobsOf(this.refModel, rows, lengths) : null;
    const est = estimator.compute(trajs, rows, oldValues, cfg);
    const { advantages, returns } = est;

    const acc = new UpdateMetricsAccumulator(rows);
    for (let epoch = 0; epoch < this.opts.epochs; epoch++) {
      for (const mbAll of minibatchIndices(B, this.opts.minibatches, this.opts.seed, step, epoch)) {
        acc.add(this.optimizerStep(rows, lengths, mbAll, { advantages, returns, oldValues, refLogprobs }));
      }
    }
    const metrics = acc.metrics(t0);
    return { metrics, applied: { kept: trajs.map((_, e) => e), rows, oldValues: estimator.usesValues ? oldValues : null, ...est } };
  }

  /**
   * One optimizer step on the minibatch `mb` (row indices): chunks of at most maxB rows, each
   * forward + loss (with the minibatch's normalizer) + backward, their gradients summed, then
   * clip + AdamW once. Null when skipped (non-finite inputs or gradient): nothing is applied.
   */
  private optimizerStep(rows: RlRows, lengths: Int32Array, mb: number[], x: StepInputs): StepMetrics | null {
    const cfg = this.opts.cfg;
    const m = this.model;
    const chunks: number[][] = [];
    for (let c = 0; c < mb.length; c += this.maxB) chunks.push(mb.slice(c, c + this.maxB));
    const masks = chunks.map((idx) => ({ B: idx.length, T: rows.T, mask: sliceRows(rows.mask, rows.T, idx) }));
    // seq-mean-token-sum-norm without cfg.tokenSumNorm divides by the policy's maxT, as the GPU head.
    const step = new RlStepAccumulator(cfg, stepNormalizerOf(masks, resolveTokenSumNorm(cfg, m.cfg.maxT)));
    const gradSum = chunks.length > 1 ? (this.gradSum ??= new Float64Array(m.P)).fill(0) : null;
    for (const [k, idx] of chunks.entries()) {
      if (!this.chunkGradient(rows, lengths, idx, masks[k].mask, x, step)) return null;
      if (gradSum) {
        const g = m.grads.f32();
        for (let i = 0; i < gradSum.length; i++) gradSum[i] += g[i];
      }
    }
    const { metrics } = step.finish();
    if (metrics.skipped !== 0) return null;
    if (gradSum) m.grads.f32().set(gradSum);
    const r = m.optimizerStep({
      lr: this.opts.lr,
      ...ADAMW_MOMENTS,
      weightDecay: this.opts.weightDecay,
      maxNorm: this.opts.maxGradNorm,
      step: this.adamStep + 1,
    });
    if (!r.applied) return null;
    this.adamStep++;
    return {
      policyLoss: metrics.policyLoss,
      valueLoss: metrics.valueLoss,
      clipFrac: metrics.clipFracLow + metrics.clipFracHigh,
      approxKl: metrics.approxKl,
      klRef: metrics.klRef,
      gradNorm: r.norm,
    };
  }

  /**
   * Forward, loss and backward of rows `idx` (their (b,T) mask already sliced) into the model's grads (overwritten); false when
   * the chunk's inputs are non-finite (the step is then skipped).
   */
  private chunkGradient(
    rows: RlRows,
    lengths: Int32Array,
    idx: number[],
    mask: Float32Array,
    x: StepInputs,
    step: RlStepAccumulator,
  ): boolean {
    const cfg = this.opts.cfg;
    const m = this.model;
    const e = m.engine;
    const V = m.cfg.vocabSize;
    const { T } = rows;
    const b = idx.length;
    const ids = sliceRows(rows.ids, T, idx);
    const targets = sliceRows(rows.targets, T, idx);
    const lens = Int32Array.from(idx, (i) => lengths[i]);
    const pos: number[] = [];
    for (let i = 0; i < b * T; i++) if (mask[i] > 0) pos.push(i);
    const S = pos.length;
    const scored = Int32Array.from(pos);
    const ppo = cfg.algorithm === 'ppo';
    const f = m.forward(ids, lens, b, T, scored, ppo);
    const tg = m.scratch(Math.max(1, S), 'targets');
    tg.i32().set(scored.map((i) => targets[i]));
    const lse = m.scratch(Math.max(1, S), 'lse');
    const lp = m.scratch(Math.max(1, S), 'logp');
    if (S > 0) logprobForward(e, f.logits, tg, lse, lp, { S, V, temperature: cfg.temperature });
    const logprobs = new Float32Array(b * T);
    const lpS = lp.f32();
    for (let s = 0; s < S; s++) logprobs[pos[s]] = lpS[s];
    const batch: RlBatch<Float32Array> = {
      B: b,
      T,
      logprobs,
      mask,
      oldLogprobs: sliceRows(rows.oldLogprobs, T, idx),
      advantages: sliceRows(x.advantages, T, idx),
    };
    if (x.refLogprobs) batch.refLogprobs = sliceRows(x.refLogprobs, T, idx);
    if (ppo) {
      batch.values = f.values!.read();
      batch.oldValues = sliceRows(x.oldValues, T, idx);
      batch.returns = sliceRows(x.returns!, T, idx);
    }
    if (cfg.entCoef > 0) {
      // The entropy term needs the logits of every position it counts: the policy tokens.
      const z = new Float32Array(b * T * V);
      const zs = f.logits.f32();
      for (let s = 0; s < S; s++) z.set(zs.subarray(s * V, (s + 1) * V), pos[s] * V);
      batch.logits = z;
      batch.vocab = V;
    }
    const o = step.add(batch);
    if (o.nonfinite !== 0) {
      m.endStep();
      return false;
    }
    const coef = m.scratch(Math.max(1, S), 'coef');
    const cf = coef.f32();
    // d log π(a)/dz = (onehot(a) − softmax(z/τ))/τ, so ∂L/∂z = −(∂L/∂ℓ)·(softmax − onehot)/τ.
    for (let s = 0; s < S; s++) cf[s] = -o.dlogprob[pos[s]];
    const dl = m.scratch(Math.max(1, S) * V, 'dlogits', 'none');
    if (S > 0) logprobBackward(e, f.logits, tg, lse, coef, dl, { S, V, temperature: cfg.temperature });
    if (o.dlogitsEntropy) {
      const d = dl.f32();
      for (let s = 0; s < S; s++) {
        const src = o.dlogitsEntropy.subarray(pos[s] * V, (pos[s] + 1) * V);
        for (let v = 0; v < V; v++) d[s * V + v] += src[v];
      }
    }
    m.backward(f, dl, o.dvalues);
    m.endStep();
    return true;
  }

  /** V at every position of the rows (PPO's V_old), chunked by maxB. */
  private valuesOf(model: WasmModel, rows: RlRows, lengths: Int32Array): Float32Array {
    const { B, T } = rows;
    const out = new Float32Array(B * T);
    for (let b0 = 0; b0 < B; b0 += this.maxB) {
      const n = Math.min(this.maxB, B - b0);
      const f = model.forward(rows.ids.subarray(b0 * T, (b0 + n) * T), lengths.subarray(b0, b0 + n), n, T, new Int32Array(0), true);
      out.set(f.values!.f32().subarray(0, n * T), b0 * T);
      model.endStep();
    }
    return out;
  }

  /** log softmax(z/τ) of every row's targets at its policy tokens (τ = cfg.temperature), 0 elsewhere (the KL reference), chunked by maxB. */
  private logprobsOf(model: WasmModel, rows: RlRows, lengths: Int32Array): Float32Array {
    const { B, T } = rows;
    const V = model.cfg.vocabSize;
    const out = new Float32Array(B * T);
    for (let b0 = 0; b0 < B; b0 += this.maxB) {
      const n = Math.min(this.maxB, B - b0);
      const pos: number[] = [];
      for (let i = 0; i < n * T; i++) if (rows.mask[b0 * T + i] > 0) pos.push(i);
      if (pos.length === 0) continue;
      const f = model.forward(rows.ids.subarray(b0 * T, (b0 + n) * T), lengths.subarray(b0, b0 + n), n, T, Int32Array.from(pos), false);
      const tg = model.scratch(pos.length, 'targets');
      tg.i32().set(pos.map((i) => rows.targets[b0 * T + i]));
      const lse = model.scratch(pos.length, 'lse');
      const lp = model.scratch(pos.length, 'logp');
      logprobForward(model.engine, f.logits, tg, lse, lp, { S: pos.length, V, temperature: this.opts.cfg.temperature });
      const l = lp.f32();
      pos.forEach((i, s) => (out[b0 * T + i] = l[s]));
      model.endStep();
    }
    return out;
  }

  /** Parameters, AdamW moments and step counter (checkpoints). */
  async readState(): Promise<{ params: Float32Array; m: Float32Array; v: Float32Array; adamStep: number }> {
    return { params: this.model.readParams(), m: this.model.m.read(), v: this.model.v.read(), adamStep: this.adamStep };
  }

  /** Restore what readState returned. @throws Error on a size mismatch. */
  writeState(s: { params: Float32Array; m: Float32Array; v: Float32Array; adamStep: number }): void {
    this.model.writeState(s);
    this.adamStep = s.adamStep;
  }
}

/** Valid tokens per row: up to and including the last sampled id (last masked position + 2). */
function rowLengths(rows: RlRows): Int32Array {
  const { B, T } = rows;
  const out = new Int32Array(B);
  for (let b = 0; b < B; b++) {
    let last = -1;
    for (let t = 0; t < T; t++) if (rows.mask[b * T + t] > 0) last = t;
    out[b] = last < 0 ? T : Math.min(T, last + 2);
  }
  return out;
}

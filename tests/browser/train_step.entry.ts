// Runs in the page: the whole GPU training step (src/engine/webgpu/gpu_train.ts) against the CPU model
// (src/model/cpu_model.ts): gradients, one AdamW step, determinism, overfitting, submit counts.
import { createGpu, type Gpu } from '../../src/engine/webgpu/device';
import { allClose } from './lib/compare';
import { GpuModel } from '../../src/engine/webgpu/gpu_model';
import { GpuTrainer } from '../../src/engine/webgpu/gpu_train';
import { sftLossHead, type LossHead, type TrainBatch } from '../../src/engine/webgpu/loss_head';
import { createStorage } from '../../src/engine/webgpu/buffers';
import { cpuAdamwStep, cpuBackward, cpuForward, sftLoss, sftTargets } from '../../src/model/cpu_model';
import { initParams } from '../../src/model/init';
import { paramLayout } from '../../src/model/layout';
import type { ModelConfig } from '../../src/model/config';
import { Rng } from '../../src/util/rng';

/** GpuTrainer.create's options (optimizer settings, loss head, onSkip). */
type TrainerOptions = NonNullable<Parameters<typeof GpuTrainer.create>[1]>;

interface Batch extends TrainBatch {
  lengths: Int32Array;
}

/** A right-padded batch: row b has lengths[b] tokens drawn from `rng` (ids < V), padding id 0. */
function makeBatch(cfg: ModelConfig, B: number, T: number, lengths: number[], seed: number): Batch {
  const rng = new Rng(seed);
  const ids = new Int32Array(B * T);
  for (let b = 0; b < B; b++) for (let t = 0; t < lengths[b]; t++) ids[b * T + t] = rng.int(cfg.vocabSize);
  const lens = Int32Array.from(lengths);
  const { targets, mask } = sftTargets(ids, lens, { B, T });
  return { B, T, ids, targets, mask, lengths: lens };
}

/**
 * A small fixed corpus the tiny model can memorize: each row is a short random "word" pattern
 * repeated (so most next tokens are predictable from context), rows of different lengths.
 */
function corpus(cfg: ModelConfig, B: number, T: number, seed: number): Batch {
  const rng = new Rng(seed);
  const ids = new Int32Array(B * T);
  const lengths: number[] = [];
  for (let b = 0; b < B; b++) {
    const period = 3 + rng.int(4);
    const word = Array.from({ length: period }, () => 1 + rng.int(cfg.vocabSize - 1));
    const len = T - rng.int(Math.max(1, Math.floor(T / 4)));
    lengths.push(len);
    for (let t = 0; t < len; t++) ids[b * T + t] = word[t % period];
  }
  const lens = Int32Array.from(lengths);
  const { targets, mask } = sftTargets(ids, lens, { B, T });
  return { B, T, ids, targets, mask, lengths: lens };
}

let shared: Promise<Gpu> | null = null;
/** One device per page (tests are separate pages): pipelines compile once (~10 s on SwiftShader). */
function sharedGpu(): Promise<Gpu> {
  return (shared ??= createGpu());
}

const OPT = { beta1: 0.9, beta2: 0.95, weightDecay: 0.01, maxNorm: 1 };

async function setup(cfg: ModelConfig, B: number, T: number, seed: number, opts: TrainerOptions) {
  const gpu = await sharedGpu();
  const model = GpuModel.create(gpu, cfg, { maxB: B, maxT: T });
  model.writeParams(initParams(cfg, seed));
  const trainer = GpuTrainer.create(model, opts);
  return { gpu, model, trainer };
}

/** One CPU step (forward, SFT loss, backward, clip + AdamW) in place on params/m/v. */
function cpuStep(
  cfg: ModelConfig,
  params: Float32Array,
  m: Float32Array,
  v: Float32Array,
  batch: Batch,
  step: number,
  hp: { lr: number; eps: number },
) {
  const fwd = cpuForward(cfg, params, batch.ids, batch.lengths, { B: batch.B, T: batch.T });
  const { loss, dlogits } = sftLoss(cfg, fwd.logits, batch.targets, batch.mask);
  const grads = cpuBackward(params, fwd.cache, dlogits, null);
  const { norm, gradScale } = cpuAdamwStep(params, grads, m, v, { ...OPT, ...hp, step });
  return { loss, grads, norm, gradScale };
}

/** Per-tensor comparison: names of the tensors that fail and the worst error. */
function compareTensors(cfg: ModelConfig, got: Float32Array, ref: Float32Array, atol: number, rtol: number) {
  const layout = paramLayout(cfg);
  const bad: string[] = [];
  let maxAbsErr = 0;
  for (const e of layout.entries) {
    const r = allClose(got.subarray(e.offset, e.offset + e.size), ref.subarray(e.offset, e.offset + e.size), atol, rtol);
    maxAbsErr = Math.max(maxAbsErr, r.maxAbsErr);
    if (!r.ok) bad.push(`${e.name}[${r.firstBad}] got ${r.got} ref ${r.ref}`);
  }
  let refMax = 0;
  for (const x of ref) refMax = Math.max(refMax, Math.abs(x));
  return { ok: bad.length === 0, bad: bad.slice(0, 8), maxAbsErr, refMax, atol, rtol };
}

/**
 * One training step on GPU and CPU from the same parameters: loss, grad norm, every gradient
 * and the parameters after AdamW. V = 67 exercises the scalar (non-vec4) lm-head path; a row of
 * length 1 has no scored token (fully masked).
 */
export async function gradientCheck(seed: number) {
  const cfg: ModelConfig = { vocabSize: 67, maxT: 16, C: 32, L: 2, NH: 2 };
  const B = 3;
  const T = 12;
  const batch = makeBatch(cfg, B, T, [12, 7, 1], seed);
  // Step-1 Adam is sign-like (m̂/√v̂ = g/|g|) and ill-conditioned where |g| ≈ ε; ε = 1e-4 makes
  // the update a smooth function of g so f32 rounding in g cannot flip it.
  const hp = { lr: 1e-3, eps: 1e-4 };
  const { model, trainer } = await setup(cfg, B, T, seed, { ...OPT, ...hp });
  const metrics = await trainer.trainStep(batch);
  const gGrads = await trainer.readGrads();
  const gParams = await model.readParams();
  const counters = trainer.lastCounters;
  const params = initParams(cfg, seed);
  const P = params.length;
  const ref = cpuStep(cfg, params, new Float32Array(P), new Float32Array(P), batch, 1, hp);
  trainer.destroy();
  model.destroy();
  return {
    loss: { gpu: metrics.head.loss, cpu: ref.loss },
    tokens: metrics.head.tokens,
    norm: { gpu: metrics.gradNorm, cpu: ref.norm },
    gradScale: { gpu: metrics.gradScale, cpu: ref.gradScale },
    // Gradients: f32 on both sides, different summation orders; atol 2e-6 (gradients are O(1e-2)).
    grads: compareTensors(cfg, gGrads, ref.grads, 2e-6, 1e-3),
    // Parameters after one AdamW step (lr 1e-3): |Δ| within 1e-6 absolute.
    params: compareTensors(cfg, gParams, params, 1e-6, 1e-6),
    counters,
  };
}

async function runSteps(cfg: ModelConfig, batch: Batch, seed: number, steps: number, hp: TrainerOptions) {
  const { model, trainer } = await setup(cfg, batch.B, batch.T, seed, hp);
  const losses: number[] = [];
  for (let s = 0; s < steps; s++) losses.push((await trainer.trainStep(batch)).head.loss);
  const params = await model.readParams();
  const { m, v } = await trainer.readMoments();
  trainer.destroy();
  model.destroy();
  return { losses, params, m, v };
}

/** Same seed, same adapter: two independent runs of `steps` steps give bit-identical words. */
export async function determinismCheck(seed: number, steps: number) {
  const cfg: ModelConfig = { vocabSize: 64, maxT: 16, C: 32, L: 2, NH: 2 };
  const batch = makeBatch(cfg, 4, 16, [16, 9, 16, 3], seed);
  const hp = { ...OPT, lr: 3e-3 };
  const r1 = await runSteps(cfg, batch, seed, steps, hp);
  const r2 = await runSteps(cfg, batch, seed, steps, hp);
  let mismatches = 0;
  let words = 0;
  for (const k of ['params', 'm', 'v'] as const) {
    const a = new Uint32Array(r1[k].buffer);
    const b = new Uint32Array(r2[k].buffer);
    words += a.length;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) mismatches++;
  }
  const p0 = initParams(cfg, seed);
  let changed = 0;
  for (let i = 0; i < p0.length; i++) if (p0[i] !== r1.params[i]) changed++;
  return { words, mismatches, changed, losses1: r1.losses, losses2: r2.losses };
}

/** The tiny model overfits a fixed corpus on GPU and on CPU; returns both loss curves. */
export async function overfitCheck(seed: number, steps: number) {
  const cfg: ModelConfig = { vocabSize: 64, maxT: 32, C: 32, L: 2, NH: 2 };
  const batch = corpus(cfg, 4, 32, seed);
  const hp = { lr: 1e-2, eps: 1e-8 };
  const gpuRun = await runSteps(cfg, batch, seed, steps, { ...OPT, ...hp });
  const params = initParams(cfg, seed);
  const P = params.length;
  const m = new Float32Array(P);
  const v = new Float32Array(P);
  const cpuLosses: number[] = [];
  for (let s = 1; s <= steps; s++) cpuLosses.push(cpuStep(cfg, params, m, v, batch, s, hp).loss);
  return { gpu: gpuRun.losses, cpu: cpuLosses };
}

/**
 * Count every queue.submit and mapAsync the page makes during one training step (wrapping the
 * device's queue and GPUBuffer.prototype.mapAsync), independently of the trainer's counters.
 */
export async function submitCount(steps: number) {
  const cfg: ModelConfig = { vocabSize: 64, maxT: 16, C: 32, L: 2, NH: 2 };
  const batch = makeBatch(cfg, 2, 16, [16, 11], 3);
  const { gpu, model, trainer } = await setup(cfg, 2, 16, 3, { ...OPT, lr: 1e-3 });
  const counts = countGpuCalls(gpu);
  const perStep: Array<{ submits: number; maps: number }> = [];
  for (let s = 0; s < steps; s++) {
    counts.reset();
    await trainer.trainStep(batch);
    perStep.push({ submits: counts.submits, maps: counts.maps });
  }
  counts.restore();
  const out = { perStep, counters: trainer.lastCounters, dispatches: trainer.dispatchCount(2, 16) };
  trainer.destroy();
  model.destroy();
  return out;
}

function countGpuCalls(gpu: Gpu) {
  const q = gpu.device.queue;
  const submit = q.submit.bind(q);
  const proto = GPUBuffer.prototype;
  const map = proto.mapAsync;
  const c = { submits: 0, maps: 0 };
  q.submit = (bufs: Iterable<GPUCommandBuffer>) => {
    c.submits++;
    return submit(bufs);
  };
  proto.mapAsync = function (this: GPUBuffer, ...args: Parameters<GPUBuffer['mapAsync']>) {
    c.maps++;
    return map.apply(this, args);
  };
  return {
    get submits() {
      return c.submits;
    },
    get maps() {
      return c.maps;
    },
    reset() {
      c.submits = 0;
      c.maps = 0;
    },
    restore() {
      q.submit = submit;
      proto.mapAsync = map;
    },
  };
}

/**
 * A NaN parameter makes the gradient norm non-finite: the step must throw, and parameters,
 * moments and the step counter must be unchanged (AdamW skipped on the GPU, no readback first).
 */
export async function nonFiniteCheck() {
  const cfg: ModelConfig = { vocabSize: 64, maxT: 16, C: 32, L: 2, NH: 2 };
  const batch = makeBatch(cfg, 2, 16, [16, 11], 3);
  const { model, trainer } = await setup(cfg, 2, 16, 3, { ...OPT, lr: 1e-3 });
  const p0 = initParams(cfg, 3);
  p0[5] = NaN; // wte[0][5]: poisons every position that embeds token 0 and, via the tied head, all logits
  model.writeParams(p0);
  let message = '';
  try {
    await trainer.trainStep(batch);
  } catch (e) {
    message = (e as Error).message;
  }
  const p1 = await model.readParams();
  const { m, v } = await trainer.readMoments();
  let changed = 0;
  const a = new Uint32Array(p0.buffer);
  const b = new Uint32Array(p1.buffer);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) changed++;
  const momentsZero = m.every((x) => x === 0) && v.every((x) => x === 0);
  const step = trainer.step;
  trainer.destroy();
  model.destroy();
  return { message, changed, momentsZero, step };
}

/**
 * The loss head's skip word gates AdamW in the same submit (the RL non-finite flag's path): an
 * SFT head with a test-owned skip word. Step A (flag = 1) must leave params, m, v bit-identical,
 * report skipped, keep t = 0 and ask the LR schedule for step 1 again on the next step; step B
 * (flag = 0) must then equal, bit for bit, the first step of a fresh trainer that never saw the
 * flagged step (so the skipped step left no trace: no moment decay, no weight decay, no t).
 */
export async function skipFlagCheck() {
  const cfg: ModelConfig = { vocabSize: 64, maxT: 16, C: 32, L: 2, NH: 2 };
  const batch = makeBatch(cfg, 2, 16, [16, 11], 4);
  const gpu = await sharedGpu();
  const flag = createStorage(gpu.device, 'test skip flag', 16);
  const sft = sftLossHead();
  const head: LossHead = {
    ...sft,
    prepare: (c) => sft.prepare(c),
    write: (c, b, s) => sft.write(c, b, s),
    skipFlag: { buffer: flag, offset: 0 },
  };
  const lrCalls: number[] = [];
  const lr = (t: number) => (lrCalls.push(t), 1e-3 * t);
  const { model, trainer } = await setup(cfg, 2, 16, 5, { ...OPT, lr, lossHead: head, onSkip: 'report' });
  const p0 = await model.readParams();
  const bits = (a: Float32Array, b: Float32Array) => {
    const x = new Uint32Array(a.buffer),
      y = new Uint32Array(b.buffer);
    let n = 0;
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) n++;
    return n;
  };
  gpu.device.queue.writeBuffer(flag, 0, new Uint32Array([1, 0, 0, 0]));
  const a = await trainer.trainStep(batch);
  const pA = await model.readParams();
  const mA = await trainer.readMoments();
  const afterSkip = {
    skipped: a.skipped,
    gradScale: a.gradScale,
    step: trainer.step,
    changedParams: bits(p0, pA),
    nonzeroMoments: mA.m.filter((x) => x !== 0).length + mA.v.filter((x) => x !== 0).length,
  };
  gpu.device.queue.writeBuffer(flag, 0, new Uint32Array([0, 0, 0, 0]));
  const b = await trainer.trainStep(batch);
  const pB = await model.readParams();
  const mB = await trainer.readMoments();
  trainer.destroy();
  model.destroy();
  // Reference: a fresh trainer, one unflagged step.
  const fresh = await setup(cfg, 2, 16, 5, { ...OPT, lr: (t) => 1e-3 * t });
  await fresh.trainer.trainStep(batch);
  const pR = await fresh.model.readParams();
  const mR = await fresh.trainer.readMoments();
  fresh.trainer.destroy();
  fresh.model.destroy();
  flag.destroy();
  return {
    afterSkip,
    applied: { skipped: b.skipped, step: trainer.step, changedParams: bits(p0, pB) },
    lrCalls,
    vsFresh: { params: bits(pB, pR), m: bits(mB.m, mR.m), v: bits(mB.v, mR.v) },
  };
}

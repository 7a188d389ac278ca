// Browser side of rl_trainer.spec.ts: the RL trainer's GPU advantages against the CPU
// references, and short updates on a tiny model.
import { createGpu, type Gpu } from '../../src/engine/webgpu/device';
import { GpuModel } from '../../src/engine/webgpu/gpu_model';
import { initParams } from '../../src/model/init';
import type { ModelConfig } from '../../src/model/config';
import { rlLossConfig, type RlLossConfig } from '../../src/rl/config';
import { RlTrainer } from '../../src/engine/webgpu/gpu_rl_trainer';
import { policyTokenEntropy, type RlTrainerOptions, type RlUpdateMetrics } from '../../src/rl/update';
import type { TrajectoryLike } from '../../src/rl/trainer_batch';
import { grpoAdvantages, ppoAdvantages } from '../../src/rl/advantages';
import { Rng } from '../../src/util/rng';
import { rlLossHead } from '../../src/engine/webgpu/trainer_head';
import { GpuTrainer } from '../../src/engine/webgpu/gpu_train';
import { Sampler } from '../../src/engine/webgpu/gpu_sampler';
import { readRlMetrics } from './lib/rl_step';
import { RL_METRIC_NAMES } from '../../src/reference/rl_metrics';
import { buildRows, minibatchIndices, sliceRows } from '../../src/rl/trainer_batch';
import { WasmEngine } from '../../src/engine/wasm/wasm_runtime';
import { WasmModel } from '../../src/engine/wasm/wasm_model';
import { WasmRlTrainer } from '../../src/engine/wasm/wasm_rl_trainer';

const CFG: ModelConfig = { vocabSize: 64, maxT: 32, C: 32, L: 1, NH: 2 };

let shared: Promise<Gpu> | null = null;
function sharedGpu(): Promise<Gpu> {
  return (shared ??= createGpu());
}

/**
 * Seeded trajectories: `groups` groups of G episodes, 1–3 turns each (contexts 3–10 ids,
 * actions 1–8 ids, log-probs in (−4, −0.05)). Rewards per group: all equal (std 0 → exactly 0
 * advantage), one success, non-dyadic values, random; terminated / truncated mixed.
 */
function makeTrajs(seed: number, groups: number, G: number): TrajectoryLike[] {
  const rng = new Rng(seed);
  const out: TrajectoryLike[] = [];
  for (let g = 0; g < groups; g++) {
    for (let k = 0; k < G; k++) {
      const kind = g % 4;
      const reward = kind === 0 ? 0.5 : kind === 1 ? (k === 0 ? 1 : 0) : kind === 2 ? (0.1 * (k + 1)) / 3 : rng.float() * 2 - 1;
      const nTurns = 1 + rng.int(3);
      const turns = Array.from({ length: nTurns }, () => {
        const nc = 3 + rng.int(8);
        const na = 1 + rng.int(8);
        return {
          contextIds: Int32Array.from({ length: nc }, () => 1 + rng.int(CFG.vocabSize - 1)),
          actionIds: Int32Array.from({ length: na }, () => 1 + rng.int(CFG.vocabSize - 1)),
          logprobs: Float32Array.from({ length: na }, () => -0.05 - rng.float() * 3.95),
        };
      });
      const truncated = rng.float() < 0.3;
      out.push({ group: g, reward, terminated: !truncated, truncated, turns });
    }
  }
  return out;
}

/** Trainer options a test may set on top of setup's fixed ones. */
type ExtraOpts = Pick<RlTrainerOptions, 'dropZeroVarianceGroups'>;

async function setup(cfg: RlLossConfig, seed: number, maxB: number, minibatches = 2, extra: ExtraOpts = {}) {
  const gpu = await sharedGpu();
  const model = GpuModel.create(gpu, CFG, { maxB, maxT: CFG.maxT });
  model.writeParams(initParams(CFG, seed));
  const trainer = RlTrainer.create(gpu, model, {
    cfg,
    lr: 1e-3,
    weightDecay: 0.01,
    maxGradNorm: 1,
    epochs: 1,
    minibatches,
    padId: 0,
    seed,
    ...extra,
  });
  return { model, trainer };
}

function maxErr(a: Float32Array, b: Float32Array): { maxAbsErr: number; refMax: number; n: number } {
  let e = 0;
  let r = 0;
  for (let i = 0; i < b.length; i++) {
    e = Math.max(e, Math.abs(a[i] - b[i]) / Math.max(1, Math.abs(b[i])));
    r = Math.max(r, Math.abs(b[i]));
  }
  return { maxAbsErr: a.length === b.length ? e : Infinity, refMax: r, n: b.length };
}

/**
 * GPU advantages (what RlTrainer.update encoded and its loss read, `applied`) vs the CPU
 * estimators of the registry (advantages.ts), for GRPO (with and without std division) and PPO
 * (GAE with and without normalization). The zero-variance filter is off so every group is
 * trained on. Errors are |gpu − ref| / max(1, |ref|).
 */
export async function advantageOracle(seed: number) {
  const trajs = makeTrajs(seed, 4, 4);
  const out: Record<string, { adv: ReturnType<typeof maxErr>; ret?: ReturnType<typeof maxErr>; zeroGroupMax: number }> = {};
  const cases: Array<[string, RlLossConfig]> = [
    ['grpo', rlLossConfig({ algorithm: 'grpo' })],
    ['grpo-noStd', rlLossConfig({ algorithm: 'grpo', noStdDivision: true })],
    ['ppo', rlLossConfig({ algorithm: 'ppo', normalizeAdvantages: false, gamma: 0.99, lambda: 0.95 })],
    ['ppo-norm', rlLossConfig({ algorithm: 'ppo', normalizeAdvantages: true, gamma: 1, lambda: 1 })],
  ];
  for (const [name, cfg] of cases) {
    const { model, trainer } = await setup(cfg, seed, 8, 2, { dropZeroVarianceGroups: false });
    const { applied } = await trainer.update(trajs, 1);
    if (!applied.rows || applied.kept.length !== trajs.length) throw new Error('advantageOracle: the update left trajectories out');
    const g = { ...applied, rows: applied.rows };
    const ref = cfg.algorithm === 'ppo' ? ppoAdvantages(trajs, g.rows, g.oldValues!, cfg) : grpoAdvantages(trajs, g.rows, cfg);
    // Group 0 (all rewards equal): every GRPO advantage of its rows must be exactly 0.
    let zeroGroupMax = 0;
    for (let b = 0; b < g.rows.B; b++) {
      if (trajs[g.rows.rowEpisode[b]].group !== 0) continue;
      for (let t = 0; t < g.rows.T; t++) zeroGroupMax = Math.max(zeroGroupMax, Math.abs(g.advantages[b * g.rows.T + t]));
    }
    out[name] = {
      adv: maxErr(g.advantages, ref.advantages),
      zeroGroupMax,
      ...(ref.returns && g.returns ? { ret: maxErr(g.returns, ref.returns) } : {}),
    };
    trainer.destroy();
    model.destroy();
  }
  return out;
}

/** A short run: `steps` updates of one config; per-update metrics. */
export async function shortRun(
  seed: number,
  overrides: Partial<RlLossConfig>,
  steps: number,
  maxB = 8,
  minibatches = 2,
  extra: ExtraOpts = {},
) {
  const cfg = rlLossConfig(overrides);
  const { model, trainer } = await setup(cfg, seed, maxB, minibatches, extra);
  const trajs = makeTrajs(seed + 1, 2, 4);
  const metrics = [];
  for (let s = 1; s <= steps; s++) metrics.push((await trainer.update(trajs, s)).metrics);
  trainer.destroy();
  model.destroy();
  return metrics.map(({ ms: _ms, ...m }) => m);
}

/**
 * GPU objects created per optimizer step: wraps device.createBuffer / createBindGroup and counts
 * those made during each GpuTrainer.trainStep, readback staging buffers included (the RL metrics
 * ride on the step's own persistent staging buffer).
 * maxB = 2 with 4 minibatches: several optimizer steps per update, those of more than 2 rows
 * in several chunks (`shapes`: each chunk's "B:T").
 */
export async function stepAllocations(seed: number, overrides: Partial<RlLossConfig>, updates = 2) {
  const cfg = rlLossConfig(overrides);
  const { model, trainer } = await setup(cfg, seed, 2, 4);
  const trajs = makeTrajs(seed + 1, 2, 4);
  const dev = (await sharedGpu()).device;
  const own = dev as unknown as Record<string, unknown>;
  type Step = { update: number; shapes: string[]; buffers: number; bindGroups: number; labels: string[] };
  const steps: Step[] = [];
  const between: Step = { update: 0, shapes: [], buffers: 0, bindGroups: 0, labels: [] };
  let cur: Step = { ...between };
  const createBuffer = dev.createBuffer;
  const createBindGroup = dev.createBindGroup;
  dev.createBuffer = function (desc: GPUBufferDescriptor) {
    cur.buffers++;
    cur.labels.push(`buffer ${desc.label}`);
    return createBuffer.call(this, desc);
  };
  dev.createBindGroup = function (desc: GPUBindGroupDescriptor) {
    cur.bindGroups++;
    cur.labels.push(`bindGroup ${desc.label}`);
    return createBindGroup.call(this, desc);
  };
  const gt = trainer.trainer as unknown as { trainStep: (...a: unknown[]) => Promise<unknown> };
  const trainStep = gt.trainStep.bind(gt);
  let update = 0;
  gt.trainStep = (batch, prelude) => {
    const chunks = (Array.isArray(batch) ? batch : [batch]) as Array<{ B: number; T: number }>;
    const step: Step = { update, shapes: chunks.map((c) => `${c.B}:${c.T}`), buffers: 0, bindGroups: 0, labels: [] };
    cur = step;
    steps.push(step);
    // Count what the step itself creates (batch uploads, head.write, encode, submits, its
    // readback); per-update work between steps (the advantage buffers) goes elsewhere.
    return trainStep(batch, prelude).finally(() => {
      if (cur === step) cur = { ...between };
    });
  };
  try {
    for (update = 1; update <= updates; update++) await trainer.update(trajs, update);
  } finally {
    // Own properties shadowing the prototype's methods: deleting them restores the originals.
    delete own.createBuffer;
    delete own.createBindGroup;
    delete (gt as Record<string, unknown>).trainStep;
    trainer.destroy();
    model.destroy();
  }
  return steps;
}

/** Indices where two f32 arrays differ bitwise (NaN-safe; −0 ≠ +0), and the lengths. */
function bitDiff(a: Float32Array, b: Float32Array): { differ: number; n: number } {
  const ua = new Uint32Array(a.buffer, a.byteOffset, a.length);
  const ub = new Uint32Array(b.buffer, b.byteOffset, b.length);
  let differ = a.length === b.length ? 0 : Infinity;
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (ua[i] !== ub[i]) differ++;
  return { differ, n: a.length };
}

type Metrics = Omit<RlUpdateMetrics, 'ms'>;
const noMs = ({ ms: _ms, ...m }: RlUpdateMetrics): Metrics => m;

/**
 * Zero-variance group filtering (RlTrainer.update, dropZeroVarianceGroups). makeTrajs(seed, 2, 4):
 * group 0 has rewards all 0.5 (zero variance), group 1 one success (mixed). GRPO, klCoef =
 * entCoef = 0, maxB 8, 2 minibatches unless stated.
 *   mixed:   filter on over both groups vs filter off over group 1 alone, from the same init and
 *            seed: bitwise parameter difference, both metrics, and a filter-off run over both
 *            groups (its entropy and that the filter changes the update at all).
 *   allEqual: a normal update first (moments ≠ 0, AdamW t = 1), then a batch whose groups are
 *            all constant: state differences across that update, its metrics, the CPU entropy.
 *   off:     the all-equal batch with the filter off (metrics).
 *   kl / ent / ppo: both groups with klCoef > 0, entCoef > 0 or PPO, filter on (metrics: they
 *            must drop nothing and train on offAll's rows).
 */
export async function zeroVarianceFilter(seed: number) {
  const trajs = makeTrajs(seed, 2, 4);
  const mixedOnly = trajs.filter((t) => t.group === 1);
  const grpo = rlLossConfig({ algorithm: 'grpo' });
  const run = async (cfg: RlLossConfig, extra: ExtraOpts, batches: TrajectoryLike[][]) => {
    const { model, trainer } = await setup(cfg, seed, 8, 2, extra);
    try {
      const init = await model.readParams();
      const states = [await trainer.readState()];
      const metrics: Metrics[] = [];
      for (let i = 0; i < batches.length; i++) {
        metrics.push(noMs((await trainer.update(batches[i], i + 1)).metrics));
        states.push(await trainer.readState());
      }
      return { init, states, metrics };
    } finally {
      trainer.destroy();
      model.destroy();
    }
  };
  const on = await run(grpo, {}, [trajs]);
  const onlyMixed = await run(grpo, { dropZeroVarianceGroups: false }, [mixedOnly]);
  const offAll = await run(grpo, { dropZeroVarianceGroups: false }, [trajs]);
  const mixed = {
    metrics: on.metrics[0],
    onlyMixed: onlyMixed.metrics[0],
    offAll: offAll.metrics[0],
    vsOnlyMixed: bitDiff(on.states[1].params, onlyMixed.states[1].params),
    vsInit: bitDiff(on.states[1].params, on.init),
    vsOffAll: bitDiff(on.states[1].params, offAll.states[1].params),
    cpuEntropyAll: policyTokenEntropy(trajs),
  };

  // Every group constant: group 1's rewards all 0 as well (a step where nothing passed).
  const constant = trajs.map((t) => (t.group === 1 ? { ...t, reward: 0 } : t));
  const seq = await run(grpo, {}, [trajs, constant]);
  const [, s1, s2] = seq.states;
  const allEqual = {
    first: seq.metrics[0],
    metrics: seq.metrics[1],
    params: bitDiff(s2.params, s1.params),
    m: bitDiff(s2.m, s1.m),
    v: bitDiff(s2.v, s1.v),
    adamStep: [s1.adamStep, s2.adamStep],
    mNonZero: s1.m.some((x) => x !== 0),
    cpuEntropyAll: policyTokenEntropy(constant),
  };
  const off = (await run(grpo, { dropZeroVarianceGroups: false }, [constant])).metrics[0];

  const kl = (await run(rlLossConfig({ algorithm: 'grpo', klCoef: 0.1 }), {}, [trajs])).metrics[0];
  const ent = (await run(rlLossConfig({ algorithm: 'grpo', entCoef: 0.01 }), {}, [trajs])).metrics[0];
  const ppo = (await run(rlLossConfig({ algorithm: 'ppo' }), {}, [trajs])).metrics[0];
  return { mixed, allEqual, off, kl, ent, ppo };
}

/**
 * 'seq-mean-token-sum-norm' in the GPU loss head: the same two rows right-padded from T = 8 to
 * T = 58 (mask 0) give the same policy loss, and with tokenSumNorm null the constant is the
 * model's maxT (the loss × constant equals that with an explicit tokenSumNorm = 16 × 16).
 * The trainer runs at lr 0 so the parameters, hence the log-probs, stay the same.
 */
export async function sumNormPadding(seed: number) {
  const gpu = await sharedGpu();
  const cfgM: ModelConfig = { vocabSize: 64, maxT: 64, C: 32, L: 1, NH: 2 };
  const model = GpuModel.create(gpu, cfgM, { maxB: 2, maxT: 64 });
  model.writeParams(initParams(cfgM, seed));
  const rng = new Rng(seed);
  const T0 = 8;
  const ids0 = Int32Array.from({ length: 2 * T0 }, () => 1 + rng.int(63));
  const tgt0 = Int32Array.from({ length: 2 * T0 }, () => 1 + rng.int(63));
  const mask0 = Float32Array.from({ length: 2 * T0 }, (_, i) => (i % T0 >= 3 && !(i >= T0 && i % T0 >= 6) ? 1 : 0));
  const old0 = Float32Array.from({ length: 2 * T0 }, () => -4.3 + 0.4 * rng.float());
  const adv0 = Float32Array.from({ length: 2 * T0 }, (_, i) => (i < T0 ? 0.8 : -0.6));
  const pad = (a: Int32Array | Float32Array, T: number) => {
    const o = new (a.constructor as Int32ArrayConstructor | Float32ArrayConstructor)(2 * T);
    for (let b = 0; b < 2; b++) o.set(a.subarray(b * T0, (b + 1) * T0), b * T);
    return o;
  };
  const lossAt = async (T: number, tokenSumNorm: number | null) => {
    const head = rlLossHead(gpu, rlLossConfig({ algorithm: 'grpo', aggregation: 'seq-mean-token-sum-norm', tokenSumNorm }), 2 * 64);
    const trainer = GpuTrainer.create(model, { lr: 0, weightDecay: 0, lossHead: head, onSkip: 'report' });
    const m = await trainer.trainStep({
      B: 2,
      T,
      ids: pad(ids0, T) as Int32Array,
      targets: pad(tgt0, T) as Int32Array,
      mask: pad(mask0, T) as Float32Array,
      extra: { oldLogprobs: pad(old0, T) as Float32Array, advantages: pad(adv0, T) as Float32Array },
    });
    trainer.destroy();
    return m.head.policyLoss;
  };
  const r = { t8: await lossAt(8, null), t58: await lossAt(58, null), t8Norm16: await lossAt(8, 16), t58Norm16: await lossAt(58, 16) };
  model.destroy();
  return r;
}

/**
 * Rollouts sampled on the GPU at temperature `tau` (Sampler, 8 prompts × 6 new tokens) and the
 * first optimizer step of a GRPO trainer scoring at `trainTau` (one minibatch: every row in one
 * step, so the step's metrics are measured before any parameter moved), with the KL reference
 * (klCoef 0.1) and the entropy bonus on, so every τ-dependent path of the head runs. Returns the
 * update's approxKl, clipFrac, klRef and the step's ratio range (the head's metrics buffer).
 */
export async function onPolicyAtTemperature(seed: number, tau: number, trainTau: number) {
  const gpu = await sharedGpu();
  const B = 8;
  const model = GpuModel.create(gpu, CFG, { maxB: B, maxT: CFG.maxT });
  const p = initParams(CFG, seed);
  const rng = new Rng(seed + 1);
  // Larger weights than the init's: a peaked policy, where τ changes log π by a lot.
  for (let i = 0; i < p.length; i++) p[i] += 0.3 * rng.normal();
  model.writeParams(p);
  const prompts = Array.from({ length: B }, () => Int32Array.from({ length: 3 + rng.int(6) }, () => 1 + rng.int(CFG.vocabSize - 1)));
  const { rows } = await new Sampler(model).sample({ prompts, maxNewTokens: 6, temperature: tau, seed: seed + 2 });
  const trajs: TrajectoryLike[] = rows.map((r, i) => ({
    group: Math.floor(i / 4),
    reward: i % 4 === 0 ? 1 : 0,
    terminated: true,
    truncated: false,
    turns: [{ contextIds: prompts[i], actionIds: r.ids, logprobs: r.logprobs }],
  }));
  const cfg = rlLossConfig({ algorithm: 'grpo', temperature: trainTau, klCoef: 0.1, entCoef: 0.01 });
  const trainer = RlTrainer.create(gpu, model, {
    cfg,
    lr: 1e-3,
    weightDecay: 0,
    maxGradNorm: 1,
    epochs: 1,
    minibatches: 1,
    padId: 0,
    seed,
  });
  const m = (await trainer.update(trajs, 1)).metrics;
  const step = await readRlMetrics(gpu, trainer.head.state);
  trainer.destroy();
  model.destroy();
  return {
    tokens: m.tokens,
    optimizerSteps: m.optimizerSteps,
    skippedSteps: m.skippedSteps,
    approxKl: m.approxKl,
    clipFrac: m.clipFrac,
    klRef: m.klRef,
    ratioMin: step.ratioMin,
    ratioMax: step.ratioMax,
  };
}

/** max |a − b| / max |ref| (Infinity on a length mismatch). */
function relErr(a: Float32Array, b: Float32Array, ref: Float32Array = b): number {
  if (a.length !== b.length) return Infinity;
  let d = 0;
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    d = Math.max(d, Math.abs(a[i] - b[i]));
    m = Math.max(m, Math.abs(ref[i]));
  }
  return d / m;
}

/**
 * max |a − b| over the parameters whose reference gradient |g| ≥ 1e-3·max |g|: the first AdamW
 * step is ≈ ±lr·sign(g), ill-conditioned only where g is at rounding level, so elsewhere two
 * steps from the same parameters with equal gradients must land on the same parameters.
 */
function paramErr(a: Float32Array, b: Float32Array, g: Float32Array): { maxAbsErr: number; n: number } {
  let gMax = 0;
  for (const x of g) gMax = Math.max(gMax, Math.abs(x));
  let e = 0;
  let n = 0;
  for (let i = 0; i < g.length; i++) {
    if (!(Math.abs(g[i]) >= 1e-3 * gMax)) continue;
    e = Math.max(e, Math.abs(a[i] - b[i]));
    n++;
  }
  return { maxAbsErr: a.length === b.length ? e : Infinity, n };
}

/**
 * Gradient accumulation: one update (epochs = minibatches = 1, so ONE optimizer step) whose
 * minibatch has more rows than the GPU model's maxB, against the same update in one chunk
 * (maxB 32) and against the CPU engine (WasmRlTrainer, chunks of maxB rows, itself tested against
 * an f64 oracle in tests/unit/wasm_rl_trainer.test.ts). Same initial parameters, trajectories
 * and seed. Returns the rows, each run's update metrics and AdamW step, the gradient errors
 * (relErr: max |Δg| / max |g_ref|), the parameter errors (paramErr), how far the chunked step
 * moved the parameters, and per named head metric of the step the chunked–whole error
 * |Δ| / max(1, |whole|).
 */
export async function chunkedStep(seed: number, overrides: Partial<RlLossConfig>, maxB: number) {
  const cfg = rlLossConfig(overrides);
  const gpu = await sharedGpu();
  const trajs = makeTrajs(seed + 1, 2, 4);
  const extra: ExtraOpts = { dropZeroVarianceGroups: false };
  const gpuRun = async (mb: number) => {
    const { model, trainer } = await setup(cfg, seed, mb, 1, extra);
    try {
      const p0 = await model.readParams();
      const metrics = noMs((await trainer.update(trajs, 1)).metrics);
      const head = await readRlMetrics(gpu, trainer.head.state);
      const grads = await trainer.trainer.readGrads();
      const st = await trainer.readState();
      return { p0, metrics, head, grads, params: st.params, adamStep: st.adamStep };
    } finally {
      trainer.destroy();
      model.destroy();
    }
  };
  const chunked = await gpuRun(maxB);
  const whole = await gpuRun(32);
  const engine = await WasmEngine.create({ threads: 1 });
  try {
    const wm = WasmModel.create(engine, CFG);
    wm.writeParams(initParams(CFG, seed));
    const wt = WasmRlTrainer.create(
      wm,
      { cfg, lr: 1e-3, weightDecay: 0.01, maxGradNorm: 1, epochs: 1, minibatches: 1, padId: 0, seed, ...extra },
      maxB,
    );
    const cpu = noMs((await wt.update(trajs, 1)).metrics);
    const cpuGrads = wm.grads.read();
    const cpuParams = wm.readParams();
    let moved = 0;
    for (let i = 0; i < chunked.params.length; i++) moved = Math.max(moved, Math.abs(chunked.params[i] - chunked.p0[i]));
    const headErr: Record<string, number> = {};
    for (const k of RL_METRIC_NAMES) headErr[k] = Math.abs(chunked.head[k] - whole.head[k]) / Math.max(1, Math.abs(whole.head[k]));
    return {
      rows: buildRows(trajs, 0, CFG.maxT).B,
      metrics: { chunked: chunked.metrics, whole: whole.metrics, cpu },
      adamStep: { chunked: chunked.adamStep, whole: whole.adamStep, cpu: wt.adamStep },
      grads: {
        vsWhole: relErr(chunked.grads, whole.grads),
        vsCpu: relErr(chunked.grads, cpuGrads),
        wholeVsCpu: relErr(whole.grads, cpuGrads),
      },
      params: { vsWhole: paramErr(chunked.params, whole.params, whole.grads), vsCpu: paramErr(chunked.params, cpuParams, cpuGrads) },
      moved,
      headErr,
    };
  } finally {
    engine.destroy();
  }
}

/**
 * The non-finite flag is OR-ed over the chunks of a step: a GPU trainer of maxB 3 with the RL
 * head (no advantage source) takes one step over the rows of makeTrajs in chunks of 3, with a NaN
 * old log-prob at a PADDED position (mask 0) of chunk `at` ('first' or 'last'), so the gradient
 * stays finite and only the head's flag can skip the step. Then the same chunks without the NaN.
 * Returns the skipped step's report, bitwise differences of params / m / v across it, the AdamW
 * step counter, and whether the clean step applied.
 */
export async function nonfiniteChunk(seed: number, at: 'first' | 'last') {
  const gpu = await sharedGpu();
  const cfg = rlLossConfig({ algorithm: 'grpo' });
  const maxB = 3;
  const model = GpuModel.create(gpu, CFG, { maxB, maxT: CFG.maxT });
  model.writeParams(initParams(CFG, seed));
  const head = rlLossHead(gpu, cfg, maxB * CFG.maxT);
  const trainer = GpuTrainer.create(model, { lr: 1e-3, weightDecay: 0.01, maxNorm: 1, lossHead: head, onSkip: 'report' });
  try {
    const trajs = makeTrajs(seed + 1, 2, 4);
    const rows = buildRows(trajs, 0, CFG.maxT);
    const { T } = rows;
    const rng = new Rng(seed + 2);
    const advantages = Float32Array.from(rows.mask, (m) => (m > 0 ? rng.float() * 2 - 1 : 0));
    const [mb] = minibatchIndices(rows.B, 1, seed, 1, 0);
    const chunks = [];
    for (let c = 0; c < mb.length; c += maxB) {
      const idx = mb.slice(c, c + maxB);
      chunks.push({
        B: idx.length,
        T,
        ids: sliceRows(rows.ids, T, idx),
        targets: sliceRows(rows.targets, T, idx),
        mask: sliceRows(rows.mask, T, idx),
        extra: { oldLogprobs: sliceRows(rows.oldLogprobs, T, idx), advantages: sliceRows(advantages, T, idx) },
      });
    }
    const k = at === 'first' ? 0 : chunks.length - 1;
    const bad = chunks.map((c, i) => {
      if (i !== k) return c;
      const old = c.extra.oldLogprobs.slice();
      const pad = c.mask.findIndex((m) => !(m > 0));
      if (pad < 0) throw new Error('nonfiniteChunk: the chunk has no padded position');
      old[pad] = NaN;
      return { ...c, extra: { ...c.extra, oldLogprobs: old } };
    });
    const s0 = { params: await model.readParams(), ...(await trainer.readMoments()), step: trainer.step };
    const skipped = await trainer.trainStep(bad);
    const s1 = { params: await model.readParams(), ...(await trainer.readMoments()), step: trainer.step };
    const flagged = await readRlMetrics(gpu, head.state);
    const clean = await trainer.trainStep(chunks);
    const s2 = await model.readParams();
    return {
      chunks: chunks.length,
      skipped: {
        skipped: skipped.skipped,
        gradScale: skipped.gradScale,
        gradNorm: skipped.gradNorm,
        headSkipped: flagged.skipped,
        nonfiniteMask: flagged.nonfiniteMask,
      },
      params: bitDiff(s1.params, s0.params),
      m: bitDiff(s1.m, s0.m),
      v: bitDiff(s1.v, s0.v),
      step: [s0.step, s1.step, trainer.step],
      clean: { skipped: clean.skipped, changed: bitDiff(s2, s1.params).differ },
    };
  } finally {
    trainer.destroy();
    head.destroy();
    model.destroy();
  }
}

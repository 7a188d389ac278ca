/**
 * The RL update on the CPU engine (src/engine/wasm/wasm_rl_trainer.ts) against an f64 oracle composed of
 * the references (cpuForward → log-probs → rlStepRef → ∂L/∂z → cpuBackward → adamwUpdateRef)
 * for GRPO, PPO (value loss, GAE) and KL + entropy terms, in one chunk and in chunks of maxB
 * rows (gradient accumulation: one optimizer step either way); the non-finite skip; the
 * zero-variance filter; 1 vs 2 threads bit-identical.
 */
import { describe, expect, it } from 'vitest';
import { useEngines } from './lib/wasm_engines';
import type { WasmEngine } from '../../src/engine/wasm/wasm_runtime';
import { WasmModel } from '../../src/engine/wasm/wasm_model';
import { WasmRlTrainer } from '../../src/engine/wasm/wasm_rl_trainer';
import { WasmSampler } from '../../src/engine/wasm/wasm_sampler';
import { logprobForward } from '../../src/engine/wasm/wasm_kernels';
import { cpuBackward, cpuForward } from '../../src/model/cpu_model';
import { initParams } from '../../src/model/init';
import { adamwUpdateRef } from '../../src/reference/adamw_update.ref';
import { globalNormForwardRef } from '../../src/reference/global_norm_forward.ref';
import { rlLossConfig, type RlLossConfig } from '../../src/rl/config';
import { rlStepRef } from '../../src/rl/loss_ref';
import { buildRows, type RlRows, type TrajectoryLike } from '../../src/rl/trainer_batch';
import { grpoAdvantages, ppoAdvantages } from '../../src/rl/advantages';
import type { ModelConfig } from '../../src/model/config';
import { Rng } from '../../src/util/rng';

const cfg: ModelConfig = { vocabSize: 29, maxT: 48, C: 16, L: 2, NH: 2 };
const PAD = 0;

function params(seed: number): Float32Array {
  const p = initParams(cfg, seed);
  const r = new Rng(seed + 7);
  for (let i = 0; i < p.length; i++) p[i] += 0.2 * r.normal();
  return p;
}

/** G groups × K episodes, 1–2 turns each, rewards varying inside each group. */
function trajectories(seed: number, G = 2, K = 3): TrajectoryLike[] {
  const r = new Rng(seed);
  const out: TrajectoryLike[] = [];
  for (let g = 0; g < G; g++) {
    for (let k = 0; k < K; k++) {
      const turns = Array.from({ length: 1 + r.int(2) }, () => {
        const ctx = Int32Array.from({ length: 3 + r.int(8) }, () => 1 + r.int(cfg.vocabSize - 1));
        const act = Int32Array.from({ length: 1 + r.int(5) }, () => 1 + r.int(cfg.vocabSize - 1));
        return { contextIds: ctx, actionIds: act, logprobs: Float32Array.from(act, () => -1 - r.float()) };
      });
      out.push({ group: g, reward: (k + g) % 2 === 0 ? 1 : 0.25 * k, terminated: true, truncated: false, turns });
    }
  }
  return out;
}

/** The oracle's valid tokens per row: up to and including the last sampled id (last masked position + 2). */
function rowLengths(rows: RlRows): Int32Array {
  const { B, T } = rows;
  return Int32Array.from({ length: B }, (_, b) => {
    let last = -1;
    for (let t = 0; t < T; t++) if (rows.mask[b * T + t] > 0) last = t;
    return last < 0 ? T : Math.min(T, last + 2);
  });
}

/** The oracle: one optimizer step (epochs = minibatches = 1, all rows) in f64. */
function oracleStep(p0: Float32Array, trajs: TrajectoryLike[], rl: RlLossConfig, lr: number, wd: number) {
  const rows = buildRows(trajs, PAD, cfg.maxT);
  const { B, T } = rows;
  const V = cfg.vocabSize;
  const p64 = Float64Array.from(p0);
  const lengths = rowLengths(rows);
  const f = cpuForward(cfg, p64, rows.ids, lengths, { B, T });
  // log softmax(z/τ) and its softmax at the config's temperature, written out in f64.
  const tau = rl.temperature;
  const logp = new Float64Array(B * T);
  const soft = new Float64Array(B * T * V);
  for (let i = 0; i < B * T; i++) {
    if (!(rows.mask[i] > 0)) continue;
    let mx = -Infinity;
    for (let v = 0; v < V; v++) mx = Math.max(mx, f.logits[i * V + v] / tau);
    let s = 0;
    for (let v = 0; v < V; v++) s += Math.exp(f.logits[i * V + v] / tau - mx);
    const lse = mx + Math.log(s);
    logp[i] = f.logits[i * V + rows.targets[i]] / tau - lse;
    for (let v = 0; v < V; v++) soft[i * V + v] = Math.exp(f.logits[i * V + v] / tau - lse);
  }
  const oldValues = Float64Array.from(f.values);
  const adv =
    rl.algorithm === 'ppo'
      ? ppoAdvantages(trajs, rows, Float32Array.from(f.values), rl)
      : { ...grpoAdvantages(trajs, rows, rl), returns: null };
  const batch = {
    B,
    T,
    logprobs: logp,
    oldLogprobs: Float64Array.from(rows.oldLogprobs),
    advantages: Float64Array.from(adv.advantages),
    mask: Float64Array.from(rows.mask),
    refLogprobs: rl.klCoef > 0 ? logp.slice() : undefined,
    values: rl.algorithm === 'ppo' ? Float64Array.from(f.values) : undefined,
    oldValues: rl.algorithm === 'ppo' ? oldValues : undefined,
    returns: adv.returns ? Float64Array.from(adv.returns) : undefined,
    logits:
      rl.entCoef > 0
        ? (() => {
            const z = new Float64Array(B * T * V);
            for (let i = 0; i < B * T; i++) if (rows.mask[i] > 0) z.set(f.logits.subarray(i * V, i * V + V), i * V);
            return z;
          })()
        : undefined,
    vocab: V,
  };
  const { outputs, metrics } = rlStepRef([batch], rl, 0, cfg.maxT);
  const o = outputs[0];
  const dlogits = new Float64Array(B * T * V);
  for (let i = 0; i < B * T; i++) {
    if (!(rows.mask[i] > 0)) continue;
    // ∂ℓ/∂z = (onehot − softmax(z/τ))/τ
    for (let v = 0; v < V; v++)
      dlogits[i * V + v] =
        (-o.dlogprob[i] * (soft[i * V + v] - (v === rows.targets[i] ? 1 : 0))) / tau + (o.dlogitsEntropy ? o.dlogitsEntropy[i * V + v] : 0);
  }
  const g = cpuBackward(p64, f.cache, dlogits, o.dvalues);
  const { norm, gradScale } = globalNormForwardRef(g, 1);
  const p = Float64Array.from(p0);
  adamwUpdateRef(p, g, new Float64Array(p.length), new Float64Array(p.length), {
    lr,
    beta1: 0.9,
    beta2: 0.95,
    eps: 1e-8,
    weightDecay: wd,
    step: 1,
    gradScale,
  });
  return { params: p, grads: g, metrics, norm };
}

/**
 * A model of `e` at params(seed) and a trainer of it: one epoch of one minibatch at lr 1e-2, no
 * weight decay, gradient norm clipped at 1, chunks of up to 64 rows.
 */
function trainerAt(e: WasmEngine, seed: number, rl: Partial<RlLossConfig> = {}): { model: WasmModel; p0: Float32Array; tr: WasmRlTrainer } {
  const model = WasmModel.create(e, cfg);
  const p0 = params(seed);
  model.writeParams(p0);
  const opts = { cfg: rlLossConfig(rl), lr: 1e-2, weightDecay: 0, maxGradNorm: 1, epochs: 1, minibatches: 1, padId: PAD, seed: 0 };
  return { model, p0, tr: WasmRlTrainer.create(model, opts, 64) };
}

function maxRel(a: ArrayLike<number>, b: ArrayLike<number>, ref: ArrayLike<number>): number {
  let d = 0;
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    d = Math.max(d, Math.abs(a[i] - b[i]));
    m = Math.max(m, Math.abs(ref[i]));
  }
  return d / m;
}

describe('WasmRlTrainer', () => {
  const eng = useEngines();

  const cases: Array<[string, Partial<RlLossConfig>]> = [
    ['GRPO token-mean', {}],
    ['GRPO seq-mean-token-mean + KL k3 + entropy', { aggregation: 'seq-mean-token-mean', klCoef: 0.1, entCoef: 0.01 }],
    ['PPO (GAE, clipped value loss)', { algorithm: 'ppo', aggregation: 'seq-mean-token-sum-norm' }],
    ['GRPO at τ = 1.5 + KL k3 + entropy', { temperature: 1.5, klCoef: 0.1, entCoef: 0.01 }],
    ['PPO at τ = 0.7', { algorithm: 'ppo', temperature: 0.7 }],
  ];
  // maxB 3 < the rows of the update: the minibatch is scored in chunks whose gradients are summed
  // into ONE optimizer step with the minibatch's normalizer (gradient accumulation), so it must
  // equal the same oracle; a trainer that stepped per chunk would take several steps and fail.
  for (const [name, over, maxB] of cases.flatMap(([n, o]) => [[n, o, 64] as const, [`${n}, chunks of 3 rows`, o, 3] as const])) {
    it(`${name}: one update = the f64 oracle (gradient within 1e-4 of max |g|; metrics within 1e-4)`, async () => {
      const rl = rlLossConfig(over);
      const p0 = params(1);
      const trajs = trajectories(2);
      const lr = 1e-2;
      const model = WasmModel.create(eng.e2, cfg);
      model.writeParams(p0);
      const tr = WasmRlTrainer.create(
        model,
        { cfg: rl, lr, weightDecay: 0.01, maxGradNorm: 1, epochs: 1, minibatches: 1, padId: PAD, seed: 0 },
        maxB,
      );
      const m = (await tr.update(trajs, 1)).metrics;
      if (maxB < 64) expect(buildRows(trajs, PAD, cfg.maxT).B).toBeGreaterThan(2 * maxB);
      const ref = oracleStep(p0, trajs, rl, lr, 0.01);
      expect(m.optimizerSteps).toBe(1);
      expect(m.skippedSteps).toBe(0);
      expect(tr.adamStep).toBe(1);
      // The gradient of the step (model.grads keeps it; the first AdamW step itself is
      // ±lr·sign(g), ill-conditioned where g is at rounding level, so gradients are compared).
      expect(maxRel(model.grads.read(), ref.grads, ref.grads)).toBeLessThan(1e-4);
      // And the update was applied with that gradient: p moved by ≈ lr where |g| is large.
      const got = model.readParams();
      let moved = 0;
      for (let i = 0; i < got.length; i++) moved = Math.max(moved, Math.abs(got[i] - p0[i]));
      expect(moved).toBeGreaterThan(0.5 * lr);
      expect(Math.abs(m.gradNorm - ref.norm) / ref.norm).toBeLessThan(1e-4);
      expect(Math.abs(m.policyLoss - ref.metrics.policyLoss)).toBeLessThan(1e-4 * Math.max(1, Math.abs(ref.metrics.policyLoss)));
      if (rl.algorithm === 'ppo')
        expect(Math.abs(m.valueLoss - ref.metrics.valueLoss)).toBeLessThan(1e-4 * Math.max(1, ref.metrics.valueLoss));
      if (rl.klCoef > 0) expect(m.klRef).toBeCloseTo(0, 6); // KL to the frozen start at step 1
    });
  }

  it('a NaN sampler log-prob skips the step: parameters, moments and the AdamW step unchanged', async () => {
    const { model, p0, tr } = trainerAt(eng.e1, 3);
    const trajs = trajectories(4);
    trajs[0].turns[0].logprobs[0] = NaN;
    const m = (await tr.update(trajs, 1)).metrics;
    expect(m.skippedSteps).toBe(1);
    expect(tr.adamStep).toBe(0);
    expect(Array.from(model.readParams())).toEqual(Array.from(p0));
    expect(model.m.read().every((x) => x === 0)).toBe(true);
  });

  it('all-equal groups are dropped and no optimizer step is taken', async () => {
    const { model, p0, tr } = trainerAt(eng.e1, 5);
    const trajs = trajectories(6).map((t) => ({ ...t, reward: 0 }));
    const m = (await tr.update(trajs, 1)).metrics;
    expect(m.optimizerSteps).toBe(0);
    expect(m.droppedGroups).toBe(2);
    expect(Array.from(model.readParams())).toEqual(Array.from(p0));
  });

  it('no trajectories at all (a dynamic-sampling step that found no informative group) applies nothing, under GRPO and PPO', async () => {
    for (const algorithm of ['grpo', 'ppo'] as const) {
      const { model, p0, tr } = trainerAt(eng.e1, 6, { algorithm });
      const u = await tr.update([], 1);
      expect([u.metrics.optimizerSteps, u.metrics.rows, u.metrics.droppedGroups, u.applied.kept.length]).toEqual([0, 0, 0, 0]);
      expect(tr.adamStep).toBe(0);
      expect(Array.from(model.readParams())).toEqual(Array.from(p0));
    }
  });

  it('2 epochs × 2 minibatches, maxB 2: 1 and 2 threads give bit-identical parameters', async () => {
    const run = async (e: WasmEngine) => {
      const model = WasmModel.create(e, cfg);
      model.writeParams(params(7));
      const tr = WasmRlTrainer.create(
        model,
        {
          cfg: rlLossConfig({ algorithm: 'ppo' }),
          lr: 1e-2,
          weightDecay: 0.01,
          maxGradNorm: 1,
          epochs: 2,
          minibatches: 2,
          padId: PAD,
          seed: 3,
        },
        2,
      );
      const m = (await tr.update(trajectories(8), 1)).metrics;
      return { p: Array.from(model.readParams()), m };
    };
    const a = await run(eng.e1);
    const b = await run(eng.e2);
    expect(a.m.optimizerSteps).toBe(4); // epochs × minibatches, whatever maxB
    expect(b.p).toEqual(a.p);
  });

  it('τ = 1.5: rollouts of WasmSampler at τ = 1.5 are on-policy for the trainer at τ = 1.5 (first step: approxKl < 1e-8, no clipping, every |ratio − 1| < 1e-4); a trainer at τ = 1 is not', async () => {
    const tau = 1.5;
    const p0 = params(11);
    const model = WasmModel.create(eng.e1, cfg);
    model.writeParams(p0);
    const r = new Rng(12);
    const prompts = Array.from({ length: 6 }, () => Int32Array.from({ length: 3 + r.int(6) }, () => 1 + r.int(cfg.vocabSize - 1)));
    const { rows: sampled } = await new WasmSampler(model).sample({ prompts, maxNewTokens: 6, temperature: tau, seed: 5 });
    const trajs: TrajectoryLike[] = sampled.map((row, i) => ({
      group: Math.floor(i / 3),
      reward: i % 3 === 0 ? 1 : 0,
      terminated: true,
      truncated: false,
      turns: [{ contextIds: prompts[i], actionIds: row.ids, logprobs: row.logprobs }],
    }));
    // Per token: ℓ of the trainer's forward and logprob kernel at τ against the sampler's ℓ_old.
    const rows = buildRows(trajs, PAD, cfg.maxT);
    const { B, T } = rows;
    const pos: number[] = [];
    for (let i = 0; i < B * T; i++) if (rows.mask[i] > 0) pos.push(i);
    const f = model.forward(rows.ids, rowLengths(rows), B, T, Int32Array.from(pos), false);
    const tg = model.scratch(pos.length, 'targets');
    tg.i32().set(pos.map((i) => rows.targets[i]));
    const lse = model.scratch(pos.length, 'lse');
    const lp = model.scratch(pos.length, 'logp');
    logprobForward(eng.e1, f.logits, tg, lse, lp, { S: pos.length, V: cfg.vocabSize, temperature: tau });
    const l = lp.f32();
    let worst = 0;
    pos.forEach((i, s) => (worst = Math.max(worst, Math.abs(Math.exp(l[s] - rows.oldLogprobs[i]) - 1))));
    model.endStep();
    expect(pos.length).toBeGreaterThan(20);
    expect(worst).toBeLessThan(1e-4);
    // Each trainer on a fresh model at p0 (params(11)).
    const firstStep = async (t: number) => (await trainerAt(eng.e1, 11, { temperature: t }).tr.update(trajs, 1)).metrics;
    const on = await firstStep(tau);
    expect(on.optimizerSteps).toBe(1);
    expect(on.approxKl).toBeLessThan(1e-8);
    expect(on.clipFrac).toBe(0);
    // Negative control: scoring at τ = 1 against τ = 1.5 samples is off-policy from the start.
    const off = await firstStep(1);
    expect(off.approxKl).toBeGreaterThan(1e-3);
  });
});

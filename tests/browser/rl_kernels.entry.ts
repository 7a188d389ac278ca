// Runs in the page: every RL kernel against its CPU reference on real WebGPU, plus the loss
// head's invariances (first minibatch, micro-batching, padding) and non-finite detection.
// Each function returns small JSON summaries; tolerances are stated beside each comparison.
import { createGpu, type Gpu } from '../../src/engine/webgpu/device';
import { checked } from './lib/checked';
import { createStorage, readF32, uploadStorage } from '../../src/engine/webgpu/buffers';
import { allClose, type CloseReport } from './lib/compare';
import { makeRlBatch, padBatch, sliceRows, toF32 } from './lib/rl_batch';
import { rlLossConfig, resolveTokenSumNorm, type RlLossConfig } from '../../src/rl/config';
import type { KlEstimator, LossAggregation } from '../../src/reference/rl_math';
import { stepNormalizer, type StepNormalizer } from '../../src/reference/rl_math';
import { F32_MAX, NONFINITE, ROW, ROW_STATS, RL_METRIC_NAMES, type RlMetrics } from '../../src/reference/rl_metrics';
import { rlStepRef, stepNormalizerOf, type RlBatch } from '../../src/rl/loss_ref';
import {
  createRlStepState,
  prepareRlEntropyBackward,
  prepareRlLossHead,
  prepareRlStepBegin,
  prepareRlStepEnd,
  type RlLossBuffers,
} from '../../src/engine/webgpu/gpu_loss';
import { copyGradNormToMetrics, prepareGrpoAdvantages, readRlMetrics } from './lib/rl_step';
import { encodePrepared, type TensorView } from '../../src/engine/webgpu/kernels/dispatch_plan';
import { writeNormalizer } from '../../src/engine/webgpu/kernels/rl_launch';
import { prepareGrpoAdvantageForward } from '../../src/engine/webgpu/kernels/grpo_advantage_forward';
import { grpoAdvantageForwardRef } from '../../src/reference/grpo_advantage_forward.ref';
import { prepareGaeForward } from '../../src/engine/webgpu/kernels/gae_forward';
import { gaeForwardRef } from '../../src/reference/gae_forward.ref';
import { advNormalizeScratchBytes, prepareAdvNormalizeForward } from '../../src/engine/webgpu/kernels/adv_normalize_forward';
import { advNormalizeForwardRef } from '../../src/reference/adv_normalize_forward.ref';
import { prepareSurrogateForward } from '../../src/engine/webgpu/kernels/surrogate_forward';
import { prepareSurrogateBackward } from '../../src/engine/webgpu/kernels/surrogate_backward';
import { surrogateForwardRef } from '../../src/reference/surrogate_forward.ref';
import { surrogateBackwardRef } from '../../src/reference/surrogate_backward.ref';
import { prepareKlForward } from '../../src/engine/webgpu/kernels/kl_forward';
import { prepareKlBackward } from '../../src/engine/webgpu/kernels/kl_backward';
import { klForwardRef } from '../../src/reference/kl_forward.ref';
import { klBackwardRef } from '../../src/reference/kl_backward.ref';
import { prepareValueLossForward } from '../../src/engine/webgpu/kernels/value_loss_forward';
import { prepareValueLossBackward } from '../../src/engine/webgpu/kernels/value_loss_backward';
import { valueLossForwardRef } from '../../src/reference/value_loss_forward.ref';
import { valueLossBackwardRef } from '../../src/reference/value_loss_backward.ref';
import { prepareEntropyForward } from '../../src/engine/webgpu/kernels/entropy_forward';
import { prepareEntropyBackward } from '../../src/engine/webgpu/kernels/entropy_backward';
import { entropyForwardRef } from '../../src/reference/entropy_forward.ref';
import { entropyBackwardRef } from '../../src/reference/entropy_backward.ref';
import { prepareNonfiniteCheck, prepareNonfiniteClear } from '../../src/engine/webgpu/kernels/nonfinite_check';
import { prepareRlRowsZero } from '../../src/engine/webgpu/kernels/rl_metrics_forward';

export interface Check extends CloseReport {
  name: string;
  atol: number;
  rtol: number;
}

const up = (gpu: Gpu, label: string, x: Float32Array | Int32Array | Uint32Array) => uploadStorage(gpu.device, label, x);
const tv = (buffer: GPUBuffer): TensorView => ({ buffer });
const out = (gpu: Gpu, label: string, n: number) => createStorage(gpu.device, label, n * 4);

/** Encode `fn` into one compute pass inside error scopes and submit. */
async function run(
  gpu: Gpu,
  what: string,
  fn: (pass: GPUComputePassEncoder) => void,
  after?: (enc: GPUCommandEncoder) => void,
): Promise<void> {
  await checked(gpu.device, what, () => {
    const enc = gpu.device.createCommandEncoder({ label: what });
    const pass = enc.beginComputePass({ label: what });
    fn(pass);
    pass.end();
    after?.(enc);
    gpu.device.queue.submit([enc.finish()]);
  });
}

function cmp(name: string, got: ArrayLike<number>, ref: ArrayLike<number>, atol: number, rtol: number): Check {
  return { name, atol, rtol, ...allClose(got, ref, atol, rtol) };
}

/** Columns `cols` of a (B, ROW_STATS) array, flattened. */
function cols(x: ArrayLike<number>, B: number, c: number[]): number[] {
  const o: number[] = [];
  for (let b = 0; b < B; b++) for (const k of c) o.push(x[b * ROW_STATS + k]);
  return o;
}

// ---------------------------------------------------------------- advantages

/** grpo_advantage_forward, gae_forward, adv_normalize_forward vs references. */
export async function advantageKernels(seed: number): Promise<Check[]> {
  const gpu = await createGpu();
  const checks: Check[] = [];
  try {
    // GRPO: hand-made groups (all equal, all zeros, one success, non-dyadic near-constant, a group
    // of one) and random ones; rows map to episodes, one episode spans two rows.
    const groups: number[][] = [
      [1, 1, 1, 1],
      [0, 0, 0, 0],
      [1, 0, 0, 0],
      [0.1, 0.1, 0.1],
      [0.3, 0.3, 0.3, 0.3000001],
      [0.7],
      [0.2, 0.9, 0.55, 0.1, 0.35],
    ];
    const rewards = Float32Array.from(groups.flat());
    const offsets = Int32Array.from([0, ...groups.map((g) => g.length)].map((_, i, a) => a.slice(0, i + 1).reduce((s, x) => s + x, 0)));
    const E = rewards.length;
    const rowEpisode = Int32Array.from([...Array.from({ length: E }, (_, e) => e), 2]);
    const B = rowEpisode.length,
      T = 7;
    const mask = Float32Array.from({ length: B * T }, (_, i) => ((i * 7919) % 5 < 3 ? 1 : 0));
    for (const noStdDivision of [false, true]) {
      const gp = { stdFloor: 1e-6, eps: 1e-6, noStdDivision };
      const episodeAdvantages = out(gpu, 'ep-adv', E),
        advantages = out(gpu, 'adv', B * T);
      const ga = {
        E,
        numGroups: groups.length,
        B,
        T,
        p: gp,
        rewards: tv(up(gpu, 'rewards', rewards)),
        groupOffsets: tv(up(gpu, 'offsets', offsets)),
        episodeAdvantages: tv(episodeAdvantages),
        rowEpisode: tv(up(gpu, 'row-episode', rowEpisode)),
        mask: tv(up(gpu, 'mask', mask)),
        advantages: tv(advantages),
      };
      await run(gpu, 'grpo', (p) => encodePrepared(p, prepareGrpoAdvantageForward(gpu, ga)));
      const ref = grpoAdvantageForwardRef(rewards, offsets, rowEpisode, mask, { B, T }, gp);
      const ep = await readF32(gpu.device, episodeAdvantages, E);
      // f32 two-pass mean/std over ≤ 5 rewards: |err| ≲ 1e-6·|A|
      checks.push(cmp(`grpo episode advantages noStd=${noStdDivision}`, ep, ref.episodeAdvantages, 1e-6, 1e-5));
      checks.push(cmp(`grpo broadcast noStd=${noStdDivision}`, await readF32(gpu.device, advantages, B * T), ref.advantages, 1e-6, 1e-5));
      // groups 0–5 (constant, near-constant, one member) must be exactly 0 on the GPU too
      const zeroIdx = [0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15, 16, 17, 18, 19];
      checks.push(
        cmp(
          `grpo exact zeros noStd=${noStdDivision}`,
          zeroIdx.map((i) => ep[i]),
          zeroIdx.map(() => 0),
          0,
          0,
        ),
      );
    }
    // GAE: the hand row of the unit tests plus random rows, γ ∈ {0, 0.9, 1}, truncated and terminated
    for (const [gamma, lambda] of [
      [0, 0.5],
      [0.9, 0.95],
      [1, 1],
    ]) {
      const b = toF32(makeRlBatch(seed + 1, 6, 40));
      const rw = Float32Array.from([1, 0, -0.5, 2, 0.25, 1]);
      const nv = Float32Array.from([4, 3, 2, 1, 0.5, -1]);
      const tr = Float32Array.from([0, 1, 1, 0, 1, 0]);
      const advantages = out(gpu, 'adv', b.B * b.T),
        returns = out(gpu, 'ret', b.B * b.T);
      const ga = {
        B: b.B,
        T: b.T,
        p: { gamma, lambda },
        rewards: tv(up(gpu, 'rewards', rw)),
        values: tv(up(gpu, 'values', b.oldValues!)),
        mask: tv(up(gpu, 'mask', b.mask)),
        nextValue: tv(up(gpu, 'next-value', nv)),
        truncated: tv(up(gpu, 'truncated', tr)),
        advantages: tv(advantages),
        returns: tv(returns),
      };
      await run(gpu, 'gae', (p) => encodePrepared(p, [prepareGaeForward(gpu, ga)]));
      const ref = gaeForwardRef(rw, b.oldValues!, b.mask, nv, tr, b, { gamma, lambda });
      // ≤ 40 sequential f32 steps of |values| ~ 1
      checks.push(
        cmp(`gae advantages γ=${gamma} λ=${lambda}`, await readF32(gpu.device, advantages, b.B * b.T), ref.advantages, 1e-5, 1e-5),
      );
      checks.push(cmp(`gae returns γ=${gamma} λ=${lambda}`, await readF32(gpu.device, returns, b.B * b.T), ref.returns, 1e-5, 1e-5));
    }
    // masked whitening in place
    {
      const b = toF32(makeRlBatch(seed + 2, 7, 50));
      const adv = Float32Array.from(b.advantages, (x, i) => (b.mask[i] > 0 ? 3 + 2 * x : 1e3)); // garbage at masked
      const a = up(gpu, 'adv', adv),
        m = up(gpu, 'mask', b.mask),
        s = out(gpu, 'scratch', advNormalizeScratchBytes(b.B) / 4);
      await run(gpu, 'adv-norm', (p) =>
        encodePrepared(p, prepareAdvNormalizeForward(gpu, { B: b.B, T: b.T, advantages: tv(a), mask: tv(m), scratch: tv(s), eps: 1e-6 })),
      );
      const ref = advNormalizeForwardRef(adv, b.mask, b, 1e-6);
      checks.push(cmp('adv_normalize_forward', await readF32(gpu.device, a, b.B * b.T), ref.advantages, 1e-5, 1e-5));
      const st = await readF32(gpu.device, s, (b.B + 1) * 4);
      checks.push(
        cmp(
          'adv_normalize stats (n, mean, std)',
          [st[b.B * 4], st[b.B * 4 + 1], st[b.B * 4 + 2]],
          [ref.count, ref.mean, ref.std],
          1e-6,
          1e-5,
        ),
      );
    }
  } finally {
    gpu.device.destroy();
  }
  return checks;
}

// ---------------------------------------------------------------- loss kernels

/** surrogate, KL, value and entropy kernels (forward rowStats columns and backward) vs references. */
export async function lossKernels(seed: number, modes: LossAggregation[]): Promise<Check[]> {
  const gpu = await createGpu();
  const checks: Check[] = [];
  try {
    for (const aggregation of modes)
      checks.push(...(await lossKernelsOne(gpu, seed, aggregation)).map((c) => ({ ...c, name: `${aggregation}: ${c.name}` })));
  } finally {
    gpu.device.destroy();
  }
  return checks;
}

async function lossKernelsOne(gpu: Gpu, seed: number, aggregation: LossAggregation): Promise<Check[]> {
  const checks: Check[] = [];
  const V = 11;
  const b = toF32(makeRlBatch(seed, 6, 24, { V, drift: 0.4 }));
  const { B, T } = b;
  const norm = stepNormalizer(b.mask, B, T, 20);
  const agg = { aggregation, norm };
  const g = {
    lp: up(gpu, 'lp', b.logprobs),
    old: up(gpu, 'old', b.oldLogprobs),
    adv: up(gpu, 'adv', b.advantages),
    mask: up(gpu, 'mask', b.mask),
    ref: up(gpu, 'ref', b.refLogprobs!),
    v: up(gpu, 'v', b.values!),
    vold: up(gpu, 'vold', b.oldValues!),
    ret: up(gpu, 'ret', b.returns!),
    logits: up(gpu, 'logits', b.logits!),
  };
  const rows = out(gpu, 'rows', B * ROW_STATS);
  const grad = out(gpu, 'grad', B * T);
  const readRows = () => readF32(gpu.device, rows, B * ROW_STATS);
  const readGrad = () => readF32(gpu.device, grad, B * T);

  for (const dualClip of [null, 1.5]) {
    const sp = { ...agg, clipLow: 0.2, clipHigh: 0.28, dualClip };
    const sa = { B, T, p: sp, logprobs: tv(g.lp), oldLogprobs: tv(g.old), advantages: tv(g.adv), mask: tv(g.mask) };
    await run(gpu, 'surrogate', (p) => {
      encodePrepared(p, [prepareRlRowsZero(gpu, { B: B, rowStats: tv(rows) })]);
      encodePrepared(p, prepareSurrogateForward(gpu, { ...sa, rowStats: tv(rows) }).dispatches);
      encodePrepared(p, prepareSurrogateBackward(gpu, { ...sa, dlogprob: tv(grad) }).dispatches);
    });
    const fr = surrogateForwardRef(b.logprobs, b.oldLogprobs, b.advantages, b.mask, b, sp);
    const got = await readRows();
    const counts = [ROW.TOKENS, ROW.SEQS, ROW.CLIP_LOW, ROW.CLIP_HIGH, ROW.DUAL_CLIP];
    const counted = cols(got, B, counts);
    checks.push(cmp(`surrogate counts dual=${dualClip}`, counted, cols(fr.rowStats, B, counts), 0, 0));
    // some tokens are clipped in this batch, so both branches are compared
    checks.push({
      ...cmp(
        `surrogate clipped tokens exist dual=${dualClip}`,
        [cols(got, B, [ROW.CLIP_LOW, ROW.CLIP_HIGH]).reduce((s, x) => s + x, 0) > 0 ? 1 : 0],
        [1],
        0,
        0,
      ),
    });
    // f32 sums of ≤ 24 terms of magnitude ≲ 10 (ratios up to e^1.6, k3 ≲ 2)
    const sums = [ROW.PG_LOSS, ROW.APPROX_KL, ROW.RATIO_SUM, ROW.RATIO_MIN, ROW.RATIO_MAX, ROW.ADV_MEAN, ROW.ADV_M2];
    checks.push(cmp(`surrogate row sums dual=${dualClip}`, cols(got, B, sums), cols(fr.rowStats, B, sums), 2e-6, 2e-5));
    checks.push(
      cmp(
        `surrogate_backward dual=${dualClip}`,
        await readGrad(),
        surrogateBackwardRef(b.logprobs, b.oldLogprobs, b.advantages, b.mask, b, sp),
        1e-7,
        1e-5,
      ),
    );
  }
  {
    // Clip counts at hand-picked ratios (ε_lo 0.2, ε_hi 0.28): A > 0 with 1 + ε_lo < ρ ≤ 1 + ε_hi
    // is inside the band (not clipped high); only (1.3, A > 0) is high and (0.75, A < 0) low.
    const rho = [1.25, 1.3, 0.75, 0.85, 1.25, 0.75];
    const adv = [1, 1, -1, -1, -1, 1];
    const n = rho.length;
    const cb = {
      logprobs: up(gpu, 'band lp', Float32Array.from(rho, Math.log)),
      oldLogprobs: up(gpu, 'band old', new Float32Array(n)),
      advantages: up(gpu, 'band adv', Float32Array.from(adv)),
      mask: up(gpu, 'band mask', new Float32Array(n).fill(1)),
    };
    const bandRows = out(gpu, 'band rows', ROW_STATS);
    const bnorm = stepNormalizer(new Float32Array(n).fill(1), 1, n, n);
    const sp = { aggregation, norm: bnorm, clipLow: 0.2, clipHigh: 0.28, dualClip: null };
    await run(gpu, 'surrogate band', (p) => {
      encodePrepared(p, [prepareRlRowsZero(gpu, { B: 1, rowStats: tv(bandRows) })]);
      encodePrepared(
        p,
        prepareSurrogateForward(gpu, {
          B: 1,
          T: n,
          p: sp,
          logprobs: tv(cb.logprobs),
          oldLogprobs: tv(cb.oldLogprobs),
          advantages: tv(cb.advantages),
          mask: tv(cb.mask),
          rowStats: tv(bandRows),
        }).dispatches,
      );
    });
    const got = await readF32(gpu.device, bandRows, ROW_STATS);
    const fr = surrogateForwardRef(
      Float32Array.from(rho, Math.log),
      new Float32Array(n),
      Float32Array.from(adv),
      new Float32Array(n).fill(1),
      { B: 1, T: n },
      sp,
    );
    checks.push(
      cmp(
        'surrogate clip counts in the band (1+ε_lo, 1+ε_hi], GPU vs hand',
        [got[ROW.CLIP_LOW], got[ROW.CLIP_HIGH], got[ROW.DUAL_CLIP]],
        [1, 1, 0],
        0,
        0,
      ),
    );
    checks.push(
      cmp(
        'surrogate clip counts in the band, reference vs hand',
        [fr.rowStats[ROW.CLIP_LOW], fr.rowStats[ROW.CLIP_HIGH], fr.rowStats[ROW.DUAL_CLIP]],
        [1, 1, 0],
        0,
        0,
      ),
    );
  }
  for (const estimator of ['k1', 'k2', 'k3'] as KlEstimator[]) {
    const kp = { ...agg, estimator };
    await run(gpu, 'kl', (p) => {
      encodePrepared(p, [prepareRlRowsZero(gpu, { B: B, rowStats: tv(rows) })]);
      encodePrepared(
        p,
        prepareKlForward(gpu, { B, T, p: kp, logprobs: tv(g.lp), refLogprobs: tv(g.ref), mask: tv(g.mask), rowStats: tv(rows) }).dispatches,
      );
      gpu.device.queue.writeBuffer(grad, 0, new Float32Array(B * T).fill(0.25)); // accumulate onto 0.25
      encodePrepared(
        p,
        prepareKlBackward(gpu, {
          B,
          T,
          p: kp,
          logprobs: tv(g.lp),
          refLogprobs: tv(g.ref),
          mask: tv(g.mask),
          klCoef: 0.3,
          dlogprob: tv(grad),
        }).dispatches,
      );
    });
    const fr = klForwardRef(b.logprobs, b.refLogprobs!, b.mask, b, kp);
    checks.push(
      cmp(
        `kl_forward ${estimator}`,
        cols(await readRows(), B, [ROW.KL_SUM, ROW.KL_LOSS]),
        cols(fr.rowStats, B, [ROW.KL_SUM, ROW.KL_LOSS]),
        2e-6,
        2e-5,
      ),
    );
    const gr = Float64Array.from(klBackwardRef(b.logprobs, b.refLogprobs!, b.mask, b, kp, 0.3), (x) => x + 0.25);
    checks.push(cmp(`kl_backward ${estimator} (accumulates)`, await readGrad(), gr, 1e-7, 1e-5));
  }
  for (const vfClip of [null, 0.2]) {
    const vp = { ...agg, vfClip };
    const va = { B, T, p: vp, values: tv(g.v), oldValues: tv(g.vold), returns: tv(g.ret), mask: tv(g.mask) };
    await run(gpu, 'value', (p) => {
      encodePrepared(p, [prepareRlRowsZero(gpu, { B: B, rowStats: tv(rows) })]);
      encodePrepared(p, prepareValueLossForward(gpu, { ...va, rowStats: tv(rows) }).dispatches);
      encodePrepared(p, prepareValueLossBackward(gpu, { ...va, vfCoef: 0.5, dvalues: tv(grad) }).dispatches);
    });
    const fr = valueLossForwardRef(b.values!, b.oldValues!, b.returns!, b.mask, b, vp);
    const got = await readRows();
    checks.push(cmp(`value_loss clip count ε=${vfClip}`, cols(got, B, [ROW.VF_CLIP]), cols(fr.rowStats, B, [ROW.VF_CLIP]), 0, 0));
    const sums = [ROW.VF_LOSS, ROW.RET_MEAN, ROW.RET_M2, ROW.RES_MEAN, ROW.RES_M2];
    checks.push(cmp(`value_loss row sums ε=${vfClip}`, cols(got, B, sums), cols(fr.rowStats, B, sums), 2e-6, 2e-5));
    checks.push(
      cmp(
        `value_loss_backward ε=${vfClip}`,
        await readGrad(),
        valueLossBackwardRef(b.values!, b.oldValues!, b.returns!, b.mask, b, vp, 0.5),
        1e-7,
        1e-5,
      ),
    );
  }
  // τ = 1, and the rollout temperatures the RL trainer scores at (H of softmax(z/τ), ∂H/∂z with 1/τ).
  for (const temperature of [1, 1.5, 0.7]) {
    const ep = { ...agg, entCoef: 0.05, temperature };
    const at = temperature === 1 ? '' : ` τ=${temperature}`;
    const eb = {
      logits: g.logits,
      mask: g.mask,
      entropy: out(gpu, 'ent', B * T),
      lse: out(gpu, 'lse', B * T),
      dentropy: out(gpu, 'dent', B * T),
    };
    const dlogits = up(gpu, 'dlogits', new Float32Array(B * T * V).fill(-0.5));
    await run(gpu, 'entropy', (p) => {
      encodePrepared(p, [prepareRlRowsZero(gpu, { B: B, rowStats: tv(rows) })]);
      const ea = {
        B,
        T,
        V,
        p: ep,
        logits: tv(eb.logits),
        mask: tv(eb.mask),
        entropy: tv(eb.entropy),
        lse: tv(eb.lse),
        dentropy: tv(eb.dentropy),
        rowStats: tv(rows),
      };
      encodePrepared(p, prepareEntropyForward(gpu, ea).dispatches);
      encodePrepared(p, prepareEntropyBackward(gpu, { ...ea, dlogits: tv(dlogits) }).dispatches);
    });
    const fr = entropyForwardRef(b.logits!, b.mask, { B, T, V }, ep);
    // log-sum-exp over V = 11 logits of std 2 in f32
    checks.push(cmp(`entropy_forward H${at}`, await readF32(gpu.device, eb.entropy, B * T), fr.entropy, 2e-6, 1e-5));
    checks.push(cmp(`entropy_forward lse${at}`, await readF32(gpu.device, eb.lse, B * T), fr.lse, 2e-6, 1e-5));
    checks.push(cmp(`entropy_forward dentropy${at}`, await readF32(gpu.device, eb.dentropy, B * T), fr.dentropy, 0, 1e-6));
    checks.push(
      cmp(
        `entropy row sums${at}`,
        cols(await readRows(), B, [ROW.ENT_SUM, ROW.ENT_LOSS]),
        cols(fr.rowStats, B, [ROW.ENT_SUM, ROW.ENT_LOSS]),
        2e-6,
        2e-5,
      ),
    );
    const gr = Float64Array.from(
      entropyBackwardRef(b.logits!, fr.lse, fr.entropy, fr.dentropy, { N: B * T, V }, temperature),
      (x) => x - 0.5,
    );
    checks.push(cmp(`entropy_backward (accumulates)${at}`, await readF32(gpu.device, dlogits, B * T * V), gr, 1e-7, 1e-5));
  }
  return checks;
}

/** KL estimators at x = ℓ_ref − ℓ ∈ {0, ±1e-6, ±80}: GPU values/gradients finite, k3 ≥ 0, vs reference. */
export async function klExtremes(): Promise<{ checks: Check[]; k3: number[]; dk3: number[] }> {
  const gpu = await createGpu();
  const checks: Check[] = [];
  let k3: number[] = [];
  let dk3: number[] = [];
  try {
    const xs = [0, 1e-6, -1e-6, 80, -80, 0.3, -0.7];
    const B = xs.length,
      T = 1;
    const lp = new Float32Array(B),
      ref = Float32Array.from(xs),
      mask = new Float32Array(B).fill(1);
    const norm = stepNormalizer(mask, B, T, 1);
    const rows = out(gpu, 'rows', B * ROW_STATS),
      grad = out(gpu, 'grad', B);
    const glp = up(gpu, 'lp', lp),
      gref = up(gpu, 'ref', ref),
      gm = up(gpu, 'mask', mask);
    for (const estimator of ['k1', 'k2', 'k3'] as KlEstimator[]) {
      const kp = { aggregation: 'token-mean' as const, norm, estimator };
      await run(gpu, 'kl-extremes', (p) => {
        encodePrepared(p, [prepareRlRowsZero(gpu, { B: B, rowStats: tv(rows) })]);
        encodePrepared(
          p,
          prepareKlForward(gpu, { B, T, p: kp, logprobs: tv(glp), refLogprobs: tv(gref), mask: tv(gm), rowStats: tv(rows) }).dispatches,
        );
        gpu.device.queue.writeBuffer(grad, 0, new Float32Array(B));
        encodePrepared(
          p,
          prepareKlBackward(gpu, { B, T, p: kp, logprobs: tv(glp), refLogprobs: tv(gref), mask: tv(gm), klCoef: 1, dlogprob: tv(grad) })
            .dispatches,
        );
      });
      const got = cols(await readF32(gpu.device, rows, B * ROW_STATS), B, [ROW.KL_SUM]);
      const g = Array.from(await readF32(gpu.device, grad, B));
      const fr = klForwardRef(lp, ref, mask, { B, T }, kp);
      // k3 near 0 by its series: relative 1e-5 of x²/2 ≈ 5e-13; e^20 in f32: relative 1e-6
      checks.push(cmp(`kl ${estimator} values`, got, cols(fr.rowStats, B, [ROW.KL_SUM]), 1e-18, 1e-5));
      checks.push(cmp(`kl ${estimator} gradients`, g, klBackwardRef(lp, ref, mask, { B, T }, kp, 1), 1e-12, 1e-5));
      if (estimator === 'k3') {
        k3 = got;
        dk3 = g;
      }
    }
  } finally {
    gpu.device.destroy();
  }
  return { checks, k3, dk3 };
}

// ---------------------------------------------------------------- loss head (one optimizer step)

interface StepResult {
  metrics: RlMetrics;
  dlogprob: number[];
  dvalues: number[];
  dlogits: number[];
}

/** Upload the micro-batches, run a full loss-head step on the GPU, read gradients and metrics. */
async function gpuStep(
  gpu: Gpu,
  parts: RlBatch<Float32Array>[],
  cfg: RlLossConfig,
  gradNorm?: number,
  prepared = false,
): Promise<StepResult> {
  const norm: StepNormalizer = stepNormalizerOf(parts, resolveTokenSumNorm(cfg));
  const s = createRlStepState(gpu);
  const mbs = parts.map((b, k) => {
    const V = b.vocab ?? 0;
    const mask = up(gpu, `mask${k}`, b.mask);
    const bufs: RlLossBuffers = {
      B: b.B,
      T: b.T,
      logprobs: up(gpu, `lp${k}`, b.logprobs),
      oldLogprobs: up(gpu, `old${k}`, b.oldLogprobs),
      advantages: up(gpu, `adv${k}`, b.advantages),
      mask,
      refLogprobs: up(gpu, `ref${k}`, b.refLogprobs!),
      values: up(gpu, `v${k}`, b.values!),
      oldValues: up(gpu, `vold${k}`, b.oldValues!),
      returns: up(gpu, `ret${k}`, b.returns!),
      rowStats: out(gpu, `rows${k}`, b.B * ROW_STATS),
      dlogprob: out(gpu, `dlp${k}`, b.B * b.T),
      dvalues: out(gpu, `dv${k}`, b.B * b.T),
      entropy: V
        ? {
            V,
            mask,
            logits: up(gpu, `logits${k}`, b.logits!),
            entropy: out(gpu, `ent${k}`, b.B * b.T),
            lse: out(gpu, `lse${k}`, b.B * b.T),
            dentropy: out(gpu, `dent${k}`, b.B * b.T),
          }
        : undefined,
    };
    const dlogits = out(gpu, `dlogits${k}`, Math.max(1, b.B * b.T * V)); // stands in for logprob_backward's output (zeros)
    return { b, bufs, dlogits };
  });
  // prepared: build the head once with a wrong normalizer, then retarget it (as a training step
  // that prepares per shape and writes each step's N and S before the submit)
  const heads = prepared
    ? mbs.map((mb) => prepareRlLossHead(gpu, s, mb.bufs, cfg, { globalTokens: 1, globalSeqs: 1, tokenSumNorm: 1 }))
    : [];
  if (prepared)
    writeNormalizer(
      gpu,
      heads.flatMap((h) => h.normUniforms),
      norm,
    );
  await run(
    gpu,
    'rl-step',
    (p) => {
      encodePrepared(p, prepareRlStepBegin(gpu, s));
      for (const [k, mb] of mbs.entries()) {
        encodePrepared(p, prepared ? heads[k].dispatches : prepareRlLossHead(gpu, s, mb.bufs, cfg, norm).dispatches);
        encodePrepared(p, prepareRlEntropyBackward(gpu, mb.bufs, mb.dlogits, cfg, norm)?.dispatches ?? []);
      }
      encodePrepared(p, [prepareRlStepEnd(gpu, s, cfg)]);
    },
    gradNorm === undefined ? undefined : (enc) => copyGradNormToMetrics(enc, s, up(gpu, 'grad-norm', Float32Array.from([gradNorm]))),
  );
  const res: StepResult = { metrics: await readRlMetrics(gpu, s), dlogprob: [], dvalues: [], dlogits: [] };
  for (const mb of mbs) {
    res.dlogprob.push(...(await readF32(gpu.device, mb.bufs.dlogprob, mb.b.B * mb.b.T)));
    res.dvalues.push(...(await readF32(gpu.device, mb.bufs.dvalues!, mb.b.B * mb.b.T)));
    if (mb.b.vocab) res.dlogits.push(...(await readF32(gpu.device, mb.dlogits, mb.b.B * mb.b.T * mb.b.vocab)));
  }
  return res;
}

// seq-mean-token-mean runs at a rollout temperature τ = 1.5 (the entropy term of softmax(z/τ)).
const fullCfg = (aggregation: LossAggregation) =>
  rlLossConfig({
    algorithm: 'ppo',
    aggregation,
    dualClip: 3,
    klCoef: 0.1,
    klEstimator: 'k3',
    entCoef: 0.01,
    vfCoef: 0.5,
    tokenSumNorm: 16,
    temperature: aggregation === 'seq-mean-token-mean' ? 1.5 : 1,
  });

function metricChecks(name: string, got: RlMetrics, ref: RlMetrics, atol: number, rtol: number): Check[] {
  return RL_METRIC_NAMES.map((k) => cmp(`${name} ${k}`, [got[k]], [ref[k]], atol, rtol));
}

/**
 * The step's gradients and metrics with the batch whole, in 2 and in 4 micro-batches (GPU:
 * bitwise equal, since rows are computed identically and folded in the same order), each
 * against the CPU reference step.
 */
export async function microBatchInvariance(seed: number, modes: LossAggregation[]): Promise<Check[]> {
  const gpu = await createGpu();
  const checks: Check[] = [];
  try {
    for (const aggregation of modes) {
      const before = checks.length;
      const cfg = fullCfg(aggregation);
      const batch = toF32(makeRlBatch(seed, 8, 16, { V: 5 }));
      const whole = await gpuStep(gpu, [batch], cfg);
      const ref = rlStepRef([batch], cfg);
      checks.push(cmp('whole dlogprob vs reference', whole.dlogprob, ref.outputs[0].dlogprob, 1e-7, 1e-5));
      checks.push(cmp('whole dvalues vs reference', whole.dvalues, ref.outputs[0].dvalues!, 1e-7, 1e-5));
      checks.push(cmp('whole dlogits (entropy) vs reference', whole.dlogits, ref.outputs[0].dlogitsEntropy!, 1e-8, 1e-4));
      // f32 accumulation of ~100 tokens vs f64
      checks.push(...metricChecks('whole vs reference', whole.metrics, ref.metrics, 1e-5, 1e-4));
      const prep = await gpuStep(gpu, [batch], cfg, undefined, true);
      checks.push(cmp('prepared head + writeNormalizer dlogprob == encoded', prep.dlogprob, whole.dlogprob, 0, 0));
      checks.push(...metricChecks('prepared head vs encoded', prep.metrics, whole.metrics, 0, 0));
      for (const k of [2, 4]) {
        const per = batch.B / k;
        const parts = Array.from({ length: k }, (_, i) => sliceRows(batch, i * per, (i + 1) * per));
        const split = await gpuStep(gpu, parts, cfg);
        checks.push(cmp(`${k} micro-batches dlogprob == whole`, split.dlogprob, whole.dlogprob, 0, 0));
        checks.push(cmp(`${k} micro-batches dvalues == whole`, split.dvalues, whole.dvalues, 0, 0));
        checks.push(cmp(`${k} micro-batches dlogits == whole`, split.dlogits, whole.dlogits, 0, 0));
        checks.push(...metricChecks(`${k} micro-batches vs whole`, split.metrics, whole.metrics, 0, 0));
      }
      for (let i = before; i < checks.length; i++) checks[i].name = `${aggregation}: ${checks[i].name}`;
    }
  } finally {
    gpu.device.destroy();
  }
  return checks;
}

/** The same trajectories with padded columns and all-padding rows (finite garbage): same step. */
export async function paddingInvariance(seed: number, modes: LossAggregation[]): Promise<Check[]> {
  const gpu = await createGpu();
  const checks: Check[] = [];
  try {
    for (const aggregation of modes) {
      const before = checks.length;
      const cfg = fullCfg(aggregation);
      const b64 = makeRlBatch(seed, 6, 12, { V: 4 });
      const p64 = padBatch(b64, 5, 2, seed + 7);
      const plain = await gpuStep(gpu, [toF32(b64)], cfg);
      const padded = await gpuStep(gpu, [toF32(p64)], cfg);
      checks.push(...metricChecks('padded vs plain', padded.metrics, plain.metrics, 0, 0));
      const map = (x: number[], per: number) => {
        const o: number[] = [];
        const inside: number[] = [];
        for (let r = 0; r < p64.B; r++) {
          for (let t = 0; t < p64.T; t++) {
            for (let j = 0; j < per; j++) {
              const v = x[(r * p64.T + t) * per + j];
              if (r < b64.B && t < b64.T) inside.push(v);
              else o.push(v);
            }
          }
        }
        return { inside, pad: o };
      };
      for (const [name, got, want, per] of [
        ['dlogprob', padded.dlogprob, plain.dlogprob, 1],
        ['dvalues', padded.dvalues, plain.dvalues, 1],
        ['dlogits', padded.dlogits, plain.dlogits, 4],
      ] as const) {
        const m = map(got as number[], per);
        checks.push(cmp(`padded ${name} == plain`, m.inside, want as number[], 0, 0));
        checks.push(
          cmp(
            `padded ${name} is 0 at padding`,
            m.pad,
            m.pad.map(() => 0),
            0,
            0,
          ),
        );
      }
      for (let i = before; i < checks.length; i++) checks[i].name = `${aggregation}: ${checks[i].name}`;
    }
  } finally {
    gpu.device.destroy();
  }
  return checks;
}

/** First minibatch (ℓ = ℓ_old): every valid ratio is 1 and the clip fractions are 0 on the GPU. */
export async function firstMinibatch(seed: number): Promise<{ metrics: RlMetrics; refMetrics: RlMetrics }> {
  const gpu = await createGpu();
  try {
    const b = toF32(makeRlBatch(seed, 8, 32, { drift: 0, V: 3 }));
    const cfg = rlLossConfig({ algorithm: 'ppo', dualClip: 2, klCoef: 0.1, entCoef: 0.01 });
    const step = await gpuStep(gpu, [b], cfg, 2.5); // the trainer's grad norm lands in its slot
    return { metrics: step.metrics, refMetrics: rlStepRef([b], cfg).metrics };
  } finally {
    gpu.device.destroy();
  }
}

/**
 * nonfinite_check on raw values (NaN, ±Inf flagged; ±F32_MAX, denormals, −0 not), and full
 * steps with one NaN/Inf injected into each source at a valid and at a padded position.
 */
export async function nonfiniteDetection(seed: number): Promise<{
  raw: Array<{ value: string; flag: number }>;
  steps: Array<{ source: string; where: string; skipped: number; mask: number; want: number }>;
  clean: number;
}> {
  const gpu = await createGpu();
  try {
    const raw: Array<{ value: string; flag: number }> = [];
    const flags = out(gpu, 'flags', 4);
    const values: Array<[string, number]> = [
      ['NaN', NaN],
      ['+Inf', Infinity],
      ['-Inf', -Infinity],
      ['F32_MAX', F32_MAX],
      ['-F32_MAX', -F32_MAX],
      ['denormal', 1e-45],
      ['-0', -0],
      ['1', 1],
    ];
    for (const [name, v] of values) {
      const x = up(gpu, 'x', Float32Array.from([0.5, v, 2]));
      await run(gpu, 'nonfinite', (p) => {
        encodePrepared(p, [
          prepareNonfiniteClear(gpu, { flags: tv(flags) }),
          prepareNonfiniteCheck(gpu, { n: 3, x: tv(x), flags: tv(flags), bit: NONFINITE.values }),
        ]);
      });
      raw.push({ value: name, flag: new Uint32Array((await readF32(gpu.device, flags, 1)).buffer)[0] });
    }
    const cfg = fullCfg('token-mean');
    const steps: Array<{ source: string; where: string; skipped: number; mask: number; want: number }> = [];
    const sources = [
      ['logprobs', NaN],
      ['oldLogprobs', Infinity],
      ['advantages', NaN],
      ['refLogprobs', -Infinity],
      ['values', NaN],
      ['oldValues', Infinity],
      ['returns', NaN],
      ['logits', NaN],
    ] as const;
    for (const [key, bad] of sources) {
      for (const where of ['valid', 'padding'] as const) {
        const b = toF32(makeRlBatch(seed, 4, 10, { V: 3 }));
        const i = where === 'valid' ? b.mask.findIndex((m) => m > 0) : b.mask.indexOf(0);
        (b[key] as Float32Array)[key === 'logits' ? i * 3 + 1 : i] = bad;
        const r = await gpuStep(gpu, [b], cfg);
        steps.push({ source: key, where, skipped: r.metrics.skipped, mask: r.metrics.nonfiniteMask, want: NONFINITE[key] });
      }
    }
    // rewards: through the GRPO advantage path
    {
      const s = createRlStepState(gpu);
      const ga = {
        E: 4,
        numGroups: 1,
        B: 4,
        T: 2,
        p: cfg,
        rewards: tv(up(gpu, 'rewards', Float32Array.from([1, NaN, 0, 0]))),
        groupOffsets: tv(up(gpu, 'offsets', Int32Array.from([0, 4]))),
        episodeAdvantages: tv(out(gpu, 'ep', 4)),
        rowEpisode: tv(up(gpu, 'row-ep', Int32Array.from([0, 1, 2, 3]))),
        mask: tv(up(gpu, 'mask', new Float32Array(8).fill(1))),
        advantages: tv(out(gpu, 'adv', 8)),
      };
      await run(gpu, 'grpo-nan', (p) => {
        encodePrepared(p, prepareRlStepBegin(gpu, s));
        encodePrepared(p, prepareGrpoAdvantages(gpu, s, ga));
        encodePrepared(p, [prepareRlStepEnd(gpu, s, cfg)]);
      });
      const m = await readRlMetrics(gpu, s);
      steps.push({ source: 'rewards', where: 'valid', skipped: m.skipped, mask: m.nonfiniteMask, want: NONFINITE.rewards });
    }
    const clean = (await gpuStep(gpu, [toF32(makeRlBatch(seed, 4, 10, { V: 3 }))], cfg)).metrics.skipped;
    return { raw, steps, clean };
  } finally {
    gpu.device.destroy();
  }
}

/** The RL launchers check their tensor views: an offset (they bind whole buffers) or a buffer too small throws, naming the tensor. */
export async function launcherViewChecks(): Promise<string[]> {
  const gpu = await createGpu();
  try {
    const B = 2,
      T = 8;
    const norm = stepNormalizer(new Float32Array(B * T).fill(1), B, T, T);
    const sp = { aggregation: 'token-mean' as const, norm, clipLow: 0.2, clipHigh: 0.28, dualClip: null };
    const f = (label: string, n = B * T) => out(gpu, label, n);
    const sa = { B, T, p: sp, logprobs: tv(f('lp')), oldLogprobs: tv(f('old')), advantages: tv(f('adv')), mask: tv(f('mask')) };
    const errors: string[] = [];
    const expectThrow = (fn: () => unknown) => {
      try {
        fn();
        errors.push('no error');
      } catch (e) {
        errors.push((e as Error).message);
      }
    };
    expectThrow(() => prepareSurrogateForward(gpu, { ...sa, rowStats: tv(f('rows', B * ROW_STATS - 1)) }));
    expectThrow(() => prepareSurrogateBackward(gpu, { ...sa, mask: { buffer: f('mask2'), offset: 4 }, dlogprob: tv(f('grad')) }));
    return errors;
  } finally {
    gpu.device.destroy();
  }
}

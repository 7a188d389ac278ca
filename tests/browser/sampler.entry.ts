// Runs in the page: KV-cache decoding vs the full forward, the batched sampler vs the CPU
// model's greedy continuation, row independence, and the sampled log-probs vs re-scoring.
import { createGpu, type Gpu } from '../../src/engine/webgpu/device';
import { readF32 } from '../../src/engine/webgpu/buffers';
import { encodePrepared } from '../../src/engine/webgpu/kernels/dispatch_plan';
import { allClose } from './lib/compare';
import { Rng } from '../../src/util/rng';
import { validateConfig, type ModelConfig } from '../../src/model/config';
import { cpuForward } from '../../src/model/cpu_model';
import { GpuModel } from '../../src/engine/webgpu/gpu_model';
import { Sampler } from '../../src/engine/webgpu/gpu_sampler';
import type { SampleRequest } from '../../src/engine/sample_request';
import { SamplerPolicy } from '../../src/engine/sampler_policy';
import { testParams } from './model_forward.entry';

let shared: Promise<Gpu> | null = null;
const gpuOnce = () => (shared ??= createGpu());

function prompts(rng: Rng, V: number, lens: number[]): Int32Array[] {
  return lens.map((l) => Int32Array.from({ length: l }, () => rng.int(V)));
}

async function setup(cfg: ModelConfig, maxB: number, maxT: number, seed: number) {
  const gpu = await gpuOnce();
  const model = GpuModel.create(gpu, validateConfig(cfg), { maxB, maxT });
  const params = testParams(cfg, seed);
  model.writeParams(params);
  return { gpu, model, params };
}

/**
 * Prefill B prompts of lengths `lens`, then `steps` decode steps feeding known random tokens;
 * compare each step's logits (B,V) with the full forward's logits at the same positions.
 */
export async function decodeVsFull(cfg: ModelConfig, lens: number[], steps: number, seed: number, atol: number, rtol: number) {
  const B = lens.length;
  const maxT = Math.max(...lens) + steps + 1;
  const { gpu, model } = await setup(cfg, B, maxT, seed);
  const V = cfg.vocabSize;
  const d = gpu.device;
  const rng = new Rng(seed + 1);
  const ps = prompts(rng, V, lens);
  const fed = Array.from({ length: steps }, () => Int32Array.from({ length: B }, () => rng.int(V)));
  // Full sequences: prompt then the fed tokens.
  const T = Math.max(...lens) + steps;
  const full = new Int32Array(B * T);
  for (let b = 0; b < B; b++) {
    full.set(ps[b], b * T);
    for (let s = 0; s < steps; s++) full[b * T + lens[b] + s] = fed[s][b];
  }
  const ref = (await model.forward(full, B, T)).logits;

  const cache = model.createKvCache(B, maxT);
  const idsBuf = d.createBuffer({ label: 'fed ids', size: B * 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
  const Tp = Math.max(...lens);
  const pre = new Int32Array(B * Tp);
  ps.forEach((p, b) => pre.set(p, b * Tp));
  model.writeIds(pre, B, Tp);
  const run = (ds: ReturnType<GpuModel['decodeDispatches']>) => {
    const enc = d.createCommandEncoder({ label: 'decode test' });
    const pass = enc.beginComputePass();
    encodePrepared(pass, ds);
    pass.end();
    d.queue.submit([enc.finish()]);
  };
  // The prefill's lm head runs on each row's last prompt position: the first token after the prompt.
  d.queue.writeBuffer(
    cache.lastRow,
    0,
    Int32Array.from(lens, (l, b) => b * Tp + l - 1),
  );
  run(model.prefillDispatches(cache, Tp));
  const firstGot = await readF32(d, model.acts.logits, B * V);
  const firstWant = new Float32Array(B * V);
  for (let b = 0; b < B; b++) firstWant.set(ref.subarray((b * T + lens[b] - 1) * V, (b * T + lens[b]) * V), b * V);
  const first = allClose(firstGot, firstWant, atol, rtol);
  let firstExact = 0;
  for (let i = 0; i < firstGot.length; i++) if (Object.is(firstGot[i], firstWant[i])) firstExact++;
  const decode = model.decodeDispatches(cache, idsBuf);
  let exact = 0;
  let total = 0;
  let worst = { ok: true, maxAbsErr: 0, firstBad: -1, got: NaN, ref: NaN, n: 0 };
  for (let s = 0; s < steps; s++) {
    d.queue.writeBuffer(idsBuf, 0, fed[s]);
    d.queue.writeBuffer(
      cache.pos,
      0,
      Int32Array.from(lens, (l) => l + s),
    );
    run(decode);
    const got = await readF32(d, model.acts.logits, B * V);
    const want = new Float32Array(B * V);
    for (let b = 0; b < B; b++) want.set(ref.subarray((b * T + lens[b] + s) * V, (b * T + lens[b] + s + 1) * V), b * V);
    const r = allClose(got, want, atol, rtol);
    if (!r.ok || r.maxAbsErr > worst.maxAbsErr) worst = r;
    for (let i = 0; i < got.length; i++) if (Object.is(got[i], want[i])) exact++;
    total += got.length;
  }
  model.destroy();
  return { first, firstExactFraction: firstExact / firstGot.length, worst, exactFraction: exact / total };
}

/** Greedy sampling on the GPU vs the CPU model's greedy continuation, row by row. */
export async function greedyVsCpu(cfg: ModelConfig, lens: number[], newTokens: number, seed: number) {
  const B = lens.length;
  const { model, params } = await setup(cfg, B, cfg.maxT, seed);
  const ps = prompts(new Rng(seed + 2), cfg.vocabSize, lens);
  const sampler = new Sampler(model);
  const res = await sampler.sample({ prompts: ps, maxNewTokens: newTokens, temperature: 0, seed: 1 });
  const V = cfg.vocabSize;
  const cpu: number[][] = [];
  for (let b = 0; b < B; b++) {
    const seq = Array.from(ps[b]);
    const outIds: number[] = [];
    for (let s = 0; s < newTokens; s++) {
      const T = seq.length;
      const { logits } = cpuForward(cfg, params, Int32Array.from(seq), Int32Array.from([T]), { B: 1, T });
      let best = 0;
      for (let v = 1; v < V; v++) if (logits[(T - 1) * V + v] > logits[(T - 1) * V + best]) best = v;
      outIds.push(best);
      seq.push(best);
    }
    cpu.push(outIds);
  }
  sampler.destroy();
  model.destroy();
  return { gpu: res.rows.map((r) => Array.from(r.ids)), cpu, stops: res.rows.map((r) => r.stop), stats: res.stats };
}

/**
 * Sampling (τ, top-p) for prompts `lens`; then re-scores every sampled id with one full forward
 * over prompt + sampled ids (logprob_forward on logits/τ is done on the CPU from the GPU logits
 * when τ ≠ 1). Also samples row 0 again inside a batch with different other rows (and a
 * different padded length) and without the KV cache.
 */
export async function sampledLogprobs(
  cfg: ModelConfig,
  lens: number[],
  newTokens: number,
  temperature: number,
  topP: number,
  seed: number,
  atol: number,
  rtol: number,
) {
  const B = lens.length;
  const { model } = await setup(cfg, B, cfg.maxT, seed);
  const V = cfg.vocabSize;
  const rng = new Rng(seed + 3);
  const ps = prompts(rng, V, lens);
  const sampler = new Sampler(model);
  const req: SampleRequest = { prompts: ps, maxNewTokens: newTokens, temperature, topP, seed: 77 };
  const a = await sampler.sample(req);
  // Re-score: one full forward per row (B = 1), targets = the next ids.
  let exact = 0;
  let total = 0;
  const got: number[] = [];
  const want: number[] = [];
  const gotEnt: number[] = [];
  const wantEnt: number[] = [];
  for (let b = 0; b < B; b++) {
    const seq = Int32Array.from([...ps[b], ...a.rows[b].ids]);
    const T = seq.length - 1;
    const tgt = seq.slice(1);
    const f = await model.forward(seq.subarray(0, T), 1, T, tgt);
    for (let i = 0; i < a.rows[b].ids.length; i++) {
      const t = lens[b] - 1 + i;
      let lp: number;
      if (temperature === 1 && topP === 1) lp = f.logprob![t];
      else {
        // log-softmax(z/τ)[a], over the kept nucleus when topP < 1 (f64 on the CPU).
        const z = Array.from(f.logits.subarray(t * V, (t + 1) * V), (x) => x / temperature);
        const mx = Math.max(...z);
        const e = z.map((x) => Math.exp(x - mx));
        let kept = e.reduce((s, x) => s + x, 0);
        if (topP < 1) {
          const sorted = [...e].sort((x, y) => y - x);
          let c = 0;
          let k = 0;
          while (c < topP * kept) c += sorted[k++];
          kept = c;
        }
        lp = z[tgt[t]] - mx - Math.log(kept);
      }
      got.push(a.rows[b].logprobs[i]);
      want.push(lp);
      // The policy's entropy at τ = 1, −Σ p log p of softmax(z), in f64 from the full forward.
      const z1 = Array.from(f.logits.subarray(t * V, (t + 1) * V));
      const m1 = Math.max(...z1);
      const s1 = z1.reduce((acc, x) => acc + Math.exp(x - m1), 0);
      gotEnt.push(a.rows[b].entropies[i]);
      wantEnt.push(-z1.reduce((acc, x) => acc + (Math.exp(x - m1) / s1) * (x - m1 - Math.log(s1)), 0));
      if (Object.is(a.rows[b].logprobs[i], Math.fround(lp))) exact++;
      total++;
    }
  }
  // Row 0 inside a different batch: other prompts, longer padding.
  const other = await sampler.sample({
    ...req,
    prompts: [
      ps[0],
      ...prompts(
        rng,
        V,
        lens.slice(1).map((l) => l + 3),
      ),
    ],
  });
  const row0Same =
    Object.is(JSON.stringify(Array.from(other.rows[0].ids)), JSON.stringify(Array.from(a.rows[0].ids))) &&
    other.rows[0].logprobs.every((x, i) => Object.is(x, a.rows[0].logprobs[i]));
  // Without the KV cache: same ids.
  const noCache = await sampler.sample({ ...req, useKvCache: false });
  const noCacheSameIds = noCache.rows.every((r, b) => r.ids.join() === a.rows[b].ids.join());
  sampler.destroy();
  model.destroy();
  return {
    logprob: allClose(got, want, atol, rtol),
    entropy: allClose(gotEnt, wantEnt, 1e-4, 1e-4),
    exactFraction: exact / total,
    row0Same,
    noCacheSameIds,
    stats: a.stats,
    noCacheStats: noCache.stats,
    lengths: a.rows.map((r) => r.ids.length),
  };
}

/** End token and per-row budgets: a row stops right after sampling the end token. */
export async function stopping(cfg: ModelConfig, seed: number) {
  const { model } = await setup(cfg, 3, cfg.maxT, seed);
  const ps = prompts(new Rng(seed + 4), cfg.vocabSize, [4, 2, 6]);
  const sampler = new Sampler(model);
  const greedy = await sampler.sample({ prompts: ps, maxNewTokens: 6, temperature: 0, seed: 0 });
  const end = greedy.rows[1].ids[2]; // row 1's third greedy token
  const r = await sampler.sample({ prompts: ps, maxNewTokens: [6, 6, 2], temperature: 0, seed: 0, endToken: end });
  sampler.destroy();
  model.destroy();
  return {
    end,
    greedy: greedy.rows.map((x) => Array.from(x.ids)),
    rows: r.rows.map((x) => ({ ids: Array.from(x.ids), stop: x.stop })),
    stats: r.stats,
  };
}

/** Two overlapping sample() calls: the second is refused before touching a buffer; the first completes; a later one works. */
export async function overlapping(cfg: ModelConfig, seed: number) {
  const { gpu, model } = await setup(cfg, 2, cfg.maxT, seed);
  const ps = prompts(new Rng(seed + 5), cfg.vocabSize, [3, 5]);
  const sampler = new Sampler(model);
  const req: SampleRequest = { prompts: ps, maxNewTokens: 4, temperature: 1, seed: 3 };
  const errors: string[] = [];
  gpu.device.pushErrorScope('validation');
  const first = sampler.sample(req);
  let second = 'resolved';
  try {
    await sampler.sample(req);
  } catch (e) {
    second = (e as Error).message;
  }
  const a = await first;
  const b = await sampler.sample(req);
  const v = await gpu.device.popErrorScope();
  if (v) errors.push(v.message);
  sampler.destroy();
  model.destroy();
  return { second, firstIds: a.rows.map((r) => Array.from(r.ids)), laterIds: b.rows.map((r) => Array.from(r.ids)), errors };
}

/**
 * The policy (SamplerPolicy over the GPU Sampler) never samples a banned id except the stop id: ban nearly the whole vocabulary
 * [0, V − 4) with the stop id inside it, sample at τ = 1 from random weights.
 */
export async function bannedIds(cfg: ModelConfig, seed: number) {
  const { model } = await setup(cfg, 4, cfg.maxT, seed);
  const V = cfg.vocabSize;
  const ban = { lo: 0, hi: V - 4 };
  const end = 7;
  const sampler = new Sampler(model);
  const policy = new SamplerPolicy(sampler, model.maxB, model.maxT, V, { banIds: ban });
  const ps = prompts(new Rng(seed + 6), V, [3, 5, 2, 4]);
  const rows = await policy.sample(ps, 12, 1, 9, end);
  const ids = rows.flatMap((r) => Array.from(r.ids));
  const defaultBan = new SamplerPolicy(sampler, model.maxB, model.maxT, V).banIds;
  sampler.destroy();
  model.destroy();
  return {
    tokens: ids.length,
    bannedDrawn: ids.filter((i) => i >= ban.lo && i < ban.hi && i !== end).length,
    endDrawn: ids.filter((i) => i === end).length,
    stops: rows.map((r) => r.stop),
    endsLast: rows.every((r) => r.stop !== 'end' || r.ids[r.ids.length - 1] === end),
    defaultBan,
  };
}

/**
 * The CPU engine's KV-cache sampler (src/engine/wasm/wasm_sampler.ts): greedy decoding identical to a
 * decoder over the f64 reference model (cpuForward of the whole prefix each step); cached and
 * uncached decoding give the same tokens; 1 and 2 threads identical; seeded sampling
 * reproducible, with log-probs equal to the reference log-softmax (τ = 1) and per-token
 * entropies equal to the reference −Σ p log p within 1e-4; on both engine builds (baseline and
 * relaxed SIMD). The decode step is one fused task whose threads split the rows (as/decode.ts),
 * so 1 vs 2 threads checks that partition.
 */
import { describe, expect, it } from 'vitest';
import { useEngines } from './lib/wasm_engines';
import type { WasmEngine } from '../../src/engine/wasm/wasm_runtime';
import { WasmModel } from '../../src/engine/wasm/wasm_model';
import { WasmSampler } from '../../src/engine/wasm/wasm_sampler';
import { cpuForward } from '../../src/model/cpu_model';
import { initParams } from '../../src/model/init';
import type { ModelConfig } from '../../src/model/config';
import { Rng } from '../../src/util/rng';

const cfg: ModelConfig = { vocabSize: 41, maxT: 32, C: 16, L: 2, NH: 2 };

function params(seed: number): Float32Array {
  const p = initParams(cfg, seed);
  const rng = new Rng(seed + 100);
  for (let i = 0; i < p.length; i++) p[i] += 0.3 * rng.normal();
  return p;
}
function prompts(seed: number): Int32Array[] {
  const rng = new Rng(seed);
  return [5, 1, 9, 3].map((n) => Int32Array.from({ length: n }, () => rng.int(cfg.vocabSize)));
}

/** Greedy tokens of the f64 reference: argmax of cpuForward over the whole prefix each step. */
function refGreedy(p: Float32Array, prompt: Int32Array, maxNew: number): { ids: number[]; lps: number[]; ents: number[] } {
  const p64 = Float64Array.from(p);
  const seq = Array.from(prompt);
  const ids: number[] = [];
  const lps: number[] = [];
  const ents: number[] = [];
  const V = cfg.vocabSize;
  for (let s = 0; s < maxNew && seq.length < cfg.maxT; s++) {
    const T = seq.length;
    const f = cpuForward(cfg, p64, Int32Array.from(seq), Int32Array.of(T), { B: 1, T });
    const z = f.logits.subarray((T - 1) * V, T * V);
    let a = 0;
    for (let j = 1; j < V; j++) if (z[j] > z[a]) a = j;
    let mx = -Infinity;
    for (const x of z) mx = Math.max(mx, x);
    let sum = 0;
    for (const x of z) sum += Math.exp(x - mx);
    ids.push(a);
    lps.push(z[a] - mx - Math.log(sum));
    // H = −Σ p log p of softmax(z), directly.
    let h = 0;
    for (const x of z) {
      const q = Math.exp(x - mx) / sum;
      h -= q * Math.log(q);
    }
    ents.push(h);
    seq.push(a);
  }
  return { ids, lps, ents };
}

describe.each([
  ['baseline', false],
  ['relaxed SIMD', true],
])('WasmSampler (%s build)', (_build, relaxedSimd) => {
  const eng = useEngines({ relaxedSimd });

  it('greedy decoding equals the f64 reference decoder (ids exactly, log-probs and entropies within 1e-4), first token included', async () => {
    const p = params(1);
    const m = WasmModel.create(eng.e2, cfg);
    m.writeParams(p);
    const ps = prompts(2);
    const { rows } = await new WasmSampler(m).sample({ prompts: ps, maxNewTokens: 12, temperature: 0, seed: 0 });
    ps.forEach((pr, b) => {
      const ref = refGreedy(p, pr, 12);
      expect(Array.from(rows[b].ids)).toEqual(ref.ids);
      rows[b].logprobs.forEach((lp, i) => expect(Math.abs(lp - ref.lps[i])).toBeLessThan(1e-4));
      expect(rows[b].entropies).toHaveLength(ref.ents.length);
      rows[b].entropies.forEach((h, i) => expect(Math.abs(h - ref.ents[i])).toBeLessThan(1e-4));
      expect(rows[b].stop).toBe('length');
    });
  });

  it('KV cache and full recompute sample the same tokens; 1 and 2 threads are identical; a seed reproduces', async () => {
    const p = params(3);
    const req = { prompts: prompts(4), maxNewTokens: 10, temperature: 1, seed: 77 };
    const run = async (e: WasmEngine, useKvCache: boolean) => {
      const m = WasmModel.create(e, cfg);
      m.writeParams(p);
      return (await new WasmSampler(m).sample({ ...req, useKvCache })).rows.map((r) => Array.from(r.ids));
    };
    const a = await run(eng.e1, true);
    expect(await run(eng.e2, true)).toEqual(a);
    expect(await run(eng.e2, false)).toEqual(a);
    expect(await run(eng.e1, true)).toEqual(a);
    const other = await (async () => {
      const m = WasmModel.create(eng.e1, cfg);
      m.writeParams(p);
      return (await new WasmSampler(m).sample({ ...req, seed: 78 })).rows.map((r) => Array.from(r.ids));
    })();
    expect(other).not.toEqual(a);
  });

  it('stops: end token (included), length budget, and the context limit', async () => {
    const m = WasmModel.create(eng.e1, cfg);
    m.writeParams(params(5));
    const s = new WasmSampler(m);
    const greedy = await s.sample({ prompts: [Int32Array.of(1, 2, 3)], maxNewTokens: 5, temperature: 0, seed: 0 });
    const first = greedy.rows[0].ids[0];
    const ended = await s.sample({ prompts: [Int32Array.of(1, 2, 3)], maxNewTokens: 5, temperature: 0, seed: 0, endToken: first });
    expect(Array.from(ended.rows[0].ids)).toEqual([first]);
    expect(ended.rows[0].stop).toBe('end');
    const long = await s.sample({ prompts: [new Int32Array(cfg.maxT - 2).fill(1)], maxNewTokens: 10, temperature: 1, seed: 0 });
    expect(long.rows[0].ids.length).toBe(2);
    expect(long.rows[0].stop).toBe('context');
    await expect(s.sample({ prompts: [Int32Array.of(99)], maxNewTokens: 1, temperature: 1, seed: 0 })).rejects.toThrow(
      /prompts\[0\]\[0\] = 99/,
    );
    // Banned ids are never drawn (greedy and sampled); the end token stays allowed inside the range.
    const banned = await s.sample({
      prompts: [Int32Array.of(1, 2, 3)],
      maxNewTokens: 6,
      temperature: 1,
      seed: 4,
      banIds: { lo: 0, hi: 30 },
    });
    for (const id of banned.rows[0].ids) expect(id).toBeGreaterThanOrEqual(30);
    const onlyEnd = await s.sample({
      prompts: [Int32Array.of(1, 2, 3)],
      maxNewTokens: 6,
      temperature: 0,
      seed: 4,
      banIds: { lo: 0, hi: cfg.vocabSize },
      endToken: 7,
    });
    expect(Array.from(onlyEnd.rows[0].ids)).toEqual([7]);
  });
});

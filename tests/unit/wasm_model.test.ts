/**
 * The CPU engine (src/engine/wasm) against the f64 CPU reference model (src/model/cpu_model.ts):
 * forward logits and values, every parameter gradient, AdamW steps; odd sizes and padded rows;
 * bit-identical results for 1 and 2 threads. Each check runs on both builds of the engine: the
 * baseline (multiply, then add) and relaxed SIMD (fused multiply-add in the GEMM and attention
 * products). Tolerances are stated per check, relative to the largest magnitude of the
 * reference tensor (f32 arithmetic with sequential sums vs f64); they are the same for both
 * builds, a fused multiply-add rounding once where mul + add rounds twice.
 */
import { describe, expect, it } from 'vitest';
import { useEngines } from './lib/wasm_engines';
import { WasmEngine } from '../../src/engine/wasm/wasm_runtime';
import { WasmModel } from '../../src/engine/wasm/wasm_model';
import { sftLossAndGrads } from '../../src/engine/wasm/wasm_sft';
import { cpuForward, cpuBackward } from '../../src/model/cpu_model';
import { initParams } from '../../src/model/init';
import { paramLayout } from '../../src/model/layout';
import { adamwUpdateRef } from '../../src/reference/adamw_update.ref';
import type { ModelConfig } from '../../src/model/config';
import { Rng } from '../../src/util/rng';

const cfg: ModelConfig = { vocabSize: 37, maxT: 24, C: 24, L: 2, NH: 3 };
const B = 3;
const T = 13;
const lengths = Int32Array.from([13, 7, 1]);

function maxAbs(a: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]));
  return m;
}
function maxErr(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

function setup(seed: number) {
  const rng = new Rng(seed);
  const params = initParams(cfg, seed);
  // O(1) pre-activations so every term matters (GELU's cubic, softmax not uniform, LayerNorm
  // gains ≠ 1, biases ≠ 0): a mutation of any constant shows above the tolerances.
  for (let i = 0; i < params.length; i++) params[i] += 0.4 * rng.normal();
  const ids = new Int32Array(B * T);
  for (let i = 0; i < ids.length; i++) ids[i] = rng.int(cfg.vocabSize);
  const scored: number[] = [];
  for (let b = 0; b < B; b++) for (let t = 0; t < lengths[b]; t++) if (t % 2 === 0 || b === 1) scored.push(b * T + t);
  const S = scored.length;
  const dlogitsS = new Float32Array(S * cfg.vocabSize).map(() => rng.float() - 0.5);
  const dvalues = new Float32Array(B * T);
  for (let b = 0; b < B; b++) for (let t = 0; t < lengths[b]; t++) dvalues[b * T + t] = rng.float() - 0.5;
  return { params, ids, scored: Int32Array.from(scored), dlogitsS, dvalues };
}

describe.each([
  ['baseline', false],
  ['relaxed SIMD', true],
])('WasmModel (CPU engine, %s build) vs the f64 reference', (_build, relaxedSimd) => {
  const eng = useEngines({ relaxedSimd });

  function run(e: WasmEngine, seed: number) {
    const s = setup(seed);
    const m = WasmModel.create(e, cfg);
    m.writeParams(s.params);
    const f = m.forward(s.ids, lengths, B, T, s.scored, true);
    const logits = f.logits.read().subarray(0, s.scored.length * cfg.vocabSize);
    const values = f.values!.read();
    const dl = m.scratch(s.dlogitsS.length, 'dlogits');
    dl.write(s.dlogitsS);
    m.backward(f, dl, s.dvalues);
    const grads = m.grads.read();
    m.endStep();
    return { s, m, logits, values, grads };
  }

  it('forward logits/values and every gradient match cpuForward/cpuBackward in f64 (tolerance 2e-5 of max |ref|)', () => {
    const { s, logits, values, grads } = run(eng.e1, 1);
    const V = cfg.vocabSize;
    const p64 = Float64Array.from(s.params);
    const ref = cpuForward(cfg, p64, s.ids, lengths, { B, T });
    const refLogits = new Float64Array(s.scored.length * V);
    s.scored.forEach((pos, k) => refLogits.set(ref.logits.subarray(pos * V, pos * V + V), k * V));
    expect(maxErr(logits, refLogits) / maxAbs(refLogits)).toBeLessThan(2e-5);
    const valid: number[] = [];
    for (let b = 0; b < B; b++) for (let t = 0; t < lengths[b]; t++) valid.push(b * T + t);
    expect(
      maxErr(
        valid.map((i) => values[i]),
        valid.map((i) => ref.values[i]),
      ) / maxAbs(ref.values),
    ).toBeLessThan(2e-5);
    const dl64 = new Float64Array(B * T * V);
    s.scored.forEach((pos, k) => dl64.set(s.dlogitsS.subarray(k * V, k * V + V), pos * V));
    const g64 = cpuBackward(p64, ref.cache, dl64, Float64Array.from(s.dvalues));
    for (const ent of paramLayout(cfg).entries) {
      const a = grads.subarray(ent.offset, ent.offset + ent.size);
      const r = g64.subarray(ent.offset, ent.offset + ent.size);
      const scale = Math.max(maxAbs(r), 1e-6);
      expect(maxErr(a, r) / scale, ent.name).toBeLessThan(2e-4);
    }
  });

  it('1 and 2 threads give bit-identical logits, values and gradients', () => {
    const a = run(eng.e1, 2);
    const b = run(eng.e2, 2);
    expect(
      Buffer.from(a.logits.buffer, a.logits.byteOffset, a.logits.byteLength).equals(
        Buffer.from(b.logits.buffer, b.logits.byteOffset, b.logits.byteLength),
      ),
    ).toBe(true);
    expect(Array.from(a.values)).toEqual(Array.from(b.values));
    expect(Array.from(a.grads)).toEqual(Array.from(b.grads));
  });

  it('activations are not zero-filled, yet a step over memory left full of NaN gives the same bits as over fresh memory', () => {
    const fresh = run(eng.e1, 4);
    const batch = { B, T, ids: fresh.s.ids, lengths, mask: new Float32Array(B * T).fill(1) };
    const sftFresh = sftLossAndGrads(fresh.m, batch);
    const sftGradsFresh = fresh.m.grads.read();
    // A released step's memory holding NaN where the next step's activations will go: any
    // output a kernel did not write in full (and that is read) would turn up as NaN.
    const poison = () => {
      const mark = eng.e1.mark();
      eng.e1
        .alloc(1 << 20, 'poison', 'none')
        .f32()
        .fill(Number.NaN);
      eng.e1.release(mark);
    };
    const m = WasmModel.create(eng.e1, cfg);
    m.writeParams(fresh.s.params);
    poison();
    const f = m.forward(fresh.s.ids, lengths, B, T, fresh.s.scored, true);
    expect(Array.from(f.logits.read().subarray(0, fresh.logits.length))).toEqual(Array.from(fresh.logits));
    expect(Array.from(f.values!.read())).toEqual(Array.from(fresh.values));
    m.endStep();
    poison();
    const f2 = m.forward(fresh.s.ids, lengths, B, T, fresh.s.scored, true);
    const dl = m.scratch(fresh.s.dlogitsS.length, 'dlogits');
    dl.write(fresh.s.dlogitsS);
    m.backward(f2, dl, fresh.s.dvalues);
    expect(Array.from(m.grads.read())).toEqual(Array.from(fresh.grads));
    m.endStep();
    poison();
    const sft = sftLossAndGrads(m, batch);
    expect(sft).toEqual(sftFresh);
    expect(Array.from(m.grads.read())).toEqual(Array.from(sftGradsFresh));
  });

  it('AdamW with clipping matches adamwUpdateRef (3 steps, tolerance 1e-6 of max |p|)', () => {
    const { s, m } = run(eng.e2, 3);
    const p = s.params.slice();
    const mm = new Float32Array(p.length);
    const vv = new Float32Array(p.length);
    const rng = new Rng(9);
    for (let step = 1; step <= 3; step++) {
      const g = new Float32Array(p.length).map(() => rng.float() - 0.5);
      m.grads.write(g);
      const hp = { lr: 1e-2, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0.1, maxNorm: 1, step };
      const r = m.optimizerStep(hp);
      let ss = 0;
      for (const x of g) ss += x * x;
      const norm = Math.sqrt(ss);
      expect(Math.abs(r.norm - norm) / norm).toBeLessThan(1e-6);
      adamwUpdateRef(p, g, mm, vv, { ...hp, gradScale: Math.min(1, 1 / (norm + 1e-6)) });
    }
    expect(maxErr(m.readParams(), p) / maxAbs(p)).toBeLessThan(1e-6);
  });

  it('rows shorter than a head (T = 3 < HS = 8) match the reference, 1 and 2 threads identical (the attention scratch holds the head)', () => {
    const s = setup(5);
    const [b2, t3] = [2, 3];
    const ids = s.ids.subarray(0, b2 * t3);
    const lens = Int32Array.from([3, 2]);
    const scored = Int32Array.from([0, 1, 2, 3, 4]);
    const out = [eng.e1, eng.e2].map((e) => {
      const m = WasmModel.create(e, cfg);
      m.writeParams(s.params);
      const f = m.forward(ids, lens, b2, t3, scored, false);
      const l = f.logits.read().subarray(0, scored.length * cfg.vocabSize);
      m.endStep();
      return l;
    });
    expect(Array.from(out[1])).toEqual(Array.from(out[0]));
    const ref = cpuForward(cfg, Float64Array.from(s.params), ids, lens, { B: b2, T: t3 });
    const V = cfg.vocabSize;
    const refL = new Float64Array(scored.length * V);
    scored.forEach((pos, k) => refL.set(ref.logits.subarray(pos * V, pos * V + V), k * V));
    expect(maxErr(out[0], refL) / maxAbs(refL)).toBeLessThan(2e-5);
  });

  it('bad shapes get an error naming the tensor', () => {
    const m = WasmModel.create(eng.e1, cfg);
    expect(() => m.forward(new Int32Array(5), lengths, B, T, new Int32Array(0), false)).toThrow(/ids has 5 values/);
    expect(() => m.forward(new Int32Array(B * T), Int32Array.from([1, 2, 30]), B, T, new Int32Array(0), false)).toThrow(
      /lengths\[2\] = 30/,
    );
    expect(() => m.writeParams(new Float32Array(3))).toThrow(/params: expected/);
  });
});

describe('WasmEngine faults', () => {
  it('a worker that dies makes the next dispatch throw instead of hanging', async () => {
    const e = await WasmEngine.create({ threads: 2, parallelMinWork: 0 });
    // The seam: terminate the worker behind the engine's back (as a crash would).
    const workers = (e as unknown as { workers: Array<{ terminate(): Promise<number> }> }).workers;
    // terminate() resolves when 'exit' is emitted, and the engine's 'exit' listener (added at
    // create) has run by then: no wait on the clock is needed for the engine to know.
    await workers[0].terminate();
    const m = WasmModel.create(e, cfg);
    expect(() => m.forward(new Int32Array(B * T), lengths, B, T, new Int32Array(0), false)).toThrow(/worker thread died/);
    e.destroy();
  });
});

/**
 * SFT on the CPU engine (src/engine/wasm/wasm_sft.ts) against the CPU reference model: loss and every
 * gradient of a padded micro batch (a filler row of length 0 included), three optimizer steps
 * of the CPU engine's trainer and the reference trainer giving the same parameters (greedy
 * decoding: tests/unit/engine_greedy.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpuBackward, cpuForward, sftLoss, sftTargets } from '../../src/model/cpu_model';
import { initParams } from '../../src/model/init';
import { paramLayout } from '../../src/model/layout';
import type { ModelConfig } from '../../src/model/config';
import { WasmEngine } from '../../src/engine/wasm/wasm_runtime';
import { WasmModel } from '../../src/engine/wasm/wasm_model';
import { cpuSftTrainer, sftBatchNll, sftLossAndGrads } from '../../src/engine/wasm/wasm_sft';
import { refSftTrainer } from '../../src/pretrain/sft';
import type { RowBatch } from '../../src/episode/rows';
import { Rng } from '../../src/util/rng';

const cfg: ModelConfig = { vocabSize: 61, maxT: 24, C: 16, L: 2, NH: 2 };

/** B rows of random ids, lengths ragged (one filler row), action mask on a random suffix. */
function randomBatch(seed: number, B = 3, T = 24): RowBatch {
  const r = new Rng(seed);
  const ids = new Int32Array(B * T);
  const mask = new Float32Array(B * T);
  const lengths = new Int32Array(B);
  for (let b = 0; b < B; b++) {
    const len = b === B - 1 ? 0 : 8 + r.int(T - 8);
    lengths[b] = len;
    const ctx = 2 + r.int(Math.max(1, len - 4));
    for (let t = 0; t < T; t++) {
      ids[b * T + t] = t < len ? r.int(cfg.vocabSize) : 0;
      if (t < len && t >= ctx) mask[b * T + t] = 1;
    }
  }
  return { B, T, ids, mask, lengths };
}

let engine: WasmEngine;
beforeAll(async () => {
  engine = await WasmEngine.create({ threads: 2, parallelMinWork: 0 });
});
afterAll(() => engine.destroy());

describe('CPU-engine SFT = CPU reference model', () => {
  it('the forward-only held-out NLL equals the reference loss × tokens and leaves the parameters alone', () => {
    const params = initParams(cfg, 8);
    for (let i = 0; i < params.length; i++) params[i] *= 4;
    const batch = randomBatch(5);
    const model = WasmModel.create(engine, cfg);
    model.writeParams(params);
    const r = sftBatchNll(model, batch);
    const dims = { B: batch.B, T: batch.T };
    const { targets, mask } = sftTargets(batch.ids, batch.lengths, dims, batch.mask);
    const ref = sftLoss(cfg, cpuForward(cfg, Float64Array.from(params), batch.ids, batch.lengths, dims).logits, targets, mask);
    const tokens = mask.reduce((a, b) => a + b, 0);
    expect(r.tokens).toBe(tokens);
    expect(Math.abs(r.nll / r.tokens - ref.loss)).toBeLessThan(1e-5 * Math.max(1, ref.loss));
    expect(model.readParams()).toEqual(params);
    // A batch with no action token scores nothing.
    expect(sftBatchNll(model, { ...batch, mask: new Float32Array(batch.mask.length) })).toEqual({ nll: 0, tokens: 0 });
  });

  it('loss and all gradients of a padded batch agree (f32; per tensor max |Δ| ≤ 1e-4·max |g|)', async () => {
    const params = initParams(cfg, 7);
    // Larger weights than init so that every gradient is well above rounding.
    for (let i = 0; i < params.length; i++) params[i] *= 6;
    const batch = randomBatch(3);
    const model = WasmModel.create(engine, cfg);
    model.writeParams(params);
    const w = { ...sftLossAndGrads(model, batch), grads: model.grads.read() };
    const dims = { B: batch.B, T: batch.T };
    const { targets, mask } = sftTargets(batch.ids, batch.lengths, dims, batch.mask);
    const p64 = Float64Array.from(params);
    const fwd = cpuForward(cfg, p64, batch.ids, batch.lengths, dims);
    const ref = sftLoss(cfg, fwd.logits, targets, mask);
    const grads = cpuBackward(p64, fwd.cache, ref.dlogits, null);
    expect(w.tokens).toBe(mask.reduce((a, b) => a + b, 0));
    expect(Math.abs(w.loss - ref.loss)).toBeLessThan(1e-5 * Math.max(1, ref.loss));
    const layout = paramLayout(cfg);
    // Per tensor: max |Δ| ≤ 1e-4 · max |g| (measured 3e-6; f32 accumulation order differs from the f64 reference).
    let maxAbs = 0;
    let worst = 0;
    for (const e of layout.entries) {
      if (e.name === 'valuew' || e.name === 'valueb') {
        for (let i = e.offset; i < e.offset + e.size; i++) expect(w.grads[i]).toBe(0);
        continue;
      }
      let gmax = 0;
      let dmax = 0;
      for (let i = e.offset; i < e.offset + e.size; i++) {
        gmax = Math.max(gmax, Math.abs(grads[i]));
        dmax = Math.max(dmax, Math.abs(w.grads[i] - grads[i]));
      }
      maxAbs = Math.max(maxAbs, gmax);
      worst = Math.max(worst, dmax / gmax);
      if (dmax > 1e-4 * gmax) throw new Error(`${e.name}: max |wasm − reference| = ${dmax} vs max |g| = ${gmax}`);
    }
    expect(worst).toBeLessThan(1e-4);
    expect(maxAbs).toBeGreaterThan(1e-3); // the comparison is not vacuous
  });

  it("three AdamW steps of the CPU engine's trainer track the reference trainer (max |Δp| < 2e-5)", async () => {
    const init = initParams(cfg, 11);
    const hp = { weightDecay: 0.01, maxNorm: 1 };
    const wasm = cpuSftTrainer(engine, cfg, init, hp);
    const cpu = refSftTrainer(cfg, init, hp);
    for (let s = 1; s <= 3; s++) {
      const batch = randomBatch(100 + s);
      const a = await wasm.step(batch, 3e-3, s);
      const b = await cpu.step(batch, 3e-3, s);
      expect(Math.abs(a.loss - b.loss)).toBeLessThan(1e-4);
      expect(Math.abs(a.gradNorm - b.gradNorm)).toBeLessThan(1e-4 * b.gradNorm + 1e-6);
      expect(a.tokens).toBe(b.tokens);
    }
    const pa = await wasm.params();
    const pb = await cpu.params();
    let d = 0;
    let moved = 0;
    for (let i = 0; i < pa.length; i++) {
      d = Math.max(d, Math.abs(pa[i] - pb[i]));
      moved = Math.max(moved, Math.abs(pa[i] - init[i]));
    }
    // Per-step activations are released: the engine's allocation top is flat across steps.
    const top = engine.mark();
    await wasm.step(randomBatch(200), 3e-3, 4);
    expect(engine.mark()).toBe(top);
    expect(moved).toBeGreaterThan(1e-3);
    expect(d).toBeLessThan(2e-5);
  });

  it('rejects parameters of the wrong size, naming the tensor', () => {
    expect(() => cpuSftTrainer(engine, cfg, new Float32Array(10), { weightDecay: 0, maxNorm: 1 })).toThrow(
      /params: expected \d+ values, got 10/,
    );
  });
});

/**
 * The CPU transformer (src/model/cpu_model.ts): whole-model gradient by finite differences (f64),
 * invariance of valid-token outputs to padding and batch composition (f32, bit-identical),
 * and a tiny model overfitting a small fixed corpus.
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/util/rng';
import type { ModelConfig } from '../../src/model/config';
import { paramLayout } from '../../src/model/layout';
import { initParams } from '../../src/model/init';
import { cpuAdamwStep, cpuBackward, cpuForward, sftLoss, sftTargets } from '../../src/model/cpu_model';

describe('whole-model gradient (finite differences, f64)', () => {
  it('matches central differences on random coordinates of every tensor', () => {
    const cfg: ModelConfig = { vocabSize: 13, maxT: 7, C: 8, L: 2, NH: 2 };
    const dims = { B: 2, T: 5 };
    const rng = new Rng(42);
    const lay = paramLayout(cfg);
    // f32 init, then noise so no coordinate sits at a special point (LN gain 1, zero biases).
    const params = Float64Array.from(initParams(cfg, 3), (v) => v + 0.1 * rng.normal());
    const ids = new Int32Array(dims.B * dims.T).map(() => rng.int(cfg.vocabSize));
    const lengths = new Int32Array([5, 3]);
    const { targets, mask } = sftTargets(ids, lengths, dims);
    const rv = new Float64Array(dims.B * dims.T).map(() => rng.normal());
    // Loss = token-mean cross-entropy + Σ r·values (exercises both heads).
    const lossAt = (): number => {
      const f = cpuForward(cfg, params, ids, lengths, dims);
      let s = sftLoss(cfg, f.logits, targets, mask).loss;
      for (let i = 0; i < rv.length; i++) s += rv[i] * f.values[i];
      return s;
    };
    const f = cpuForward(cfg, params, ids, lengths, dims);
    const { dlogits } = sftLoss(cfg, f.logits, targets, mask);
    const grads = cpuBackward(params, f.cache, dlogits, rv);
    const h = 1e-5;
    let checked = 0;
    let worstRel = 0;
    for (const e of lay.entries) {
      for (let k = 0; k < Math.min(4, e.size); k++) {
        const i = e.offset + rng.int(e.size);
        const x0 = params[i];
        params[i] = x0 + h;
        const lp = lossAt();
        params[i] = x0 - h;
        const lm = lossAt();
        params[i] = x0;
        const fd = (lp - lm) / (2 * h);
        const err = Math.abs(grads[i] - fd);
        worstRel = Math.max(worstRel, err / (Math.abs(fd) + 1e-6));
        if (err > 1e-7 + 1e-5 * Math.abs(fd)) throw new Error(`${e.name}[${i - e.offset}]: analytic ${grads[i]} vs fd ${fd}`);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(worstRel).toBeLessThan(1e-5);
  });
});

describe('padding and batch composition', () => {
  it('valid-token logits and values are bit-identical whatever padding and other rows (f32)', () => {
    const cfg: ModelConfig = { vocabSize: 50, maxT: 16, C: 16, L: 2, NH: 4 };
    const params = initParams(cfg, 5);
    const rng = new Rng(6);
    const seq = Array.from({ length: 6 }, () => rng.int(cfg.vocabSize));
    const V = cfg.vocabSize;
    // Alone, no padding.
    const a = cpuForward(cfg, params, Int32Array.from(seq), new Int32Array([6]), { B: 1, T: 6 });
    // Row 1 of 3, T = 11, padded with random ids; row 0 is full, row 2 is fully padded.
    const T = 11;
    const ids = new Int32Array(3 * T).map(() => rng.int(V));
    ids.set(seq, T);
    const b = cpuForward(cfg, params, ids, new Int32Array([T, 6, 0]), { B: 3, T });
    for (let t = 0; t < 6; t++) {
      for (let j = 0; j < V; j++) expect(b.logits[(T + t) * V + j]).toBe(a.logits[t * V + j]);
      expect(b.values[T + t]).toBe(a.values[t]);
    }
    expect(b.logits.every(Number.isFinite) && b.values.every(Number.isFinite)).toBe(true);
    // And the padding does influence padded positions (the test can tell rows apart).
    const c = cpuForward(
      cfg,
      params,
      ids.map((v, i) => (i >= T + 6 && i < 2 * T ? (v + 1) % V : v)),
      new Int32Array([T, 6, 0]),
      { B: 3, T },
    );
    expect(c.logits[(T + 7) * V]).not.toBe(b.logits[(T + 7) * V]);
    expect(c.logits[(T + 5) * V]).toBe(b.logits[(T + 5) * V]);
  });

  it('rejects bad batches by name', () => {
    const cfg: ModelConfig = { vocabSize: 5, maxT: 4, C: 4, L: 1, NH: 1 };
    const p = initParams(cfg, 0);
    expect(() => cpuForward(cfg, p, new Int32Array(5), new Int32Array([5]), { B: 1, T: 5 })).toThrow(/maxT/);
    expect(() => cpuForward(cfg, p, new Int32Array(4), new Int32Array([5]), { B: 1, T: 4 })).toThrow(/lengths\[0\]/);
    expect(() => cpuForward(cfg, p, new Int32Array([0, 9, 0, 0]), new Int32Array([4]), { B: 1, T: 4 })).toThrow(/ids\[1\]/);
    expect(() => cpuForward(cfg, p.subarray(1), new Int32Array(4), new Int32Array([4]), { B: 1, T: 4 })).toThrow(/params/);
  });
});

describe('training on the CPU', () => {
  it('a tiny model overfits a small fixed corpus: loss < 0.25 nats/token within 60 steps', () => {
    const corpus = [
      'the cat sat on the mat.',
      'list /docs then read a.txt',
      '{"tool":"read","path":"x"}',
      'echo hello world > out',
      '<call name="mkdir">/tmp</call>',
      '3,alice,42.5,yes',
    ];
    const chars = [...new Set(corpus.join(''))].sort();
    const cfg: ModelConfig = { vocabSize: chars.length + 1, maxT: 32, C: 32, L: 2, NH: 2 };
    const B = corpus.length;
    const T = Math.max(...corpus.map((s) => s.length));
    const ids = new Int32Array(B * T); // id 0 = padding
    const lengths = Int32Array.from(corpus, (s) => s.length);
    corpus.forEach((s, b) => [...s].forEach((ch, t) => (ids[b * T + t] = 1 + chars.indexOf(ch))));
    const params = initParams(cfg, 0);
    const m = new Float32Array(params.length);
    const v = new Float32Array(params.length);
    const { targets, mask } = sftTargets(ids, lengths, { B, T });
    const curve: number[] = [];
    for (let step = 1; step <= 60; step++) {
      const f = cpuForward(cfg, params, ids, lengths, { B, T });
      const { loss, dlogits } = sftLoss(cfg, f.logits, targets, mask);
      curve.push(loss);
      const g = cpuBackward(params, f.cache, dlogits, null);
      cpuAdamwStep(params, g, m, v, { lr: 1e-2, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0, maxNorm: 1, step });
    }
    console.log(
      `overfit: loss ${curve[0].toFixed(3)} → ${curve[curve.length - 1].toFixed(4)} nats/token (log V = ${Math.log(cfg.vocabSize).toFixed(3)})`,
    );
    expect(curve[0]).toBeGreaterThan(0.9 * Math.log(cfg.vocabSize));
    expect(curve[curve.length - 1]).toBeLessThan(0.25);
  });
});

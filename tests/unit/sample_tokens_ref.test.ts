// The sampler's CPU reference (src/reference/sample_tokens.ref.ts): the draws follow the intended
// distribution. The GPU kernel is checked against this reference id for id in the browser.
import { describe, it, expect } from 'vitest';
import { sampleTokensRef, sampleUniform, pcgHash } from '../../src/reference/sample_tokens.ref';

const V = 5;
const logits = new Float32Array([2, 1, 0.5, -1, -3]);

function freqs(temperature: number, topP: number, draws: number): number[] {
  const counts = new Array<number>(V).fill(0);
  const rows = new Int32Array(1);
  for (let s = 0; s < draws; s++) counts[sampleTokensRef(logits, V, rows, [s], { seed: 5, temperature, topP }).ids[0]]++;
  return counts.map((c) => c / draws);
}

function softmax(z: number[], tau: number): number[] {
  const x = z.map((v) => v / tau);
  const m = Math.max(...x);
  const e = x.map((v) => Math.exp(v - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / s);
}

describe('sampleTokensRef', () => {
  it('uniforms are deterministic, in [0,1), and depend on seed, row and step', () => {
    const u = sampleUniform(1, 2, 3);
    expect(u).toBe(sampleUniform(1, 2, 3));
    expect(u).toBeGreaterThanOrEqual(0);
    expect(u).toBeLessThan(1);
    expect(new Set([sampleUniform(1, 2, 3), sampleUniform(2, 2, 3), sampleUniform(1, 3, 3), sampleUniform(1, 2, 4)]).size).toBe(4);
    expect(pcgHash(0)).not.toBe(pcgHash(1));
    let mean = 0;
    for (let i = 0; i < 20000; i++) mean += sampleUniform(9, 0, i) / 20000;
    expect(Math.abs(mean - 0.5)).toBeLessThan(0.01); // σ of the mean ≈ 0.002
  });

  it('draws follow softmax(z/τ) (20000 draws, |freq − p| < 0.015 ≈ 5σ)', () => {
    for (const tau of [1, 0.5, 2]) {
      const p = softmax(Array.from(logits), tau);
      freqs(tau, 1, 20000).forEach((f, i) => expect(Math.abs(f - p[i]), `τ=${tau} id=${i}`).toBeLessThan(0.015));
    }
  });

  it('top-p keeps the smallest head with mass ≥ p and renormalizes it; log-probs match', () => {
    const p = softmax(Array.from(logits), 1); // ≈ [0.61, 0.22, 0.14, 0.03, 0.004]
    const f = freqs(1, 0.8, 20000); // nucleus = {0, 1}: mass 0.83 ≥ 0.8
    expect(f[2] + f[3] + f[4]).toBe(0);
    expect(Math.abs(f[0] - p[0] / (p[0] + p[1]))).toBeLessThan(0.015);
    const r = sampleTokensRef(logits, V, [0], [7], { seed: 1, temperature: 1, topP: 0.8 });
    const a = r.ids[0];
    expect(r.logprob[0]).toBeCloseTo(Math.log(p[a] / (p[0] + p[1])), 5);
  });

  it('greedy picks the first argmax and returns its τ = 1 log-softmax', () => {
    const z = new Float32Array([0, 3, 3, 1]);
    const r = sampleTokensRef(z, 4, [0], [0], { seed: 0, temperature: 0, topP: 1 });
    expect(r.ids[0]).toBe(1);
    const lse = Math.log(1 + 2 * Math.exp(3) + Math.exp(1));
    expect(r.logprob[0]).toBeCloseTo(3 - lse, 6);
  });

  it('reports the policy entropy −Σ p log p of softmax(z) at τ = 1, whatever τ, top-p or ban; uniform logits give log V', () => {
    const z = new Float32Array([2, 0.5, -1, 0.25, 1, ...[0, 0, 0, 0, 0]]); // two rows of V = 5
    const p = softmax(Array.from(z.subarray(0, 5)), 1);
    const h = -p.reduce((a, q) => a + q * Math.log(q), 0);
    for (const opt of [
      { seed: 0, temperature: 1, topP: 1 },
      { seed: 0, temperature: 0, topP: 1 },
      { seed: 3, temperature: 0.5, topP: 0.7 },
      { seed: 3, temperature: 1.3, topP: 1, ban: { lo: 0, hi: 2 } },
    ]) {
      const r = sampleTokensRef(z, 5, [0, 1], [0, 0], opt);
      expect(r.entropy[0], JSON.stringify(opt)).toBeCloseTo(h, 6);
      expect(r.entropy[1], JSON.stringify(opt)).toBeCloseTo(Math.log(5), 6);
    }
    // Shift-invariant and finite at |z| ≈ 1e4 (max-subtracted).
    const big = Float32Array.from(z.subarray(0, 5), (x) => x + 1e4);
    expect(sampleTokensRef(big, 5, [0], [0], { seed: 0, temperature: 1, topP: 1 }).entropy[0]).toBeCloseTo(h, 2);
  });

  it('names the bad argument', () => {
    expect(() => sampleTokensRef(logits, V, [1], [0], { seed: 0, temperature: 1, topP: 1 })).toThrow(/rows\[0\] = 1/);
    expect(() => sampleTokensRef(logits, V, [0], [0], { seed: 0, temperature: -1, topP: 1 })).toThrow(/temperature/);
    expect(() => sampleTokensRef(logits, V, [0], [0], { seed: 0, temperature: 1, topP: 0 })).toThrow(/topP/);
  });
  it('banned ids are never drawn (greedy or sampled); the allowed id is; log-probs are those without the ban', () => {
    // Ids 1..3 banned except 3; id 1 is the argmax.
    const z = new Float32Array([0, 5, 4, 3, -1]);
    const ban = { lo: 1, hi: 4, allow: 3 };
    const rows = new Int32Array(1);
    expect(sampleTokensRef(z, V, rows, [0], { seed: 1, temperature: 0, topP: 1, ban }).ids[0]).toBe(3);
    const counts = new Array<number>(V).fill(0);
    for (let s = 0; s < 4000; s++) {
      const r = sampleTokensRef(z, V, rows, [s], { seed: 2, temperature: 1, topP: 1, ban });
      counts[r.ids[0]]++;
      // Same log-prob formula as without the ban (the policy's log-softmax at τ = 1).
      const lse = Math.log([...z].reduce((a, x) => a + Math.exp(x), 0));
      expect(r.logprob[0]).toBeCloseTo(z[r.ids[0]] - lse, 5);
    }
    expect(counts[1] + counts[2]).toBe(0);
    // Drawn from the allowed ids in proportion to their probabilities: e^3 : e^0 : e^-1.
    const allowed = [0, 3, 4].map((i) => Math.exp(z[i]));
    const tot = allowed.reduce((a, b) => a + b, 0);
    expect(counts[3] / 4000).toBeCloseTo(allowed[1] / tot, 1);
    expect(counts[0] / 4000).toBeCloseTo(allowed[0] / tot, 1);
  });
});

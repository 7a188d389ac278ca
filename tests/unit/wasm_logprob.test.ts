/**
 * The CPU engine's logprob_forward / logprob_backward (src/engine/wasm/as/heads.ts) against their
 * references (src/kernels/logprob_{forward,backward}.ref.ts) at temperatures τ ∈ {1, 0.5, 1.5}
 * (the RL trainer scores log softmax(z/τ) at the rollout τ), on 1 and 2 threads, with rows of
 * std-3 logits and one row at ±1e4. Tolerances, rows of std 3: logp and lse within 1e-5 +
 * 1e-5·|ref| (measured ≤ 1.3e-6), dlogits within 1e-6 + 1e-4·|ref| (measured ≤ 1.4e-7); the
 * ±1e4 row: logp and lse within 2e-3 (the f32 ulp at 1e4/τ; measured ≤ 8e-4), dlogits within 5e-3.
 */
import { describe, expect, it } from 'vitest';
import { useEngines } from './lib/wasm_engines';
import type { WasmEngine } from '../../src/engine/wasm/wasm_runtime';
import { logprobForward } from '../../src/engine/wasm/wasm_kernels';
import { logprobCase, worst } from '../browser/lib/logprob_case';

const S = 6;
const V = 37;

const run = (e: WasmEngine, tau: number) => logprobCase(e, tau, { S, V, seed: 21, hugeRow: true });

describe('CPU engine logprob kernels at temperature τ', () => {
  const eng = useEngines();
  for (const tau of [1, 0.5, 1.5]) {
    it(`τ = ${tau}: forward and backward match the references on 1 and 2 threads`, () => {
      for (const e of [eng.e1, eng.e2]) {
        const o = run(e, tau);
        const n = S - 1;
        // Rows of std-3 logits: f32 rounding only. The ±1e4 row: z/τ and lse ≈ 1e4/τ carry an f32
        // ulp of up to 2e-3, which logp, lse and p = exp(z/τ − lse) inherit (as on the GPU).
        expect(worst(o.logp, o.ref.logprob, 1e-5, 1e-5, 0, n)).toBeLessThan(1);
        expect(worst(o.lse, o.ref.lse, 1e-5, 1e-5, 0, n)).toBeLessThan(1);
        expect(worst(o.dlogits, o.refD, 1e-6, 1e-4, 0, n * V)).toBeLessThan(1);
        expect(worst(o.logp, o.ref.logprob, 2e-3, 1e-6, n)).toBeLessThan(1);
        expect(worst(o.lse, o.ref.lse, 2e-3, 1e-6, n)).toBeLessThan(1);
        expect(worst(o.dlogits, o.refD, 5e-3, 0, n * V)).toBeLessThan(1);
        for (let v = 0; v < V; v++) expect(o.dlogits[2 * V + v]).toBe(0);
      }
    });
  }
  it('τ = 1.5 differs from τ = 1 (the parameter reaches the kernel) and a bad τ is refused', () => {
    const a = run(eng.e1, 1);
    const b = run(eng.e1, 1.5);
    expect(worst(a.logp, b.ref.logprob, 1e-3, 0)).toBeGreaterThan(1);
    const mark = eng.e1.mark();
    const x = eng.e1.alloc(V, 'x');
    expect(() => logprobForward(eng.e1, x, x, x, x, { S: 1, V, temperature: 0 })).toThrow(
      /logprobForward: temperature must be finite, > 0 and ≤ 10, got 0/,
    );
    eng.e1.release(mark);
  });
});

/**
 * The CPU engine's one GEMM (src/engine/wasm/as/matmul.ts, launcher `gemm`) on its own, both builds:
 * against an f64 reference over row counts that exercise every register tile (4×8, 4×4, 2×16,
 * 1×32, 1×8, 1×4 and the scalar column tail), transposed A, a bias, accumulation, and K beyond
 * the reduction block (KB = 256); and the claim the engine's thread-count identity rests on:
 * a row's result does not depend on which tile computed it (alone, in a pair, in a block of 4).
 * Tolerance: 1e-5 of Σ|a·b| per element (f32 sequential sums of ≤ 300 terms vs f64).
 */
import { describe, expect, it } from 'vitest';
import { useEngines } from './lib/wasm_engines';
import type { WasmEngine } from '../../src/engine/wasm/wasm_runtime';
import { gemm } from '../../src/engine/wasm/wasm_kernels';
import { Rng } from '../../src/util/rng';

type Init = 'zero' | 'bias' | 'accumulate';

/** C (rows, M) = init + A·B with A (rows, K) read through strides (transposed when colStride > 1). */
function runGemm(
  e: WasmEngine,
  A: Float32Array,
  rowStride: number,
  colStride: number,
  Bm: Float32Array,
  C0: Float32Array,
  bias: Float32Array,
  init: Init,
  rows: number,
  M: number,
  K: number,
): Float32Array {
  const mark = e.mark();
  const a = e.alloc(Math.max(1, A.length), 'A');
  if (A.length) a.write(A);
  const b = e.alloc(Math.max(1, Bm.length), 'B');
  if (Bm.length) b.write(Bm);
  const c = e.alloc(rows * M, 'C');
  c.write(C0);
  const bi = e.alloc(M, 'bias');
  bi.write(bias);
  gemm(e, { a, rowStride, colStride, b, c, bias: bi, init }, rows, M, K);
  const out = c.read();
  e.release(mark);
  return out;
}

function randn(rng: Rng, n: number): Float32Array {
  return Float32Array.from({ length: n }, () => rng.normal());
}

describe.each([
  ['baseline', false],
  ['relaxed SIMD', true],
])('gemm (%s build)', (_build, relaxedSimd) => {
  const eng = useEngines({ relaxedSimd });

  it('matches an f64 reference for rows 1–9, M up to 72 (every tile), K 0 / 3 / 300, each init, A plain and transposed (1e-5 of Σ|a·b|)', () => {
    const rng = new Rng(5);
    let checked = 0;
    for (const rows of [1, 2, 3, 4, 5, 6, 7, 9]) {
      for (const M of [1, 7, 16, 24, 40, 72]) {
        for (const K of [0, 3, 300]) {
          for (const init of ['zero', 'bias', 'accumulate'] as const) {
            for (const transposed of [false, true]) {
              const A = randn(rng, rows * K);
              const Bm = randn(rng, K * M);
              const C0 = randn(rng, rows * M);
              const bias = randn(rng, M);
              const [rs, cs] = transposed ? [1, rows] : [K, 1];
              const got = runGemm(rows % 2 ? eng.e1 : eng.e2, A, rs, cs, Bm, C0, bias, init, rows, M, K);
              for (let n = 0; n < rows; n++) {
                for (let m = 0; m < M; m++) {
                  let ref = init === 'zero' ? 0 : init === 'bias' ? bias[m] : C0[n * M + m];
                  let mag = Math.abs(ref);
                  for (let k = 0; k < K; k++) {
                    const p = A[n * rs + k * cs] * Bm[k * M + m];
                    ref += p;
                    mag += Math.abs(p);
                  }
                  const err = Math.abs(got[n * M + m] - ref);
                  if (err > 1e-5 * Math.max(mag, 1e-30))
                    throw new Error(
                      `rows ${rows} M ${M} K ${K} ${init} ${transposed ? 'Aᵀ' : 'A'}: C[${n},${m}] = ${got[n * M + m]}, f64 ${ref}`,
                    );
                  checked++;
                }
              }
            }
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(30_000);
  });

  it('a row gets the same bits whichever tile computes it: alone, in a pair, in a block of 4, on 1 or 2 threads', () => {
    const rng = new Rng(6);
    for (const M of [8, 16, 40, 64, 72]) {
      const rows = 7;
      const K = 300;
      const A = randn(rng, rows * K);
      const Bm = randn(rng, K * M);
      const bias = randn(rng, M);
      const zero = new Float32Array(rows * M);
      const all = runGemm(eng.e1, A, K, 1, Bm, zero, bias, 'bias', rows, M, K);
      const all2 = runGemm(eng.e2, A, K, 1, Bm, zero, bias, 'bias', rows, M, K);
      expect(Array.from(all2)).toEqual(Array.from(all));
      for (let n = 0; n < rows; n++) {
        const one = runGemm(eng.e1, A.subarray(n * K, (n + 1) * K), K, 1, Bm, new Float32Array(M), bias, 'bias', 1, M, K);
        expect(Array.from(one), `M ${M} row ${n} alone`).toEqual(Array.from(all.subarray(n * M, (n + 1) * M)));
        if (n + 2 <= rows) {
          const pair = runGemm(eng.e1, A.subarray(n * K, (n + 2) * K), K, 1, Bm, new Float32Array(2 * M), bias, 'bias', 2, M, K);
          expect(Array.from(pair), `M ${M} rows ${n}–${n + 1} as a pair`).toEqual(Array.from(all.subarray(n * M, (n + 2) * M)));
        }
      }
    }
  });
});

/**
 * The CPU engine's two builds (scripts/build-wasm.mjs): the relaxed-SIMD build really fuses its
 * multiply-adds (one rounding) where the CPU has FMA, the baseline never does, and the engine
 * reports which build it runs. Parity with the references and thread-count determinism of both
 * builds are in wasm_model.test.ts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { enableRelaxedSimd } from './lib/wasm_engines';
import { WasmEngine } from '../../src/engine/wasm/wasm_runtime';
import { gemm } from '../../src/engine/wasm/wasm_kernels';

/** x86 Linux with FMA3: V8 lowers relaxed_madd to vfmadd there. */
function cpuHasFma(): boolean {
  try {
    return /\bfma\b/.test(readFileSync('/proc/cpuinfo', 'utf8'));
  } catch {
    return false;
  }
}

/**
 * C (1×4) = A (1×2) · B (2×4) with A = [1, 1 + 2⁻¹²], B rows [−(1 + 2⁻¹¹)] and [1 + 2⁻¹²]:
 * acc = −(1 + 2⁻¹¹), then acc + (1 + 2⁻¹²)². The exact product is 1 + 2⁻¹¹ + 2⁻²⁴; rounded to
 * f32 first it loses the 2⁻²⁴ (a tie, to even), so mul + add gives 0 and a fused multiply-add 2⁻²⁴.
 */
async function probe(relaxedSimd: boolean): Promise<{ e: WasmEngine; c: Float32Array }> {
  const e = await WasmEngine.create({ threads: 1, relaxedSimd });
  const u = 1 + 2 ** -12;
  const a = e.alloc(2, 'A');
  a.write([1, u]);
  const b = e.alloc(8, 'B');
  b.write([...new Array(4).fill(-(1 + 2 ** -11)), ...new Array(4).fill(u)]);
  const c = e.alloc(4, 'C');
  gemm(e, { a, rowStride: 2, colStride: 1, b, c, init: 'zero' }, 1, 4, 2);
  return { e, c: c.read() };
}

describe('relaxed SIMD build', () => {
  enableRelaxedSimd();

  it('this Node validates the relaxed build once its flag is on, so an engine starts on it by default (else the relaxed half of the parity tests would not run)', async () => {
    const e = await WasmEngine.create({ threads: 1 });
    try {
      expect(e.relaxedSimd).toBe(true);
    } finally {
      e.destroy();
    }
  });

  it('the baseline rounds the product before adding (0); the relaxed build fuses where the CPU has FMA (2⁻²⁴)', async () => {
    const base = await probe(false);
    const rel = await probe(true);
    try {
      expect(base.e.relaxedSimd).toBe(false);
      expect(rel.e.relaxedSimd).toBe(true);
      expect(Array.from(base.c)).toEqual([0, 0, 0, 0]);
      const fused = cpuHasFma() ? 2 ** -24 : 0;
      expect(Array.from(rel.c)).toEqual([fused, fused, fused, fused]);
    } finally {
      base.e.destroy();
      rel.e.destroy();
    }
  });
});

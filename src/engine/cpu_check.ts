/**
 * `hlab doctor`'s check of the CPU engine (src/engine/wasm): a 2-thread GEMM of known result
 * against its f64 reference. The engine loads on first use: the other checks need no WebAssembly.
 */

/** @returns whether the GEMM was exact, and what ran (or why it failed); never throws. */
export async function checkCpuEngine(): Promise<{ ok: boolean; detail: string }> {
  try {
    const { WasmEngine } = await import('./wasm/wasm_runtime');
    const { gemm } = await import('./wasm/wasm_kernels');
    const e = await WasmEngine.create({ threads: 2, parallelMinWork: 0 });
    try {
      const [n, m, k] = [13, 24, 17];
      const a = e.alloc(n * k, 'a');
      const b = e.alloc(k * m, 'b');
      const c = e.alloc(n * m, 'c');
      a.write(Float32Array.from({ length: n * k }, (_, i) => ((i * 7) % 11) - 5));
      b.write(Float32Array.from({ length: k * m }, (_, i) => ((i * 5) % 13) - 6));
      gemm(e, { a, rowStride: k, colStride: 1, b, c, init: 'zero' }, n, m, k);
      const av = a.read();
      const bv = b.read();
      const cv = c.read();
      let bad = 0;
      for (let i = 0; i < n; i++)
        for (let j = 0; j < m; j++) {
          let s = 0;
          for (let q = 0; q < k; q++) s += av[i * k + q] * bv[q * m + j];
          if (cv[i * m + j] !== s) bad++;
        }
      return {
        ok: bad === 0,
        detail:
          bad === 0 ? `WebAssembly SIMD, ${e.threads} threads: GEMM ${n}×${k}×${m} exact` : `GEMM returned ${bad} wrong values of ${n * m}`,
      };
    } finally {
      e.destroy();
    }
  } catch (e) {
    return { ok: false, detail: (e as Error).message.split('\n')[0] };
  }
}

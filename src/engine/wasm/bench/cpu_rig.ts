/**
 * The CPU engine's side of `hlab bench`'s cpuEngine section (src/bench/cpu_engine.ts compares it
 * with its peers, reached through src/engine/backend_bench.ts): one WasmEngine per thread count,
 * shared by every measurement, and the measurements that need the engine's internals.
 *
 *  - GEMM: the register-tiled kernel alone on the model's shapes (the peak the rest is measured
 *    against), median of 7 × 5 calls.
 *  - SFT trainers on a given engine (the step the section interleaves with TF.js and PyTorch).
 *  - Sampling: decode tokens/s of the KV-cache WasmSampler (τ = 1, prefill excluded).
 */
import type { ModelConfig } from '../../../model/config';
import { initParams } from '../../../model/init';
import { Rng } from '../../../util/rng';
import type { SftHyper, SftTrainer } from '../../engine_api';
import { WasmEngine } from '../wasm_runtime';
import { cpuSftTrainer } from '../wasm_sft';
import { WasmModel } from '../wasm_model';
import { WasmSampler } from '../wasm_sampler';
import { gemm } from '../wasm_kernels';

export interface CpuGemmRow {
  /** rows × K × M of C (rows, M) = A (rows, K) · B (K, M). */
  shape: string;
  threads: number;
  gflops: number;
}

/** The CPU engine on each thread count of a bench section (module doc). */
export interface CpuBenchRig {
  /** Whether the engine runs the relaxed-SIMD (fused multiply-add) build. */
  readonly relaxedSimd: boolean;
  /** The GEMM alone per shape and thread count (`quick`: one 512×128×512 shape). */
  gemm(quick: boolean): CpuGemmRow[];
  /** An SFT trainer from `init` on the engine of `threads` threads (released with the rig). */
  sftTrainer(threads: number, cfg: ModelConfig, init: Float32Array, hp: SftHyper): SftTrainer;
  /**
   * Median decode tokens/s of the KV-cache sampler on the engine of `threads` threads: B random
   * prompts of context − newTokens ids (seeded), untrained `initParams` weights, τ = 1; one
   * untimed 2-token call, then 5 timed calls (3 with `quick`).
   */
  samplingTokensPerSec(
    threads: number,
    cfg: ModelConfig,
    o: { B: number; context: number; newTokens: number; quick: boolean },
  ): Promise<number>;
  /** Release every engine. */
  destroy(): void;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/**
 * Start one engine per thread count.
 * @throws Error when WebAssembly (SIMD, shared memory for threads > 1) is unavailable.
 */
export async function cpuBenchRig(threadCounts: readonly number[]): Promise<CpuBenchRig> {
  const engines = new Map<number, WasmEngine>();
  for (const t of threadCounts) engines.set(t, await WasmEngine.create({ threads: t }));
  const engine = (t: number) => engines.get(t)!;
  return {
    relaxedSimd: engine(threadCounts[0]).relaxedSimd,
    gemm: (quick) => benchGemm(engines, threadCounts, quick),
    sftTrainer: (t, cfg, init, hp) => cpuSftTrainer(engine(t), cfg, init, hp),
    async samplingTokensPerSec(t, cfg, { B, context, newTokens, quick }) {
      const e = engine(t);
      const mark = e.mark();
      try {
        const model = WasmModel.create(e, cfg);
        model.writeParams(initParams(cfg, 1));
        const s = new WasmSampler(model);
        const srng = new Rng(2);
        const prompts = Array.from({ length: B }, () => Int32Array.from({ length: context - newTokens }, () => srng.int(cfg.vocabSize)));
        await s.sample({ prompts, maxNewTokens: 2, temperature: 1, seed: 3 });
        const tps: number[] = [];
        for (let r = 0; r < (quick ? 3 : 5); r++) {
          const { stats } = await s.sample({ prompts, maxNewTokens: newTokens, temperature: 1, seed: 3 });
          tps.push((stats.tokens - B) / ((stats.ms - stats.firstStepMs) / 1000));
        }
        return median(tps);
      } finally {
        e.release(mark);
      }
    },
    destroy() {
      for (const e of engines.values()) e.destroy();
    },
  };
}

/** The GEMM alone on the model's shapes (the engine's peak), median of 7 × 5 calls, per thread count. */
function benchGemm(engines: ReadonlyMap<number, WasmEngine>, threadCounts: readonly number[], quick: boolean): CpuGemmRow[] {
  const gemmRows: CpuGemmRow[] = [];
  for (const [N, K, M] of quick
    ? [[512, 128, 512]]
    : [
        [2048, 128, 512],
        [2048, 512, 128],
        [2048, 64, 256],
        [512, 512, 512],
      ]) {
    for (const t of threadCounts) {
      const e = engines.get(t)!;
      const mark = e.mark();
      const A = e.alloc(N * K, 'A');
      const B = e.alloc(K * M, 'B');
      const Cm = e.alloc(N * M, 'C');
      A.f32().forEach((_, i, a) => (a[i] = Math.sin(i)));
      B.f32().forEach((_, i, a) => (a[i] = Math.cos(i)));
      const run = () => gemm(e, { a: A, rowStride: K, colStride: 1, b: B, c: Cm, init: 'zero' }, N, M, K);
      for (let i = 0; i < 3; i++) run();
      const ms: number[] = [];
      for (let r = 0; r < 7; r++) {
        const t0 = performance.now();
        for (let i = 0; i < 5; i++) run();
        ms.push((performance.now() - t0) / 5);
      }
      gemmRows.push({ shape: `${N}×${K}×${M}`, threads: t, gflops: (2 * N * K * M) / (median(ms) / 1000) / 1e9 });
      e.release(mark);
    }
  }
  return gemmRows;
}

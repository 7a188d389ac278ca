/**
 * `hlab bench` section `cpuEngine`: the CPU engine (src/engine/wasm) against its peers, in the page.
 *
 *  - Training: one SFT step (forward, masked cross-entropy, backward, clip, AdamW) on the same
 *    batch of B full rows scored at every position, for mini and small: ours on 1 and 2
 *    threads and TF.js-wasm (bench/tfjs_transformer.ts), interleaved (each repetition runs
 *    every contender once), median of ≥ 5 after one untimed warm-up step each. Effective
 *    GFLOP/s counts the model's arithmetic of the whole step (`stepFlops`), every op included.
 *    Where the CLI found a Python with torch, the same model's step in PyTorch on the CPU
 *    (pytorch_peer.py: full LM head, 2 threads) joins each repetition; the page reaches that
 *    peer through `o.pytorch` (the page entry asks the CLI, src/page/protocol.ts PageQueries).
 *  - GEMM: the register-tiled kernel alone on the model's shapes, 1 and 2 threads (the peak
 *    the rest is measured against).
 *  - Sampling: decode tokens/s of the KV-cache sampler (B prompts, context 512, 32 new tokens,
 *    τ = 1, prefill excluded) on 1 and 2 threads against the WebGPU sampler on the adapter the
 *    page has (SwiftShader on a machine without a GPU).
 * What needs the engines' internals (GEMM, the samplers' timings) lives with each engine
 * (src/engine/wasm/bench/cpu_rig.ts, src/engine/webgpu/bench/forward.ts), reached through
 * src/engine/backend_bench.ts; this file runs the comparison.
 */
import { presetConfig, validateConfig, type ModelConfig, type PresetName } from '../model/config';
import { initParams } from '../model/init';
import { sftTargets } from '../model/cpu_model';
import { Rng } from '../util/rng';
import { benchGpuSampling, cpuBenchRig, type CpuBenchRig, type CpuGemmRow } from '../engine/backend_bench';
import { TfTransformer, useTfBackend } from './tfjs_transformer';
import type { PeerInfo, PytorchPeerModel } from './pytorch_peer';

interface CpuTrainingRow {
  preset: PresetName;
  threads: number;
  B: number;
  T: number;
  tokensPerSec: number;
  gflops: number;
  medianMs: number;
  tfjsWasmTokensPerSec: number;
  ratioVsTfjsWasm: number;
  /** The PyTorch CPU peer's tokens/s (pytorch_peer.py, `pytorchThreads` threads); null when it did not run. */
  pytorchTokensPerSec: number | null;
  /** tokensPerSec / pytorchTokensPerSec; null when the peer did not run. */
  ratioVsPytorch: number | null;
}

/** The PyTorch CPU peer as the page sees it (bench/pytorch_peer.ts runs it in Node): build its model, run one of its steps (wall ms). */
interface PytorchPeerLink {
  model(m: PytorchPeerModel): Promise<PeerInfo>;
  step(): Promise<number>;
}

interface CpuSamplingRow {
  preset: PresetName;
  threads: number;
  B: number;
  context: number;
  tokensPerSec: number;
  webgpuTokensPerSec: number;
  ratioVsWebgpu: number;
  webgpuAdapter: string;
}

/**
 * Model flops of one training step over B rows of T tokens, every position scored: forward
 * matmuls 2·N·(12·C²·L + C·V), attention 2·2·C·L·Σ_t (t+1) per row (QKᵀ and AV, causal),
 * backward twice the forward (Kaplan et al. 2020 §2.1: C ≈ 6N per token for the matmuls).
 * LayerNorm, GELU, softmax and AdamW are not counted (they are O(N·C)), so this is the
 * conventional "model FLOPs" measure.
 */
function stepFlops(cfg: ModelConfig, B: number, T: number, scored = B * T): number {
  const { C, L, vocabSize: V } = cfg;
  const N = B * T;
  const fwd = 2 * N * 12 * C * C * L + 2 * scored * C * V + 4 * C * L * B * ((T * (T + 1)) / 2);
  return 3 * fwd;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function timeMs(f: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
}

/**
 * The section (module doc).
 * @param o.quick smaller batches (B 2, T 64) and 5 repetitions
 * @param o.pytorch the PyTorch peer, when the CLI has one (null or absent: not compared)
 * @param log progress, one line each (the page entry sends it to the CLI)
 */
export async function benchCpuEngine(
  o: { quick?: boolean; reps?: number; pytorch?: PytorchPeerLink | null } = {},
  log: (line: string) => void = () => {},
): Promise<{
  hardwareConcurrency: number;
  crossOriginIsolated: boolean;
  relaxedSimd: boolean;
  pytorch: PeerInfo | null;
  gemm: CpuGemmRow[];
  training: CpuTrainingRow[];
  sampling: CpuSamplingRow[];
}> {
  const reps = Math.max(5, o.reps ?? 5);
  const threadCounts = [1, 2];
  const rig = await cpuBenchRig(threadCounts);
  const training: CpuTrainingRow[] = [];
  const sampling: CpuSamplingRow[] = [];
  const gemmRows: CpuGemmRow[] = [];
  const peer = o.pytorch ?? null;
  let pytorch: PeerInfo | null = null;
  try {
    gemmRows.push(...rig.gemm(o.quick === true));
    for (const preset of ['mini', 'small'] as const) {
      const cfg = presetConfig(preset, 1024);
      const [B, T] = o.quick ? [2, 64] : [8, 256];
      const rng = new Rng(2);
      const ids = Int32Array.from({ length: B * T }, () => rng.int(cfg.vocabSize));
      const lengths = new Int32Array(B).fill(T);
      const { targets, mask } = sftTargets(ids, lengths, { B, T });
      const params = initParams(cfg, 1);
      const batch = { B, T, ids, lengths, mask: new Float32Array(B * T).fill(1) };
      const ours = threadCounts.map((t) => ({
        t,
        trainer: rig.sftTrainer(t, cfg, params, { weightDecay: 0.01, maxNorm: 1 }),
        ms: [] as number[],
      }));
      await useTfBackend('wasm');
      const tf = new TfTransformer('wasm', cfg, params, 1e-3, T);
      tf.setBatch(B, T, ids, targets, mask);
      const tfMs: number[] = [];
      const pyMs: number[] = [];
      const py = peer ? () => peer.step() : null;
      if (peer)
        pytorch = await peer.model({ C: cfg.C, L: cfg.L, NH: cfg.NH, V: cfg.vocabSize, B, T, threads: Math.max(...threadCounts), seed: 1 });
      log(`${preset} B=${B} T=${T}: warm-up`);
      for (const x of ours) await x.trainer.step(batch, 1e-3, 1);
      await tf.trainStep();
      // PyTorch takes a few steps to reach its pace (allocator, thread pool): 78 → 58 → 45 ms for
      // mini standalone; ours is steady from its second step.
      if (py) for (let w = 0; w < 3; w++) await py();
      for (let r = 0; r < reps; r++) {
        for (const x of ours) x.ms.push(await timeMs(() => x.trainer.step(batch, 1e-3, r + 2)));
        tfMs.push(await timeMs(() => tf.trainStep()));
        if (py) pyMs.push(await py());
        log(
          `${preset} rep ${r + 1}/${reps}: ${ours.map((x) => `${x.t} thr ${x.ms[r].toFixed(0)} ms`).join(', ')}, tfjs-wasm ${tfMs[r].toFixed(0)} ms${py ? `, pytorch ${pyMs[r].toFixed(0)} ms` : ''}`,
        );
      }
      // Positions scored: the rows' targets (the last position of each row has none).
      const scored = mask.reduce((a, b) => a + (b > 0 ? 1 : 0), 0);
      const flops = stepFlops(cfg, B, T, scored);
      const tfTps = (B * T) / (median(tfMs) / 1000);
      const pyTps = py ? (B * T) / (median(pyMs) / 1000) : null;
      for (const x of ours) {
        const ms = median(x.ms);
        const tps = (B * T) / (ms / 1000);
        training.push({
          preset,
          threads: x.t,
          B,
          T,
          medianMs: ms,
          tokensPerSec: tps,
          gflops: flops / (ms / 1000) / 1e9,
          tfjsWasmTokensPerSec: tfTps,
          ratioVsTfjsWasm: tps / tfTps,
          pytorchTokensPerSec: pyTps,
          ratioVsPytorch: pyTps === null ? null : tps / pyTps,
        });
      }

      sampling.push(...(await benchCpuSampling(preset, cfg, rig, threadCounts, o.quick === true, log)));
    }
  } finally {
    rig.destroy();
  }
  return {
    hardwareConcurrency: navigator.hardwareConcurrency,
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
    relaxedSimd: rig.relaxedSimd,
    pytorch,
    gemm: gemmRows,
    training,
    sampling,
  };
}

/** Sampling on the CPU engine per thread count, beside the WebGPU sampler on the same shapes (context 512, 32 new tokens). */
async function benchCpuSampling(
  preset: 'mini' | 'small',
  cfg: ModelConfig,
  rig: CpuBenchRig,
  threadCounts: readonly number[],
  quick: boolean,
  log: (line: string) => void,
): Promise<CpuSamplingRow[]> {
  const sampling: CpuSamplingRow[] = [];
  const SB = quick ? 2 : 4;
  const newTokens = quick ? 8 : 32;
  const context = 512;
  const scfg = validateConfig({ ...cfg, maxT: Math.max(cfg.maxT, context) });
  let gpuTps = NaN;
  let adapter = 'none';
  try {
    const g = await benchGpuSampling(preset, true, { B: SB, newTokens, context });
    gpuTps = g.tokensPerSec;
    const gpu = (navigator as Navigator & { gpu?: GPU }).gpu;
    const a = await gpu?.requestAdapter();
    adapter = a ? `${a.info.vendor}/${a.info.architecture}` : 'none';
  } catch (e) {
    adapter = `unavailable (${(e as Error).message.split('\n')[0]})`;
  }
  for (const t of threadCounts) {
    const m = await rig.samplingTokensPerSec(t, scfg, { B: SB, context, newTokens, quick });
    sampling.push({
      preset,
      threads: t,
      B: SB,
      context,
      tokensPerSec: m,
      webgpuTokensPerSec: gpuTps,
      ratioVsWebgpu: m / gpuTps,
      webgpuAdapter: adapter,
    });
    log(`${preset} sampling ${t} thr: ${m.toFixed(0)} tok/s (WebGPU ${gpuTps.toFixed(0)} tok/s on ${adapter})`);
  }
  return sampling;
}

/**
 * `hlab bench [--json] [--quick]`: the engine's numbers, measured in headless Chromium on its
 * WebGPU adapter (SwiftShader on GPU-less machines; HLAB_WEBGPU_ADAPTER=default for a real GPU).
 *
 * First the CPU engine (src/bench/cpu_engine.ts: GEMM, training vs TF.js-wasm and — where a
 * Python with torch exists — PyTorch, whose steps run here in Node (bench/pytorch_peer.ts) and
 * are called from the page between ours; sampling) and one RL step on it (bench/rl_step.ts);
 * `--cpu-engine-only` stops there. Then the adapter, our training step (tiny, small) in ms and tokens/s, dispatches / submits /
 * readbacks per step, the same model's step in TF.js (webgpu, wasm, cpu; same page, interleaved,
 * median of ≥ 5) with the ratios, and per-kernel GFLOP/s and GB/s. Other engineers' page bench
 * entries (`src/bench/*.bench.ts` exporting `bench({ quick })`, e.g. sampling tokens/s with and
 * without the KV cache) are run too when present; their absence is reported. Last, rollout
 * throughput (environment steps/s and sampled tokens/s with 1, 2 and 4 env workers,
 * src/bench/rollout_bench.ts `benchRollouts`), and the `hlab serve` memory soak (src/bench/serve_soak.ts: RSS
 * after every 1,000 episodes, 20,000 in all, 3,000 with --quick). Results are recorded in docs/PERFORMANCE.md. Never part
 * of the tests (speed is not asserted anywhere).
 */
import type { Command } from 'commander';
import { readdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { intOption, printJson } from '../cli_util';
import { withBrowser } from '../browser';
import type { benchTraining } from '../../bench/train_bench';
import type { RolloutBenchRow } from '../../bench/rollout_bench';
import type { benchCpuEngine } from '../../bench/cpu_engine';
import type { RlStepRow } from '../../bench/rl_step';
import { benchServe } from '../../bench/serve_bench';
import { PytorchPeer, peerBlasWarning } from '../../bench/pytorch_peer';
import { soakLine, soakServe } from '../../bench/serve_soak';

type TrainBench = Awaited<ReturnType<typeof benchTraining>>;
/** The CPU engine section, with a note when the PyTorch peer was skipped. */
type CpuEngineBench = (Awaited<ReturnType<typeof benchCpuEngine>> & { pytorchNote?: string }) | { error: string; pytorchNote?: string };

/** Options passed to `benchRollouts` (recorded in the output: the rows depend on them). */
interface RolloutBenchConfig {
  workers: number[];
  episodes: number;
  maxTurns: number;
  maxNewTokens: number;
}

/** Rollout throughput section of the output: the configuration and one row per worker count, or why it failed. */
type RolloutSection = { config: RolloutBenchConfig; rows: RolloutBenchRow[] } | { config: RolloutBenchConfig; error: string };

/**
 * Full: the defaults of `benchRollouts` (16 episodes, ≤ 4 turns, ≤ 24 new tokens per turn).
 * Quick: 8 episodes (2 per harness of the 4), ≤ 2 turns of ≤ 8 tokens — still 1, 2 and 4
 * workers, so the scaling is visible, but at most a twelfth of the sampled tokens.
 */
function rolloutConfig(quick: boolean): RolloutBenchConfig {
  return quick
    ? { workers: [1, 2, 4], episodes: 8, maxTurns: 2, maxNewTokens: 8 }
    : { workers: [1, 2, 4], episodes: 16, maxTurns: 4, maxNewTokens: 24 };
}

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

interface Opts {
  json?: boolean;
  quick?: boolean;
  externalTimeout: number;
  cpuEngineOnly?: boolean;
}

/** Resolve `p`, or an `{ error }` after `seconds` (the page keeps running; the browser is closed at the end). */
function withTimeout<T>(p: Promise<T>, seconds: number, what: string): Promise<T | { error: string }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const t = new Promise<{ error: string }>((res) => {
    timer = setTimeout(() => res({ error: `${what}: no result within ${seconds} s (--external-timeout)` }), seconds * 1000);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

/** Page bench entries of other modules: src/bench/*.bench.ts (served by Vite as /src/bench/…). */
function externalEntries(): string[] {
  try {
    return readdirSync(resolve(ROOT, 'src/bench'))
      .filter((f) => f.endsWith('.bench.ts'))
      .sort()
      .map((f) => `/src/bench/${f}`);
  } catch {
    return [];
  }
}

const f = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : String(x));

function printHuman(r: TrainBench, external: Record<string, unknown>, missing: string | null, rollouts: RolloutSection): void {
  const a = r.adapter;
  console.log(`adapter      ${a.vendor} / ${a.architecture} / ${a.device} ${a.description ? `(${a.description})` : ''}`);
  console.log(
    `page         crossOriginIsolated=${r.crossOriginIsolated} cores=${r.hardwareConcurrency} tfjs-wasm simd=${r.tfjsWasm?.simd} threads=${r.tfjsWasm?.threads}`,
  );
  console.log(`\ntraining step (forward + SFT loss + backward + clip + AdamW), median of ${r.reps}, interleaved`);
  for (const p of r.presets) {
    console.log(
      `  ${p.preset.padEnd(6)} B=${p.B} T=${p.T} P=${p.params}: ours ${f(p.ours.medianMs)} ms = ${f(p.ours.tokensPerSec, 0)} tok/s  ` +
        `[${p.counters.dispatches} dispatches, ${p.counters.submits} submit, ${p.counters.readbacks} readback per step]`,
    );
    for (const [b, t] of Object.entries(p.tfjs)) {
      if (!t) continue;
      if ('error' in t) console.log(`         tfjs-${b}: failed: ${t.error}`);
      else
        console.log(
          `         tfjs-${b.padEnd(6)} ${f(t.medianMs)} ms = ${f(t.tokensPerSec, 0)} tok/s   ours is ${f(p.speedupVsTfjs[b as keyof typeof p.speedupVsTfjs] ?? NaN, 2)}× (first-step loss ${f(t.firstLoss, 4)} vs ours ${f(p.ours.firstLoss, 4)})`,
        );
    }
  }
  console.log(
    `\nper kernel (${r.kernelShape.preset} step, B=${r.kernelShape.B} T=${r.kernelShape.T}; each dispatch timed alone, ~15 µs dispatch overhead included)`,
  );
  console.log('  pipeline                          n   ms/step   GFLOP/s    GB/s');
  for (const k of r.kernels) {
    console.log(
      `  ${k.pipeline.padEnd(32)} ${String(k.count).padStart(2)} ${f(k.msPerStep, 3).padStart(9)} ${f(k.gflops, 2).padStart(9)} ${f(k.gbps, 2).padStart(8)}`,
    );
  }
  console.log('\nother bench entries (src/bench/*.bench.ts):');
  if (missing) console.log(`  ${missing}`);
  for (const [k, v] of Object.entries(external)) console.log(`  ${k}: ${JSON.stringify(v)}`);
  const c = rollouts.config;
  console.log(
    `\nrollout throughput (tiny policy on the GPU sampler, ${c.episodes} workspace episodes over 4 harnesses, ≤ ${c.maxTurns} turns of ≤ ${c.maxNewTokens} new tokens; worker module loading inside the timing)`,
  );
  if ('error' in rollouts) console.log(`  failed: ${rollouts.error}`);
  else {
    console.log('  workers  env steps  sampled tokens        s  env steps/s  tokens/s  sampler share');
    for (const w of rollouts.rows) {
      console.log(
        `  ${String(w.workers).padStart(7)} ${String(w.envSteps).padStart(10)} ${String(w.sampledTokens).padStart(15)} ${f(w.seconds, 2).padStart(8)} ` +
          `${f(w.envStepsPerSec, 2).padStart(12)} ${f(w.tokensPerSec, 1).padStart(9)} ${f(100 * w.samplerShare, 0).padStart(13)} %`,
      );
    }
  }
  if (r.gpuErrors.length) console.log(`\nWebGPU errors: ${r.gpuErrors.join('; ')}`);
}

/** The RL-step section (src/bench/rl_step.ts), or why it failed. */
type RlStepSection = RlStepRow[] | { error: string };

function printRlStep(r: RlStepSection): void {
  console.log('RL step on the CPU engine (GRPO, main preset settings, untrained policy: every episode runs all its turns)');
  if (!Array.isArray(r)) {
    console.log(`  failed: ${r.error}`);
    return;
  }
  for (const x of r) {
    console.log(
      `  ${x.preset.padEnd(6)} ${x.episodes} episodes × ${x.maxTurns} turns × ${x.maxNewTokens} tokens, ${x.threads} threads: ${f(x.stepMs, 0)} ms = ${f(x.episodesPerSec, 1)} episodes/s; ` +
        `sampling ${f(x.samplerMs, 0)} ms, update ${f(x.updateMs, 0)} ms, overhead ${f(x.overheadMs, 0)} ms (rollout ${f(x.rolloutMs, 0)} ms in all)`,
    );
  }
  console.log('');
}

function printCpuEngine(c: CpuEngineBench): void {
  console.log('CPU engine (WebAssembly SIMD, src/engine/wasm) in the page');
  if ('error' in c) {
    console.log(`  failed: ${c.error}`);
    return;
  }
  console.log(
    `  crossOriginIsolated=${c.crossOriginIsolated} cores=${c.hardwareConcurrency} relaxedSimd (fused multiply-add)=${c.relaxedSimd}`,
  );
  if (c.pytorch)
    console.log(
      `  PyTorch peer: torch ${c.pytorch.torch} on the CPU, ${c.pytorch.threads} threads, BLAS ${c.pytorch.blas.kind} (${c.pytorch.blas.path ?? 'not found'}, ${c.pytorch.blas.threads ?? 'default'} thread${c.pytorch.blas.threads === 1 ? '' : 's'}) (src/bench/pytorch_peer.py)`,
    );
  if (c.pytorchNote) console.log(`  ${c.pytorchNote}`);
  console.log('  GEMM alone (C = A·B), median');
  for (const r of c.gemm) console.log(`  ${r.shape.padEnd(16)} threads ${r.threads}: ${f(r.gflops, 1)} GFLOP/s`);
  console.log(`  training step (SFT, every position scored), median, interleaved with TF.js-wasm${c.pytorch ? ' and PyTorch' : ''}`);
  for (const r of c.training) {
    const py =
      r.pytorchTokensPerSec === null || r.ratioVsPytorch === null
        ? ''
        : `; PyTorch ${f(r.pytorchTokensPerSec, 0)} tok/s → ${f(r.ratioVsPytorch, 2)}×`;
    console.log(
      `  ${r.preset.padEnd(6)} B=${r.B} T=${r.T} threads ${r.threads}: ${f(r.medianMs, 0)} ms = ${f(r.tokensPerSec, 0)} tok/s, ${f(r.gflops, 2)} GFLOP/s effective; TF.js-wasm ${f(r.tfjsWasmTokensPerSec, 0)} tok/s → ${f(r.ratioVsTfjsWasm, 1)}×${py}`,
    );
  }
  console.log('  sampling (KV cache, decode tokens/s, prefill excluded)');
  for (const r of c.sampling) {
    console.log(
      `  ${r.preset.padEnd(6)} B=${r.B} context ${r.context} threads ${r.threads}: ${f(r.tokensPerSec, 0)} tok/s; WebGPU (${r.webgpuAdapter}) ${f(r.webgpuTokensPerSec, 0)} tok/s → ${f(r.ratioVsWebgpu, 1)}×`,
    );
  }
  console.log('');
}

export function registerBench(program: Command): void {
  program
    .command('bench')
    .description(
      'benchmark the CPU engine (training vs TF.js-wasm and PyTorch, sampling, an RL step) and the WebGPU engine (kernels, training step, sampling) in headless Chromium',
    )
    .option('--json', 'print JSON only')
    .option('--quick', 'smaller shapes, fewer kernel repeats and sampled tokens (still a median of 5), a smaller rollout batch')
    .option(
      '--cpu-engine-only',
      'only the CPU engine sections (training and sampling vs TF.js-wasm, PyTorch and the WebGPU sampler; the RL step); prints them alone',
    )
    .option('--external-timeout <s>', 'seconds allowed to each other bench entry and to the rollout bench', intOption(1, 86_400), 900)
    .action(async (opts: Opts) => {
      // The PyTorch peer runs here in Node; the page asks for its steps between its own (src/page/protocol.ts PageQueries).
      const started = PytorchPeer.start();
      const peer = started instanceof PytorchPeer ? started : null;
      const absent = started instanceof PytorchPeer ? null : started.absent;
      if (absent) process.stderr.write(`[bench] ${absent}\n`);
      const { cpuEngine, rlStep, train, external, missing, rollouts } = await withBrowser(
        async (s) => {
          let cpuEngine: CpuEngineBench;
          try {
            cpuEngine = await s.call('benchCpuEngine', { quick: !!opts.quick, pytorch: peer !== null });
          } catch (err) {
            cpuEngine = { error: (err as Error).message.split('\n')[0] };
          } finally {
            peer?.close();
          }
          if (absent) cpuEngine.pytorchNote = absent;
          // A peer on the reference BLAS is not PyTorch at its speed on this CPU: say so beside the ratio.
          const slowBlas = 'error' in cpuEngine || !cpuEngine.pytorch ? null : peerBlasWarning(cpuEngine.pytorch.blas);
          if (slowBlas) {
            cpuEngine.pytorchNote = slowBlas;
            process.stderr.write(`[bench] ${slowBlas}\n`);
          }
          let rlStep: RlStepSection;
          try {
            rlStep = await s.call('benchRlStep', { quick: !!opts.quick });
          } catch (err) {
            rlStep = { error: (err as Error).message.split('\n')[0] };
          }
          process.stderr.write(`[bench] cpu engine results: ${JSON.stringify(cpuEngine)}\n`);
          if (opts.cpuEngineOnly)
            return { cpuEngine, rlStep, train: null, external: {} as Record<string, unknown>, missing: null, rollouts: null };
          const train = await s.call('benchTraining', { quick: !!opts.quick });
          // The training results are complete here: keep them on stderr in case a later entry hangs.
          process.stderr.write(`[bench] training results: ${JSON.stringify(train)}\n`);
          const external: Record<string, unknown> = {};
          const entries = externalEntries();
          for (const e of entries) {
            try {
              process.stderr.write(`[bench] running ${e}\n`);
              external[e] = await withTimeout(s.call('benchModule', { path: e, quick: !!opts.quick }), opts.externalTimeout, e);
            } catch (err) {
              external[e] = { error: (err as Error).message.split('\n')[0] };
            }
          }
          const missing = entries.length
            ? null
            : 'absent: no src/bench/*.bench.ts entry (forward kernels and sampling tokens/s, KV cache vs none) exists yet';
          const config = rolloutConfig(!!opts.quick);
          let rollouts: RolloutSection;
          try {
            process.stderr.write(`[bench] rollout throughput: ${JSON.stringify(config)}\n`);
            const r = await withTimeout(s.call('benchRollouts', config), opts.externalTimeout, 'benchRollouts');
            rollouts = Array.isArray(r) ? { config, rows: r } : { config, error: r.error };
          } catch (err) {
            rollouts = { config, error: (err as Error).message.split('\n')[0] };
          }
          return { cpuEngine, rlStep, train, external, missing, rollouts };
        },
        {
          onEvent: (ev) => {
            if (ev.type === 'benchNote') process.stderr.write(`[bench] ${ev.message}\n`);
          },
          answers: peer ? { pytorchModel: (m) => peer.model(m), pytorchStep: () => peer.step() } : {},
        },
      ).finally(() => peer?.close());
      if (!train || !rollouts) {
        if (opts.json) printJson({ cpuEngine, cpuRlStep: rlStep });
        else {
          printCpuEngine(cpuEngine);
          printRlStep(rlStep);
        }
        return;
      }
      external['serve (node, 127.0.0.1 HTTP, src/bench/serve_bench.ts)'] = await benchServe({ quick: !!opts.quick }).catch((e: Error) => ({
        error: e.message,
      }));
      const soak = await soakServe({ quick: !!opts.quick }).catch((e: Error) => ({ error: e.message }));
      if (opts.json) printJson({ cpuEngine, cpuRlStep: rlStep, ...train, external, externalMissing: missing, rollouts, serveSoak: soak });
      else {
        printCpuEngine(cpuEngine);
        printRlStep(rlStep);
        printHuman(train, external, missing, rollouts);
        console.log(`\nserve memory soak (src/bench/serve_soak.ts, node)\n  ${'error' in soak ? `failed: ${soak.error}` : soakLine(soak)}`);
      }
    });
}

/**
 * `hlab bench [--json] [--quick]`: the engine's numbers, measured in headless Chromium on its
 * WebGPU adapter (SwiftShader on GPU-less machines; HLAB_WEBGPU_ADAPTER=default for a real GPU).
 *
 * Prints the adapter, our training step (tiny, small) in ms and tokens/s, dispatches / submits /
 * readbacks per step, the same model's step in TF.js (webgpu, wasm, cpu; same page, interleaved,
 * median of ≥ 5) with the ratios, and per-kernel GFLOP/s and GB/s. Other engineers' page bench
 * entries (`src/bench/*.bench.ts` exporting `bench({ quick })`, e.g. sampling tokens/s with and
 * without the KV cache) are run too when present; their absence is reported. Results are
 * recorded in docs/PERFORMANCE.md. Never part of the tests (speed is not asserted anywhere).
 */
import type { Command } from 'commander';
import { readdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { intOption, printJson } from '../cli_util';
import { withBrowser } from '../browser';
import type { benchTraining } from '../../bench/train_bench';

type TrainBench = Awaited<ReturnType<typeof benchTraining>>;

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

interface Opts {
  json?: boolean;
  quick?: boolean;
  externalTimeout: number;
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

function printHuman(r: TrainBench, external: Record<string, unknown>, missing: string | null): void {
  const a = r.adapter;
  console.log(`adapter      ${a.vendor} / ${a.architecture} / ${a.device} ${a.description ? `(${a.description})` : ''}`);
  console.log(`page         crossOriginIsolated=${r.crossOriginIsolated} cores=${r.hardwareConcurrency} tfjs-wasm simd=${r.tfjsWasm?.simd} threads=${r.tfjsWasm?.threads}`);
  console.log(`\ntraining step (forward + SFT loss + backward + clip + AdamW), median of ${r.reps}, interleaved`);
  for (const p of r.presets) {
    console.log(`  ${p.preset.padEnd(6)} B=${p.B} T=${p.T} P=${p.params}: ours ${f(p.ours.medianMs)} ms = ${f(p.ours.tokensPerSec, 0)} tok/s  ` +
      `[${p.counters.dispatches} dispatches, ${p.counters.submits} submit, ${p.counters.readbacks} readback per step]`);
    for (const [b, t] of Object.entries(p.tfjs)) {
      if (!t) continue;
      if ('error' in t) console.log(`         tfjs-${b}: failed: ${t.error}`);
      else console.log(`         tfjs-${b.padEnd(6)} ${f(t.medianMs)} ms = ${f(t.tokensPerSec, 0)} tok/s   ours is ${f(p.speedupVsTfjs[b as keyof typeof p.speedupVsTfjs] ?? NaN, 2)}× (first-step loss ${f(t.firstLoss, 4)} vs ours ${f(p.ours.firstLoss, 4)})`);
    }
  }
  console.log(`\nper kernel (${r.kernelShape.preset} step, B=${r.kernelShape.B} T=${r.kernelShape.T}; each dispatch timed alone, ~15 µs dispatch overhead included)`);
  console.log('  pipeline                          n   ms/step   GFLOP/s    GB/s');
  for (const k of r.kernels) {
    console.log(`  ${k.pipeline.padEnd(32)} ${String(k.count).padStart(2)} ${f(k.msPerStep, 3).padStart(9)} ${f(k.gflops, 2).padStart(9)} ${f(k.gbps, 2).padStart(8)}`);
  }
  console.log('\nother bench entries (src/bench/*.bench.ts):');
  if (missing) console.log(`  ${missing}`);
  for (const [k, v] of Object.entries(external)) console.log(`  ${k}: ${JSON.stringify(v)}`);
  if (r.gpuErrors.length) console.log(`\nWebGPU errors: ${r.gpuErrors.join('; ')}`);
}

export function registerBench(program: Command): void {
  program
    .command('bench')
    .description('benchmark the WebGPU training step and kernels against TF.js (webgpu, wasm, cpu) in headless Chromium')
    .option('--json', 'print JSON only')
    .option('--quick', 'smaller shapes and fewer kernel repeats (still a median of 5)')
    .option('--external-timeout <s>', 'seconds allowed to each other bench entry', intOption(1, 86_400), 900)
    .action(async (opts: Opts) => {
      const progress = (s: string) => {
        if (s.startsWith('[bench]')) process.stderr.write(s + '\n');
      };
      const { train, external, missing } = await withBrowser(async (s) => {
        const train = await s.run<TrainBench>('/src/bench/train_bench.ts', 'benchTraining', { quick: !!opts.quick });
        // The training results are complete here: keep them on stderr in case a later entry hangs.
        process.stderr.write(`[bench] training results: ${JSON.stringify(train)}\n`);
        const external: Record<string, unknown> = {};
        const entries = externalEntries();
        for (const e of entries) {
          try {
            process.stderr.write(`[bench] running ${e}\n`);
            external[e] = await withTimeout(s.run(e, 'bench', { quick: !!opts.quick }), opts.externalTimeout, e);
          } catch (err) {
            external[e] = { error: (err as Error).message.split('\n')[0] };
          }
        }
        const missing = entries.length ? null : 'absent: no src/bench/*.bench.ts entry (forward kernels and sampling tokens/s, KV cache vs none) exists yet';
        return { train, external, missing };
      }, { onConsole: progress });
      if (opts.json) printJson({ ...train, external, externalMissing: missing });
      else printHuman(train, external, missing);
    });
}

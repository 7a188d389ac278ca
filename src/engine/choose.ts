/**
 * Which engine runs a spec's policy. `auto` (the spec default) takes WebGPU on a hardware
 * adapter and the CPU engine when WebGPU is missing or the adapter is a software rasterizer
 * (SwiftShader: ~1 GFLOP/s, while the CPU engine runs WebAssembly SIMD on every core); the
 * choice and its reason go into every output.
 */
import { createGpu, type Gpu } from './webgpu/device';
import { CpuEngine } from './wasm/wasm_engine';
import type { BackendChoice, Engine, ScoringEngine } from './engine_api';

/**
 * The uncaptured WebGPU errors this realm's devices reported so far (the train worker reports
 * them with a failed run; the browser test fixture fails a test whose page recorded any).
 */
export { gpuErrorsOfRealm } from './webgpu/device';

/** The WebGPU engine, loaded on first use: Node code that only runs the CPU engine never loads WGSL. */
async function webGpuEngine(gpu: Gpu, reason: string): Promise<Engine> {
  const { WebGpuEngine } = await import('./webgpu/webgpu_engine');
  return new WebGpuEngine(gpu, reason);
}

/** A software adapter: SwiftShader (Chrome's CPU Vulkan) or an adapter flagged as fallback. */
function isSoftwareAdapter(info: { vendor: string; architecture: string; description: string }, isFallback = false): boolean {
  return isFallback || /swiftshader/i.test(`${info.architecture} ${info.description}`) || /llvmpipe|software/i.test(info.description);
}

/**
 * Pick and start the engine for `choice` (module doc).
 * @param opts.threads the CPU engine's thread count (default: its own choice)
 * @throws Error when 'webgpu' is forced and unavailable, or the CPU engine cannot start.
 */
export async function chooseEngine(choice: BackendChoice, opts: { threads?: number } = {}): Promise<Engine> {
  if (choice === 'wasm') return CpuEngine.create("forced by backend 'wasm'", opts);
  let gpu: Gpu;
  try {
    gpu = await createGpu();
  } catch (e) {
    if (choice === 'webgpu') throw e;
    return CpuEngine.create(`WebGPU unavailable (${(e as Error).message.split('\n')[0]})`, opts);
  }
  const fallback = (gpu.adapter as GPUAdapter & { isFallbackAdapter?: boolean }).isFallbackAdapter === true;
  if (choice === 'auto' && isSoftwareAdapter(gpu.info, fallback)) {
    try {
      const cpu = await CpuEngine.create(
        `the WebGPU adapter is software (${gpu.info.vendor}/${gpu.info.architecture}); the CPU engine is faster there`,
        opts,
      );
      gpu.device.destroy();
      return cpu;
    } catch (e) {
      return webGpuEngine(gpu, `software adapter, but the CPU engine cannot start here (${(e as Error).message.split('\n')[0]})`);
    }
  }
  return webGpuEngine(gpu, choice === 'webgpu' ? "forced by backend 'webgpu'" : 'hardware WebGPU adapter');
}

/**
 * Start the CPU engine where held-out scoring needs it (`ScoringEngine`).
 * @param reason why it runs (shown with its results)
 * @param opts.threads thread count (default: the engine's own choice)
 * @throws Error when WebAssembly (SIMD, shared memory for threads > 1) is unavailable.
 */
export function startCpuEngine(reason: string, opts: { threads?: number } = {}): Promise<ScoringEngine> {
  return CpuEngine.create(reason, opts);
}

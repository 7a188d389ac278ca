/**
 * Page bench entry (run by `hlab bench`, see src/cli/commands/bench.ts): the WebGPU engine's
 * forward kernels' throughput and batched sampling tokens/s with and without the KV cache. The
 * bench belongs to the engine (src/engine/webgpu/bench/forward.ts); this entry names it among
 * src/bench/*.bench.ts and reaches it through src/engine/backend_bench.ts.
 */
import { benchForward, type ForwardBench } from '../engine/backend_bench';

/** Entry called by `hlab bench` (module doc). */
export function bench(opts: { quick?: boolean } = {}): Promise<ForwardBench> {
  return benchForward(opts);
}

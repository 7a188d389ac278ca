// The two CPU engines the wasm_* tests compare: 1 thread, and 2 threads that split every op
// (parallelMinWork 0, so small test shapes still run on both threads), both of one build:
// the baseline (separate multiply and add) unless `relaxedSimd` asks for the relaxed-SIMD build
// (fused multiply-adds). Registers the suite's beforeAll/afterAll; read the engines inside tests.
import { setFlagsFromString } from 'node:v8';
import { afterAll, beforeAll } from 'vitest';
import { WasmEngine } from '../../../src/engine/wasm/wasm_runtime';

/**
 * Let this Node run relaxed SIMD: Node 20 has it behind a V8 flag (on by default from Node 22),
 * which must be set before the first WebAssembly.validate of the relaxed build.
 */
export function enableRelaxedSimd(): void {
  setFlagsFromString('--experimental-wasm-relaxed-simd');
}

export function useEngines(o: { relaxedSimd?: boolean } = {}): { e1: WasmEngine; e2: WasmEngine } {
  const relaxedSimd = o.relaxedSimd ?? false;
  if (relaxedSimd) enableRelaxedSimd();
  const engines = {} as { e1: WasmEngine; e2: WasmEngine };
  beforeAll(async () => {
    engines.e1 = await WasmEngine.create({ threads: 1, relaxedSimd });
    engines.e2 = await WasmEngine.create({ threads: 2, parallelMinWork: 0, relaxedSimd });
  });
  afterAll(() => {
    engines.e1.destroy();
    engines.e2.destroy();
  });
  return engines;
}

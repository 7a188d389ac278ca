// The two CPU engines the wasm_* tests compare: 1 thread, and 2 threads that split every op
// (parallelMinWork 0, so small test shapes still run on both threads). Registers the suite's
// beforeAll/afterAll; read the engines inside tests.
import { afterAll, beforeAll } from 'vitest';
import { WasmEngine } from '../../../src/wasm/engine';

export function useEngines(): { e1: WasmEngine; e2: WasmEngine } {
  const engines = {} as { e1: WasmEngine; e2: WasmEngine };
  beforeAll(async () => {
    engines.e1 = await WasmEngine.create({ threads: 1 });
    engines.e2 = await WasmEngine.create({ threads: 2, parallelMinWork: 0 });
  });
  afterAll(() => {
    engines.e1.destroy();
    engines.e2.destroy();
  });
  return engines;
}

/**
 * The engine is one seam: no file under src/ outside src/engine/ imports a module of a backend
 * (src/engine/wasm/, src/engine/webgpu/). Code above the engine reaches a backend through the
 * files directly in src/engine/ (engine_api.ts, choose.ts, the lazy loaders), so a backend can
 * change inside its folder without touching the harness. Every kind of import counts: static,
 * type-only, re-exports, dynamic `import()`, `import.meta.glob` patterns and worker
 * `new URL('./x', import.meta.url)`.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { relativeImports, SRC, sourceFiles } from './lib/import_graph';

const BACKENDS = [join(SRC, 'engine', 'wasm'), join(SRC, 'engine', 'webgpu')];

/** 'file:line spec' for each import of `text` (the file at `file`) that lands in a backend folder. */
function backendImports(file: string, text: string): string[] {
  return relativeImports(text)
    .filter(({ spec }) => {
      const target = resolve(dirname(file), spec);
      return BACKENDS.some((b) => target === b || target.startsWith(b + sep));
    })
    .map(({ spec, line }) => `${relative(join(SRC, '..'), file)}:${line} ${spec}`);
}

describe('engine layering', () => {
  it('the scan sees static, type, dynamic, glob and worker imports of a backend (a synthetic file)', () => {
    const file = join(SRC, 'cli', 'x.ts');
    const text = [
      "import { a } from '../engine/wasm/wasm_runtime';",
      "import type { B } from '../engine/webgpu/device';",
      "export { c } from '../engine/webgpu/gpu_model';",
      "const d = await import('../engine/wasm/wasm_sft');",
      "const e = import.meta.glob('../engine/webgpu/bench/*.ts');",
      "const w = new Worker(new URL('../engine/wasm/worker.ts', import.meta.url));",
      "import { ok } from '../engine/choose';",
      "import { alsoOk } from '../engine/webgpu_status';",
    ].join('\n');
    expect(backendImports(file, text)).toEqual([
      'src/cli/x.ts:1 ../engine/wasm/wasm_runtime',
      'src/cli/x.ts:2 ../engine/webgpu/device',
      'src/cli/x.ts:3 ../engine/webgpu/gpu_model',
      'src/cli/x.ts:4 ../engine/wasm/wasm_sft',
      'src/cli/x.ts:5 ../engine/webgpu/bench/*.ts',
      'src/cli/x.ts:6 ../engine/wasm/worker.ts',
    ]);
  });

  it('no file outside src/engine/ imports a module of src/engine/wasm/ or src/engine/webgpu/', () => {
    const engine = join(SRC, 'engine') + sep;
    const files = sourceFiles().filter((f) => !f.startsWith(engine));
    expect(files.length).toBeGreaterThan(100);
    const bad = files.flatMap((f) => backendImports(f, readFileSync(f, 'utf8')));
    expect(bad, `import the backend through src/engine/ (engine_api.ts, choose.ts, a lazy loader there):\n${bad.join('\n')}`).toEqual([]);
  });
});

import { defineConfig } from 'vitest/config';
import { createLogger, type Plugin } from 'vite';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * `virtual:committed-results`: the committed results of the presets, every
 * docs/results/<preset>/results.json (data-driven: a new preset's file appears once committed),
 * bundled into the app so the Results view shows them offline and without running anything.
 * Trajectories and curves are dropped (the tables need neither; they are most of a file's size).
 * A running dev server picks up edits of a committed file; a new preset's file needs a restart.
 */
export function committedResults(dir = resolve('docs/results')): Plugin {
  const id = 'virtual:committed-results';
  return {
    name: 'committed-results',
    resolveId: (s) => (s === id ? `\0${id}` : undefined),
    load(s) {
      if (s !== `\0${id}`) return undefined;
      const presets = existsSync(dir)
        ? readdirSync(dir)
            .filter((d) => existsSync(join(dir, d, 'results.json')))
            .sort()
        : [];
      const list = presets.map((preset) => {
        const path = join(dir, preset, 'results.json');
        this.addWatchFile(path);
        const { trajectories: _t, curves: _c, ...json } = JSON.parse(readFileSync(path, 'utf8'));
        return { preset, path: `docs/results/${preset}/results.json`, json };
      });
      return `export default ${JSON.stringify(list)};`;
    },
  };
}

// The presets (public/presets/*.json) are imported on purpose by src/experiment/presets.ts
// (embedded, validated at load) and are public assets of the app too; Vite warns about each such
// import on every page load ("Assets in public directory cannot be imported from JavaScript"),
// ~190 lines per test run. Drop exactly that warning for exactly those files; every other
// message passes.
export function quietPresetImports(logger = createLogger()) {
  const warn = logger.warn.bind(logger);
  logger.warn = (msg, opts) => {
    if (msg.includes('Assets in public directory cannot be imported from JavaScript') && /\/public\/presets\/[\w-]+\.json/.test(msg)) return;
    warn(msg, opts);
  };
  return logger;
}

// Cross-origin isolation: pages get SharedArrayBuffer (the CPU engine's shared memory, its
// threaded workers) and a fine-grained performance.now().
const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  customLogger: quietPresetImports(),
  plugins: [committedResults()],
  server: { headers: isolation, strictPort: true },
  preview: { headers: isolation },
  worker: { format: 'es' },
  // Pre-bundle every browser dependency at server start. Otherwise Vite discovers one the first
  // time a test page imports it, re-optimizes and reloads the page in the middle of a test
  // ("Execution context was destroyed") — on a fresh clone, where node_modules/.vite is empty.
  optimizeDeps: {
    include: ['comlink', 'idb', 'lit-html', 'lit-html/directives/live.js', 'uplot', 'zod', '@tensorflow/tfjs', '@tensorflow/tfjs-backend-wasm', '@tensorflow/tfjs-backend-webgpu'],
  },
  build: { target: 'es2022' },
  test: {
    include: ['tests/unit/**/*.test.ts'],
    globalSetup: ['tests/setup/build_wasm.ts'],
    environment: 'node',
    // 2-core CI machines: keep the pool small so browser tests started after us are not starved.
    maxWorkers: 2,
    testTimeout: 60_000,
    // A passing test's console output (measurements) is not printed; a failing test's is.
    silent: 'passed-only',
  },
});

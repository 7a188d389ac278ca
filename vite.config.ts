import { defineConfig } from 'vitest/config';

// Cross-origin isolation: SharedArrayBuffer and 5 µs performance.now() (WEBGPU-NOTES.md).
const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  server: { headers: isolation, strictPort: true },
  preview: { headers: isolation },
  worker: { format: 'es' },
  // Pre-bundle every browser dependency at server start. Otherwise Vite discovers one the first
  // time a test page imports it, re-optimizes and reloads the page in the middle of a test
  // ("Execution context was destroyed") — on a fresh clone, where node_modules/.vite is empty.
  optimizeDeps: {
    include: [
      'comlink',
      'idb',
      'lit-html',
      'lit-html/directives/live.js',
      'uplot',
      'zod',
      '@tensorflow/tfjs',
      '@tensorflow/tfjs-backend-wasm',
      '@tensorflow/tfjs-backend-webgpu',
    ],
  },
  build: { target: 'es2022' },
  test: {
    include: ['tests/unit/**/*.test.ts'],
    globalSetup: ['tests/setup/build_wasm.ts'],
    environment: 'node',
    // 2-core CI machines: keep the pool small so browser tests started after us are not starved.
    maxWorkers: 2,
    testTimeout: 60_000,
  },
});

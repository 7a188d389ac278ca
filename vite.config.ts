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
  build: { target: 'es2022' },
  test: {
    include: ['tests/unit/**/*.test.ts'],
    environment: 'node',
    // 2-core CI machines: keep the pool small so browser tests started after us are not starved.
    maxWorkers: 2,
    testTimeout: 60_000,
  },
});

// vitest global setup: make sure the CPU engine's module (src/engine/wasm/engine.gen.ts) is built and
// current, also when vitest is started directly instead of through `npm test`.
import { execFileSync } from 'node:child_process';

export default function setup(): void {
  execFileSync(process.execPath, ['scripts/build-wasm.mjs'], { stdio: 'inherit' });
}

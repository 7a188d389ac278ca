/**
 * Where the Chromium binary lives and which flags give it a WebGPU adapter.
 *
 * Machines here have no GPU: WebGPU runs on SwiftShader (Chromium's CPU Vulkan). On a machine
 * with a GPU, the Vulkan/SwiftShader flags can be dropped with HLAB_WEBGPU_ADAPTER=default.
 * Pure Node module (no DOM): used by playwright.config.ts and the command line.
 */
import { existsSync } from 'node:fs';

/** Candidate browser binaries, first existing one wins after the environment variables. */
const CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];

/**
 * Path of the Chrome/Chromium executable: `HLAB_CHROMIUM` (or `CHROME_PATH`) when set,
 * else the first of the usual install locations that exists.
 * @throws Error naming HLAB_CHROMIUM when nothing is found.
 */
export function chromiumExecutable(): string {
  const fromEnv = process.env.HLAB_CHROMIUM ?? process.env.CHROME_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`HLAB_CHROMIUM=${fromEnv}: no such file`);
    return fromEnv;
  }
  const found = CANDIDATES.find((p) => existsSync(p));
  if (!found) {
    throw new Error('no Chromium found: install it (Debian: apt-get install chromium) or set HLAB_CHROMIUM=/path/to/chrome');
  }
  return found;
}

/**
 * Chromium flags for headless WebGPU. `HLAB_WEBGPU_ADAPTER=default` keeps the platform's own
 * adapter (a real GPU); anything else forces SwiftShader, which works on GPU-less machines.
 */
export function webgpuLaunchArgs(): string[] {
  const common = [
    '--no-sandbox',
    '--enable-unsafe-webgpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-quic',
  ];
  if (process.env.HLAB_WEBGPU_ADAPTER === 'default') return common;
  return [...common, '--enable-features=Vulkan', '--use-vulkan=swiftshader', '--use-webgpu-adapter=swiftshader'];
}

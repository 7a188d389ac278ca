/**
 * `hlab doctor [--json]`: checks that this machine can run Harness Lab, and exits 1 when one
 * fails: the Node version, the Chromium binary, a WebGPU adapter and device in that Chromium
 * with the flags the CLI uses (a compute shader round trip, not only `navigator.gpu`), and the
 * CPU engine of `pretrain --backend wasm` (TF.js-wasm in Node, one matmul).
 */
import type { Command } from 'commander';
import { chromiumExecutable, webgpuLaunchArgs } from '../browser_flags';
import { printJson } from '../cli_util';
import { checkCpuEngine } from '../../engine/cpu_check';

/** One check: `ok` and what was found (or why it failed). */
interface DoctorCheck {
  name: 'node' | 'chromium' | 'webgpu' | 'cpu-engine';
  ok: boolean;
  detail: string;
}

const MIN_NODE: [number, number] = [20, 19];

function checkNode(version = process.version): DoctorCheck {
  const [maj, min] = version.replace(/^v/, '').split('.').map(Number);
  const ok = maj > MIN_NODE[0] || (maj === MIN_NODE[0] && min >= MIN_NODE[1]);
  return { name: 'node', ok, detail: ok ? version : `${version}: Node ≥ ${MIN_NODE.join('.')} is needed` };
}

/** In the page: adapter, device, and a compute shader that doubles four numbers. */
async function pageWebgpuProbe(): Promise<{ ok: boolean; detail: string }> {
  const gpu = (navigator as Navigator & { gpu?: GPU }).gpu;
  if (!gpu) return { ok: false, detail: `navigator.gpu is missing (secure context: ${String(isSecureContext)})` };
  const adapter = await gpu.requestAdapter();
  if (!adapter) return { ok: false, detail: 'requestAdapter() returned null: no WebGPU adapter' };
  const info = adapter.info;
  const name = [info?.vendor, info?.architecture, info?.device].filter(Boolean).join('/') || 'unnamed adapter';
  const device = await adapter.requestDevice();
  try {
    const module = device.createShaderModule({
      code: '@group(0) @binding(0) var<storage, read_write> x: array<f32>; @compute @workgroup_size(4) fn main(@builtin(global_invocation_id) i: vec3u) { x[i.x] = 2.0 * x[i.x]; }',
    });
    const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
    const buf = device.createBuffer({ size: 16, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
    const read = device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(buf, 0, new Float32Array([1, 2, 3, 4]));
    const enc = device.createCommandEncoder();
    const pass = enc.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(
      0,
      device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: buf } }] }),
    );
    pass.dispatchWorkgroups(1);
    pass.end();
    enc.copyBufferToBuffer(buf, 0, read, 0, 16);
    device.queue.submit([enc.finish()]);
    await read.mapAsync(GPUMapMode.READ);
    const got = [...new Float32Array(read.getMappedRange())];
    const ok = got.join(',') === '2,4,6,8';
    return {
      ok,
      detail: ok ? `${name}: compute round trip ok` : `${name}: compute shader returned [${got.join(', ')}], expected [2, 4, 6, 8]`,
    };
  } finally {
    device.destroy();
  }
}

async function checkWebgpu(executable: string): Promise<DoctorCheck> {
  const { chromium } = await import('@playwright/test');
  let browser;
  try {
    browser = await chromium.launch({ executablePath: executable, args: webgpuLaunchArgs(), headless: true });
    const page = await browser.newPage();
    // WebGPU needs a secure context: serve an empty page from a localhost origin without a server.
    await page.route('http://localhost/**', (r) =>
      r.fulfill({ contentType: 'text/html', body: '<!doctype html><title>hlab doctor</title>' }),
    );
    await page.goto('http://localhost/doctor');
    const r = await page.evaluate(pageWebgpuProbe);
    return { name: 'webgpu', ...r };
  } catch (e) {
    return { name: 'webgpu', ok: false, detail: (e as Error).message.split('\n')[0] };
  } finally {
    await browser?.close().catch(() => {});
  }
}

/** Every check, in order; the browser checks are skipped (failed) without a Chromium. */
async function doctorChecks(): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [checkNode()];
  let executable: string | null = null;
  try {
    executable = chromiumExecutable();
    checks.push({ name: 'chromium', ok: true, detail: executable });
  } catch (e) {
    checks.push({ name: 'chromium', ok: false, detail: (e as Error).message });
  }
  checks.push(executable ? await checkWebgpu(executable) : { name: 'webgpu', ok: false, detail: 'not checked: no Chromium' });
  checks.push({ name: 'cpu-engine', ...(await checkCpuEngine()) });
  return checks;
}

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description('check Node, the Chromium binary, a working WebGPU adapter (compute round trip) and the CPU engine; exit 1 when one fails')
    .option('--json', 'print JSON only')
    .action(async (opts: { json?: boolean }) => {
      const checks = await doctorChecks();
      const ok = checks.every((c) => c.ok);
      if (opts.json) printJson({ ok, checks, webgpuFlags: webgpuLaunchArgs() });
      else {
        for (const c of checks) console.log(`${c.ok ? 'ok  ' : 'FAIL'}  ${c.name.padEnd(10)}  ${c.detail}`);
        console.log(`      flags       ${webgpuLaunchArgs().join(' ')}`);
      }
      if (!ok) process.exitCode = 1;
    });
}

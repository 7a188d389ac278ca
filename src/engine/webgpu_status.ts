/**
 * Whether this browser can train: probes `navigator.gpu` and an adapter without creating a
 * device (the Design and Inspect views need no GPU; creating a device would hold GPU memory
 * for nothing). The guidance text is `WebGpuUnavailableError`'s, the same message training
 * and the command line show.
 */
import { WebGpuUnavailableError } from './webgpu/device';

export type WebGpuStatus = { available: true; adapter: string } | { available: false; message: string };

/** @returns the adapter's vendor/architecture, or the guidance message; never throws. */
export async function probeWebGpu(): Promise<WebGpuStatus> {
  const gpu = (globalThis.navigator as Navigator | undefined)?.gpu;
  if (!gpu) return { available: false, message: new WebGpuUnavailableError('navigator.gpu is undefined').message };
  try {
    const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
    if (!adapter) return { available: false, message: new WebGpuUnavailableError('requestAdapter() returned null').message };
    const info = adapter.info;
    return { available: true, adapter: [info?.vendor, info?.architecture].filter(Boolean).join(' ') || 'unknown adapter' };
  } catch (e) {
    return { available: false, message: new WebGpuUnavailableError(`requestAdapter() failed: ${(e as Error).message}`).message };
  }
}

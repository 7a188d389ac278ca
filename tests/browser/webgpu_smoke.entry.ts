// Runs in the page: WebGPU adapter facts and a
// deliberate validation error to prove error scopes catch it.
import { createGpu } from '../../src/engine/webgpu/device';
import { checked } from './lib/checked';

export async function adapterInfo() {
  const gpu = await createGpu();
  const l = gpu.device.limits;
  const out = {
    info: gpu.info,
    maxStorageBufferBindingSize: l.maxStorageBufferBindingSize,
    maxComputeWorkgroupStorageSize: l.maxComputeWorkgroupStorageSize,
  };
  gpu.device.destroy();
  return out;
}

/** Bind a 4-byte buffer where the shader reads a uniform struct of 16: must be caught. */
export async function provokeValidationError(): Promise<string> {
  const gpu = await createGpu();
  try {
    await checked(gpu.device, 'bad-bind', () => {
      const tiny = gpu.device.createBuffer({ label: 'tiny', size: 4, usage: GPUBufferUsage.UNIFORM });
      const p = gpu.pipelines.get(
        'bad',
        '@group(0) @binding(0) var<uniform> u: vec4<f32>; @compute @workgroup_size(1) fn main() { _ = u; }',
      );
      gpu.device.createBindGroup({ layout: p.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: tiny } }] });
    });
    return 'no error';
  } catch (e) {
    return (e as Error).message;
  } finally {
    gpu.device.destroy();
  }
}

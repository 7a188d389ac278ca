// Runs in the page: WebGPU adapter facts, residual_forward against its CPU reference, and a
// deliberate validation error to prove error scopes catch it.
import { createGpu, checked } from '../../src/gpu/device';
import { uploadStorage, createStorage, readF32 } from '../../src/gpu/buffers';
import { encodeResidualForward } from '../../src/kernels/residual_forward';
import { residualForwardRef } from '../../src/kernels/residual_forward.ref';
import { allClose } from '../../src/kernels/compare';
import { Rng } from '../../src/util/rng';

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

/** `pad` junk elements precede a, b and out in their buffers (exercises the element offsets). */
export async function residualCheck(n: number, seed: number, pad = 0) {
  const gpu = await createGpu();
  const rng = new Rng(seed);
  const a = Float32Array.from({ length: n }, () => rng.normal() * 100);
  const b = Float32Array.from({ length: n }, () => rng.normal() * 1e-3);
  const got = await checked(gpu.device, 'residual_forward', () => {
    const padded = (x: Float32Array) => {
      const p = new Float32Array(pad + n).fill(1e30);
      p.set(x, pad);
      return p;
    };
    const ba = uploadStorage(gpu.device, 'a', padded(a));
    const bb = uploadStorage(gpu.device, 'b', padded(b));
    const bo = createStorage(gpu.device, 'out', (pad + n) * 4);
    const enc = gpu.device.createCommandEncoder({ label: 'residual-test' });
    const pass = enc.beginComputePass({ label: 'residual-test' });
    const v = (buffer: GPUBuffer) => ({ buffer, offset: pad });
    encodeResidualForward(gpu, pass, { n, a: v(ba), b: v(bb), out: v(bo) });
    pass.end();
    gpu.device.queue.submit([enc.finish()]);
    return bo;
  });
  const out = (await readF32(gpu.device, got, pad + n)).subarray(pad);
  // f32 addition is exactly rounded on both sides: tolerance 0.
  const report = allClose(out, residualForwardRef(a, b), 0, 0);
  gpu.device.destroy();
  return report;
}

/** Bind a 4-byte buffer where the shader reads a uniform struct of 16: must be caught. */
export async function provokeValidationError(): Promise<string> {
  const gpu = await createGpu();
  try {
    await checked(gpu.device, 'bad-bind', () => {
      const tiny = gpu.device.createBuffer({ label: 'tiny', size: 4, usage: GPUBufferUsage.UNIFORM });
      const p = gpu.pipelines.get('bad', '@group(0) @binding(0) var<uniform> u: vec4<f32>; @compute @workgroup_size(1) fn main() { _ = u; }');
      gpu.device.createBindGroup({ layout: p.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: tiny } }] });
    });
    return 'no error';
  } catch (e) {
    return (e as Error).message;
  } finally {
    gpu.device.destroy();
  }
}

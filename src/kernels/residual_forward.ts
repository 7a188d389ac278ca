/**
 * Launcher of shaders/residual_forward.wgsl (out = a + b). CPU reference: residual_forward.ref.ts.
 */
import code from '../../shaders/residual_forward.wgsl?raw';
import type { Gpu } from '../gpu/device';
import { uploadUniform } from '../gpu/buffers';
import { grid1d } from './dispatch';

const WG = 256;

/**
 * Encode out = a + b over `n` f32 values into `pass`.
 * @param a,b,out storage buffers of at least n f32 (out may not alias a or b)
 * @param n element count
 */
export function encodeResidualForward(
  gpu: Gpu,
  pass: GPUComputePassEncoder,
  a: GPUBuffer,
  b: GPUBuffer,
  out: GPUBuffer,
  n: number,
): void {
  const pipeline = gpu.pipelines.get('residual_forward', code, 'main', { WG });
  const params = uploadUniform(gpu.device, 'residual_forward-params', new Uint32Array([n, 0, 0, 0]).buffer);
  const bind = gpu.device.createBindGroup({
    label: 'residual_forward-bind',
    layout: pipeline.getBindGroupLayout(0),
    entries: [
      { binding: 0, resource: { buffer: params } },
      { binding: 1, resource: { buffer: a } },
      { binding: 2, resource: { buffer: b } },
      { binding: 3, resource: { buffer: out } },
    ],
  });
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, bind);
  const [x, y] = grid1d(Math.ceil(n / WG));
  pass.dispatchWorkgroups(x, y);
}

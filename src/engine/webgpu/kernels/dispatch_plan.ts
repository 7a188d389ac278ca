/**
 * Prepared dispatches: a pipeline, its bind group and a workgroup grid, built once and encoded
 * many times. The training step (src/engine/webgpu/gpu_train.ts) prepares every dispatch of a step up
 * front, so a step costs only setPipeline/setBindGroup/dispatchWorkgroups calls in JS, no
 * buffer or bind-group creation (docs/ARCHITECTURE.md "The WebGPU engine": pipelines cached, nothing created in loops).
 *
 * Tensor arguments are `TensorView`s: a whole buffer plus an element offset passed to the shader
 * in its params uniform. We never bind sub-ranges: storage-binding offsets must be multiples of
 * `minStorageBufferOffsetAlignment` (256 bytes), which the flat parameter layout's offsets are not.
 */
import type { Gpu } from '../device';

/** A tensor inside a GPU buffer: `buffer` bound whole, the tensor starts at f32 element `offset`. */
export interface TensorView {
  buffer: GPUBuffer;
  /** Offset in 4-byte elements (default 0). */
  offset?: number;
}

/** One compute dispatch, ready to encode. */
export interface PreparedDispatch {
  label: string;
  pipeline: GPUComputePipeline;
  bindGroup: GPUBindGroup;
  /** Workgroup counts (x, y, z). */
  groups: [number, number, number];
  /** Floating-point operations this dispatch performs (for benchmarks; 0 when not meaningful). */
  flops: number;
  /** Bytes this dispatch must at least read and write (for benchmarks). */
  bytes: number;
}

/** Encode prepared dispatches into `pass`, in order. @returns the number of dispatches encoded. */
export function encodePrepared(pass: GPUComputePassEncoder, ds: readonly PreparedDispatch[]): number {
  for (const d of ds) {
    pass.setPipeline(d.pipeline);
    pass.setBindGroup(0, d.bindGroup);
    pass.dispatchWorkgroups(d.groups[0], d.groups[1], d.groups[2]);
  }
  return ds.length;
}

/** Element offset of a view (0 when unset). @throws Error naming `name` when not a non-negative integer. */
export function off(name: string, v: TensorView): number {
  const o = v.offset ?? 0;
  if (!Number.isInteger(o) || o < 0) throw new Error(`${name}.offset must be a non-negative integer, got ${o}`);
  return o;
}

/**
 * Check that `count` f32 elements starting at the view's offset lie inside its buffer.
 * @throws Error naming the tensor, its extent and the buffer size.
 */
export function checkView(op: string, name: string, v: TensorView, count: number): void {
  const o = off(name, v);
  if ((o + count) * 4 > v.buffer.size) {
    throw new Error(
      `${op}: ${name} needs elements [${o}, ${o + count}) = ${(o + count) * 4} bytes but buffer '${v.buffer.label}' has ${v.buffer.size}`,
    );
  }
}

/**
 * A uniform params buffer from a list of fields, each 'u32' or 'f32', padded to 16 bytes.
 * Created once per prepared dispatch (never per step).
 */
export function paramsUniform(gpu: Gpu, label: string, fields: Array<['u32' | 'f32', number]>): GPUBuffer {
  const n = Math.max(4, Math.ceil(fields.length / 4) * 4);
  const ab = new ArrayBuffer(n * 4);
  const dv = new DataView(ab);
  fields.forEach(([t, v], i) => {
    if (t === 'u32') {
      if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new Error(`${label}: field ${i} must be a u32, got ${v}`);
      dv.setUint32(i * 4, v, true);
    } else dv.setFloat32(i * 4, v, true);
  });
  const buf = gpu.device.createBuffer({ label, size: ab.byteLength, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  gpu.device.queue.writeBuffer(buf, 0, ab);
  return buf;
}

/** A bind group over `buffers[i]` at binding i (binding 0 is usually the params uniform). */
export function bindAll(gpu: Gpu, label: string, pipeline: GPUComputePipeline, buffers: Array<[number, GPUBuffer]>): GPUBindGroup {
  return gpu.device.createBindGroup({
    label,
    layout: pipeline.getBindGroupLayout(0),
    entries: buffers.map(([binding, buffer]) => ({ binding, resource: { buffer } })),
  });
}

/** Split `n` workgroups over x and y (each ≤ 65535); shaders use `gid.x + gid.y·nwg.x·WG`. */
export function grid(groups: number): [number, number, number] {
  if (groups <= 65535) return [Math.max(1, groups), 1, 1];
  const y = Math.ceil(groups / 65535);
  return [Math.ceil(groups / y), y, 1];
}

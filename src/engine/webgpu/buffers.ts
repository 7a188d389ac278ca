/**
 * Labelled GPU buffers: creation padded to 4 bytes, uploads, readbacks, binding-size checks.
 */
import { mapReadChecked } from '../device_lost';

/** Round `bytes` up to a multiple of 4 (WebGPU requires it for writeBuffer and copies). */
function pad4(bytes: number): number {
  return Math.ceil(bytes / 4) * 4;
}

/**
 * Throw a clear error when a tensor cannot be bound as one storage buffer on this device.
 * @param name   tensor name, e.g. 'params' or 'logits (B=8, T=512, V=1024)'
 * @param bytes  its size in bytes
 * @throws Error naming the tensor, its size and `maxStorageBufferBindingSize`.
 */
function checkBindingSize(device: GPUDevice, name: string, bytes: number): void {
  const max = device.limits.maxStorageBufferBindingSize;
  if (bytes > max) {
    throw new Error(`tensor '${name}' needs ${bytes} bytes but maxStorageBufferBindingSize is ${max} on this device`);
  }
}

/**
 * A storage buffer of `bytes` (padded to 4), labelled, usable as copy source and destination.
 * @throws Error naming the buffer when it exceeds the device's binding limit.
 */
export function createStorage(device: GPUDevice, label: string, bytes: number, extraUsage = 0): GPUBuffer {
  const size = Math.max(4, pad4(bytes));
  checkBindingSize(device, label, size);
  return device.createBuffer({
    label,
    size,
    usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST | extraUsage,
  });
}

/** A storage buffer initialised with `data` (f32, i32 or u32 elements). */
export function uploadStorage(device: GPUDevice, label: string, data: Float32Array | Int32Array | Uint32Array): GPUBuffer {
  const buf = createStorage(device, label, data.byteLength);
  device.queue.writeBuffer(buf, 0, data.buffer, data.byteOffset, data.byteLength);
  return buf;
}

/** A uniform buffer holding `data`, padded to 16 bytes as WGSL uniform structs require. */
export function uploadUniform(device: GPUDevice, label: string, data: ArrayBuffer): GPUBuffer {
  const size = Math.max(16, Math.ceil(data.byteLength / 16) * 16);
  const buf = device.createBuffer({ label, size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(buf, 0, data);
  return buf;
}

/**
 * Copy `bytes` of `src` (from offset 0) to a mapped staging buffer and return the bytes.
 * One readback = one submit + one map; keep them out of inner loops.
 */
async function readback(device: GPUDevice, src: GPUBuffer, bytes = src.size): Promise<ArrayBuffer> {
  const size = pad4(bytes);
  const staging = device.createBuffer({
    label: `${src.label}-readback`,
    size,
    usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
  });
  const enc = device.createCommandEncoder({ label: `${src.label}-readback` });
  enc.copyBufferToBuffer(src, 0, staging, 0, size);
  device.queue.submit([enc.finish()]);
  await mapReadChecked(device, staging);
  const out = staging.getMappedRange().slice(0, bytes);
  staging.unmap();
  staging.destroy();
  return out;
}

/** Read back a buffer as f32. */
export async function readF32(device: GPUDevice, src: GPUBuffer, count?: number): Promise<Float32Array> {
  const n = count ?? src.size / 4;
  return new Float32Array(await readback(device, src, n * 4));
}

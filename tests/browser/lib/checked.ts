/** WebGPU error scopes around a kernel test's dispatches, so a validation error fails the test naming the kernel. */

/**
 * Run `fn` inside validation and out-of-memory error scopes and throw if either caught one.
 * @throws Error with the WebGPU message, prefixed by `what`.
 */
export async function checked<T>(device: GPUDevice, what: string, fn: () => T): Promise<T> {
  device.pushErrorScope('out-of-memory');
  device.pushErrorScope('validation');
  const out = fn();
  const validation = await device.popErrorScope();
  const oom = await device.popErrorScope();
  if (validation) throw new Error(`${what}: WebGPU validation error: ${validation.message}`);
  if (oom) throw new Error(`${what}: WebGPU out of memory: ${oom.message}`);
  return out;
}

/**
 * One clear error for a lost GPU device, on every path (docs/ARCHITECTURE.md "The WebGPU engine"): a loss noticed before a
 * step (`gpu.lost` set) and a loss in the middle of one (a pending `mapAsync` rejects with a raw
 * `AbortError`/`OperationError` before `device.lost` has resolved) both surface as
 * `DeviceLostError`, whose message says to resume from the last checkpoint. DOM-free.
 */

/** Marker text the command line looks for to print its resume command. */
export const DEVICE_LOST_TEXT = 'the GPU device was lost';

export class DeviceLostError extends Error {
  constructor(detail: string, options?: { cause?: unknown }) {
    super(`${DEVICE_LOST_TEXT} (${detail}); training stopped, resume from the last checkpoint on a new device`, options);
    this.name = 'DeviceLostError';
  }
}

/** How long an aborted map waits for `device.lost` before it is taken as no loss. */
const LOSS_WAIT_MS = 10_000;

const lostDevices = new WeakMap<GPUDevice, GPUDeviceLostInfo>();

/** Record that `device` was lost (createGpu's device.lost handler). */
export function markDeviceLost(device: GPUDevice, info: GPUDeviceLostInfo): void {
  lostDevices.set(device, info);
}

/** The loss info of `device`, or null while it is alive (as far as this realm has been told). */
function deviceLostInfo(device: GPUDevice): GPUDeviceLostInfo | null {
  return lostDevices.get(device) ?? null;
}

/** Whether `e` is the browser's own report of a lost or destroyed device (mapAsync and friends). */
function isRawDeviceLoss(e: unknown): boolean {
  if (e instanceof DeviceLostError) return true;
  const name = (e as { name?: unknown })?.name;
  const msg = String((e as { message?: unknown })?.message ?? '');
  return (name === 'AbortError' || name === 'OperationError') && /\b(lost|destroyed)\b/i.test(msg);
}

/**
 * `e` as a DeviceLostError when the device is lost or `e` reports a loss (it is returned
 * unchanged otherwise).
 */
async function asDeviceLost(device: GPUDevice, e: unknown): Promise<unknown> {
  if (e instanceof DeviceLostError) return e;
  let info = deviceLostInfo(device);
  const name = (e as { name?: unknown })?.name;
  if (!info && (name === 'AbortError' || name === 'OperationError')) {
    // A map aborted by a loss ("Buffer was unmapped before mapping was resolved") rejects
    // before device.lost resolves, which can wait for the queued work (seconds on SwiftShader):
    // wait for it, up to LOSS_WAIT_MS (only on this error path; an abort without a loss is
    // rethrown unchanged after that).
    info = await Promise.race([device.lost, new Promise<null>((r) => setTimeout(() => r(null), LOSS_WAIT_MS))]);
  }
  if (!info && !isRawDeviceLoss(e)) return e;
  return new DeviceLostError(info ? `${info.reason}: ${info.message}` : String((e as Error)?.message ?? e), { cause: e });
}

/** `buffer.mapAsync(READ)` whose failure on a lost device is a DeviceLostError. */
export async function mapReadChecked(device: GPUDevice, buffer: GPUBuffer): Promise<void> {
  const info = deviceLostInfo(device);
  if (info) throw new DeviceLostError(`${info.reason}: ${info.message}`);
  try {
    await buffer.mapAsync(GPUMapMode.READ);
  } catch (e) {
    throw await asDeviceLost(device, e);
  }
}

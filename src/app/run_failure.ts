/**
 * The one message the Train view shows when a run fails, whatever way a lost GPU device
 * surfaced: recorded by the device (`lostRecord`, 'device lost: …'), a DeviceLostError from a
 * step, sampling call or readback, or its text inside another error. DOM-free (the training
 * worker uses it; tests call it directly).
 */
import { DEVICE_LOST_TEXT, DeviceLostError } from '../gpu/device_lost';

/** @returns 'WebGPU device lost: …; … press Resume …' for a device loss, else the error's own message */
export function runFailureMessage(e: unknown, lostRecord: string | undefined): string {
  const msg = e instanceof Error ? e.message : String(e);
  const isLoss = lostRecord !== undefined || e instanceof DeviceLostError || msg.includes(DEVICE_LOST_TEXT);
  if (!isLoss) return msg;
  const detail = lostRecord ? lostRecord.replace(/^device lost: /, '') : msg;
  return `WebGPU device lost: ${detail}; training stopped — press Resume to continue from the last checkpoint on a new device`;
}

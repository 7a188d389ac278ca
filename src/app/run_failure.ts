/**
 * The one message the Train view shows when a run fails, whatever way a lost GPU device
 * surfaced: recorded by the device (`lostRecord`, 'device lost: …'), a DeviceLostError from a
 * step, sampling call or readback, or its text inside another error. DOM-free (the training
 * worker uses it; tests call it directly).
 */
import { DEVICE_LOST_TEXT, DeviceLostError } from '../engine/device_lost';
import { checkpointPosition } from '../experiment/run_checkpoint';
import { CheckpointError } from '../storage/errors';

/** A checkpoint's store step as the Train view names positions: 'run 1, step 12' (RL steps), 'run 1, before evaluation', 'after run 1'. */
function rlPosition(step: number): string {
  const p = checkpointPosition(step);
  return p.finished
    ? `after run ${p.runIndex}`
    : p.rlStep < 0
      ? `run ${p.runIndex + 1}, before evaluation`
      : `run ${p.runIndex + 1}, step ${p.rlStep}`;
}

/**
 * Browser storage full while saving a checkpoint, in RL steps (never the store's sequence
 * numbers): which checkpoint was not saved, which one is kept, and the control that frees space.
 */
function quotaMessage(e: CheckpointError): string {
  const lost = e.step === undefined ? 'a checkpoint' : `the checkpoint at ${rlPosition(e.step)}`;
  const kept =
    e.keptStep === undefined ? 'no earlier checkpoint of this run exists' : `the checkpoint at ${rlPosition(e.keptStep)} is kept`;
  return `browser storage is full: ${lost} was not saved; ${kept}. Free space with Delete in the Checkpoints list (Export a checkpoint first to keep it), then press Resume`;
}

/** @returns 'WebGPU device lost: …; … press Resume …' for a device loss, quotaMessage for full storage, else the error's own message */
export function runFailureMessage(e: unknown, lostRecord: string | undefined): string {
  if (e instanceof CheckpointError && e.code === 'quota') return quotaMessage(e);
  const msg = e instanceof Error ? e.message : String(e);
  const isLoss = lostRecord !== undefined || e instanceof DeviceLostError || msg.includes(DEVICE_LOST_TEXT);
  if (!isLoss) return msg;
  const detail = lostRecord ? lostRecord.replace(/^device lost: /, '') : msg;
  return `WebGPU device lost: ${detail}; training stopped — press Resume to continue from the last checkpoint on a new device`;
}

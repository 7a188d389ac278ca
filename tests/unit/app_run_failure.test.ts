// The Train view's failure message: a device loss reads the same (prefix + resume hint) on
// every path it can surface by, not only when the device recorded it.
import { describe, expect, it } from 'vitest';
import { runFailureMessage } from '../../src/app/run_failure';
import { CheckpointError } from '../../src/storage/errors';
import { errText } from '../../src/storage/checkpoint_tx';
import { DeviceLostError } from '../../src/engine/device_lost';

describe('runFailureMessage', () => {
  it('a DeviceLostError from a step, without a recorded loss, gets the prefix and the resume hint', () => {
    const m = runFailureMessage(new DeviceLostError('mapAsync aborted'), undefined);
    expect(m).toMatch(/^WebGPU device lost: /);
    expect(m).toContain('press Resume');
  });
  it('a recorded loss names its own detail', () => {
    const m = runFailureMessage(new Error('AbortError: mapAsync'), 'device lost: GPU process crashed');
    expect(m).toBe(
      'WebGPU device lost: GPU process crashed; training stopped — press Resume to continue from the last checkpoint on a new device',
    );
  });
  it('any other error keeps its message', () => {
    expect(runFailureMessage(new Error('spec.rl.steps: bad'), undefined)).toBe('spec.rl.steps: bad');
  });
});

describe('browser storage full while saving a checkpoint', () => {
  it('names RL steps only (not store sequence numbers), the checkpoint kept and an existing control; no empty DOMException text', () => {
    // Store steps 13 and 12 are run 1 after RL steps 12 and 11 (run_checkpoint.ts CKPT_STRIDE).
    const e = new CheckpointError('quota', "checkpoint run 'run-lesson' step 13 was not saved", {
      runId: 'run-lesson',
      step: 13,
      keptStep: 12,
    });
    expect(runFailureMessage(e, undefined)).toBe(
      'browser storage is full: the checkpoint at run 1, step 12 was not saved; the checkpoint at run 1, step 11 is kept. Free space with Delete in the Checkpoints list (Export a checkpoint first to keep it), then press Resume',
    );
    expect(runFailureMessage(new CheckpointError('quota', 'x', { step: 0 }), undefined)).toMatch(
      /^browser storage is full: the checkpoint at run 1, before evaluation was not saved; no earlier checkpoint of this run exists\./,
    );
    expect(errText(new DOMException('', 'QuotaExceededError'))).toBe('QuotaExceededError');
    expect(errText(new DOMException('disk', 'QuotaExceededError'))).toBe('QuotaExceededError: disk');
  });
});

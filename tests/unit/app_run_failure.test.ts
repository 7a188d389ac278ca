// The Train view's failure message: a device loss reads the same (prefix + resume hint) on
// every path it can surface by, not only when the device recorded it (issue 15).
import { describe, expect, it } from 'vitest';
import { runFailureMessage } from '../../src/app/run_failure';
import { DeviceLostError } from '../../src/gpu/device_lost';

describe('runFailureMessage', () => {
  it('a DeviceLostError from a step, without a recorded loss, gets the prefix and the resume hint', () => {
    const m = runFailureMessage(new DeviceLostError('mapAsync aborted'), undefined);
    expect(m).toMatch(/^WebGPU device lost: /);
    expect(m).toContain('press Resume');
  });
  it('a recorded loss names its own detail', () => {
    const m = runFailureMessage(new Error('AbortError: mapAsync'), 'device lost: GPU process crashed');
    expect(m).toBe('WebGPU device lost: GPU process crashed; training stopped — press Resume to continue from the last checkpoint on a new device');
  });
  it('any other error keeps its message', () => {
    expect(runFailureMessage(new Error('spec.rl.steps: bad'), undefined)).toBe('spec.rl.steps: bad');
  });
});

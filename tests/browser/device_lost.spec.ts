import { test, expect } from './fixtures';

test('a lost device stops training with an error that says to resume from the last checkpoint', async ({ gpuPage }) => {
  const r = await gpuPage.run<{ firstLoss: number; lostSeen: boolean; onLostCalls: number; error: string }>(
    '/tests/browser/device_lost.entry.ts',
    'trainAfterLoss',
  );
  expect(Number.isFinite(r.firstLoss)).toBe(true);
  expect(r.lostSeen).toBe(true);
  expect(r.onLostCalls).toBe(1);
  expect(r.error).toMatch(/device was lost.*resume from the last checkpoint/);
});

test('a loss in the middle of a training step, a sampling call or a readback gives the same clear error (not the raw mapAsync AbortError)', async ({
  gpuPage,
}) => {
  const r = await gpuPage.run<Record<string, { name: string; message: string }>>('/tests/browser/device_lost.entry.ts', 'lossMidCall');
  for (const k of ['trainStep', 'sample', 'readF32']) {
    expect(r[k].name, `${k}: ${r[k].message}`).toBe('DeviceLostError');
    expect(r[k].message, k).toMatch(/^the GPU device was lost \(.*\); training stopped, resume from the last checkpoint on a new device$/);
  }
});

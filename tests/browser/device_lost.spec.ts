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

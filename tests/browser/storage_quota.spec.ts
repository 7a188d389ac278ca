// IndexedDB quota exhausted mid-save, for real: the origin's quota is shrunk through the
// DevTools protocol (Storage.overrideQuotaForOrigin), a small checkpoint is saved, then one
// larger than the quota left. Page-side code: storage_quota.entry.ts.
import { test, expect } from './fixtures';
import { expectBitExact, type Compare, type Err } from './checkpoint_store.assert';

const ENTRY = '/tests/browser/storage_quota.entry.ts';
const DB = 'hlab-test-real-quota';
/**
 * The origin's quota: room for the ≈ 36 KiB checkpoints, not for the ≈ 12 MiB one. Set before
 * the origin writes anything: Chromium's IndexedDB caches the space it has left, so an override
 * made after a write may not be seen by the next commit.
 */
const QUOTA = 4 * 1024 * 1024;

test('a real quota failure mid-save names what was not saved and keeps the previous checkpoint bit-exact', async ({ gpuPage, page }) => {
  const cdp = await page.context().newCDPSession(page);
  const origin = new URL(page.url()).origin;
  await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: QUOTA });
  let r: {
    error: Err;
    overwriteError: Err;
    appMessage: string;
    checkpoints: { step: number; isLatest: boolean }[];
    chunks: Record<string, number>;
    skipped: unknown[];
    kept: Compare;
  };
  try {
    const state = await cdp.send('Storage.getUsageAndQuota', { origin });
    // The override is in force (else the save below could not fail for the right reason).
    expect(state).toMatchObject({ overrideActive: true, quota: QUOTA });
    expect(await gpuPage.run<number>(ENTRY, 'saveKept', DB)).toBe(1);
    r = await gpuPage.run(ENTRY, 'saveTooBig', DB);
  } finally {
    // Without quotaSize the override is lifted.
    await cdp.send('Storage.overrideQuotaForOrigin', { origin });
  }
  const after = await gpuPage.run<{ saved: number; latest: Compare; kept: Compare }>(ENTRY, 'saveThatFits', DB);
  expect(r.error).toMatchObject({ code: 'quota', causeName: 'QuotaExceededError', runId: 'run', step: 2, keptStep: 1 });
  expect(r.error.message).toContain(
    "checkpoint run 'run' step 2 was not saved: storage quota exceeded while writing 12.0 MiB in 3073 chunks",
  );
  expect(r.error.message).toContain('the previous checkpoint (step 1) is intact and still the latest');
  expect(r.overwriteError).toMatchObject({ code: 'quota', causeName: 'QuotaExceededError', step: 1 });
  // The Train view's sentence: what was lost, what is kept, how to free space.
  expect(r.appMessage).toMatch(
    /^browser storage is full: the checkpoint at .+ was not saved; the checkpoint at .+ is kept\. Free space with Delete/,
  );
  // Nothing of step 2 reached the store: no manifest, no pointer, no chunk.
  expect(r.checkpoints).toEqual([{ step: 1, isLatest: true }]);
  expect(r.chunks).toEqual({ 'run/1': 10 });
  expect(r.skipped).toEqual([]);
  expectBitExact(r.kept, 1);
  // Once space is back, the store works on: the next save goes through.
  expect(after.saved, JSON.stringify(after)).toBe(2);
  expectBitExact(after.latest, 2);
  expectBitExact(after.kept, 1);
});

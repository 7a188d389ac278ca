// The IndexedDB checkpoint store in real Chromium (src/storage). Each test uses its own
// database name; the page-side code is in checkpoint_store.entry.ts.
import { test, expect } from './fixtures';
import { expectBitExact, type Compare, type Err } from './checkpoint_store.assert';

const ENTRY = '/tests/browser/checkpoint_store.entry.ts';

test('save → reopen → load is bit-exact (params, AdamW moments, RNG state, metadata)', async ({ gpuPage }) => {
  const r = await gpuPage.run<{
    saved: { totalBytes: number; chunkCount: number };
    compare: Compare;
    schemaVersion: number;
    skipped: unknown[];
    drawsEqual: boolean;
    runs: { runId: string; latestStep: number; steps: number[] }[];
    checkpoints: { step: number; isLatest: boolean; totalBytes: number }[];
    mostRecent: { runId: string } | null;
    emptyRun: { checkpoint: unknown; skipped: unknown[] };
    chunksInStore: number;
  }>(ENTRY, 'roundTrip', 'hlab-test-roundtrip');
  expectBitExact(r.compare, 40);
  expect(r.schemaVersion).toBe(1);
  expect(r.skipped).toEqual([]);
  expect(r.drawsEqual).toBe(true);
  // 3 × 3000 f32 + 2 u32 in 4 KiB chunks: 3 tensors × 3 chunks + 1.
  expect(r.saved.totalBytes).toBe(3 * 12000 + 8);
  expect(r.saved.chunkCount).toBe(10);
  expect(r.chunksInStore).toBe(10);
  expect(r.runs.map((x) => [x.runId, x.latestStep, x.steps])).toEqual([
    ['run-a', 40, [40]],
    ['run-b', 7, [7]],
  ]);
  expect(r.checkpoints).toEqual([expect.objectContaining({ step: 40, isLatest: true, totalBytes: 36008 })]);
  // run-a has createdAt base + 40 s, run-b base + 7 s.
  expect(r.mostRecent?.runId).toBe('run-a');
  expect(r.emptyRun).toEqual({ checkpoint: null, skipped: [] });
});

for (const [mode, code, what] of [
  ['garbage', 'corrupt', "tensor 'adamM' chunk 1 SHA-256 mismatch"],
  ['delete', 'partial', "is partial: tensor 'adamM' chunk 1 of 3 is missing"],
  ['manifest', 'corrupt', 'manifest SHA-256 mismatch'],
] as const) {
  test(`a damaged latest checkpoint (${mode}) is detected and the previous good one is used`, async ({ gpuPage }) => {
    const r = await gpuPage.run<{
      direct: Err;
      skipped: { step: number; code: string; message: string }[];
      compare: Compare;
      runs: unknown[];
    }>(ENTRY, 'damagedLatest', `hlab-test-damaged-${mode}`, mode);
    expect(r.direct.code).toBe(code);
    expect(r.direct.message).toContain("checkpoint run 'run' step 20");
    expect(r.direct.message).toContain(what);
    expect(r.direct).toMatchObject({ runId: 'run', step: 20 });
    if (mode !== 'manifest') expect(r.direct).toMatchObject({ tensor: 'adamM', chunk: 1 });
    expect(r.skipped).toEqual([{ step: 20, code, message: r.direct.message }]);
    expectBitExact(r.compare, 10);
    // The pointer still names 20: the damage is reported on every resume until a new save.
    expect(r.runs).toEqual([{ runId: 'run', latestStep: 20, createdAt: 1_700_000_020_000, steps: [10, 20] }]);
  });
}

test('export to a file and import back; duplicate and tampered files are rejected', async ({ gpuPage }) => {
  const r = await gpuPage.run<{
    fileBytes: number;
    savedDigest: string;
    importedDigest: string;
    overwritten: string;
    afterDelete: unknown[];
    loaded: Compare;
    duplicate: Err;
    tamperedTensor: Err;
    tamperedManifest: Err;
    notAFile: Err;
    stillGood: Compare;
  }>(ENTRY, 'exportImport', 'hlab-test-export');
  expect(r.fileBytes).toBeGreaterThan(36008);
  expect(r.afterDelete).toEqual([]);
  expect(r.importedDigest).toBe(r.savedDigest);
  expect(r.overwritten).toBe(r.savedDigest);
  expectBitExact(r.loaded, 5);
  expect(r.duplicate.code).toBe('exists');
  expect(r.duplicate.message).toContain("checkpoint run 'run' step 5 already exists");
  expect(r.tamperedTensor).toMatchObject({ code: 'invalid-file', tensor: 'adamV' });
  expect(r.tamperedTensor.message).toContain("tensor 'adamV'");
  expect(r.tamperedManifest.code).toBe('invalid-file');
  expect(r.tamperedManifest.message).toContain('manifest SHA-256 mismatch');
  expect(r.notAFile.code).toBe('invalid-file');
  expect(r.notAFile.message).toContain('magic');
  expectBitExact(r.stillGood, 5);
});

test('retention keeps the last N and every k-th step, never the pointed-to one; delete', async ({ gpuPage }) => {
  const r = await gpuPage.run<{
    removedPerSave: number[][];
    stepsAfterSaves: number[];
    chunksPerCheckpoint: number;
    olderRemoved: number[];
    afterOlder: { step: number; isLatest: boolean }[];
    latestIsOlder: Compare;
    badPolicy: Err;
    afterBadPolicy: number[];
    deleted: boolean;
    deletedAgain: boolean;
    runsAfterDelete: { runId: string; latestStep: number; steps: number[] }[];
    deletedRun: number;
    runsAtEnd: { runId: string }[];
    chunksOfDeletedRun: number;
    chunksOfOther: number;
  }>(ENTRY, 'retention', 'hlab-test-retention');
  // keepLast 3, keepEvery 4: a step leaves when it drops out of the last three unless divisible by 4.
  expect(r.removedPerSave).toEqual([[], [], [], [1], [2], [3], [], [5], [6], [7]]);
  expect(r.stepsAfterSaves).toEqual([4, 8, 9, 10]);
  // No orphan chunks: 3 × 600 f32 in 4 KiB chunks (1 each) + the step counter.
  expect(r.chunksPerCheckpoint).toBe(4);
  expect(r.olderRemoved).toEqual([4, 8, 9]);
  expect(r.afterOlder).toEqual([
    { step: 3, isLatest: true },
    { step: 10, isLatest: false },
  ]);
  expectBitExact(r.latestIsOlder, 3);
  expect(r.badPolicy.code).toBe('invalid-input');
  expect(r.badPolicy.message).toContain('retention.keepLast');
  expect(r.afterBadPolicy).toEqual([3, 10]);
  expect(r.deleted).toBe(true);
  expect(r.deletedAgain).toBe(false);
  expect(r.runsAfterDelete).toEqual([expect.objectContaining({ runId: 'run', latestStep: 10, steps: [10] })]);
  expect(r.deletedRun).toBe(1);
  expect(r.runsAtEnd.map((x) => x.runId)).toEqual(['other']);
  expect(r.chunksOfDeletedRun).toBe(0);
  expect(r.chunksOfOther).toBe(4);
});

test('a schema upgrade with an older connection open does not hang', async ({ gpuPage }) => {
  const r = await gpuPage.run<{
    opened: boolean;
    error?: string;
    oldVersion: number;
    oldMostRecent: string;
    newVersion: number;
    closeReasons: string[];
    oldTabReason: string;
    oldTabSave: Err;
    compare: Compare;
    mostRecent: { runId: string; latestStep: number } | null;
  }>(ENTRY, 'upgradeWithOldTabOpen', 'hlab-test-upgrade');
  expect(r.opened, r.error).toBe(true);
  expect(r.oldVersion).toBe(1);
  expect(r.oldMostRecent).toBe('run');
  expect(r.newVersion).toBe(2);
  expect(r.closeReasons).toHaveLength(1);
  expect(r.closeReasons[0]).toContain('upgrading');
  expect(r.oldTabReason).toBe(r.closeReasons[0]);
  expect(r.oldTabSave.code).toBe('closed');
  expect(r.oldTabSave.message).toContain('reload this page');
  expectBitExact(r.compare, 3);
  expect(r.mostRecent).toMatchObject({ runId: 'run', latestStep: 3 });
});

test('an upgrade blocked by a foreign connection fails with a clear error instead of hanging', async ({ gpuPage }) => {
  const r = await gpuPage.run<{ blocked: Err; versionAfter: number; saved: number }>(
    ENTRY,
    'upgradeBlockedByForeignConnection',
    'hlab-test-blocked',
  );
  expect(r.blocked.code).toBe('upgrade-blocked');
  expect(r.blocked.message).toContain('from schema 1 to 2 is blocked');
  expect(r.versionAfter).toBe(2);
  expect(r.saved).toBe(1);
});

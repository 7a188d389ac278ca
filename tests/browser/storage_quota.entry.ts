// Runs in the page: a real IndexedDB quota failure (the spec shrinks the origin's quota through
// the DevTools protocol) while saving a checkpoint, against real Chromium IndexedDB.
import { deleteDB, openDB } from 'idb';
import { CheckpointError, CheckpointStore, STORE_CHUNKS, type CheckpointDB } from '../../src/storage';
import { runFailureMessage } from '../../src/app/run_failure';
import { CHUNK, compare, errorSummary, expectError, makeCheckpoint } from './checkpoint_store.helpers';

/** The checkpoint that must survive: small. */
const KEPT = { runId: 'run', step: 1, seed: 81, n: 3000 };
/** The one that cannot fit: 3 × 1 Mi f32 ≈ 12 MiB, far above the quota headroom the spec leaves. */
const TOO_BIG = { runId: 'run', step: 2, seed: 82, n: 1 << 20 };

const input = (c: typeof KEPT) => makeCheckpoint(c.runId, c.step, c.seed, c.n).input;

/** Chunk keys of each checkpoint in the object store: no half-written checkpoint leaves any behind. */
async function chunkCounts(dbName: string): Promise<Record<string, number>> {
  const db = await openDB<CheckpointDB>(dbName);
  try {
    const out: Record<string, number> = {};
    for (const [runId, step] of await db.getAllKeys(STORE_CHUNKS)) out[`${runId}/${step}`] = (out[`${runId}/${step}`] ?? 0) + 1;
    return out;
  } finally {
    db.close();
  }
}

/** A fresh database holding the checkpoint to keep; @returns its step. */
export async function saveKept(dbName: string) {
  await deleteDB(dbName);
  const store = await CheckpointStore.open({ dbName, chunkBytes: CHUNK });
  const { step } = await store.save(input(KEPT));
  store.close();
  return step;
}

/** With the quota shrunk: save the large checkpoint; what the error says and what is left. */
export async function saveTooBig(dbName: string) {
  const store = await CheckpointStore.open({ dbName, chunkBytes: CHUNK });
  let appMessage = '';
  const error = await expectError(
    store.save(input(TOO_BIG)).catch((e: unknown) => {
      // What the Train view shows for this error.
      appMessage = runFailureMessage(e, undefined);
      throw e;
    }),
  );
  // Overwriting the kept step with one that cannot fit fails the same way and must not destroy it.
  const overwriteError = await expectError(store.save(input({ ...TOO_BIG, step: KEPT.step })));
  const latest = await store.loadLatestGood(KEPT.runId);
  const out = {
    error,
    overwriteError,
    isCheckpointError: error.code !== 'not-a-CheckpointError',
    appMessage,
    checkpoints: (await store.listCheckpoints(KEPT.runId)).map((c) => ({ step: c.step, isLatest: c.isLatest })),
    chunks: await chunkCounts(dbName),
    skipped: latest.skipped,
    kept: compare(latest.checkpoint, input(KEPT)),
  };
  store.close();
  return out;
}

/** The next checkpoint, once space is back: small. */
const FITS = { runId: 'run', step: 2, seed: 83, n: 3000 };

/**
 * After the failure, with the quota lifted: the next save goes through, loads bit-exactly, and
 * the kept one is still there; the database is deleted afterwards.
 */
export async function saveThatFits(dbName: string) {
  const store = await CheckpointStore.open({ dbName, chunkBytes: CHUNK });
  try {
    const saved = await store.save(input(FITS));
    const out = {
      saved: saved.step,
      latest: compare((await store.loadLatestGood(KEPT.runId)).checkpoint, input(FITS)),
      kept: compare(await store.load('run', 1), input(KEPT)),
    };
    store.close();
    await deleteDB(dbName);
    return out;
  } catch (e) {
    store.close();
    return { error: e instanceof CheckpointError ? errorSummary(e) : String(e) };
  }
}

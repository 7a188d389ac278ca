// Runs in the page: the IndexedDB checkpoint store against real Chromium IndexedDB.
// Every function starts from a deleted database of its own name and returns a small
// JSON-safe summary that the spec asserts on.
import { deleteDB, openDB } from 'idb';
import { CheckpointStore, STORE_CHUNKS, STORE_MANIFESTS, type CheckpointDB, type RunRecord } from '../../src/storage';
import { Rng } from '../../src/util/rng';
import { CHUNK, compare, errorSummary, expectError, makeCheckpoint, within } from './checkpoint_store.helpers';

async function fresh(dbName: string): Promise<CheckpointStore> {
  await deleteDB(dbName);
  return CheckpointStore.open({ dbName, chunkBytes: CHUNK });
}

/** Raw access to the object stores, as a test would tamper with them. */
async function raw<T>(dbName: string, f: (db: Awaited<ReturnType<typeof openDB<CheckpointDB>>>) => Promise<T>): Promise<T> {
  const db = await openDB<CheckpointDB>(dbName);
  try {
    return await f(db);
  } finally {
    db.close();
  }
}

async function countChunks(dbName: string, runId?: string): Promise<number> {
  return raw(dbName, async (db) => {
    const keys = await db.getAllKeys(STORE_CHUNKS);
    return keys.filter((k) => runId === undefined || k[0] === runId).length;
  });
}

/** Save, reopen (as after a reload), load: bit-exact tensors, metadata and RNG continuation. */
export async function roundTrip(dbName: string) {
  const store = await fresh(dbName);
  const { input, rng } = makeCheckpoint('run-a', 40, 11);
  const saved = await store.save(input);
  await store.save(makeCheckpoint('run-b', 7, 12).input);
  store.close();

  const again = await CheckpointStore.open({ dbName, chunkBytes: CHUNK });
  const { checkpoint, skipped } = await again.loadLatestGood('run-a');
  const restored = Rng.fromState((checkpoint!.meta.rngStates as { sampler: ReturnType<Rng['state']> }).sampler);
  const drawsEqual = Array.from({ length: 8 }, () => restored.nextU32() === rng.nextU32()).every(Boolean);
  const out = {
    saved,
    compare: compare(checkpoint, input),
    schemaVersion: checkpoint?.meta.schemaVersion,
    skipped,
    drawsEqual,
    runs: await again.listRuns(),
    checkpoints: await again.listCheckpoints('run-a'),
    mostRecent: await again.mostRecentRun(),
    emptyRun: await again.loadLatestGood('no-such-run'),
    chunksInStore: await countChunks(dbName, 'run-a'),
  };
  again.close();
  return out;
}

/**
 * Two checkpoints; then damage the newer one directly in the object store: `mode` 'garbage'
 * overwrites one chunk of adamM with random bytes of the same length, 'delete' removes it,
 * 'manifest' edits the stored manifest JSON.
 */
export async function damagedLatest(dbName: string, mode: 'garbage' | 'delete' | 'manifest') {
  const store = await fresh(dbName);
  const good = makeCheckpoint('run', 10, 21).input;
  await store.save(good);
  await store.save(makeCheckpoint('run', 20, 22).input);
  await raw(dbName, async (db) => {
    if (mode === 'garbage') {
      const rng = new Rng(99);
      const bytes = Uint32Array.from({ length: CHUNK / 4 }, () => rng.nextU32()).buffer;
      await db.put(STORE_CHUNKS, { runId: 'run', step: 20, tensor: 'adamM', index: 1, bytes });
    } else if (mode === 'delete') {
      await db.delete(STORE_CHUNKS, ['run', 20, 'adamM', 1]);
    } else {
      const rec = (await db.get(STORE_MANIFESTS, ['run', 20]))!;
      await db.put(STORE_MANIFESTS, { ...rec, manifestJson: rec.manifestJson.replace('"cursor":6', '"cursor":5') });
    }
  });
  const direct = await expectError(store.load('run', 20));
  const latest = await store.loadLatestGood('run');
  const out = { direct, skipped: latest.skipped, compare: compare(latest.checkpoint, good), runs: await store.listRuns() };
  store.close();
  return out;
}

/** Export to a file, delete, import back; duplicate and tampered imports are rejected. */
export async function exportImport(dbName: string) {
  const store = await fresh(dbName);
  const input = makeCheckpoint('run', 5, 41).input;
  const saved = await store.save(input);
  const blob = await store.exportCheckpoint('run', 5);
  const bytes = new Uint8Array(await blob.arrayBuffer());
  await store.deleteRun('run');
  const afterDelete = await store.listRuns();
  const imported = await store.importCheckpoint(blob);
  const loaded = compare((await store.loadLatestGood('run')).checkpoint, input);
  const duplicate = await expectError(store.importCheckpoint(bytes));
  const overwritten = (await store.importCheckpoint(bytes, { overwrite: true })).manifestDigest;

  const tamperedTensor = bytes.slice();
  // Data order is by name: adamM, adamV, params (3000 f32), stepCounter (2 u32): last byte of adamV.
  tamperedTensor[tamperedTensor.length - 8 - 4 * 3000 - 1] ^= 0x40;
  const tamperedManifest = bytes.slice();
  tamperedManifest[60] ^= 0x01;
  const out = {
    fileBytes: bytes.byteLength,
    savedDigest: saved.manifestDigest,
    importedDigest: imported.manifestDigest,
    overwritten,
    afterDelete,
    loaded,
    duplicate,
    tamperedTensor: await expectError(store.importCheckpoint(tamperedTensor, { overwrite: true })),
    tamperedManifest: await expectError(store.importCheckpoint(new Blob([tamperedManifest]), { overwrite: true })),
    notAFile: await expectError(store.importCheckpoint(new TextEncoder().encode('{"hello": "world", "padding": "..........."}'))),
    // Rejected imports wrote nothing: the good one is still there and verifies.
    stillGood: compare(await store.load('run', 5), input),
  };
  store.close();
  return out;
}

/** Retention after each save, pointer protection, delete of a checkpoint and of a run. */
export async function retention(dbName: string) {
  const store = await fresh(dbName);
  const removedPerSave: number[][] = [];
  for (let step = 1; step <= 10; step++) {
    const r = await store.save(makeCheckpoint('run', step, 50 + step, 600).input, { retention: { keepLast: 3, keepEvery: 4 } });
    removedPerSave.push(r.removedSteps);
  }
  const stepsAfterSaves = (await store.listCheckpoints('run')).map((c) => c.step);
  const chunksPerCheckpoint = (await countChunks(dbName)) / stepsAfterSaves.length;
  // An older step saved again becomes the pointer; keepLast 1 must still keep it.
  const older = makeCheckpoint('run', 3, 99, 600).input;
  const r = await store.save(older, { retention: { keepLast: 1 } });
  const afterOlder = await store.listCheckpoints('run');
  const latestIsOlder = compare((await store.loadLatestGood('run')).checkpoint, older);
  const badPolicy = await expectError(store.save(makeCheckpoint('run', 11, 1, 600).input, { retention: { keepLast: 0 } }));
  const afterBadPolicy = (await store.listCheckpoints('run')).map((c) => c.step);
  // Deleting the pointed-to checkpoint moves the pointer to the highest remaining step.
  const deleted = await store.deleteCheckpoint('run', 3);
  const deletedAgain = await store.deleteCheckpoint('run', 3);
  const runsAfterDelete = await store.listRuns();
  await store.save(makeCheckpoint('other', 1, 7, 600).input);
  const deletedRun = await store.deleteRun('run');
  const out = {
    removedPerSave,
    stepsAfterSaves,
    chunksPerCheckpoint,
    olderRemoved: r.removedSteps,
    afterOlder: afterOlder.map((c) => ({ step: c.step, isLatest: c.isLatest })),
    latestIsOlder,
    badPolicy,
    afterBadPolicy,
    deleted,
    deletedAgain,
    runsAfterDelete,
    deletedRun,
    runsAtEnd: await store.listRuns(),
    chunksOfDeletedRun: await countChunks(dbName, 'run'),
    chunksOfOther: await countChunks(dbName, 'other'),
  };
  store.close();
  return out;
}

/**
 * A tab on schema v1 holds the database open (with a checkpoint in it) while another opens the
 * current schema: the old connection must close itself and the upgrade go through.
 */
export async function upgradeWithOldTabOpen(dbName: string) {
  await deleteDB(dbName);
  const closeReasons: string[] = [];
  const oldTab = await CheckpointStore.open({ dbName, chunkBytes: CHUNK, schemaVersion: 1, onClose: (r) => closeReasons.push(r) });
  const input = makeCheckpoint('run', 3, 61).input;
  await oldTab.save(input);
  const oldVersion = oldTab.schemaVersion;
  const oldMostRecent = (await oldTab.mostRecentRun())?.runId; // v1: no index, scan fallback
  let newTab: CheckpointStore;
  try {
    newTab = await within(CheckpointStore.open({ dbName, chunkBytes: CHUNK }), 60_000, 'opening the new schema');
  } catch (e) {
    oldTab.close();
    return { opened: false, error: String(e) };
  }
  const out = {
    opened: true,
    oldVersion,
    oldMostRecent,
    newVersion: newTab.schemaVersion,
    closeReasons,
    oldTabReason: oldTab.closeReason,
    oldTabSave: await expectError(oldTab.save(makeCheckpoint('run', 4, 62).input)),
    compare: compare((await newTab.loadLatestGood('run')).checkpoint, input),
    mostRecent: (await newTab.mostRecentRun()) as RunRecord | null,
  };
  newTab.close();
  return out;
}

/**
 * A foreign connection (no versionchange handler) holds v1 open: opening the current schema
 * rejects with 'upgrade-blocked' after blockedTimeoutMs instead of hanging; once the foreign
 * connection closes, opening works.
 */
export async function upgradeBlockedByForeignConnection(dbName: string) {
  await deleteDB(dbName);
  const foreign = await new Promise<IDBDatabase>((resolve, reject) => {
    const req = indexedDB.open(dbName, 1);
    req.onupgradeneeded = () => {
      req.result.createObjectStore('runs', { keyPath: 'runId' });
      req.result.createObjectStore('manifests', { keyPath: ['runId', 'step'] });
      req.result.createObjectStore('chunks', { keyPath: ['runId', 'step', 'tensor', 'index'] });
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  let blocked: ReturnType<typeof errorSummary>;
  try {
    const s = await within(CheckpointStore.open({ dbName, blockedTimeoutMs: 300 }), 60_000, 'a blocked open');
    s.close();
    blocked = { code: 'no-error', message: '' };
  } catch (e) {
    blocked = errorSummary(e);
  }
  foreign.close();
  const store = await within(CheckpointStore.open({ dbName }), 60_000, 'opening after the foreign connection closed');
  const out = { blocked, versionAfter: store.schemaVersion, saved: (await store.save(makeCheckpoint('run', 1, 71, 100).input)).step };
  store.close();
  return out;
}

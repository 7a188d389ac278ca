// Runs in the page: two tabs (pages of one browser context) training against one checkpoint
// database and one results database; storage_tabs.spec.ts drives both pages at once.
import { deleteDB, openDB } from 'idb';
import { CheckpointStore, STORE_CHUNKS, STORE_MANIFESTS, type Checkpoint, type CheckpointDB } from '../../src/storage';
import { listRunOutputs, loadRunOutput, saveRunOutput } from '../../src/app/results_store';
import { CHUNK, compare, errorSummary, expectError, makeCheckpoint, within } from './checkpoint_store.helpers';

/** 3 × 20 000 f32 in 4 KiB chunks: 60 chunks a checkpoint, so that a commit spans many puts. */
const N = 20_000;
const seedOf = (tab: string, step: number) => (tab === 'A' ? 1000 : 2000) + step;

/** A loaded checkpoint against the one its seed says was written: bit-exact? */
function verifyLoaded(c: Checkpoint) {
  const seed = (c.meta.config as { seed: number }).seed;
  const want = makeCheckpoint(c.meta.runId, c.meta.step, seed, (c.tensors.params as Float32Array).length).input;
  const cmp = compare(c, want);
  const bitExact = cmp.metaEqual && cmp.extraTensors?.length === 0 && Object.values(cmp.mismatches).every((n) => n === 0);
  return { runId: c.meta.runId, step: c.meta.step, seed, bitExact };
}

/** A run output whose summary fields (spec, status, runs) say which tab and round wrote it. */
function output(tab: string, round: number) {
  return {
    status: tab === 'A' ? ('done' as const) : ('interrupted' as const),
    results: { resultsVersion: 1 as const, spec: `tab ${tab} round ${round}`, evalSet: 'none', machine: 'test', runs: [] },
    curves: [],
    // Bulk, so that the two object stores' puts are not trivially small.
    warnings: Array.from({ length: 2000 }, (_, i) => `tab ${tab} round ${round} line ${i}`),
  };
}

/** Delete both databases before a test. */
export async function resetDbs(ckDb: string, outDb: string) {
  await Promise.all([deleteDB(ckDb), deleteDB(outDb)]);
}

/**
 * One tab "training": each round saves a checkpoint of its own run and of the shared run (same
 * run name in both tabs, retention keepLast 3), an output under its own name and the shared
 * name, then resumes (loadLatestGood) the other tab's run and the shared run and reads the
 * shared output back; meanwhile a reader loop resumes the other tab's run again and again. @returns what it saved and every checkpoint and output it read.
 */
export async function trainTab(ckDb: string, outDb: string, tab: 'A' | 'B', rounds: number) {
  const store = await CheckpointStore.open({ dbName: ckDb, chunkBytes: CHUNK });
  const other = tab === 'A' ? 'B' : 'A';
  const saved: { runId: string; step: number; seed: number }[] = [];
  const loaded: ReturnType<typeof verifyLoaded>[] = [];
  const missed: { runId: string; skipped: unknown[] }[] = [];
  const outputs: { name: string; spec: string; status: string; warnings: number }[] = [];
  const resume = async (runId: string) => {
    const { checkpoint, skipped } = await store.loadLatestGood(runId);
    if (checkpoint) loaded.push(verifyLoaded(checkpoint));
    // The other tab may not have saved yet; a shared run always has this tab's own save.
    if (skipped.length > 0 || (checkpoint === null && runId === 'shared')) missed.push({ runId, skipped });
  };
  let writing = true;
  const writer = (async () => {
    for (let step = 1; step <= rounds; step++) {
      for (const runId of [`run-${tab}`, 'shared']) {
        await store.save(makeCheckpoint(runId, step, seedOf(tab, step), N).input, runId === 'shared' ? { retention: { keepLast: 3 } } : {});
        saved.push({ runId, step, seed: seedOf(tab, step) });
      }
      await saveRunOutput(`out-${tab}`, output(tab, step), outDb);
      await saveRunOutput('out-shared', output(tab, step), outDb);
      for (const runId of [`run-${other}`, 'shared']) await resume(runId);
      const o = await loadRunOutput('out-shared', outDb);
      if (o) outputs.push({ name: 'out-shared', spec: o.results.spec, status: o.status, warnings: o.warnings?.length ?? 0 });
    }
    writing = false;
  })();
  // Meanwhile this tab keeps resuming the other tab's run: reads land between and during its commits.
  const reader = (async () => {
    // Always at least once after the first write.
    do await resume(`run-${other}`);
    while (writing);
  })();
  await Promise.all([writer, reader]);
  store.close();
  return { saved, loaded, missed, outputs };
}

/** After both tabs finished: every stored checkpoint verified, chunks against manifests, outputs against their summaries. */
export async function verifyAll(ckDb: string, outDb: string) {
  const store = await CheckpointStore.open({ dbName: ckDb, chunkBytes: CHUNK });
  const runs = await store.listRuns();
  const checkpoints: ReturnType<typeof verifyLoaded>[] = [];
  for (const r of runs) for (const s of r.steps) checkpoints.push(verifyLoaded(await store.load(r.runId, s)));
  store.close();
  const db = await openDB<CheckpointDB>(ckDb);
  const chunkKeys = await db.getAllKeys(STORE_CHUNKS);
  const manifests = await db.getAll(STORE_MANIFESTS);
  db.close();
  const chunkCount = (runId: string, step: number) => chunkKeys.filter(([r, s]) => r === runId && s === step).length;
  const expected = manifests.reduce((n, m) => n + chunkCount(m.runId, m.step), 0);
  const summaries = await listRunOutputs(outDb);
  const outputs = [];
  for (const s of summaries) {
    const o = await loadRunOutput(s.name, outDb);
    outputs.push({
      name: s.name,
      summarySpec: s.spec,
      summaryStatus: s.status,
      spec: o?.results.spec,
      status: o?.status,
      warnings: o?.warnings?.length,
    });
  }
  return {
    runs: runs.map((r) => ({ runId: r.runId, latestStep: r.latestStep, steps: r.steps })),
    checkpoints,
    perCheckpointChunks: [...new Set(manifests.map((m) => chunkCount(m.runId, m.step)))],
    orphanChunks: chunkKeys.length - expected,
    outputs,
  };
}

/** This tab's store while another tab upgrades the schema: what it saw. */
let loop: Promise<void> = Promise.resolve();
let held: { store: CheckpointStore; closeReasons: string[]; saved: number[]; error: ReturnType<typeof errorSummary> | null } | null = null;

/**
 * This tab runs an older build (schema 1) and keeps saving checkpoints of run 'train' until a
 * save fails (at most `maxSteps`): the spec upgrades the database from the other tab meanwhile.
 * Resolves once the first `startAfter` saves are done; `trainResult` waits for the end.
 */
export async function trainOnOldSchema(ckDb: string, startAfter: number, maxSteps: number) {
  await deleteDB(ckDb);
  const closeReasons: string[] = [];
  const store = await CheckpointStore.open({ dbName: ckDb, chunkBytes: CHUNK, schemaVersion: 1, onClose: (r) => closeReasons.push(r) });
  held = { store, closeReasons, saved: [], error: null };
  const h = held;
  let started!: () => void;
  const ready = new Promise<void>((res) => (started = res));
  loop = (async () => {
    for (let step = 1; step <= maxSteps; step++) {
      try {
        await store.save(makeCheckpoint('train', step, seedOf('A', step), N).input);
        h.saved.push(step);
      } catch (e) {
        h.error = errorSummary(e);
        break;
      }
      if (step === startAfter) started();
    }
    started();
  })();
  await ready;
  return { schemaVersion: store.schemaVersion, saved: h.saved.length };
}
/** The old-schema tab's outcome, and what reopening with its old schema says afterwards. */
export async function trainResult(ckDb: string) {
  await within(loop, 60_000, 'the old-schema training loop');
  const h = held!;
  const reopen = await expectError(CheckpointStore.open({ dbName: ckDb, schemaVersion: 1 }).then((s) => s.close()));
  return { saved: h.saved, error: h.error, closeReasons: h.closeReasons, closeReason: h.store.closeReason, reopen };
}

/** The other tab, on the current build: opens (upgrading) while the old tab trains; resumes its run. */
export async function upgradeFromOtherTab(ckDb: string) {
  const store = await within(CheckpointStore.open({ dbName: ckDb, chunkBytes: CHUNK }), 60_000, 'opening the current schema');
  const { checkpoint, skipped } = await store.loadLatestGood('train');
  const out = {
    schemaVersion: store.schemaVersion,
    latest: checkpoint ? verifyLoaded(checkpoint) : null,
    skipped,
    steps: (await store.listCheckpoints('train')).map((c) => c.step),
    saved: (await store.save(makeCheckpoint('train', 10_000, seedOf('B', 10_000), 100).input)).step,
  };
  store.close();
  return out;
}

let foreign: IDBDatabase | null = null;

/** A tab of a build without versionchange handling: a checkpoint saved, then a raw connection held open at schema 1. */
export async function holdForeignConnection(ckDb: string) {
  await deleteDB(ckDb);
  const store = await CheckpointStore.open({ dbName: ckDb, chunkBytes: CHUNK, schemaVersion: 1 });
  await store.save(makeCheckpoint('train', 1, seedOf('A', 1), N).input);
  store.close();
  foreign = await new Promise<IDBDatabase>((resolve, reject) => {
    const req = indexedDB.open(ckDb, 1);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  return foreign.version;
}

/** Close the foreign connection (the user closed that tab). */
export function releaseForeignConnection() {
  foreign?.close();
  foreign = null;
  return true;
}

/** The current build in the other tab: blocked by the foreign connection, it fails clearly; `tryOpen` again after release. */
export async function tryOpen(ckDb: string, blockedTimeoutMs: number) {
  try {
    const store = await within(CheckpointStore.open({ dbName: ckDb, chunkBytes: CHUNK, blockedTimeoutMs }), 60_000, 'a blocked open');
    const { checkpoint } = await store.loadLatestGood('train');
    const out = { opened: true, schemaVersion: store.schemaVersion, latest: checkpoint ? verifyLoaded(checkpoint) : null };
    store.close();
    return out;
  } catch (e) {
    return { opened: false, error: errorSummary(e) };
  }
}

/**
 * Deterministic interleaving with two connections (as two tabs): a resume lists the run (pointer
 * step 2, steps 1–3), then — before it reads a checkpoint — the other connection deletes step 2
 * (the pointer moves to 3) and applies retention keepLast 1 (step 1 goes). IndexedDB runs
 * overlapping transactions in creation order, so the resume's reads see both changes.
 */
export async function resumeWhileOtherTabDeletes(ckDb: string) {
  await deleteDB(ckDb);
  const reader = await CheckpointStore.open({ dbName: ckDb, chunkBytes: CHUNK });
  const writer = await CheckpointStore.open({ dbName: ckDb, chunkBytes: CHUNK });
  for (const step of [1, 3, 2]) await writer.save(makeCheckpoint('shared', step, seedOf('B', step), 600).input);
  // No await between these three calls: each creates its transaction before returning.
  const resume = reader.loadLatestGood('shared');
  const deleted = writer.deleteCheckpoint('shared', 2);
  const retained = writer.applyRetention('shared', { keepLast: 1 });
  const [{ checkpoint, skipped }, wasDeleted, removed] = await Promise.all([resume, deleted, retained]);
  const out = {
    wasDeleted,
    removed,
    latest: checkpoint ? verifyLoaded(checkpoint) : null,
    skipped,
    steps: (await reader.listCheckpoints('shared')).map((c) => c.step),
  };
  reader.close();
  writer.close();
  return out;
}

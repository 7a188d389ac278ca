/**
 * The checkpoint store's transactions (checkpoint_store.ts has the commit protocol): commit a
 * prepared checkpoint atomically, read the run pointer, read one checkpoint and verify it.
 */
import type { IDBPDatabase } from 'idb';
import { CheckpointError, describeCheckpoint } from './errors';
import {
  parseManifest,
  validateRunId,
  validateStep,
  verifyAndAssembleTensor,
  type CheckpointManifest,
  type PreparedCheckpoint,
} from './serialize';
import {
  STORE_CHUNKS,
  STORE_MANIFESTS,
  STORE_RUNS,
  checkpointChunkRange,
  type CheckpointDB,
  type ManifestRecord,
  type RunRecord,
} from './schema';

function fmtBytes(n: number): string {
  return n < 1 << 20 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / (1 << 20)).toFixed(1)} MiB`;
}

/** The name of an Error or DOMException ('Error' for anything else). */
export function errName(e: unknown): string {
  return e instanceof Error || (typeof DOMException !== 'undefined' && e instanceof DOMException) ? (e as Error).name : 'Error';
}

/** 'Name: message' of an Error or DOMException, else the value as text. */
export function errText(e: unknown): string {
  if (!(e instanceof Error || (typeof DOMException !== 'undefined' && e instanceof DOMException))) return String(e);
  // Browsers often give a QuotaExceededError no message: its name alone, not "name: ".
  const { name, message } = e as Error;
  return message ? `${name}: ${message}` : name;
}

/** Whether a stored value is a run record (has an integer latestStep). */
export function isRunRecord(r: unknown): r is RunRecord {
  return typeof r === 'object' && r !== null && Number.isSafeInteger((r as RunRecord).latestStep);
}

/**
 * Commit a prepared checkpoint in one readwrite transaction: stale chunks out, chunks in,
 * manifest, then the pointer (checkpoint_store.ts: commit protocol).
 * @throws CheckpointError('exists') when `overwrite` is false and the step exists; ('quota') or
 *   ('write-failed') when the transaction aborted (rolled back: the previous pointer is intact)
 */
export async function commitCheckpoint(db: IDBPDatabase<CheckpointDB>, prepared: PreparedCheckpoint, overwrite: boolean): Promise<void> {
  const m = prepared.manifest;
  const where = describeCheckpoint(m.runId, m.step);
  const tx = db.transaction([STORE_CHUNKS, STORE_MANIFESTS, STORE_RUNS], 'readwrite');
  const chunks = tx.objectStore(STORE_CHUNKS);
  const manifests = tx.objectStore(STORE_MANIFESTS);
  // Each request's promise rejects when the transaction aborts; tx.done reports the cause.
  const track = (p: Promise<unknown>) => void p.catch(() => undefined);
  let exists = false;
  try {
    if (!overwrite) {
      // An IndexedDB request: awaiting it keeps the transaction active.
      exists = (await manifests.getKey([m.runId, m.step])) !== undefined;
      if (exists) tx.abort();
    }
    if (!exists) {
      track(chunks.delete(checkpointChunkRange(m.runId, m.step)));
      for (const c of prepared.chunks)
        track(chunks.put({ runId: m.runId, step: m.step, tensor: c.tensor, index: c.index, bytes: c.bytes }));
      const rec: ManifestRecord = {
        runId: m.runId,
        step: m.step,
        createdAt: m.createdAt,
        totalBytes: prepared.totalBytes,
        manifestJson: prepared.manifestJson,
        manifestDigest: prepared.manifestDigest,
      };
      track(manifests.put(rec));
      // The pointer last: data first, then the pointer.
      track(tx.objectStore(STORE_RUNS).put({ runId: m.runId, latestStep: m.step, createdAt: m.createdAt }));
    }
    await tx.done;
  } catch (e) {
    if (exists) {
      throw new CheckpointError('exists', `${where} already exists; pass { overwrite: true } to replace it`, {
        runId: m.runId,
        step: m.step,
      });
    }
    const prev = await readPointer(db, m.runId).catch(() => null);
    const intact =
      prev === null
        ? 'the run had no earlier checkpoint'
        : `the previous checkpoint (step ${prev.latestStep}) is intact and still the latest`;
    const what = `${fmtBytes(prepared.totalBytes)} in ${prepared.chunks.length} chunks`;
    if (errName(e) === 'QuotaExceededError') {
      throw new CheckpointError(
        'quota',
        `${where} was not saved: storage quota exceeded while writing ${what} (${errText(e)}); ` +
          `the transaction was rolled back and ${intact}. Free space by deleting checkpoints of runs you no longer need.`,
        { runId: m.runId, step: m.step, cause: e, ...(prev ? { keptStep: prev.latestStep } : {}) },
      );
    }
    throw new CheckpointError(
      'write-failed',
      `${where} was not saved: the transaction aborted while writing ${what} (${errText(e)}); it was rolled back and ${intact}.`,
      {
        runId: m.runId,
        step: m.step,
        cause: e,
        ...(prev ? { keptStep: prev.latestStep } : {}),
      },
    );
  }
}

/** The run's 'latest' pointer, or null when it has none. */
async function readPointer(db: IDBPDatabase<CheckpointDB>, runId: string): Promise<RunRecord | null> {
  const rec = await db.get(STORE_RUNS, runId);
  return isRunRecord(rec) ? rec : null;
}

/**
 * Read one checkpoint in a single readonly transaction, then verify it outside the
 * transaction (hashing is not an IndexedDB request).
 * @throws CheckpointError('not-found' | 'partial' | 'corrupt') naming run, step, tensor and chunk
 */
export async function readVerifiedCheckpoint(
  db: IDBPDatabase<CheckpointDB>,
  runId: string,
  step: number,
): Promise<{ prepared: PreparedCheckpoint; buffers: Map<string, ArrayBuffer> }> {
  validateRunId(runId);
  validateStep(step);
  const where = describeCheckpoint(runId, step);
  const tx = db.transaction([STORE_MANIFESTS, STORE_CHUNKS], 'readonly');
  const range = checkpointChunkRange(runId, step);
  const [rec, keys, values] = await Promise.all([
    tx.objectStore(STORE_MANIFESTS).get([runId, step]),
    tx.objectStore(STORE_CHUNKS).getAllKeys(range),
    tx.objectStore(STORE_CHUNKS).getAll(range),
    tx.done,
  ]);
  if (rec === undefined) throw new CheckpointError('not-found', `${where} does not exist`, { runId, step });
  if (typeof rec !== 'object' || rec === null || typeof rec.manifestJson !== 'string' || typeof rec.manifestDigest !== 'string') {
    throw new CheckpointError('corrupt', `${where} is corrupt: its manifest record is malformed`, { runId, step });
  }
  let manifest: CheckpointManifest;
  try {
    manifest = await parseManifest(rec.manifestJson, rec.manifestDigest, `${where} is corrupt`);
  } catch (e) {
    // Same code and message, plus the run and step as fields.
    if (e instanceof CheckpointError) throw new CheckpointError(e.code, e.message, { runId, step, cause: e });
    throw e;
  }
  if (manifest.runId !== runId || manifest.step !== step) {
    throw new CheckpointError('corrupt', `${where} is corrupt: its manifest describes run '${manifest.runId}' step ${manifest.step}`, {
      runId,
      step,
    });
  }
  // getAllKeys and getAll over one range in one transaction list the same records in the same order.
  const byTensor = new Map<string, (ArrayBuffer | undefined)[]>();
  keys.forEach(([, , tensor, index], i) => {
    const v = values[i] as unknown;
    const bytes = typeof v === 'object' && v !== null ? (v as { bytes?: unknown }).bytes : undefined;
    if (!(bytes instanceof ArrayBuffer)) {
      throw new CheckpointError('corrupt', `${where} is corrupt: tensor '${tensor}' chunk ${index} record holds no ArrayBuffer`, {
        runId,
        step,
        tensor,
        chunk: index,
      });
    }
    let arr = byTensor.get(tensor);
    if (arr === undefined) byTensor.set(tensor, (arr = []));
    arr[index] = bytes;
  });
  const buffers = new Map<string, ArrayBuffer>();
  const chunks: PreparedCheckpoint['chunks'] = [];
  // Sequential, in manifest order: with several bad tensors the same one is always reported.
  for (const e of manifest.tensors) {
    const arr = byTensor.get(e.name) ?? [];
    buffers.set(e.name, await verifyAndAssembleTensor(manifest, e, arr));
    for (let i = 0; i < e.chunkCount; i++) chunks.push({ tensor: e.name, index: i, bytes: arr[i] as ArrayBuffer });
  }
  const totalBytes = manifest.tensors.reduce((s, t) => s + t.byteLength, 0);
  return {
    prepared: { manifest, manifestJson: rec.manifestJson, manifestDigest: rec.manifestDigest, chunks, totalBytes },
    buffers,
  };
}

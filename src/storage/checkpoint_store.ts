/**
 * Checkpoint store on IndexedDB (through `idb`): save, verified load with fallback to the last
 * good checkpoint, list, delete, retention, single-file export/import, and schema upgrades that
 * never hang on a second tab. Generic over what a checkpoint holds (named Float32Array /
 * Uint32Array tensors plus JSON metadata); see serialize.ts for the formats and
 * docs/STORAGE.md for the schema and the commit protocol.
 *
 * Commit protocol (`save`, `importCheckpoint`):
 *   1. every asynchronous step — validation, copying into chunks, SHA-256 of each chunk, each
 *      tensor and the manifest — happens before any transaction exists;
 *   2. one readwrite transaction over runs + manifests + chunks deletes stale chunks of the same
 *      (run, step), puts the chunks, then the manifest, then the run's 'latest' pointer; nothing
 *      but IndexedDB requests is awaited inside it (awaiting anything else lets it auto-commit
 *      half-done);
 *   3. IndexedDB makes the transaction atomic: on any abort (quota, crash, injected fault) none
 *      of it is visible and the previous checkpoint and pointer are untouched. This atomicity is
 *      what the store relies on; the order of the puts inside the transaction (pointer last) is
 *      not observable by any reader and guarantees nothing by itself. The quota-fault test
 *      (tests/browser/checkpoint_store.spec.ts) aborts the transaction after chunks were put
 *      and checks that neither they nor a manifest or pointer of the new step are visible.
 *   4. retention runs afterwards, in its own transaction, and never deletes the pointed-to step.
 */
import { openDB, type IDBPDatabase } from 'idb';
import { CheckpointError, describeCheckpoint } from './errors';
import {
  DEFAULT_CHUNK_BYTES,
  checkpointFromParts,
  concatBytes,
  decodeExportFile,
  encodeExportFile,
  parseManifest,
  prepareCheckpoint,
  validateChunkBytes,
  validateRunId,
  validateStep,
  verifyAndAssembleTensor,
  type Checkpoint,
  type CheckpointInput,
  type CheckpointManifest,
  type PreparedCheckpoint,
} from './serialize';
import { planRetention, validateRetention, type RetentionPolicy } from './retention';
import {
  DB_SCHEMA_VERSION,
  DEFAULT_DB_NAME,
  INDEX_RUNS_BY_CREATED_AT,
  STORE_CHUNKS,
  STORE_MANIFESTS,
  STORE_RUNS,
  checkpointChunkRange,
  migrate,
  runRange,
  type CheckpointDB,
  type ManifestRecord,
  type RunRecord,
} from './schema';

/** Test hooks that make the store fail the way a browser would. Never set in production. */
export interface FaultInjection {
  /**
   * Abort the commit transaction with a `QuotaExceededError` DOMException when about to issue
   * the N-th chunk put of a save or import (1-based, counted per commit) — what a real quota
   * failure looks like: the transaction aborts and nothing it wrote survives.
   */
  quotaExceededOnChunkPut?: number;
}

export interface CheckpointStoreOptions {
  /** IndexedDB database name (default 'hlab-checkpoints'); tests pass their own to isolate. */
  dbName?: string;
  /**
   * Schema version to open (default and maximum: DB_SCHEMA_VERSION). A lower one simulates a
   * tab running an older build, for upgrade tests; every operation works at version ≥ 1.
   */
  schemaVersion?: number;
  /** Chunk size for new checkpoints, bytes (multiple of 4, default 1 MiB). */
  chunkBytes?: number;
  /**
   * How long `open` waits while another connection blocks a schema upgrade before it rejects
   * with CheckpointError('upgrade-blocked'), ms (default 10 000). Connections opened by this
   * class close themselves on `versionchange`, so only foreign or hung tabs ever block.
   */
  blockedTimeoutMs?: number;
  /** Called once when the connection closes other than by `close()` (schema upgrade elsewhere, browser). */
  onClose?: (reason: string) => void;
  faults?: FaultInjection;
}

export interface SaveOptions {
  /** Applied after a successful commit; validated before anything is written. */
  retention?: RetentionPolicy;
}

export interface ImportOptions {
  /** Replace an existing checkpoint with the same run id and step (default false: reject). */
  overwrite?: boolean;
}

export interface SaveResult {
  runId: string;
  step: number;
  manifestDigest: string;
  /** Σ tensor bytes written. */
  totalBytes: number;
  chunkCount: number;
  /** Steps deleted by retention after the commit (ascending). */
  removedSteps: number[];
}

/** One checkpoint passed over by `loadLatestGood`, and why. */
export interface SkippedCheckpoint {
  step: number;
  code: CheckpointError['code'];
  message: string;
}

export interface LatestGood {
  /** The newest verified checkpoint not above the pointer, or null when none is loadable. */
  checkpoint: Checkpoint | null;
  /** Newer checkpoints that failed verification, newest first. */
  skipped: SkippedCheckpoint[];
}

export interface RunSummary {
  runId: string;
  /** Step the run's pointer names; null if the run has checkpoints but no pointer. */
  latestStep: number | null;
  /** createdAt (ms) of the pointed-to checkpoint; null without a pointer. */
  createdAt: number | null;
  /** All stored steps, ascending. */
  steps: number[];
}

export interface CheckpointSummary {
  runId: string;
  step: number;
  createdAt: number;
  totalBytes: number;
  manifestDigest: string;
  /** True for the step the run's pointer names. */
  isLatest: boolean;
}

const DEFAULT_BLOCKED_TIMEOUT_MS = 10_000;

function fmtBytes(n: number): string {
  return n < 1 << 20 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / (1 << 20)).toFixed(1)} MiB`;
}

function errName(e: unknown): string {
  return e instanceof Error || (typeof DOMException !== 'undefined' && e instanceof DOMException) ? (e as Error).name : 'Error';
}

function errText(e: unknown): string {
  return e instanceof Error || (typeof DOMException !== 'undefined' && e instanceof DOMException) ? `${(e as Error).name}: ${(e as Error).message}` : String(e);
}

function isSkippable(e: unknown): e is CheckpointError {
  return e instanceof CheckpointError && (e.code === 'corrupt' || e.code === 'partial' || e.code === 'not-found');
}

function isRunRecord(r: unknown): r is RunRecord {
  return typeof r === 'object' && r !== null && Number.isSafeInteger((r as RunRecord).latestStep);
}

export class CheckpointStore {
  readonly dbName: string;
  readonly chunkBytes: number;
  private db: IDBPDatabase<CheckpointDB> | null = null;
  private closedReason: string | null = null;
  private readonly onClose?: (reason: string) => void;
  private readonly faults: FaultInjection;

  private constructor(opts: CheckpointStoreOptions) {
    this.dbName = opts.dbName ?? DEFAULT_DB_NAME;
    this.chunkBytes = validateChunkBytes(opts.chunkBytes ?? DEFAULT_CHUNK_BYTES, 'chunkBytes');
    this.onClose = opts.onClose;
    this.faults = opts.faults ?? {};
  }

  /**
   * Open (creating or upgrading) the checkpoint database.
   *
   * The connection closes itself when another connection asks for a newer schema
   * (`versionchange`), so an upgrade in another tab is never blocked by this one; afterwards
   * every method throws CheckpointError('closed') and `onClose` is called.
   *
   * @throws CheckpointError('invalid-input') for bad options; ('newer-schema') when the database
   *   was upgraded by a newer build; ('upgrade-blocked') when another connection keeps the old
   *   schema open for longer than `blockedTimeoutMs`.
   */
  static async open(opts: CheckpointStoreOptions = {}): Promise<CheckpointStore> {
    const store = new CheckpointStore(opts);
    const version = opts.schemaVersion ?? DB_SCHEMA_VERSION;
    if (!Number.isInteger(version) || version < 1 || version > DB_SCHEMA_VERSION) {
      throw new CheckpointError('invalid-input', `schemaVersion must be an integer in [1, ${DB_SCHEMA_VERSION}], got ${String(version)}`);
    }
    const blockedTimeoutMs = opts.blockedTimeoutMs ?? DEFAULT_BLOCKED_TIMEOUT_MS;
    if (!Number.isFinite(blockedTimeoutMs) || blockedTimeoutMs < 0) {
      throw new CheckpointError('invalid-input', `blockedTimeoutMs must be a finite number ≥ 0, got ${String(blockedTimeoutMs)}`);
    }
    store.db = await new Promise<IDBPDatabase<CheckpointDB>>((resolve, reject) => {
      let settled = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      openDB<CheckpointDB>(store.dbName, version, {
        upgrade(db, oldVersion, newVersion, tx) {
          migrate(db, oldVersion, newVersion ?? version, tx);
        },
        blocked(currentVersion) {
          timer ??= setTimeout(() => {
            if (settled) return;
            settled = true;
            reject(
              new CheckpointError(
                'upgrade-blocked',
                `checkpoint database '${store.dbName}': upgrading from schema ${currentVersion} to ${version} is blocked for ` +
                  `${blockedTimeoutMs} ms by another tab or connection that keeps the old version open; close or reload the other tabs`,
              ),
            );
          }, blockedTimeoutMs);
        },
        blocking(currentVersion, blockedVersion) {
          // Another connection wants a newer schema: step aside instead of blocking it forever.
          store.markClosed(
            blockedVersion === null
              ? `another tab or connection is deleting '${store.dbName}'`
              : `another tab or connection is upgrading '${store.dbName}' from schema ${currentVersion} to ${blockedVersion}; reload this page`,
          );
        },
        terminated() {
          store.markClosed(`the browser closed the connection to '${store.dbName}'`);
        },
      }).then(
        (db) => {
          clearTimeout(timer);
          // Resolved after we gave up on a blocked upgrade: nobody holds this connection.
          if (settled) return db.close();
          settled = true;
          resolve(db);
        },
        (e: unknown) => {
          clearTimeout(timer);
          if (settled) return;
          settled = true;
          reject(
            errName(e) === 'VersionError'
              ? new CheckpointError(
                  'newer-schema',
                  `checkpoint database '${store.dbName}' has a newer schema than this build (${version}); reload to get the new version of Harness Lab`,
                  { cause: e },
                )
              : e,
          );
        },
      );
    });
    return store;
  }

  /** Schema version of the open connection. */
  get schemaVersion(): number {
    return this.requireOpen().version;
  }

  /** Why the connection closed, or null while open. */
  get closeReason(): string | null {
    return this.closedReason;
  }

  /** Close the connection; later calls throw CheckpointError('closed'). */
  close(): void {
    if (this.closedReason !== null) return;
    this.closedReason = 'closed by the caller';
    this.db?.close();
    this.db = null;
  }

  private markClosed(reason: string): void {
    if (this.closedReason !== null) return;
    this.closedReason = reason;
    this.db?.close();
    this.db = null;
    this.onClose?.(reason);
  }

  private requireOpen(): IDBPDatabase<CheckpointDB> {
    if (this.db === null || this.closedReason !== null) {
      throw new CheckpointError('closed', `checkpoint store '${this.dbName}' is closed: ${this.closedReason ?? 'not opened'}`);
    }
    return this.db;
  }

  /**
   * Save a checkpoint atomically and make it the run's latest (module docstring: commit
   * protocol). Saving an existing (runId, step) replaces it.
   *
   * @param input meta (runId, step, createdAt in ms, JSON config / rngStates / scheduleState /
   *   metricHistory) and named Float32Array / Uint32Array tensors.
   * @throws CheckpointError('invalid-input') naming the bad field (nothing written);
   *   ('quota') when storage is full and ('write-failed') on any other abort — both with the
   *   previous checkpoint and pointer intact; ('closed').
   */
  async save(input: CheckpointInput, opts: SaveOptions = {}): Promise<SaveResult> {
    this.requireOpen();
    if (opts.retention !== undefined) validateRetention(opts.retention);
    const prepared = await prepareCheckpoint(input, this.chunkBytes);
    return this.commitAndRetain(prepared, true, opts.retention);
  }

  private async commitAndRetain(prepared: PreparedCheckpoint, overwrite: boolean, retention?: RetentionPolicy): Promise<SaveResult> {
    await this.commit(prepared, overwrite);
    const { runId, step } = prepared.manifest;
    let removedSteps: number[] = [];
    if (retention !== undefined) {
      try {
        removedSteps = await this.applyRetention(runId, retention);
      } catch (e) {
        throw new CheckpointError('write-failed', `${describeCheckpoint(runId, step)} was saved, but applying retention afterwards failed: ${errText(e)}`, {
          runId,
          step,
          cause: e,
        });
      }
    }
    return {
      runId,
      step,
      manifestDigest: prepared.manifestDigest,
      totalBytes: prepared.totalBytes,
      chunkCount: prepared.chunks.length,
      removedSteps,
    };
  }

  /** One readwrite transaction: stale chunks out, chunks in, manifest, then the pointer. */
  private async commit(prepared: PreparedCheckpoint, overwrite: boolean): Promise<void> {
    const db = this.requireOpen();
    const m = prepared.manifest;
    const where = describeCheckpoint(m.runId, m.step);
    const tx = db.transaction([STORE_CHUNKS, STORE_MANIFESTS, STORE_RUNS], 'readwrite');
    const chunks = tx.objectStore(STORE_CHUNKS);
    const manifests = tx.objectStore(STORE_MANIFESTS);
    // Each request's promise rejects when the transaction aborts; tx.done reports the cause.
    const track = (p: Promise<unknown>) => void p.catch(() => undefined);
    let injected: DOMException | null = null;
    let failedAt = '';
    let exists = false;
    try {
      if (!overwrite) {
        // An IndexedDB request: awaiting it keeps the transaction active.
        exists = (await manifests.getKey([m.runId, m.step])) !== undefined;
        if (exists) tx.abort();
      }
      if (!exists) {
        track(chunks.delete(checkpointChunkRange(m.runId, m.step)));
        let n = 0;
        for (const c of prepared.chunks) {
          n++;
          if (this.faults.quotaExceededOnChunkPut === n) {
            injected = new DOMException(`injected fault: quota exceeded on chunk put ${n}`, 'QuotaExceededError');
            failedAt = ` (at tensor '${c.tensor}' chunk ${c.index})`;
            tx.abort();
            break;
          }
          track(chunks.put({ runId: m.runId, step: m.step, tensor: c.tensor, index: c.index, bytes: c.bytes }));
        }
        if (injected === null) {
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
      }
      await tx.done;
    } catch (e) {
      if (exists) {
        throw new CheckpointError('exists', `${where} already exists; pass { overwrite: true } to replace it`, {
          runId: m.runId,
          step: m.step,
        });
      }
      const cause = injected ?? e;
      const prev = await this.readPointer(m.runId).catch(() => null);
      const intact = prev === null ? 'the run had no earlier checkpoint' : `the previous checkpoint (step ${prev.latestStep}) is intact and still the latest`;
      const what = `${fmtBytes(prepared.totalBytes)} in ${prepared.chunks.length} chunks${failedAt}`;
      if (errName(cause) === 'QuotaExceededError') {
        throw new CheckpointError(
          'quota',
          `${where} was not saved: storage quota exceeded while writing ${what} (${errText(cause)}); ` +
            `the transaction was rolled back and ${intact}. Free space by deleting old runs or keeping fewer checkpoints.`,
          { runId: m.runId, step: m.step, cause },
        );
      }
      throw new CheckpointError('write-failed', `${where} was not saved: the transaction aborted while writing ${what} (${errText(cause)}); it was rolled back and ${intact}.`, {
        runId: m.runId,
        step: m.step,
        cause,
      });
    }
  }

  private async readPointer(runId: string): Promise<RunRecord | null> {
    const rec = await this.requireOpen().get(STORE_RUNS, runId);
    return isRunRecord(rec) ? rec : null;
  }

  /**
   * Read one checkpoint in a single readonly transaction, then verify it outside the
   * transaction (hashing is not an IndexedDB request).
   */
  private async readVerified(runId: string, step: number): Promise<{ prepared: PreparedCheckpoint; buffers: Map<string, ArrayBuffer> }> {
    validateRunId(runId);
    validateStep(step);
    const db = this.requireOpen();
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
      throw new CheckpointError('corrupt', `${where} is corrupt: its manifest describes run '${manifest.runId}' step ${manifest.step}`, { runId, step });
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

  /**
   * Load and verify one checkpoint: the manifest digest, every chunk's presence, length and
   * digest, and each tensor's digest.
   * @returns tensors as fresh Float32Array / Uint32Array, bit-exact to what was saved.
   * @throws CheckpointError('not-found' | 'partial' | 'corrupt') naming run, step, tensor and chunk.
   */
  async load(runId: string, step: number): Promise<Checkpoint> {
    const { prepared, buffers } = await this.readVerified(runId, step);
    return checkpointFromParts(prepared.manifest, buffers);
  }

  /**
   * The checkpoint to resume from: the one the run's pointer names if it verifies, else the
   * newest earlier step that does (steps above the pointer are not part of the committed
   * history and are never used). Without a pointer, the newest step that verifies.
   * @returns the checkpoint (null when none verifies, or the run has none) and what was skipped.
   * @throws CheckpointError('closed'), or IndexedDB errors other than a bad checkpoint.
   */
  async loadLatestGood(runId: string): Promise<LatestGood> {
    validateRunId(runId);
    const db = this.requireOpen();
    const tx = db.transaction([STORE_RUNS, STORE_MANIFESTS], 'readonly');
    const [ptr, keys] = await Promise.all([tx.objectStore(STORE_RUNS).get(runId), tx.objectStore(STORE_MANIFESTS).getAllKeys(runRange(runId)), tx.done]);
    const steps = keys.map(([, s]) => s).sort((a, b) => b - a);
    const order = isRunRecord(ptr) ? [ptr.latestStep, ...steps.filter((s) => s < ptr.latestStep)] : steps;
    const skipped: SkippedCheckpoint[] = [];
    for (const step of order) {
      try {
        return { checkpoint: await this.load(runId, step), skipped };
      } catch (e) {
        if (!isSkippable(e)) throw e;
        skipped.push({ step, code: e.code, message: e.message });
      }
    }
    return { checkpoint: null, skipped };
  }

  /** Every run with its pointer and stored steps, sorted by run id. */
  async listRuns(): Promise<RunSummary[]> {
    const db = this.requireOpen();
    const tx = db.transaction([STORE_RUNS, STORE_MANIFESTS], 'readonly');
    const [ptrs, keys] = await Promise.all([tx.objectStore(STORE_RUNS).getAll(), tx.objectStore(STORE_MANIFESTS).getAllKeys(), tx.done]);
    const runs = new Map<string, RunSummary>();
    const get = (runId: string) => {
      let r = runs.get(runId);
      if (r === undefined) runs.set(runId, (r = { runId, latestStep: null, createdAt: null, steps: [] }));
      return r;
    };
    for (const p of ptrs) {
      if (!isRunRecord(p)) continue;
      const r = get(p.runId);
      r.latestStep = p.latestStep;
      r.createdAt = p.createdAt;
    }
    for (const [runId, step] of keys) get(runId).steps.push(step); // keys come sorted by (runId, step)
    return [...runs.values()].sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0));
  }

  /** The checkpoints of one run (unverified summaries), ascending by step. */
  async listCheckpoints(runId: string): Promise<CheckpointSummary[]> {
    validateRunId(runId);
    const db = this.requireOpen();
    const tx = db.transaction([STORE_RUNS, STORE_MANIFESTS], 'readonly');
    const [ptr, recs] = await Promise.all([tx.objectStore(STORE_RUNS).get(runId), tx.objectStore(STORE_MANIFESTS).getAll(runRange(runId)), tx.done]);
    const latest = isRunRecord(ptr) ? ptr.latestStep : null;
    return recs.map((r) => ({
      runId: r.runId,
      step: r.step,
      createdAt: r.createdAt,
      totalBytes: r.totalBytes,
      manifestDigest: r.manifestDigest,
      isLatest: r.step === latest,
    }));
  }

  /**
   * The run whose latest checkpoint has the largest createdAt (what a reopened tab offers to
   * resume), or null. Uses the v2 index; scans the pointers on a v1 schema.
   */
  async mostRecentRun(): Promise<RunRecord | null> {
    const db = this.requireOpen();
    const tx = db.transaction(STORE_RUNS, 'readonly');
    let best: RunRecord | null = null;
    if (tx.store.indexNames.contains(INDEX_RUNS_BY_CREATED_AT)) {
      const cur = await tx.store.index(INDEX_RUNS_BY_CREATED_AT).openCursor(null, 'prev');
      best = cur?.value ?? null;
    } else {
      for (const r of await tx.store.getAll()) if (best === null || r.createdAt > best.createdAt) best = r;
    }
    await tx.done;
    return best;
  }

  /**
   * Delete one checkpoint and its chunks. When the pointer named it, the pointer moves to the
   * highest remaining step (or is removed with the last checkpoint).
   * @returns whether a checkpoint with that step existed.
   */
  async deleteCheckpoint(runId: string, step: number): Promise<boolean> {
    validateRunId(runId);
    validateStep(step);
    const db = this.requireOpen();
    const tx = db.transaction([STORE_CHUNKS, STORE_MANIFESTS, STORE_RUNS], 'readwrite');
    const manifests = tx.objectStore(STORE_MANIFESTS);
    const runs = tx.objectStore(STORE_RUNS);
    const existed = (await manifests.getKey([runId, step])) !== undefined;
    await Promise.all([tx.objectStore(STORE_CHUNKS).delete(checkpointChunkRange(runId, step)), manifests.delete([runId, step])]);
    const ptr = await runs.get(runId);
    if (isRunRecord(ptr) && ptr.latestStep === step) {
      const rest = await manifests.getAll(runRange(runId));
      const top = rest[rest.length - 1];
      if (top === undefined) await runs.delete(runId);
      else await runs.put({ runId, latestStep: top.step, createdAt: top.createdAt });
    }
    await tx.done;
    return existed;
  }

  /** Delete a run: every checkpoint, chunk and its pointer. @returns the number of checkpoints deleted. */
  async deleteRun(runId: string): Promise<number> {
    validateRunId(runId);
    const db = this.requireOpen();
    const tx = db.transaction([STORE_CHUNKS, STORE_MANIFESTS, STORE_RUNS], 'readwrite');
    const manifests = tx.objectStore(STORE_MANIFESTS);
    const n = (await manifests.getAllKeys(runRange(runId))).length;
    await Promise.all([tx.objectStore(STORE_CHUNKS).delete(runRange(runId)), manifests.delete(runRange(runId)), tx.objectStore(STORE_RUNS).delete(runId), tx.done]);
    return n;
  }

  /**
   * Delete the checkpoints of a run that `policy` does not keep (retention.ts `planRetention`);
   * the pointed-to step is always kept. One transaction.
   * @returns the deleted steps, ascending.
   */
  async applyRetention(runId: string, policy: RetentionPolicy): Promise<number[]> {
    validateRunId(runId);
    validateRetention(policy);
    const db = this.requireOpen();
    const tx = db.transaction([STORE_CHUNKS, STORE_MANIFESTS, STORE_RUNS], 'readwrite');
    const manifests = tx.objectStore(STORE_MANIFESTS);
    const chunks = tx.objectStore(STORE_CHUNKS);
    const [ptr, keys] = await Promise.all([tx.objectStore(STORE_RUNS).get(runId), manifests.getAllKeys(runRange(runId))]);
    const { remove } = planRetention(
      keys.map(([, s]) => s),
      isRunRecord(ptr) ? [ptr.latestStep] : [],
      policy,
    );
    await Promise.all([...remove.flatMap((s) => [chunks.delete(checkpointChunkRange(runId, s)), manifests.delete([runId, s])]), tx.done]);
    return remove;
  }

  /**
   * Export one verified checkpoint as a single file (format: serialize.ts `encodeExportFile`).
   * @throws CheckpointError('not-found' | 'partial' | 'corrupt') when it does not verify:
   *   a bad checkpoint is never exported.
   */
  async exportCheckpoint(runId: string, step: number): Promise<Blob> {
    return new Blob((await this.exportParts(runId, step)) as Uint8Array<ArrayBuffer>[], { type: 'application/octet-stream' });
  }

  /** `exportCheckpoint` as one Uint8Array (e.g. to hand to the CLI through page.evaluate). */
  async exportCheckpointBytes(runId: string, step: number): Promise<Uint8Array> {
    return concatBytes(await this.exportParts(runId, step));
  }

  private async exportParts(runId: string, step: number): Promise<Uint8Array[]> {
    const { prepared, buffers } = await this.readVerified(runId, step);
    const tensors = new Map([...buffers].map(([k, b]) => [k, new Uint8Array(b)]));
    return encodeExportFile(prepared.manifest, prepared.manifestJson, prepared.manifestDigest, tensors);
  }

  /**
   * Verify an exported file completely, then commit it like a save (same transaction protocol;
   * it becomes its run's latest). The manifest — and so its digest — is kept byte for byte.
   * @throws CheckpointError('invalid-file') naming what failed (magic, manifest digest, tensor
   *   and chunk digest, length); ('exists') when that run and step exist and `overwrite` is
   *   not set; ('quota' | 'write-failed') as `save`.
   */
  async importCheckpoint(file: Blob | ArrayBuffer | Uint8Array, opts: ImportOptions = {}): Promise<SaveResult> {
    this.requireOpen();
    const bytes = file instanceof Uint8Array ? file : file instanceof ArrayBuffer ? new Uint8Array(file) : new Uint8Array(await file.arrayBuffer());
    const prepared = await decodeExportFile(bytes);
    return this.commitAndRetain(prepared, opts.overwrite === true);
  }
}

/**
 * Checkpoint store on IndexedDB (through `idb`): save, verified load with fallback to the last
 * good checkpoint, list, delete, retention, single-file export/import, and schema upgrades that
 * never hang on a second tab. Generic over what a checkpoint holds (named Float32Array /
 * Uint32Array tensors plus JSON metadata); see serialize.ts and export_file.ts for the formats
 * and docs/STORAGE.md for the schema and the commit protocol.
 *
 * Commit protocol (`save`, `importCheckpoint`):
 *   1. every asynchronous step — validation, copying into chunks, SHA-256 of each chunk, each
 *      tensor and the manifest — happens before any transaction exists;
 *   2. one readwrite transaction over runs + manifests + chunks deletes stale chunks of the same
 *      (run, step), puts the chunks, then the manifest, then the run's 'latest' pointer; nothing
 *      but IndexedDB requests is awaited inside it (awaiting anything else lets it auto-commit
 *      half-done);
 *   3. IndexedDB makes the transaction atomic: on any abort (quota, crash) none
 *      of it is visible and the previous checkpoint and pointer are untouched. This atomicity is
 *      what the store relies on; the order of the puts inside the transaction (pointer last) is
 *      not observable by any reader and guarantees nothing by itself. The quota-fault test
 *      (tests/browser/checkpoint_store.spec.ts) aborts the transaction after chunks were put
 *      and checks that neither they nor a manifest or pointer of the new step are visible.
 *   4. retention runs afterwards, in its own transaction, and never deletes the pointed-to step.
 */
import type { IDBPDatabase } from 'idb';
import { CheckpointError, describeCheckpoint } from './errors';
import {
  DEFAULT_CHUNK_BYTES,
  checkpointFromParts,
  prepareCheckpoint,
  validateChunkBytes,
  validateRunId,
  validateStep,
  type Checkpoint,
  type CheckpointInput,
  type PreparedCheckpoint,
} from './serialize';
import { concatBytes, decodeExportFile, encodeExportFile } from './export_file';
import { commitCheckpoint, errText, isRunRecord, readVerifiedCheckpoint } from './checkpoint_tx';
import { openCheckpointDb } from './checkpoint_db_open';
import { planRetention, validateRetention, type RetentionPolicy } from './retention';
import {
  DB_SCHEMA_VERSION,
  DEFAULT_DB_NAME,
  INDEX_RUNS_BY_CREATED_AT,
  STORE_CHUNKS,
  STORE_MANIFESTS,
  STORE_RUNS,
  checkpointChunkRange,
  runRange,
  type CheckpointDB,
  type RunRecord,
} from './schema';

interface CheckpointStoreOptions {
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
}

interface SaveOptions {
  /** Applied after a successful commit; validated before anything is written. */
  retention?: RetentionPolicy;
}

interface ImportOptions {
  /** Replace an existing checkpoint with the same run id and step (default false: reject). */
  overwrite?: boolean;
}

interface SaveResult {
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
interface SkippedCheckpoint {
  step: number;
  code: CheckpointError['code'];
  message: string;
}

interface LatestGood {
  /** The newest verified checkpoint not above the pointer, or null when none is loadable. */
  checkpoint: Checkpoint | null;
  /** Newer checkpoints that failed verification, newest first. */
  skipped: SkippedCheckpoint[];
}

interface RunSummary {
  runId: string;
  /** Step the run's pointer names; null if the run has checkpoints but no pointer. */
  latestStep: number | null;
  /** createdAt (ms) of the pointed-to checkpoint; null without a pointer. */
  createdAt: number | null;
  /** All stored steps, ascending. */
  steps: number[];
}

interface CheckpointSummary {
  runId: string;
  step: number;
  createdAt: number;
  totalBytes: number;
  manifestDigest: string;
  /** True for the step the run's pointer names. */
  isLatest: boolean;
}

const DEFAULT_BLOCKED_TIMEOUT_MS = 10_000;
/** How often one resume reads the run's listing again after a listed step vanished (bounds it under constant churn). */
const RESUME_RELISTS = 5;

interface ResumeOrder {
  order: number[];
  key: string;
}

function isSkippable(e: unknown): e is CheckpointError {
  return e instanceof CheckpointError && (e.code === 'corrupt' || e.code === 'partial' || e.code === 'not-found');
}

export class CheckpointStore {
  readonly dbName: string;
  readonly chunkBytes: number;
  private db: IDBPDatabase<CheckpointDB> | null = null;
  private closedReason: string | null = null;
  private readonly onClose?: (reason: string) => void;

  private constructor(opts: CheckpointStoreOptions) {
    this.dbName = opts.dbName ?? DEFAULT_DB_NAME;
    this.chunkBytes = validateChunkBytes(opts.chunkBytes ?? DEFAULT_CHUNK_BYTES, 'chunkBytes');
    this.onClose = opts.onClose;
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
    store.db = await openCheckpointDb(store.dbName, version, blockedTimeoutMs, (reason) => store.markClosed(reason));
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
    await commitCheckpoint(this.requireOpen(), prepared, overwrite);
    const { runId, step } = prepared.manifest;
    let removedSteps: number[] = [];
    if (retention !== undefined) {
      try {
        removedSteps = await this.applyRetention(runId, retention);
      } catch (e) {
        throw new CheckpointError(
          'write-failed',
          `${describeCheckpoint(runId, step)} was saved, but applying retention afterwards failed: ${errText(e)}`,
          {
            runId,
            step,
            cause: e,
          },
        );
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

  /**
   * Load and verify one checkpoint: the manifest digest, every chunk's presence, length and
   * digest, and each tensor's digest.
   * @returns tensors as fresh Float32Array / Uint32Array, bit-exact to what was saved.
   * @throws CheckpointError('not-found' | 'partial' | 'corrupt') naming run, step, tensor and chunk.
   */
  async load(runId: string, step: number): Promise<Checkpoint> {
    const { prepared, buffers } = await readVerifiedCheckpoint(this.requireOpen(), runId, step);
    return checkpointFromParts(prepared.manifest, buffers);
  }

  /**
   * The checkpoint to resume from: the one the run's pointer names if it verifies, else the
   * newest earlier step that does (steps above the pointer are not part of the committed
   * history and are never used). Without a pointer, the newest step that verifies.
   *
   * Another tab may delete a listed step (its retention, a delete) before it is read: when a
   * step turns out missing and the run's listing has changed since, the listing is read again
   * (at most RESUME_RELISTS times), so a resume never falls back past, or misses, a checkpoint
   * committed meanwhile.
   * @returns the checkpoint (null when none verifies, or the run has none) and what was skipped.
   * @throws CheckpointError('closed'), or IndexedDB errors other than a bad checkpoint.
   */
  async loadLatestGood(runId: string): Promise<LatestGood> {
    validateRunId(runId);
    let listing = await this.resumeOrder(runId);
    for (let relists = 0; ; relists++) {
      const skipped: SkippedCheckpoint[] = [];
      let changed: ResumeOrder | null = null;
      for (const step of listing.order) {
        try {
          return { checkpoint: await this.load(runId, step), skipped };
        } catch (e) {
          if (!isSkippable(e)) throw e;
          skipped.push({ step, code: e.code, message: e.message });
          if (e.code === 'not-found' && relists < RESUME_RELISTS) {
            const now = await this.resumeOrder(runId);
            if (now.key !== listing.key) {
              changed = now;
              break;
            }
          }
        }
      }
      if (changed === null) return { checkpoint: null, skipped };
      listing = changed;
    }
  }

  /** The steps `loadLatestGood` tries, in order, read in one transaction; `key` identifies the listing. */
  private async resumeOrder(runId: string): Promise<ResumeOrder> {
    const tx = this.requireOpen().transaction([STORE_RUNS, STORE_MANIFESTS], 'readonly');
    const [ptr, keys] = await Promise.all([
      tx.objectStore(STORE_RUNS).get(runId),
      tx.objectStore(STORE_MANIFESTS).getAllKeys(runRange(runId)),
      tx.done,
    ]);
    const steps = keys.map(([, s]) => s).sort((a, b) => b - a);
    const latest = isRunRecord(ptr) ? ptr.latestStep : null;
    const order = latest !== null ? [latest, ...steps.filter((s) => s < latest)] : steps;
    return { order, key: JSON.stringify([latest, steps]) };
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
    const [ptr, recs] = await Promise.all([
      tx.objectStore(STORE_RUNS).get(runId),
      tx.objectStore(STORE_MANIFESTS).getAll(runRange(runId)),
      tx.done,
    ]);
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
    await Promise.all([
      tx.objectStore(STORE_CHUNKS).delete(runRange(runId)),
      manifests.delete(runRange(runId)),
      tx.objectStore(STORE_RUNS).delete(runId),
      tx.done,
    ]);
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
   * Export one verified checkpoint as a single file (format: export_file.ts `encodeExportFile`).
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
    const { prepared, buffers } = await readVerifiedCheckpoint(this.requireOpen(), runId, step);
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
    const bytes =
      file instanceof Uint8Array ? file : file instanceof ArrayBuffer ? new Uint8Array(file) : new Uint8Array(await file.arrayBuffer());
    const prepared = await decodeExportFile(bytes);
    return this.commitAndRetain(prepared, opts.overwrite === true);
  }
}

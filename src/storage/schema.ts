/**
 * IndexedDB schema of the checkpoint store: object stores, record types, and the versioned
 * migrations applied in `upgradeneeded` (see docs/STORAGE.md).
 *
 *   runs       key runId                         RunRecord: the run's 'latest' pointer
 *              index byCreatedAt (v2) → createdAt of the pointed-to checkpoint
 *   manifests  key [runId, step]                 ManifestRecord: canonical manifest JSON + digest
 *   chunks     key [runId, step, tensor, index]  ChunkRecord: one chunk's bytes
 *
 * Array keys order element by element, and an array sorts above every string and number, so
 * `IDBKeyRange.bound([runId, step], [runId, step, []])` covers exactly the chunks of one
 * checkpoint and `bound([runId], [runId, []])` those of one run.
 */
import type { DBSchema, IDBPDatabase, IDBPTransaction, StoreNames } from 'idb';

export const DEFAULT_DB_NAME = 'hlab-checkpoints';

export const STORE_RUNS = 'runs';
export const STORE_MANIFESTS = 'manifests';
export const STORE_CHUNKS = 'chunks';
export const INDEX_RUNS_BY_CREATED_AT = 'byCreatedAt';

/** The run's pointer: which step a resume loads first. Written last in every commit. */
export interface RunRecord {
  runId: string;
  latestStep: number;
  /** `createdAt` (ms) of the pointed-to checkpoint, as passed by the caller. */
  createdAt: number;
}

export interface ManifestRecord {
  runId: string;
  step: number;
  createdAt: number;
  /** Σ tensor byte lengths. */
  totalBytes: number;
  /** Canonical JSON (serialize.ts `CheckpointManifest`), stored as the exact digested string. */
  manifestJson: string;
  /** SHA-256 hex of the UTF-8 bytes of manifestJson. */
  manifestDigest: string;
}

interface ChunkRecord {
  runId: string;
  step: number;
  tensor: string;
  index: number;
  bytes: ArrayBuffer;
}

type ManifestKey = [runId: string, step: number];
type ChunkKey = [runId: string, step: number, tensor: string, index: number];

export interface CheckpointDB extends DBSchema {
  runs: { key: string; value: RunRecord; indexes: { byCreatedAt: number } };
  manifests: { key: ManifestKey; value: ManifestRecord };
  chunks: { key: ChunkKey; value: ChunkRecord };
}

type UpgradeTx = IDBPTransaction<CheckpointDB, StoreNames<CheckpointDB>[], 'versionchange'>;
type Migration = (db: IDBPDatabase<CheckpointDB>, tx: UpgradeTx) => void;

/**
 * MIGRATIONS[v - 1] takes a database from version v − 1 to v. Append, never edit: a browser
 * may hold a database at any earlier version.
 */
const MIGRATIONS: readonly Migration[] = [
  // v1: the three stores; keys are (compound) key paths over the record fields.
  (db) => {
    db.createObjectStore(STORE_RUNS, { keyPath: 'runId' });
    db.createObjectStore(STORE_MANIFESTS, { keyPath: ['runId', 'step'] });
    db.createObjectStore(STORE_CHUNKS, { keyPath: ['runId', 'step', 'tensor', 'index'] });
  },
  // v2: find the most recently checkpointed run (the one a reopened tab resumes) without a scan.
  (_db, tx) => {
    tx.objectStore(STORE_RUNS).createIndex(INDEX_RUNS_BY_CREATED_AT, 'createdAt');
  },
];

/** Schema version this build creates and expects. */
export const DB_SCHEMA_VERSION = MIGRATIONS.length;

/** Run the migrations from `oldVersion` (0 for a new database) up to `newVersion`. */
export function migrate(db: IDBPDatabase<CheckpointDB>, oldVersion: number, newVersion: number, tx: UpgradeTx): void {
  for (let v = oldVersion + 1; v <= newVersion; v++) MIGRATIONS[v - 1](db, tx);
}

/** Key range of every chunk of one checkpoint. */
export function checkpointChunkRange(runId: string, step: number): IDBKeyRange {
  return IDBKeyRange.bound([runId, step], [runId, step, []]);
}

/** Key range of every record of one run (manifests or chunks). */
export function runRange(runId: string): IDBKeyRange {
  return IDBKeyRange.bound([runId], [runId, []]);
}

/**
 * Checkpoint serialization, pure and DOM-free (runs in the page, in workers and in Node ≥ 20):
 * validation of a checkpoint, canonical JSON, SHA-256 digests (WebCrypto `crypto.subtle`),
 * the manifest, fixed-size chunking and verification on load. The single-file export format is
 * `export_file.ts`, the IndexedDB side `checkpoint_store.ts`; docs/STORAGE.md describes the formats.
 *
 * Byte order: tensors are stored as their raw in-memory bytes, which are little-endian on
 * every platform a browser runs on; `assertLittleEndian` refuses to write anything elsewhere.
 */
import { CheckpointError, describeCheckpoint } from './errors';
import { sha256Hex } from '../util/encoding';

/** Value of the manifest's `format` field. */
const CHECKPOINT_FORMAT = 'hlab-checkpoint';
/**
 * Version of the manifest layout (reported as `meta.schemaVersion` of a loaded checkpoint).
 * Bump it, and teach `parseManifest` the old one, whenever a manifest field changes meaning.
 */
const CHECKPOINT_FORMAT_VERSION = 1;
/** Default chunk size: 1 MiB, small enough for one IndexedDB value, large enough to be few. */
export const DEFAULT_CHUNK_BYTES = 1 << 20;
/** Largest allowed chunk (64 MiB): bigger single values make IndexedDB writes all-or-nothing. */
const MAX_CHUNK_BYTES = 64 << 20;
/** Longest allowed run id / tensor name, in UTF-16 code units. */
const MAX_NAME_LENGTH = 256;

/** A JSON-safe value (what `config`, `rngStates`, `scheduleState` and `metricHistory` may hold). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Element type of a stored tensor; both are 4 bytes per element. */
type TensorDtype = 'f32' | 'u32';
export type TensorData = Float32Array | Uint32Array;

/** What a caller passes in. `createdAt` is ms since the epoch, supplied by the caller (no clock here). */
interface CheckpointMetaInput {
  runId: string;
  /** Optimizer step the state belongs to (non-negative integer). */
  step: number;
  createdAt: number;
  config: JsonValue;
  rngStates: JsonValue;
  scheduleState: JsonValue;
  metricHistory: JsonValue;
}

/** Metadata of a loaded checkpoint: the input plus the manifest format version it was written with. */
export interface CheckpointMeta extends CheckpointMetaInput {
  schemaVersion: number;
}

/** A checkpoint to save: metadata plus named tensors (e.g. `params`, `adamM`, `adamV`). */
export interface CheckpointInput {
  meta: CheckpointMetaInput;
  tensors: Record<string, TensorData>;
}

/** A loaded, verified checkpoint; tensors are fresh arrays that own their buffers. */
export interface Checkpoint {
  meta: CheckpointMeta;
  tensors: Record<string, TensorData>;
}

/** One tensor in the manifest. Digests are lowercase hex SHA-256. */
interface TensorEntry {
  name: string;
  dtype: TensorDtype;
  /** Number of elements. */
  length: number;
  /** length × 4. */
  byteLength: number;
  /** ceil(byteLength / chunkBytes); 0 for an empty tensor. */
  chunkCount: number;
  /** SHA-256 of all byteLength bytes. */
  digest: string;
  /** SHA-256 of each chunk, in order. */
  chunkDigests: string[];
}

/** The manifest: everything but the tensor bytes. Stored and exported as canonical JSON. */
export interface CheckpointManifest {
  format: typeof CHECKPOINT_FORMAT;
  formatVersion: number;
  runId: string;
  step: number;
  createdAt: number;
  /** Chunk size the tensors were split with (bytes, multiple of 4). */
  chunkBytes: number;
  config: JsonValue;
  rngStates: JsonValue;
  scheduleState: JsonValue;
  metricHistory: JsonValue;
  /** Sorted by name. */
  tensors: TensorEntry[];
}

/** One chunk of a tensor, as committed to the store. */
export interface PreparedChunk {
  tensor: string;
  index: number;
  /** An ArrayBuffer of its own (not a view into a tensor: IndexedDB would clone the whole buffer). */
  bytes: ArrayBuffer;
}

/** A checkpoint ready to be committed: every async step (hashing) already done. */
export interface PreparedCheckpoint {
  manifest: CheckpointManifest;
  /** Canonical JSON of `manifest`: the exact string stored and digested. */
  manifestJson: string;
  /** SHA-256 of the UTF-8 bytes of `manifestJson`. */
  manifestDigest: string;
  chunks: PreparedChunk[];
  /** Σ byteLength over tensors. */
  totalBytes: number;
}

// ---------------------------------------------------------------------------------------------
// Small helpers

const utf8Encoder = new TextEncoder();

/** @throws Error on a big-endian platform (the stored byte order is little-endian). */
export function assertLittleEndian(): void {
  if (new Uint8Array(new Uint32Array([1]).buffer)[0] !== 1) {
    throw new Error('checkpoint storage: this platform is big-endian; the checkpoint format is little-endian');
  }
}

/** First 12 hex digits, for messages. */
function short(digest: string): string {
  return `${digest.slice(0, 12)}…`;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null) return false;
  const p = Object.getPrototypeOf(v);
  return p === Object.prototype || p === null;
}

/**
 * Canonical JSON: object keys sorted (code-unit order), no whitespace, so the same value always
 * gives the same bytes and the same digest. Only JSON values are accepted; -0 becomes 0 (as in
 * JSON.stringify).
 * @param field name of `value` for error messages, e.g. 'meta.metricHistory'.
 * @throws CheckpointError('invalid-input') naming the path of the first non-JSON value
 *   (undefined, function, bigint, symbol, NaN/±Infinity, class instances such as typed arrays,
 *   Map or Date, or a cycle).
 */
export function canonicalJson(value: unknown, field: string): string {
  const stack = new Set<object>();
  const bad = (path: string, what: string): never => {
    throw new CheckpointError('invalid-input', `${path}: ${what} is not JSON-serializable`);
  };
  const enc = (v: unknown, path: string): string => {
    if (v === null) return 'null';
    switch (typeof v) {
      case 'boolean':
        return v ? 'true' : 'false';
      case 'string':
        return JSON.stringify(v);
      case 'number':
        if (!Number.isFinite(v)) return bad(path, String(v));
        return JSON.stringify(v);
      case 'object': {
        if (stack.has(v)) return bad(path, 'a cyclic reference');
        stack.add(v);
        let s: string;
        if (Array.isArray(v)) {
          s = `[${v.map((x, i) => enc(x, `${path}[${i}]`)).join(',')}]`;
        } else if (isPlainObject(v)) {
          const keys = Object.keys(v).sort();
          s = `{${keys.map((k) => `${JSON.stringify(k)}:${enc(v[k], `${path}.${k}`)}`).join(',')}}`;
        } else {
          return bad(path, `an instance of ${(v as object).constructor?.name ?? 'a class'}`);
        }
        stack.delete(v);
        return s;
      }
      default:
        return bad(path, typeof v === 'undefined' ? 'undefined' : `a ${typeof v}`);
    }
  };
  return enc(value, field);
}

/** @throws CheckpointError('invalid-input') unless `runId` is a non-empty string of ≤ 256 code units. */
export function validateRunId(runId: unknown, field = 'runId'): string {
  if (typeof runId !== 'string' || runId.length === 0 || runId.length > MAX_NAME_LENGTH) {
    throw new CheckpointError(
      'invalid-input',
      `${field} must be a non-empty string of at most ${MAX_NAME_LENGTH} characters, got ${JSON.stringify(runId)}`,
    );
  }
  return runId;
}

/** @throws CheckpointError('invalid-input') unless `step` is a non-negative safe integer. */
export function validateStep(step: unknown, field = 'step'): number {
  if (typeof step !== 'number' || !Number.isSafeInteger(step) || step < 0) {
    throw new CheckpointError('invalid-input', `${field} must be a non-negative integer, got ${String(step)}`);
  }
  return step;
}

/** @throws CheckpointError('invalid-input') unless 4 ≤ chunkBytes ≤ 64 MiB and a multiple of 4. */
export function validateChunkBytes(chunkBytes: unknown, field = 'chunkBytes'): number {
  if (
    typeof chunkBytes !== 'number' ||
    !Number.isInteger(chunkBytes) ||
    chunkBytes < 4 ||
    chunkBytes > MAX_CHUNK_BYTES ||
    chunkBytes % 4 !== 0
  ) {
    throw new CheckpointError('invalid-input', `${field} must be a multiple of 4 in [4, ${MAX_CHUNK_BYTES}], got ${String(chunkBytes)}`);
  }
  return chunkBytes;
}

function dtypeOf(t: unknown, field: string): TensorDtype {
  if (t instanceof Float32Array) return 'f32';
  if (t instanceof Uint32Array) return 'u32';
  const what = t === null ? 'null' : typeof t === 'object' ? (t as object).constructor?.name : typeof t;
  throw new CheckpointError('invalid-input', `${field} must be a Float32Array or Uint32Array, got ${what}`);
}

/** Number of chunks a tensor of `byteLength` bytes is split into. */
function chunkCountFor(byteLength: number, chunkBytes: number): number {
  return Math.ceil(byteLength / chunkBytes);
}

/** Byte length of chunk `index` of a tensor of `byteLength` bytes (the last one may be short). */
function chunkLengthFor(byteLength: number, chunkBytes: number, index: number): number {
  return Math.min(chunkBytes, byteLength - index * chunkBytes);
}

/**
 * Split `bytes` into chunks of `chunkBytes` (the last one shorter), each copied into its own
 * ArrayBuffer. An empty input gives no chunks.
 */
export function splitIntoChunks(bytes: Uint8Array, chunkBytes: number): ArrayBuffer[] {
  const out: ArrayBuffer[] = [];
  for (let off = 0; off < bytes.byteLength; off += chunkBytes) {
    // slice() copies into a fresh, non-shared ArrayBuffer.
    out.push(bytes.slice(off, Math.min(off + chunkBytes, bytes.byteLength)).buffer);
  }
  return out;
}

/** Raw bytes of a typed array (a view, no copy). */
function tensorBytes(t: TensorData): Uint8Array {
  return new Uint8Array(t.buffer, t.byteOffset, t.byteLength);
}

/** Chunk the bytes of one tensor and hash the tensor and each chunk. */
async function chunkAndHash(
  name: string,
  dtype: TensorDtype,
  bytes: Uint8Array,
  chunkBytes: number,
): Promise<{ entry: TensorEntry; chunks: PreparedChunk[] }> {
  const buffers = splitIntoChunks(bytes, chunkBytes);
  const [digest, ...chunkDigests] = await Promise.all([sha256Hex(bytes), ...buffers.map((b) => sha256Hex(b))]);
  return {
    entry: {
      name,
      dtype,
      length: bytes.byteLength / 4,
      byteLength: bytes.byteLength,
      chunkCount: buffers.length,
      digest,
      chunkDigests,
    },
    chunks: buffers.map((b, index) => ({ tensor: name, index, bytes: b })),
  };
}

async function finishPrepared(manifest: CheckpointManifest, chunks: PreparedChunk[]): Promise<PreparedCheckpoint> {
  const manifestJson = canonicalJson(manifest, 'manifest');
  const manifestDigest = await sha256Hex(utf8Encoder.encode(manifestJson));
  const totalBytes = manifest.tensors.reduce((s, t) => s + t.byteLength, 0);
  return { manifest, manifestJson, manifestDigest, chunks, totalBytes };
}

/**
 * Validate a checkpoint and do every asynchronous step of a save: copy the tensors into
 * `chunkBytes`-sized chunks, SHA-256 each chunk and each tensor, build the canonical manifest and
 * hash it. What comes back can be written in one IndexedDB transaction with no further awaits.
 *
 * @param input metadata and tensors; tensor names are non-empty, ≤ 256 characters; tensors are
 *   Float32Array or Uint32Array (any length, including 0). The bytes are copied into the
 *   chunks; do not modify the arrays until the returned promise resolves.
 * @param chunkBytes chunk size in bytes (multiple of 4, 4 … 64 MiB).
 * @throws CheckpointError('invalid-input') naming the bad field (e.g. `meta.step`,
 *   `tensors.adamM`, `meta.config.lr`).
 */
export async function prepareCheckpoint(input: CheckpointInput, chunkBytes = DEFAULT_CHUNK_BYTES): Promise<PreparedCheckpoint> {
  assertLittleEndian();
  validateChunkBytes(chunkBytes);
  if (!isPlainObject(input)) throw new CheckpointError('invalid-input', 'checkpoint must be an object { meta, tensors }');
  const meta = input.meta;
  if (!isPlainObject(meta)) throw new CheckpointError('invalid-input', 'meta must be an object');
  const runId = validateRunId(meta.runId, 'meta.runId');
  const step = validateStep(meta.step, 'meta.step');
  if (typeof meta.createdAt !== 'number' || !Number.isFinite(meta.createdAt) || meta.createdAt < 0) {
    throw new CheckpointError('invalid-input', `meta.createdAt must be a finite number of ms ≥ 0, got ${String(meta.createdAt)}`);
  }
  const jsonFields = ['config', 'rngStates', 'scheduleState', 'metricHistory'] as const;
  const parsed: Record<string, JsonValue> = {};
  for (const f of jsonFields) {
    // Round-trip through canonical JSON: validates (naming the path) and detaches from the caller.
    parsed[f] = JSON.parse(canonicalJson(meta[f], `meta.${f}`)) as JsonValue;
  }
  if (!isPlainObject(input.tensors)) throw new CheckpointError('invalid-input', 'tensors must be an object of named typed arrays');
  const names = Object.keys(input.tensors).sort();
  const parts = await Promise.all(
    names.map((name) => {
      if (name.length === 0 || name.length > MAX_NAME_LENGTH) {
        throw new CheckpointError('invalid-input', `tensors: name must be 1..${MAX_NAME_LENGTH} characters, got ${JSON.stringify(name)}`);
      }
      const t = input.tensors[name];
      const dtype = dtypeOf(t, `tensors.${name}`);
      return chunkAndHash(name, dtype, tensorBytes(t), chunkBytes);
    }),
  );
  const manifest: CheckpointManifest = {
    format: CHECKPOINT_FORMAT,
    formatVersion: CHECKPOINT_FORMAT_VERSION,
    runId,
    step,
    createdAt: meta.createdAt,
    chunkBytes,
    config: parsed.config,
    rngStates: parsed.rngStates,
    scheduleState: parsed.scheduleState,
    metricHistory: parsed.metricHistory,
    tensors: parts.map((p) => p.entry),
  };
  return finishPrepared(
    manifest,
    parts.flatMap((p) => p.chunks),
  );
}

// ---------------------------------------------------------------------------------------------
// Reading back

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * Check that `m` is a well-formed manifest this build can read.
 * @param where prefix for messages (e.g. "checkpoint run 'r' step 3").
 * @throws CheckpointError(code) naming the bad field.
 */
function validateManifest(m: unknown, where: string, code: 'corrupt' | 'invalid-file' = 'corrupt'): CheckpointManifest {
  const fail = (what: string): never => {
    throw new CheckpointError(code, `${where}: manifest ${what}`);
  };
  if (!isPlainObject(m)) return fail('is not an object');
  if (m.format !== CHECKPOINT_FORMAT) fail(`format is ${JSON.stringify(m.format)}, expected "${CHECKPOINT_FORMAT}"`);
  if (typeof m.formatVersion !== 'number' || !Number.isInteger(m.formatVersion) || m.formatVersion < 1) {
    fail(`formatVersion is ${JSON.stringify(m.formatVersion)}`);
  }
  if ((m.formatVersion as number) > CHECKPOINT_FORMAT_VERSION) {
    fail(`formatVersion ${String(m.formatVersion)} is newer than this build reads (${CHECKPOINT_FORMAT_VERSION}); update Harness Lab`);
  }
  if (typeof m.runId !== 'string' || m.runId.length === 0) fail('runId is missing');
  if (typeof m.step !== 'number' || !Number.isSafeInteger(m.step) || m.step < 0) fail(`step is ${JSON.stringify(m.step)}`);
  if (typeof m.createdAt !== 'number' || !Number.isFinite(m.createdAt)) fail(`createdAt is ${JSON.stringify(m.createdAt)}`);
  const cb = m.chunkBytes;
  if (typeof cb !== 'number' || !Number.isInteger(cb) || cb < 4 || cb > MAX_CHUNK_BYTES || cb % 4 !== 0) {
    fail(`chunkBytes is ${JSON.stringify(cb)}`);
  }
  for (const f of ['config', 'rngStates', 'scheduleState', 'metricHistory']) if (!(f in m)) fail(`has no ${f}`);
  if (!Array.isArray(m.tensors)) return fail('tensors is not an array');
  const seen = new Set<string>();
  m.tensors.forEach((t: unknown, i: number) => {
    if (!isPlainObject(t)) return fail(`tensors[${i}] is not an object`);
    const name = t.name;
    if (typeof name !== 'string' || name.length === 0) fail(`tensors[${i}].name is ${JSON.stringify(name)}`);
    if (seen.has(name as string)) fail(`tensor '${String(name)}' appears twice`);
    seen.add(name as string);
    const at = `tensor '${String(name)}'`;
    if (t.dtype !== 'f32' && t.dtype !== 'u32') fail(`${at} dtype is ${JSON.stringify(t.dtype)}, expected "f32" or "u32"`);
    const len = t.length;
    if (typeof len !== 'number' || !Number.isSafeInteger(len) || len < 0) fail(`${at} length is ${JSON.stringify(len)}`);
    if (t.byteLength !== (len as number) * 4) fail(`${at} byteLength ${JSON.stringify(t.byteLength)} ≠ 4 × length ${String(len)}`);
    const count = chunkCountFor((len as number) * 4, cb as number);
    if (t.chunkCount !== count) fail(`${at} chunkCount ${JSON.stringify(t.chunkCount)} ≠ ${count} expected from its size`);
    if (typeof t.digest !== 'string' || !HEX64.test(t.digest)) fail(`${at} digest is not a SHA-256 hex string`);
    if (
      !Array.isArray(t.chunkDigests) ||
      t.chunkDigests.length !== count ||
      !t.chunkDigests.every((d) => typeof d === 'string' && HEX64.test(d))
    ) {
      fail(`${at} chunkDigests is not ${count} SHA-256 hex strings`);
    }
  });
  return m as unknown as CheckpointManifest;
}

/**
 * Verify a stored manifest string against its digest and parse it.
 * @param expectedDigest the digest recorded beside it (IndexedDB record or file header).
 * @throws CheckpointError('corrupt' or `code`) on a digest mismatch, bad JSON or a malformed manifest.
 */
export async function parseManifest(
  manifestJson: string,
  expectedDigest: string,
  where: string,
  code: 'corrupt' | 'invalid-file' = 'corrupt',
): Promise<CheckpointManifest> {
  const got = await sha256Hex(utf8Encoder.encode(manifestJson));
  if (got !== expectedDigest) {
    throw new CheckpointError(code, `${where}: manifest SHA-256 mismatch (expected ${short(expectedDigest)}, got ${short(got)})`);
  }
  let obj: unknown;
  try {
    obj = JSON.parse(manifestJson);
  } catch (e) {
    throw new CheckpointError(code, `${where}: manifest is not valid JSON (${(e as Error).message})`);
  }
  return validateManifest(obj, where, code);
}

/**
 * Check every chunk of one tensor (present, right length, right SHA-256), assemble them, and
 * check the whole tensor's SHA-256.
 *
 * @param chunks chunk buffers by index (`undefined` where the store had none).
 * @returns a fresh ArrayBuffer of `entry.byteLength` bytes.
 * @throws CheckpointError('partial') for a missing chunk, ('corrupt') for a wrong length or
 *   digest; the message names run, step, tensor and chunk index.
 */
export async function verifyAndAssembleTensor(
  manifest: CheckpointManifest,
  entry: TensorEntry,
  chunks: ReadonlyArray<ArrayBuffer | undefined>,
  code: 'corrupt' | 'invalid-file' = 'corrupt',
): Promise<ArrayBuffer> {
  const where = describeCheckpoint(manifest.runId, manifest.step);
  const ctx = { runId: manifest.runId, step: manifest.step, tensor: entry.name };
  const out = new Uint8Array(entry.byteLength);
  for (let i = 0; i < entry.chunkCount; i++) {
    const c = chunks[i];
    if (c === undefined) {
      throw new CheckpointError(
        code === 'corrupt' ? 'partial' : code,
        `${where} is partial: tensor '${entry.name}' chunk ${i} of ${entry.chunkCount} is missing`,
        {
          ...ctx,
          chunk: i,
        },
      );
    }
    const want = chunkLengthFor(entry.byteLength, manifest.chunkBytes, i);
    if (c.byteLength !== want) {
      throw new CheckpointError(
        code,
        `${where} is corrupt: tensor '${entry.name}' chunk ${i} has ${c.byteLength} bytes, expected ${want}`,
        {
          ...ctx,
          chunk: i,
        },
      );
    }
    out.set(new Uint8Array(c), i * manifest.chunkBytes);
  }
  const digests = await Promise.all(chunks.slice(0, entry.chunkCount).map((c) => sha256Hex(c as ArrayBuffer)));
  for (let i = 0; i < entry.chunkCount; i++) {
    if (digests[i] !== entry.chunkDigests[i]) {
      throw new CheckpointError(
        code,
        `${where} is corrupt: tensor '${entry.name}' chunk ${i} SHA-256 mismatch (expected ${short(entry.chunkDigests[i])}, got ${short(digests[i])})`,
        { ...ctx, chunk: i },
      );
    }
  }
  const whole = await sha256Hex(out);
  if (whole !== entry.digest) {
    throw new CheckpointError(
      code,
      `${where} is corrupt: tensor '${entry.name}' SHA-256 mismatch (expected ${short(entry.digest)}, got ${short(whole)})`,
      ctx,
    );
  }
  return out.buffer;
}

/** Build the caller-facing checkpoint from a verified manifest and its tensors' bytes. */
export function checkpointFromParts(manifest: CheckpointManifest, buffers: ReadonlyMap<string, ArrayBuffer>): Checkpoint {
  const tensors: Record<string, TensorData> = {};
  for (const e of manifest.tensors) {
    const b = buffers.get(e.name);
    if (b === undefined) throw new Error(`checkpointFromParts: no bytes for tensor '${e.name}'`);
    tensors[e.name] = e.dtype === 'f32' ? new Float32Array(b) : new Uint32Array(b);
  }
  return {
    meta: {
      runId: manifest.runId,
      step: manifest.step,
      createdAt: manifest.createdAt,
      schemaVersion: manifest.formatVersion,
      config: manifest.config,
      rngStates: manifest.rngStates,
      scheduleState: manifest.scheduleState,
      metricHistory: manifest.metricHistory,
    },
    tensors,
  };
}

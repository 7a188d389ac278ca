/**
 * The base-checkpoint file written by `hlab pretrain` (and shipped in public/ beside its
 * command, seed and digest): one flat parameter vector with its model config, the tokenizer it
 * was trained with, and free-form metadata.
 *
 * Layout (little-endian):
 *   bytes 0–7    magic "HLBASE01"
 *   bytes 8–11   u32 H = header length in bytes (a multiple of 4; the JSON is space-padded)
 *   bytes 12…    header: canonical JSON (sorted keys) of `BaseCheckpointHeader`, UTF-8
 *   then         P f32 parameters (laid out by paramLayout(config))
 * `digest` (in the header) = SHA-256 of [canonical JSON of the header with digest = ""] ‖
 * [the parameter bytes], so a flipped bit anywhere — header or parameters — is detected on load.
 *
 * This is the pretraining artifact only; run checkpoints (AdamW moments, RNG and schedule
 * state) live in IndexedDB via src/storage.
 *
 * Folder: src/model/, because this is the model's file format: pretraining writes it, and the
 * runner, `hlab evaluate`, `hlab heldout` and the CLI's checkpoint checks read it.
 */
import { validateConfig, type ModelConfig } from './config';
import { paramCount } from './layout';
import { assertLittleEndian, canonicalJson } from '../storage/serialize';
import { bytesLiteral, sha256Hex } from '../util/encoding';

const BASE_CHECKPOINT_MAGIC = 'HLBASE01';
const BASE_CHECKPOINT_FORMAT = 'hlab-base-checkpoint';
const BASE_CHECKPOINT_VERSION = 1;

/** JSON-safe metadata (command, seed, steps, final loss …). */
export type CheckpointMetadata = Record<string, string | number | boolean | null | Array<string | number>>;

interface BaseCheckpointHeader {
  format: typeof BASE_CHECKPOINT_FORMAT;
  version: typeof BASE_CHECKPOINT_VERSION;
  config: ModelConfig;
  /** The tokenizer's name (e.g. 'tokenizer-v1'), vocabulary size and file format version. */
  tokenizer: { name: string; vocabSize: number; formatVersion: number };
  paramCount: number;
  metadata: CheckpointMetadata;
  /** Lowercase hex SHA-256 (see module doc). */
  digest: string;
}

export interface BaseCheckpoint {
  header: BaseCheckpointHeader;
  /** (P) f32 laid out by paramLayout(header.config). */
  params: Float32Array;
}

const enc = new TextEncoder();

async function digestOf(header: Omit<BaseCheckpointHeader, 'digest'>, params: Float32Array): Promise<string> {
  const h = enc.encode(canonicalJson({ ...header, digest: '' }, 'header'));
  const p = new Uint8Array(params.buffer, params.byteOffset, params.byteLength);
  const all = new Uint8Array(h.length + p.length);
  all.set(h);
  all.set(p, h.length);
  return sha256Hex(all);
}

/**
 * Serialize a checkpoint.
 * @param params (P) with P = paramCount(config)
 * @returns the file bytes and the digest
 * @throws Error naming a bad config field, a parameter count mismatch, a non-finite parameter,
 *   or non-JSON metadata.
 */
export async function encodeBaseCheckpoint(
  config: ModelConfig,
  params: Float32Array,
  tokenizer: BaseCheckpointHeader['tokenizer'],
  metadata: CheckpointMetadata = {},
): Promise<{ bytes: Uint8Array; digest: string }> {
  assertLittleEndian();
  validateConfig(config);
  const P = paramCount(config);
  if (params.length !== P) throw new Error(`encodeBaseCheckpoint: params has ${params.length} values, config needs paramCount = ${P}`);
  for (let i = 0; i < P; i++)
    if (!Number.isFinite(params[i])) throw new Error(`encodeBaseCheckpoint: params[${i}] = ${params[i]} is not finite`);
  const base = {
    format: BASE_CHECKPOINT_FORMAT,
    version: BASE_CHECKPOINT_VERSION,
    config: { ...config },
    tokenizer: { ...tokenizer },
    paramCount: P,
    metadata,
  } as const;
  const digest = await digestOf(base, params);
  let json = canonicalJson({ ...base, digest }, 'header');
  const raw = enc.encode(json);
  json += ' '.repeat((4 - (raw.length % 4)) % 4);
  const hdr = enc.encode(json);
  const bytes = new Uint8Array(12 + hdr.length + params.byteLength);
  bytes.set(enc.encode(BASE_CHECKPOINT_MAGIC), 0);
  new DataView(bytes.buffer).setUint32(8, hdr.length, true);
  bytes.set(hdr, 12);
  bytes.set(new Uint8Array(params.buffer, params.byteOffset, params.byteLength), 12 + hdr.length);
  return { bytes, digest };
}

/**
 * Parse and verify a checkpoint file.
 * @throws Error with a message naming what is wrong: bad magic, truncated file, malformed
 *   header, unknown format/version, parameter count or size mismatch, or a digest mismatch
 *   ("corrupted").
 */
export async function decodeBaseCheckpoint(bytes: Uint8Array): Promise<BaseCheckpoint> {
  assertLittleEndian();
  if (bytes.length < 12) throw new Error(`base checkpoint: file too short (${bytes.length} bytes)`);
  const magic = String.fromCharCode(...bytes.subarray(0, 8));
  if (magic !== BASE_CHECKPOINT_MAGIC)
    throw new Error(`base checkpoint: bad magic ${bytesLiteral(bytes.subarray(0, 8))}, expected ${BASE_CHECKPOINT_MAGIC}`);
  const H = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(8, true);
  if (H % 4 !== 0 || 12 + H > bytes.length)
    throw new Error(`base checkpoint: header length ${H} is invalid for a ${bytes.length}-byte file (truncated?)`);
  let header: BaseCheckpointHeader;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(12, 12 + H))) as BaseCheckpointHeader;
  } catch (e) {
    throw new Error(`base checkpoint: header is not valid JSON (${(e as Error).message.slice(0, 80)}); the file is corrupted`);
  }
  if (header?.format !== BASE_CHECKPOINT_FORMAT)
    throw new Error(`base checkpoint: header.format must be '${BASE_CHECKPOINT_FORMAT}', got ${JSON.stringify(header?.format)}`);
  if (header.version !== BASE_CHECKPOINT_VERSION)
    throw new Error(`base checkpoint: header.version must be ${BASE_CHECKPOINT_VERSION}, got ${JSON.stringify(header.version)}`);
  if (typeof header.config !== 'object' || header.config === null)
    throw new Error('base checkpoint: header.config is missing; the file is corrupted');
  validateConfig(header.config);
  const P = paramCount(header.config);
  if (header.paramCount !== P)
    throw new Error(`base checkpoint: header.paramCount = ${header.paramCount} but the config has ${P} parameters`);
  const body = bytes.length - 12 - H;
  if (body !== P * 4) throw new Error(`base checkpoint: ${body} parameter bytes, expected ${P * 4} (truncated or padded file)`);
  const params = new Float32Array(P);
  new Uint8Array(params.buffer).set(bytes.subarray(12 + H));
  const { digest, ...rest } = header;
  const got = await digestOf(rest, params);
  if (got !== digest)
    throw new Error(
      `base checkpoint: digest mismatch (header says ${String(digest).slice(0, 12)}…, content hashes to ${got.slice(0, 12)}…); the file is corrupted`,
    );
  return { header, params };
}

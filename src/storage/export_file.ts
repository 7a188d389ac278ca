/**
 * The single-file export format of a checkpoint (`.hlab`): a header with the manifest's digest,
 * the manifest, then every tensor's bytes; encoded from a verified checkpoint and decoded with
 * the same verification as a load from IndexedDB (serialize.ts). Pure and DOM-free, like
 * serialize.ts; docs/STORAGE.md describes the format.
 */
import { CheckpointError } from './errors';
import { bytesLiteral, bytesToHex, hexToBytes } from '../util/encoding';
import {
  assertLittleEndian,
  parseManifest,
  splitIntoChunks,
  verifyAndAssembleTensor,
  type CheckpointManifest,
  type PreparedCheckpoint,
  type PreparedChunk,
} from './serialize';

/** Magic bytes at offset 0 of an exported checkpoint file. */
const EXPORT_MAGIC = 'HLABCKPT';
/** Version of the export container (header layout), independent of the manifest's version. */
const EXPORT_CONTAINER_VERSION = 1;
/** Header bytes before the manifest: magic (8) + version u32 (4) + manifest length u32 (4) + SHA-256 (32). */
const EXPORT_HEADER_BYTES = 48;

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

function align8(n: number): number {
  return Math.ceil(n / 8) * 8;
}

/**
 * Encode a verified checkpoint as one file (little-endian):
 *
 *   offset 0   8 bytes  magic "HLABCKPT"
 *          8   u32      container version (1)
 *         12   u32      M = byte length of the manifest JSON
 *         16   32 bytes SHA-256 of the manifest JSON bytes
 *         48   M bytes  manifest, canonical JSON, UTF-8
 *              zero bytes up to the next multiple of 8 (= data offset)
 *              tensor bytes, in manifest order, back to back (each a multiple of 4 bytes)
 *
 * The file is fully covered by digests: the header's manifest digest, and per tensor the
 * manifest's tensor and chunk digests; padding must be zero.
 *
 * @param tensors raw bytes per tensor name, exactly as described by the manifest.
 * @returns the parts of the file in order (wrap in a Blob, or `concatBytes`).
 * @throws Error when a tensor is missing or has the wrong length.
 */
export function encodeExportFile(
  manifest: CheckpointManifest,
  manifestJson: string,
  manifestDigest: string,
  tensors: ReadonlyMap<string, Uint8Array>,
): Uint8Array[] {
  const json = utf8Encoder.encode(manifestJson);
  const dataOffset = align8(EXPORT_HEADER_BYTES + json.byteLength);
  const head = new Uint8Array(dataOffset);
  head.set(utf8Encoder.encode(EXPORT_MAGIC), 0);
  const dv = new DataView(head.buffer);
  dv.setUint32(8, EXPORT_CONTAINER_VERSION, true);
  dv.setUint32(12, json.byteLength, true);
  head.set(hexToBytes(manifestDigest), 16);
  head.set(json, EXPORT_HEADER_BYTES);
  const parts: Uint8Array[] = [head];
  for (const e of manifest.tensors) {
    const b = tensors.get(e.name);
    if (b === undefined || b.byteLength !== e.byteLength) {
      throw new Error(`encodeExportFile: tensor '${e.name}' needs ${e.byteLength} bytes, got ${b?.byteLength ?? 'none'}`);
    }
    parts.push(b);
  }
  return parts;
}

/** Concatenate byte arrays into one. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.byteLength, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.byteLength;
  }
  return out;
}

/**
 * Decode and fully verify an exported checkpoint file (format in `encodeExportFile`), and
 * re-chunk it with the chunk size recorded in its manifest, ready to commit.
 *
 * @throws CheckpointError('invalid-file') with a message naming what is wrong: bad magic,
 *   unsupported container version, truncated file, manifest digest mismatch, non-zero padding,
 *   wrong total length, or the tensor (and chunk) whose digest does not match.
 */
export async function decodeExportFile(bytes: Uint8Array): Promise<PreparedCheckpoint> {
  assertLittleEndian();
  const fail = (what: string): never => {
    throw new CheckpointError('invalid-file', `checkpoint file: ${what}`);
  };
  // Magic first: a file that is not ours at all gets that message, whatever its length.
  const magic = String.fromCharCode(...bytes.subarray(0, 8));
  if (magic !== EXPORT_MAGIC)
    fail(`magic is ${bytesLiteral(bytes.subarray(0, 8))}, expected "${EXPORT_MAGIC}" (not a Harness Lab checkpoint)`);
  if (bytes.byteLength < EXPORT_HEADER_BYTES) fail(`${bytes.byteLength} bytes is shorter than the ${EXPORT_HEADER_BYTES}-byte header`);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = dv.getUint32(8, true);
  if (version !== EXPORT_CONTAINER_VERSION) fail(`container version ${version} is not supported (expected ${EXPORT_CONTAINER_VERSION})`);
  const m = dv.getUint32(12, true);
  if (EXPORT_HEADER_BYTES + m > bytes.byteLength) fail(`manifest length ${m} runs past the end of the ${bytes.byteLength}-byte file`);
  const headerDigest = bytesToHex(bytes.subarray(16, 48));
  let manifestJson = '';
  try {
    manifestJson = utf8Decoder.decode(bytes.subarray(EXPORT_HEADER_BYTES, EXPORT_HEADER_BYTES + m));
  } catch {
    fail('manifest is not valid UTF-8');
  }
  const manifest = await parseManifest(manifestJson, headerDigest, 'checkpoint file', 'invalid-file');
  const dataOffset = align8(EXPORT_HEADER_BYTES + m);
  for (let i = EXPORT_HEADER_BYTES + m; i < Math.min(dataOffset, bytes.byteLength); i++) {
    if (bytes[i] !== 0) fail(`padding byte at offset ${i} is ${bytes[i]}, expected 0`);
  }
  const total = dataOffset + manifest.tensors.reduce((s, t) => s + t.byteLength, 0);
  if (bytes.byteLength !== total) {
    fail(`is ${bytes.byteLength} bytes, but its manifest describes ${total} (truncated or padded file)`);
  }
  const chunks: PreparedChunk[] = [];
  let off = dataOffset;
  for (const e of manifest.tensors) {
    const tb = bytes.subarray(off, off + e.byteLength);
    off += e.byteLength;
    const buffers = splitIntoChunks(tb, manifest.chunkBytes);
    // Verify with the same routine as a load from IndexedDB, so both paths agree on what is valid.
    await verifyAndAssembleTensor(manifest, e, buffers, 'invalid-file');
    buffers.forEach((b, index) => chunks.push({ tensor: e.name, index, bytes: b }));
  }
  return { manifest, manifestJson, manifestDigest: headerDigest, chunks, totalBytes: total - dataOffset };
}

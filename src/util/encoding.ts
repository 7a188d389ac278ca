/**
 * Byte and JSON encodings shared by the storage layer, the runner, the CLI and the app: SHA-256
 * hex digests (WebCrypto), hex, base64 (pages, workers and Node alike) and JSON that writes
 * non-finite numbers as null, and its inverse for data read back.
 */

function isShared(buf: ArrayBufferLike): boolean {
  return typeof SharedArrayBuffer !== 'undefined' && buf instanceof SharedArrayBuffer;
}

/**
 * Bytes as a quoted literal for messages: printable ASCII as itself, every other byte as \xNN
 * (a file that is not ours shows what it starts with without echoing raw binary).
 */
export function bytesLiteral(b: Uint8Array): string {
  let s = '';
  for (const x of b)
    s += x >= 0x20 && x < 0x7f && x !== 0x22 && x !== 0x5c ? String.fromCharCode(x) : `\\x${x.toString(16).padStart(2, '0')}`;
  return `"${s}"`;
}

/**
 * SHA-256 (FIPS 180-4) of `data` as 64 lowercase hex characters, via WebCrypto.
 * Views over a SharedArrayBuffer are copied first (WebCrypto refuses shared memory).
 */
export async function sha256Hex(data: Uint8Array | ArrayBuffer): Promise<string> {
  let view = data instanceof Uint8Array ? data : new Uint8Array(data);
  if (isShared(view.buffer)) view = view.slice();
  const digest = await globalThis.crypto.subtle.digest('SHA-256', view as Uint8Array<ArrayBuffer>);
  return bytesToHex(new Uint8Array(digest));
}

/** Lowercase hex of `b`, two characters a byte. */
export function bytesToHex(b: Uint8Array): string {
  let s = '';
  for (let i = 0; i < b.length; i++) s += b[i].toString(16).padStart(2, '0');
  return s;
}

/** @throws Error when `hex` is not an even-length hex string. */
export function hexToBytes(hex: string): Uint8Array {
  if (!/^([0-9a-f]{2})*$/.test(hex)) throw new Error(`hexToBytes: not lowercase hex: ${hex.slice(0, 80)}`);
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** Bytes → base64 (btoa in 32 KiB chunks, so a large buffer never overflows the argument list). */
export function bytesToBase64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** base64 → bytes (atob). */
export function base64ToBytes(s: string): Uint8Array {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** A JSON.stringify replacer that writes NaN and ±Infinity as null (JSON has no such numbers). */
function finiteOrNull(_key: string, v: unknown): unknown {
  return typeof v === 'number' && !Number.isFinite(v) ? null : v;
}

/** JSON.stringify with non-finite numbers written as null. */
export function stringifyFinite(value: unknown, indent?: number): string {
  return JSON.stringify(value, finiteOrNull, indent);
}

/**
 * The inverse of stringifyFinite for data known to hold numbers where JSON has null: every null,
 * at any depth, becomes NaN ("not measured"); arrays and plain objects are copied, other values kept.
 */
export function nullsToNaN<T>(v: T): T {
  if (v === null) return Number.NaN as T;
  if (Array.isArray(v)) return v.map(nullsToNaN) as T;
  if (typeof v === 'object') return Object.fromEntries(Object.entries(v as object).map(([k, x]) => [k, nullsToNaN(x)])) as T;
  return v;
}

/** JSON with object keys sorted at every level: equal values give equal strings whatever their key order. */
export function sortedJson(v: unknown): string {
  return JSON.stringify(v, (_k, x) =>
    x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : x,
  );
}

/**
 * Byte-level BPE tokenizer with byte fallback (docs/TOKENIZER.md; Sennrich et al. 2016, with the
 * byte-level base vocabulary of GPT-2, Radford et al. 2019).
 *
 * Ids: 0–255 are the raw bytes (so no unknown token exists), then the special tokens
 * (`<pad>` = 256, `<bos>`, `<eos>`, role markers), then one id per learned merge in rank order.
 * Vocabulary ≤ 1024 for the shipped file.
 *
 * Round trip: `decode(encode(s)) === s` for every well-formed UTF-16 string (any code points,
 * control characters, NUL, astral planes). Text is encoded as UTF-8 first; a lone surrogate is
 * not representable in UTF-8 and becomes U+FFFD (exactly what TextEncoder does). `encode` never
 * produces special ids: a tool output containing the text "<eos>" stays bytes, so observations
 * cannot inject control tokens; specials are placed by the renderer with `special(name)`.
 *
 * Encoding: the text is pre-split into chunks (`preSplit`: letters with an optional leading
 * space, digit groups of ≤ 3, punctuation runs, whitespace; chunks capped at MAX_CHUNK code
 * units), merges never cross chunks, and each chunk's ids are cached. Work is linear in the
 * input length (each chunk costs O(MAX_CHUNK²) at most, once per distinct chunk).
 */

import { assetFetch } from '../util/asset_fetch';

/** File format identifier and version of `TokenizerFile`. */
const TOKENIZER_FORMAT = 'hlab-bpe';
export const TOKENIZER_FORMAT_VERSION = 1;
/** Name of the pre-split rule; stored in the file so a changed rule is detected on load. */
const PRESPLIT_RULE = 'hlab-presplit-v1';

/** The default specials, in id order from 256. `<pad>` first so PAD_ID = 256. */
export const DEFAULT_SPECIALS = ['<pad>', '<bos>', '<eos>', '<|system|>', '<|user|>', '<|assistant|>', '<|tool|>', '<|end|>'] as const;

/** Longest chunk in UTF-16 code units; longer pre-split matches are cut (bounds encode cost). */
export const MAX_CHUNK = 64;

/** The serialized tokenizer (public/tokenizer-v1.json, public/tokenizer-v2.json). */
export interface TokenizerFile {
  format: typeof TOKENIZER_FORMAT;
  version: typeof TOKENIZER_FORMAT_VERSION;
  /** Human name of this vocabulary, e.g. 'tokenizer-v1'. */
  name: string;
  preSplit: typeof PRESPLIT_RULE;
  /** 256 + specials.length + merges.length. */
  vocabSize: number;
  /** Special token names; id of specials[i] is 256 + i. */
  specials: string[];
  /** merges[r] = [left id, right id] → new id 256 + specials.length + r. */
  merges: [number, number][];
}

// The pre-split rule: letters with an optional leading space, ≤3 digits (optional leading
// space), punctuation runs (optional leading space), whitespace not followed by a non-space
// (so the last space attaches to the next word), and any remaining whitespace. Every code
// point (a lone surrogate included) is in exactly one of \s, \p{L}, \p{N} or the rest, so the
// matches tile the string. (V8 runs this at ~20M chars/s; a hand-written scanner was slower.)
const PRESPLIT_REGEX = / ?\p{L}+| ?\p{N}{1,3}| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

/**
 * Calls `emit(start, end)` for each pre-split chunk of `text`, in order; the chunks tile the
 * text. Matches longer than MAX_CHUNK code units are cut, never inside a surrogate pair.
 */
function scanChunks(text: string, emit: (start: number, end: number) => void): void {
  const re = new RegExp(PRESPLIT_REGEX.source, PRESPLIT_REGEX.flags);
  let last = 0;
  const capped = (a: number, b: number) => {
    while (b - a > MAX_CHUNK) {
      let j = a + MAX_CHUNK;
      const c = text.charCodeAt(j - 1);
      if (c >= 0xd800 && c <= 0xdbff) j--; // keep a surrogate pair together
      emit(a, j);
      a = j;
    }
    emit(a, b);
  };
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    // Defensive: the classes cover every code point, but never drop text if they did not.
    if (m.index > last) capped(last, m.index);
    capped(m.index, m.index + m[0].length);
    last = m.index + m[0].length;
  }
  if (last < text.length) capped(last, text.length);
}

/**
 * Split `text` into the chunks BPE works within. The chunks concatenate to `text` exactly.
 */
export function preSplit(text: string): string[] {
  const out: string[] = [];
  scanChunks(text, (a, b) => out.push(text.slice(a, b)));
  return out;
}

/** UTF-8 bytes of `s` as ids 0–255; lone surrogates become U+FFFD (as TextEncoder). */
export function utf8Bytes(s: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) {
      const d = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
      } else c = 0xfffd;
    }
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return out;
}

const pairKey = (a: number, b: number) => a * 65536 + b;

// ignoreBOM: a leading U+FEFF is text like any other (round trip), not a byte-order mark.
const UTF8_DECODER = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** Merge the adjacent pair (a, b) → id everywhere in `w`, left to right, in place. */
function mergeInPlace(w: number[], a: number, b: number, id: number): void {
  let j = 0;
  for (let i = 0; i < w.length; i++) {
    if (i + 1 < w.length && w[i] === a && w[i + 1] === b) {
      w[j++] = id;
      i++;
    } else w[j++] = w[i];
  }
  w.length = j;
}

export class Tokenizer {
  readonly name: string;
  readonly specials: readonly string[];
  readonly merges: readonly [number, number][];
  readonly vocabSize: number;
  /** First merge id (256 + number of specials). */
  readonly firstMergeId: number;
  private readonly ranks = new Map<number, number>();
  private readonly bytes: Uint8Array[] = [];
  private readonly specialIds = new Map<string, number>();
  private readonly cache = new Map<string, number[]>();
  private static readonly CACHE_LIMIT = 1 << 16;

  /**
   * @param merges merge list in rank order, [left id, right id]
   * @param specials special token names (ids 256 …)
   * @throws Error naming the bad merge or special.
   */
  constructor(merges: readonly [number, number][], specials: readonly string[] = DEFAULT_SPECIALS, name = 'untitled') {
    this.name = name;
    this.specials = specials.slice();
    this.merges = merges.map((m) => [m[0], m[1]] as [number, number]);
    this.firstMergeId = 256 + specials.length;
    this.vocabSize = this.firstMergeId + merges.length;
    if (this.vocabSize > 65536) throw new Error(`Tokenizer: vocabSize ${this.vocabSize} exceeds 65536`);
    for (let i = 0; i < 256; i++) this.bytes.push(Uint8Array.of(i));
    specials.forEach((s, i) => {
      if (typeof s !== 'string' || s.length === 0) throw new Error(`Tokenizer: specials[${i}] must be a non-empty string`);
      if (this.specialIds.has(s)) throw new Error(`Tokenizer: specials[${i}] = '${s}' is duplicated`);
      this.specialIds.set(s, 256 + i);
      this.bytes.push(new TextEncoder().encode(s));
    });
    merges.forEach(([a, b], r) => {
      const id = this.firstMergeId + r;
      for (const x of [a, b]) {
        if (!Number.isInteger(x) || x < 0 || x >= id || (x >= 256 && x < this.firstMergeId)) {
          throw new Error(`Tokenizer: merges[${r}] = [${a}, ${b}] refers to ${x}, not a byte or an earlier merge`);
        }
      }
      const k = pairKey(a, b);
      if (this.ranks.has(k)) throw new Error(`Tokenizer: merges[${r}] = [${a}, ${b}] is duplicated`);
      this.ranks.set(k, r);
      const ba = this.bytes[a];
      const bb = this.bytes[b];
      const cat = new Uint8Array(ba.length + bb.length);
      cat.set(ba);
      cat.set(bb, ba.length);
      this.bytes.push(cat);
    });
  }

  /** Id of the special token `name`. @throws Error when unknown. */
  special(name: string): number {
    const id = this.specialIds.get(name);
    if (id === undefined) throw new Error(`Tokenizer.special: unknown special token '${name}' (have ${this.specials.join(' ')})`);
    return id;
  }

  /** True for the ids of special tokens. */
  isSpecial(id: number): boolean {
    return id >= 256 && id < this.firstMergeId;
  }

  get padId(): number {
    return this.special('<pad>');
  }
  get bosId(): number {
    return this.special('<bos>');
  }
  get eosId(): number {
    return this.special('<eos>');
  }

  /**
   * Token ids of `text` (never special ids; see the module comment).
   * @returns ids in [0, vocabSize)
   */
  encode(text: string): number[] {
    const out: number[] = [];
    scanChunks(text, (a, b) => {
      const chunk = text.slice(a, b);
      let ids = this.cache.get(chunk);
      if (ids === undefined) {
        ids = this.encodeChunk(chunk);
        if (this.cache.size >= Tokenizer.CACHE_LIMIT) this.cache.clear();
        this.cache.set(chunk, ids);
      }
      for (let i = 0; i < ids.length; i++) out.push(ids[i]);
    });
    return out;
  }

  /** BPE on one chunk: repeatedly merge the adjacent pair of lowest rank. */
  private encodeChunk(chunk: string): number[] {
    const w = utf8Bytes(chunk);
    for (;;) {
      let best = -1;
      let bestRank = Infinity;
      for (let i = 0; i + 1 < w.length; i++) {
        const r = this.ranks.get(pairKey(w[i], w[i + 1]));
        if (r !== undefined && r < bestRank) {
          bestRank = r;
          best = i;
        }
      }
      if (best < 0) return w;
      const [a, b] = this.merges[bestRank];
      mergeInPlace(w, a, b, this.firstMergeId + bestRank);
    }
  }

  /** The bytes of a sequence of ids (specials contribute their name's UTF-8). @throws Error on an id out of range. */
  decodeBytes(ids: ArrayLike<number>): Uint8Array {
    let n = 0;
    for (let i = 0; i < ids.length; i++) n += this.tokenBytes(ids[i]).length;
    const out = new Uint8Array(n);
    let o = 0;
    for (let i = 0; i < ids.length; i++) {
      const b = this.bytes[ids[i]];
      out.set(b, o);
      o += b.length;
    }
    return out;
  }

  /**
   * Text of a sequence of ids. Special tokens render as their names unless `skipSpecials`.
   * Invalid UTF-8 (e.g. a sequence cut inside a multi-byte character) decodes to U+FFFD.
   * @throws Error on an id out of range.
   */
  decode(ids: ArrayLike<number>, opts: { skipSpecials?: boolean } = {}): string {
    const kept = opts.skipSpecials ? Array.from(ids).filter((id) => !this.isSpecial(id)) : ids;
    return UTF8_DECODER.decode(this.decodeBytes(kept));
  }

  /** The bytes of one token. @throws Error on an id out of range. */
  tokenBytes(id: number): Uint8Array {
    const b = this.bytes[id];
    if (!Number.isInteger(id) || b === undefined) throw new Error(`Tokenizer: id ${id} is outside [0, ${this.vocabSize})`);
    return b;
  }

  /** The serializable form. */
  toJSON(): TokenizerFile {
    return {
      format: TOKENIZER_FORMAT,
      version: TOKENIZER_FORMAT_VERSION,
      name: this.name,
      preSplit: PRESPLIT_RULE,
      vocabSize: this.vocabSize,
      specials: this.specials.slice(),
      merges: this.merges.map((m) => [m[0], m[1]]),
    };
  }

  /**
   * Load a TokenizerFile (parsed JSON).
   * @throws Error naming the field when the format, version, pre-split rule, vocabSize or
   *   merges are wrong.
   */
  static fromJSON(obj: unknown): Tokenizer {
    const f = obj as Partial<TokenizerFile>;
    if (!f || typeof f !== 'object') throw new Error('Tokenizer.fromJSON: expected an object');
    if (f.format !== TOKENIZER_FORMAT)
      throw new Error(`Tokenizer.fromJSON: format must be '${TOKENIZER_FORMAT}', got ${JSON.stringify(f.format)}`);
    if (f.version !== TOKENIZER_FORMAT_VERSION)
      throw new Error(`Tokenizer.fromJSON: version must be ${TOKENIZER_FORMAT_VERSION}, got ${JSON.stringify(f.version)}`);
    if (f.preSplit !== PRESPLIT_RULE)
      throw new Error(`Tokenizer.fromJSON: preSplit must be '${PRESPLIT_RULE}', got ${JSON.stringify(f.preSplit)}`);
    if (!Array.isArray(f.specials)) throw new Error('Tokenizer.fromJSON: specials must be an array of strings');
    if (!Array.isArray(f.merges) || !f.merges.every((m) => Array.isArray(m) && m.length === 2)) {
      throw new Error('Tokenizer.fromJSON: merges must be an array of [left, right] id pairs');
    }
    const t = new Tokenizer(f.merges as [number, number][], f.specials, typeof f.name === 'string' ? f.name : 'untitled');
    if (f.vocabSize !== t.vocabSize)
      throw new Error(`Tokenizer.fromJSON: vocabSize ${f.vocabSize} does not match 256 + specials + merges = ${t.vocabSize}`);
    return t;
  }
}

/** Where the app serves the shipped default vocabulary (public/tokenizer-v2.json). */
export const TOKENIZER_V2_URL = '/tokenizer-v2.json';

/**
 * The vocabulary everything loads by default (pretraining page, experiment runner): v2, learned
 * from rendered expert episodes (src/corpus/tokenizer_v2.ts), ≈ 1.4× the compression of
 * v1 on held-out renders (docs/TOKENIZER.md). Base checkpoints record the tokenizer's name and
 * the runner refuses one trained with another vocabulary.
 */
export const DEFAULT_TOKENIZER_URL = TOKENIZER_V2_URL;

/**
 * Fetch and load a tokenizer file (browser, worker, or Node with an http URL). Reads through
 * `assetFetch`: the copy the app cached at load when there is one (so it works offline), else
 * the network.
 * @throws Error naming the URL on an HTTP error, or the field of a malformed file.
 */
export async function loadTokenizer(url: string = DEFAULT_TOKENIZER_URL): Promise<Tokenizer> {
  const res = await assetFetch(url);
  if (!res.ok) throw new Error(`loadTokenizer: ${url} answered HTTP ${res.status}`);
  return Tokenizer.fromJSON(await res.json());
}

/** Deterministic 32-bit mix (tie-breaking among equally frequent pairs). */
function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d) >>> 0;
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b) >>> 0;
  return (x ^ (x >>> 16)) >>> 0;
}

/**
 * Learn a byte-level BPE vocabulary from `corpus` (Sennrich et al. 2016): count pre-split
 * chunks, then repeatedly merge the most frequent adjacent pair (weighted by chunk frequency)
 * until the vocabulary has `vocabSize` ids or no pair occurs twice. Ties between equally
 * frequent pairs are broken by a hash of (pair, seed), so the result depends only on the
 * multiset of chunks, `vocabSize` and `seed`: deterministic across runs and machines.
 * Pair counts are updated incrementally (only chunks containing the merged pair are revisited).
 * @param corpus documents
 * @param vocabSize target size, ≥ 256 + specials.length
 * @param seed tie-breaking seed (integer)
 * @param specials special token names
 * @throws Error naming vocabSize or seed when invalid.
 */
export function trainBpe(
  corpus: readonly string[],
  vocabSize: number,
  seed = 0,
  specials: readonly string[] = DEFAULT_SPECIALS,
  name = 'untitled',
): Tokenizer {
  const first = 256 + specials.length;
  if (!Number.isInteger(vocabSize) || vocabSize < first || vocabSize > 65536) {
    throw new Error(`trainBpe: vocabSize must be an integer in [${first}, 65536], got ${vocabSize}`);
  }
  if (!Number.isInteger(seed)) throw new Error(`trainBpe: seed must be an integer, got ${seed}`);
  const chunkFreq = new Map<string, number>();
  for (const doc of corpus) for (const c of preSplit(doc)) chunkFreq.set(c, (chunkFreq.get(c) ?? 0) + 1);
  // Sorted so that the word indices (and hence everything below) do not depend on corpus order.
  const keys = [...chunkFreq.keys()].sort();
  const words = keys.map((k) => utf8Bytes(k));
  const freq = keys.map((k) => chunkFreq.get(k)!);
  const counts = new Map<number, number>();
  const where = new Map<number, Set<number>>();
  const addWord = (wi: number, sign: 1 | -1) => {
    const w = words[wi];
    for (let i = 0; i + 1 < w.length; i++) {
      const k = pairKey(w[i], w[i + 1]);
      const c = (counts.get(k) ?? 0) + sign * freq[wi];
      if (c === 0) counts.delete(k);
      else counts.set(k, c);
      if (sign > 0) {
        let s = where.get(k);
        if (!s) where.set(k, (s = new Set()));
        s.add(wi);
      }
    }
  };
  for (let wi = 0; wi < words.length; wi++) addWord(wi, 1);
  const seedMix = mix32((seed >>> 0) ^ 0x9e3779b9);
  const merges: [number, number][] = [];
  while (first + merges.length < vocabSize) {
    let bestKey = -1;
    let bestCount = 1; // a pair must occur at least twice to be worth a vocabulary slot
    let bestTie = 0;
    for (const [k, c] of counts) {
      if (c < bestCount) continue;
      const tie = mix32(k ^ seedMix);
      if (c > bestCount || bestKey < 0 || tie < bestTie || (tie === bestTie && k < bestKey)) {
        bestKey = k;
        bestCount = c;
        bestTie = tie;
      }
    }
    if (bestKey < 0 || bestCount < 2) break;
    const a = Math.floor(bestKey / 65536);
    const b = bestKey % 65536;
    const id = first + merges.length;
    merges.push([a, b]);
    const touched = [...(where.get(bestKey) ?? [])].sort((x, y) => x - y);
    where.delete(bestKey);
    for (const wi of touched) {
      const w = words[wi];
      let has = false;
      for (let i = 0; i + 1 < w.length; i++) if (w[i] === a && w[i + 1] === b) has = true;
      if (!has) continue; // stale index entry
      addWord(wi, -1);
      mergeInPlace(w, a, b, id);
      addWord(wi, 1);
    }
  }
  return new Tokenizer(merges, specials, name);
}

/**
 * Byte-level BPE tokenizer (src/model/tokenizer.ts) and the shipped public/tokenizer-v1.json:
 * exact round trip (property-based), lone-surrogate behaviour, pre-split tiling, determinism
 * of training, vocabulary bound, reproducibility of the shipped file, compression.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DEFAULT_SPECIALS, MAX_CHUNK, Tokenizer, preSplit, trainBpe, utf8Bytes, type TokenizerFile } from '../../src/model/tokenizer';
import { generateTokenizerCorpus } from '../../src/corpus/tokenizer_v1';
import { Rng } from '../../src/util/rng';

const shippedJson = JSON.parse(readFileSync(new URL('../../public/tokenizer-v1.json', import.meta.url), 'utf8')) as TokenizerFile;
const shipped = Tokenizer.fromJSON(shippedJson);
const small = trainBpe(generateTokenizerCorpus(3, 150), 400, 3);
/** Any UTF-16 code unit sequence, lone surrogates included. */
const utf16 = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 80 });

describe('round trip', () => {
  it('decode(encode(s)) === s for any well-formed string (full Unicode, controls, graphemes)', () => {
    for (const tok of [shipped, small]) {
      fc.assert(
        fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (s) => tok.decode(tok.encode(s)) === s),
        { numRuns: 300 },
      );
      fc.assert(
        fc.property(fc.string({ unit: 'binary-ascii', maxLength: 200 }), (s) => tok.decode(tok.encode(s)) === s),
        { numRuns: 200 },
      );
      fc.assert(
        fc.property(fc.string({ unit: 'grapheme', maxLength: 100 }), (s) => tok.decode(tok.encode(s)) === s),
        { numRuns: 200 },
      );
    }
  });

  it('round trips harness-like text and long repetitive inputs', () => {
    const docs = generateTokenizerCorpus(17, 30);
    for (const d of docs) expect(shipped.decode(shipped.encode(d))).toBe(d);
    const long = [
      ' '.repeat(5000),
      'a'.repeat(20000),
      '9'.repeat(1001),
      '{"path":"/x"}'.repeat(2000),
      '\u{1F600}'.repeat(3000) + '\r\n\t\0',
      '\uFEFFstarts with a BOM',
    ];
    for (const s of long) expect(shipped.decode(shipped.encode(s))).toBe(s);
  });

  it('lone surrogates become U+FFFD, exactly as TextEncoder/TextDecoder do', () => {
    expect(shipped.decode(shipped.encode('a\uD800b\uDC00'))).toBe('a\uFFFDb\uFFFD');
    const te = new TextEncoder();
    const td = new TextDecoder();
    fc.assert(
      fc.property(utf16, (s) => {
        expect(utf8Bytes(s)).toEqual(Array.from(te.encode(s)));
        return shipped.decode(shipped.encode(s)) === td.decode(te.encode(s));
      }),
      { numRuns: 300 },
    );
  });

  it('pre-split chunks tile the input and respect MAX_CHUNK', () => {
    fc.assert(
      fc.property(fc.oneof(utf16, fc.string({ unit: 'binary', maxLength: 300 })), (s) => {
        const chunks = preSplit(s);
        return chunks.join('') === s && chunks.every((c) => c.length > 0 && c.length <= MAX_CHUNK);
      }),
      { numRuns: 300 },
    );
    expect(preSplit('Hello world  12345 {"a": 1}\n\nok')).toEqual([
      'Hello',
      ' world',
      ' ',
      ' 123',
      '45',
      ' {"',
      'a',
      '":',
      ' 1',
      '}',
      '\n',
      '\n',
      'ok',
    ]);
  });
});

describe('vocabulary and specials', () => {
  it('the shipped vocabulary has ≤ 1024 ids and encode stays inside it', () => {
    expect(shipped.vocabSize).toBeLessThanOrEqual(1024);
    expect(shipped.vocabSize).toBe(256 + DEFAULT_SPECIALS.length + shipped.merges.length);
    const ids = shipped.encode(generateTokenizerCorpus(5, 20).join('\n'));
    expect(ids.every((i) => Number.isInteger(i) && i >= 0 && i < shipped.vocabSize && !shipped.isSpecial(i))).toBe(true);
  });

  it('specials have fixed ids, are never produced by encode, and decode by name', () => {
    expect(shipped.padId).toBe(256);
    expect(shipped.bosId).toBe(257);
    expect(shipped.eosId).toBe(258);
    expect(shipped.special('<|assistant|>')).toBe(261);
    expect(shipped.encode('<eos><pad>')).not.toContain(shipped.eosId);
    const ids = [shipped.bosId, ...shipped.encode('hi'), shipped.eosId];
    expect(shipped.decode(ids)).toBe('<bos>hi<eos>');
    expect(shipped.decode(ids, { skipSpecials: true })).toBe('hi');
    expect(() => shipped.special('<nope>')).toThrow(/<nope>/);
    expect(() => shipped.decode([shipped.vocabSize])).toThrow(/outside/);
  });

  it('serialization round trips and malformed files are rejected by field', () => {
    const again = Tokenizer.fromJSON(JSON.parse(JSON.stringify(shipped.toJSON())));
    expect(again.toJSON()).toEqual(shippedJson);
    expect(() => Tokenizer.fromJSON({ ...shippedJson, version: 2 })).toThrow(/version/);
    expect(() => Tokenizer.fromJSON({ ...shippedJson, vocabSize: 1000 })).toThrow(/vocabSize/);
    expect(() => Tokenizer.fromJSON({ ...shippedJson, preSplit: 'gpt2' })).toThrow(/preSplit/);
    const bad = shippedJson.merges.map((m) => [...m]);
    bad[3] = [5, 2000];
    expect(() => Tokenizer.fromJSON({ ...shippedJson, merges: bad })).toThrow(/merges\[3\]/);
  });
});

describe('training', () => {
  it('is deterministic and independent of document order', () => {
    const corpus = generateTokenizerCorpus(9, 120);
    const a = trainBpe(corpus, 500, 1).toJSON();
    const b = trainBpe(corpus, 500, 1).toJSON();
    const c = trainBpe(new Rng(4).shuffle(corpus), 500, 1).toJSON();
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    expect(a.vocabSize).toBe(500);
    expect(() => trainBpe(corpus, 100)).toThrow(/vocabSize/);
  });

  it('learns merges: a frequent word is one token', () => {
    const tok = trainBpe(Array(50).fill('hello world, hello there'), 300);
    expect(tok.encode(' hello')).toHaveLength(1);
    expect(tok.decode(tok.encode(' hello'))).toBe(' hello');
  });

  it('public/tokenizer-v1.json is exactly what `hlab tokenizer --corpus v1 --vocab 1024 --seed 0` rebuilds', () => {
    const rebuilt = trainBpe(generateTokenizerCorpus(0, 3000), 1024, 0, undefined, 'tokenizer-v1');
    expect(rebuilt.toJSON()).toEqual(shippedJson);
  });

  it('compresses held-out harness-like text to > 2 UTF-8 bytes per token', () => {
    const held = generateTokenizerCorpus(12345, 200);
    let bytes = 0;
    let tokens = 0;
    for (const d of held) {
      bytes += new TextEncoder().encode(d).length;
      tokens += shipped.encode(d).length;
    }
    const ratio = bytes / tokens;
    console.log(`tokenizer-v1: ${ratio.toFixed(3)} bytes/token on ${bytes} held-out bytes`);
    expect(ratio).toBeGreaterThan(2);
  });
});

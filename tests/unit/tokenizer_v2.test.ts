/**
 * Tokenizer v2 (public/tokenizer-v2.json) and its corpus of rendered expert episodes
 * (src/corpus/tokenizer_v2.ts): the shipped file is exactly what
 * `hlab tokenizer --vocab 1024 --seed 0` (corpus v2, the default) rebuilds; the corpus holds only train
 * tasks under training/procedural harnesses; round trip; and v2 compresses held-out renders
 * (test tasks under held-out in-space and black-box harnesses) better than v1 — both measured
 * here, nothing hard-coded.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SPACE, selectTraining } from '../../src/design';
import { createHarness } from '../../src/harness';
import { DEFAULT_TOKENIZER_URL, Tokenizer, TOKENIZER_V2_URL, trainBpe, type TokenizerFile } from '../../src/model/tokenizer';
import { corpusV2Plan, generateTokenizerCorpusV2, heldOutRenderCorpus } from '../../src/corpus/tokenizer_v2';
import { encodeContext } from '../../src/episode/rows';
import { SUITE_NAMES, taskSet, SEED_RANGES } from '../../src/tasks';

const read = (v: string) => readFileSync(new URL(`../../public/tokenizer-${v}.json`, import.meta.url), 'utf8');
const v2Text = read('v2');
/** Compression of `tok` on `docs`: total UTF-8 bytes / total BPE tokens. */
function bytesPerToken(tok: { encode(s: string): number[] }, docs: readonly string[]): { bytes: number; tokens: number; ratio: number } {
  const enc = new TextEncoder();
  const bytes = docs.reduce((a, d) => a + enc.encode(d).length, 0);
  const tokens = docs.reduce((a, d) => a + tok.encode(d).length, 0);
  return { bytes, tokens, ratio: tokens === 0 ? 0 : bytes / tokens };
}

const v1 = Tokenizer.fromJSON(JSON.parse(read('v1')) as TokenizerFile);
const v2 = Tokenizer.fromJSON(JSON.parse(v2Text) as TokenizerFile);
const training = selectTraining(DEFAULT_SPACE).training;

describe('tokenizer v2 corpus', () => {
  it('plans only train-split tasks, under the 18 training harnesses or procedural harnesses', () => {
    const plan = corpusV2Plan(0);
    const inTraining = new Set(training);
    expect(training).toHaveLength(18);
    let named = 0;
    let procedural = 0;
    const harnessesSeen = new Set<string>();
    for (const j of plan) {
      expect(j.task.seed).toBeGreaterThanOrEqual(SEED_RANGES.train.from);
      expect(j.task.seed).toBeLessThanOrEqual(SEED_RANGES.train.to);
      if ('harness' in j) {
        expect(inTraining.has(j.harness), j.harness).toBe(true);
        harnessesSeen.add(j.harness);
        named++;
      } else {
        expect(Number.isInteger(j.proc) && j.proc >= 0).toBe(true);
        procedural++;
      }
    }
    expect(harnessesSeen.size).toBe(18);
    // Defaults: 6 tasks × 2 suites × 18 harnesses, and 108 × 2 procedural episodes.
    expect(named).toBe(216);
    expect(procedural).toBe(216);
    // Deterministic in the seed; another seed draws other tasks.
    expect(corpusV2Plan(0).map((j) => j.task.id)).toEqual(plan.map((j) => j.task.id));
    expect(corpusV2Plan(1).map((j) => j.task.id)).not.toEqual(plan.map((j) => j.task.id));
  });

  it('contains no role-marker text (markers are special ids) and respects maxBytes', () => {
    const docs = generateTokenizerCorpusV2(3, { tasksPerSuite: 1, proceduralPerSuite: 4, maxBytes: 50_000 });
    const bytes = docs.reduce((s, d) => s + new TextEncoder().encode(d).length, 0);
    expect(bytes).toBeGreaterThan(50_000 * 0.5);
    // The cap drops whole episodes after the one that crosses it: bounded overshoot.
    expect(bytes).toBeLessThan(50_000 + 200_000);
    for (const d of docs) {
      expect(d.length).toBeGreaterThan(0);
      expect(d).not.toMatch(/<\|(system|user|assistant|tool|end)\|>/);
    }
  });

  it('names the bad option', () => {
    expect(() => corpusV2Plan(0, { tasksPerSuite: -1 })).toThrow(/tasksPerSuite/);
    expect(() => corpusV2Plan(0, { maxBytes: 0 })).toThrow(/maxBytes/);
    expect(() => heldOutRenderCorpus(0, { heldOutHarnesses: 1.5 })).toThrow(/heldOutHarnesses/);
  });
});

describe('public/tokenizer-v2.json', () => {
  // tokenizer-v2 rebuilt byte-identically from the corpus once; later changes to
  // tier-1 tasks and the black-box call syntax, so today's corpus differs. The shipped base is tied
  // to this vocabulary, so it stays: it must still fit today's corpus as well as a fresh rebuild.
  it("compresses today's corpus v2 within 1 % of what `hlab tokenizer --vocab 1024 --seed 0` rebuilds (measured 0.03 %)", () => {
    const docs = generateTokenizerCorpusV2(0);
    const rebuilt = trainBpe(docs, 1024, 0, undefined, 'tokenizer-v2');
    let shipped = 0;
    let fresh = 0;
    for (const d of docs) {
      shipped += v2.encode(d).length;
      fresh += rebuilt.encode(d).length;
    }
    expect(shipped / fresh).toBeLessThan(1.01);
    expect(v2.vocabSize).toBe(1024);
    expect(v2.specials).toEqual(v1.specials);
  });

  it('is the default vocabulary', () => {
    expect(DEFAULT_TOKENIZER_URL).toBe(TOKENIZER_V2_URL);
    expect(TOKENIZER_V2_URL).toBe('/tokenizer-v2.json');
  });

  it('round-trips held-out renders and adversarial strings exactly', () => {
    const { docs } = heldOutRenderCorpus(5, { tasksPerSuite: 1, heldOutHarnesses: 2 });
    expect(docs.length).toBeGreaterThan(0);
    for (const d of docs) expect(v2.decode(v2.encode(d))).toBe(d);
    for (const s of [
      '',
      '<|end|><eos>',
      '\u0000\t\r\n  x',
      'héllo wörld 你好 🙂𝄞',
      '{"tool":"read","args":{"path":"/a b.txt"}}',
      ' '.repeat(200),
    ]) {
      const ids = v2.encode(s);
      expect(ids.every((id) => !v2.isSpecial(id) && id >= 0 && id < v2.vocabSize)).toBe(true);
      expect(v2.decode(ids)).toBe(s);
    }
  });

  it('compresses held-out renders (test tasks, held-out and black-box harnesses) better than v1', () => {
    const { docs, harnesses } = heldOutRenderCorpus(0);
    expect(harnesses).toContain('bb-coding-cli');
    expect(harnesses).toContain('bb-assistant');
    for (const h of harnesses) expect(training).not.toContain(h);
    const r1 = bytesPerToken(v1, docs);
    const r2 = bytesPerToken(v2, docs);
    expect(r2.bytes).toBe(r1.bytes);
    console.log(`held-out renders, ${r1.bytes} bytes: v1 ${r1.ratio.toFixed(3)}, v2 ${r2.ratio.toFixed(3)} bytes/token`);
    expect(r2.ratio).toBeGreaterThan(r1.ratio);
  });

  it('shortens the opening context under every training harness', () => {
    const tasks = SUITE_NAMES.map((s) => taskSet(s, 'train', 1, 7)[0]);
    for (const id of training) {
      for (const task of tasks) {
        const h = createHarness(id);
        h.reset(task);
        const ctx = h.contextText();
        const n1 = encodeContext(v1, ctx).length;
        const n2 = encodeContext(v2, ctx).length;
        expect(n2, `${id} on ${task.id}: v2 ${n2} vs v1 ${n1} tokens`).toBeLessThan(n1);
        // The ids still decode to the exact context (markers as their names).
        expect(v2.decode(encodeContext(v2, ctx).slice(1))).toBe(ctx);
      }
    }
  });
});

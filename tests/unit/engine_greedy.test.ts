/**
 * The one greedy decode path (src/engine: an engine's policy sampled at τ = 0) on the CPU engine,
 * on a fixed checkpoint (the shipped public/base-mini.ckpt) and fixed prompts: token-identical to
 * (a) the ids the pre-engine greedy decoder (`wasmGreedyDecoder`, commit 46ba935) produced there
 * and (b) a plain argmax over the reference model's logits (cpuForward, one full forward per
 * token), and independent of the seed.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CpuEngine } from '../../src/engine/wasm/wasm_engine';
import { cpuForward } from '../../src/model/cpu_model';
import type { ModelConfig } from '../../src/model/config';
import { Tokenizer } from '../../src/model/tokenizer';
import { decodeBaseCheckpoint } from '../../src/model/checkpoint';

const tok = Tokenizer.fromJSON(JSON.parse(readFileSync(new URL('../../public/tokenizer-v2.json', import.meta.url), 'utf8')));
const end = tok.special('<|end|>');
const MAX_NEW = 24;
const prompts = ['List the files in the workspace and report the total.', 'Read notes/todo.txt and append a line.', 'x'].map((t) =>
  Int32Array.from([tok.special('<bos>'), tok.special('<|user|>'), ...tok.encode(t), end, tok.special('<|assistant|>')]),
);

/** What wasmGreedyDecoder (τ = 0, seed 0, 16 prompts per call) decoded for `prompts` at commit 46ba935. */
const BEFORE = [
  [46, 484, 287, 580, 496, 10, 361, 285, 324, 47, 910, 46, 484, 287, 518, 594, 370, 881, 613, 10, 306, 422, 296, 97],
  [395, 823, 535, 287, 580, 496, 10, 484, 624, 556, 359, 556, 556, 359, 111, 357, 357, 111, 613, 10, 10, 361, 285, 324],
  [888, 273, 626, 732, 426, 732, 790, 790, 998, 998, 998, 998, 998, 998, 998, 998, 46, 333, 111, 102, 311, 275, 882, 311],
];

/** Greedy by the reference model: argmax of the last position's logits, one full forward per token. */
function referenceGreedy(cfg: ModelConfig, params: Float32Array, prompt: Int32Array): number[] {
  const seq = Array.from(prompt);
  const ids: number[] = [];
  while (ids.length < MAX_NEW && seq.length < cfg.maxT) {
    const T = seq.length;
    const { logits } = cpuForward(cfg, params, Int32Array.from(seq), Int32Array.of(T), { B: 1, T });
    const row = logits.subarray((T - 1) * cfg.vocabSize, T * cfg.vocabSize);
    let best = 0;
    for (let v = 1; v < cfg.vocabSize; v++) if (row[v] > row[best]) best = v;
    ids.push(best);
    seq.push(best);
    if (best === end) break;
  }
  return ids;
}

let engine: CpuEngine;
beforeAll(async () => {
  engine = await CpuEngine.create('test', { threads: 2 });
});
afterAll(() => engine.destroy());

describe('greedy decoding = the engine policy at τ = 0 (CPU engine)', () => {
  it('decodes the ids of the old greedy decoder and of the reference argmax, for any seed', async () => {
    const ck = await decodeBaseCheckpoint(new Uint8Array(readFileSync(new URL('../../public/base-mini.ckpt', import.meta.url))));
    const cfg = ck.header.config;
    const policy = engine.createPolicy(cfg, ck.params, 16);
    const a = await policy.sample(prompts, MAX_NEW, 0, 0, end);
    const b = await policy.sample(prompts, MAX_NEW, 0, 987_654, end);
    policy.destroy();
    expect(a.map((r) => Array.from(r.ids))).toEqual(BEFORE);
    expect(b.map((r) => Array.from(r.ids))).toEqual(BEFORE);
    expect(prompts.map((p) => referenceGreedy(cfg, ck.params, p))).toEqual(BEFORE);
  });
});

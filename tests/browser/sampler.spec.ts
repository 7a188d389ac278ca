// Batched sampling with a KV cache (src/engine/webgpu/gpu_sampler.ts) in real Chromium.
import { test, expect } from './fixtures';

const ENTRY = '/tests/browser/sampler.entry.ts';
const tiny = { vocabSize: 259, maxT: 64, C: 32, L: 2, NH: 2 };
interface Close {
  ok: boolean;
  maxAbsErr: number;
}

test('KV-cache decode logits equal the full forward at every step (bit-identical; atol=rtol=1e-5), greedy equals the CPU model', async ({
  gpuPage,
}) => {
  // The decode step runs the full forward's arithmetic (same matmul per-element order, the same
  // `attend` function over the cache), so on one adapter its logits are bit-identical to the
  // full forward's. The atol/rtol check reports the size of any difference first.
  const d = await gpuPage.run<{ first: Close; firstExactFraction: number; worst: Close; exactFraction: number }>(
    ENTRY,
    'decodeVsFull',
    tiny,
    [5, 1, 9],
    6,
    31,
    1e-5,
    1e-5,
  );
  // The first token after the prompt comes from the prefill's lm head on the gathered last rows.
  expect(d.first.ok, JSON.stringify(d.first)).toBe(true);
  expect(d.firstExactFraction, 'fraction of prefill last-row logits bit-identical to the full forward').toBe(1);
  expect(d.worst.ok, JSON.stringify(d)).toBe(true);
  expect(d.exactFraction, 'fraction of decode logits bit-identical to the full forward').toBe(1);

  const g = await gpuPage.run<{ gpu: number[][]; cpu: number[][]; stops: string[] }>(ENTRY, 'greedyVsCpu', tiny, [3, 7, 1], 6, 32);
  expect(g.gpu).toEqual(g.cpu);
  expect(g.stops).toEqual(['length', 'length', 'length']);
});

test('sampled log-probs equal re-scoring by a full forward; entropies equal −Σ p log p of the full forward; rows independent; no-cache path agrees; stops', async ({
  gpuPage,
}) => {
  // τ = 1: the sampler's log-prob is logprob_forward's arithmetic on the same (bit-identical)
  // logits, so re-scoring reproduces it exactly (checked first within atol = rtol = 1e-5).
  const a = await gpuPage.run<{
    logprob: Close;
    entropy: Close;
    exactFraction: number;
    row0Same: boolean;
    noCacheSameIds: boolean;
    stats: { submits: number; steps: number; readbacks: number };
    lengths: number[];
  }>(ENTRY, 'sampledLogprobs', tiny, [4, 9, 2], 6, 1, 1, 33, 1e-5, 1e-5);
  expect(a.logprob.ok, JSON.stringify(a.logprob)).toBe(true);
  // f32 sums on the GPU vs f64 here: atol = rtol = 1e-4.
  expect(a.entropy.ok, `entropy ${JSON.stringify(a.entropy)}`).toBe(true);
  expect(a.row0Same, 'row 0 does not depend on the other rows or the padding').toBe(true);
  expect(a.noCacheSameIds).toBe(true);
  expect(a.lengths).toEqual([6, 6, 6]);
  expect(a.stats.submits).toBe(a.stats.steps); // one submit per token step
  expect(a.stats.readbacks).toBe(a.stats.steps);
  expect(a.exactFraction, 'fraction of sampled log-probs bit-identical to re-scoring').toBe(1);
  // τ = 0.8, top-p 0.9: vs log-softmax(z/τ) over the nucleus recomputed in f64 from the full
  // forward's logits (f32 vs f64 softmax sums): atol = rtol = 1e-4.
  const b = await gpuPage.run<{ logprob: Close; entropy: Close; row0Same: boolean }>(
    ENTRY,
    'sampledLogprobs',
    tiny,
    [3, 5],
    5,
    0.8,
    0.9,
    34,
    1e-4,
    1e-4,
  );
  expect(b.logprob.ok, JSON.stringify(b.logprob)).toBe(true);
  // τ = 0.8, top-p 0.9: the entropy is still the policy's at τ = 1.
  expect(b.entropy.ok, `entropy ${JSON.stringify(b.entropy)}`).toBe(true);
  expect(b.row0Same).toBe(true);

  const s = await gpuPage.run<{ end: number; greedy: number[][]; rows: Array<{ ids: number[]; stop: string }> }>(
    ENTRY,
    'stopping',
    tiny,
    35,
  );
  // Each row equals its greedy continuation cut after the first end token or at its budget.
  const budgets = [6, 6, 2];
  s.rows.forEach((r, b) => {
    const e = s.greedy[b].slice(0, budgets[b]).indexOf(s.end);
    const want = e >= 0 ? { ids: s.greedy[b].slice(0, e + 1), stop: 'end' } : { ids: s.greedy[b].slice(0, budgets[b]), stop: 'length' };
    expect(r, `row ${b}`).toEqual(want);
  });
  expect(s.rows[1].stop).toBe('end');
});

test('a second sample() while one runs is refused with a clear error (no GPU validation error); the first and later calls work', async ({
  gpuPage,
}) => {
  const r = await gpuPage.run<{ second: string; firstIds: number[][]; laterIds: number[][]; errors: string[] }>(
    ENTRY,
    'overlapping',
    tiny,
    36,
  );
  expect(r.second).toBe('Sampler.sample: the previous call has not finished (await each call; the KV cache and buffers are shared)');
  expect(r.errors).toEqual([]);
  expect(r.firstIds.map((x) => x.length)).toEqual([4, 4]);
  expect(r.laterIds).toEqual(r.firstIds); // same seed, same request: the refused call disturbed nothing
});

test('special ids other than the stop id are never sampled (masked); the stop id is and stops its row', async ({ gpuPage }) => {
  const r = await gpuPage.run<{
    tokens: number;
    bannedDrawn: number;
    endDrawn: number;
    stops: string[];
    endsLast: boolean;
    defaultBan: { lo: number; hi: number } | null;
  }>(ENTRY, 'bannedIds', tiny, 37);
  expect(r.tokens).toBeGreaterThan(4);
  expect(r.bannedDrawn).toBe(0);
  expect(r.endDrawn).toBeGreaterThan(0);
  expect(r.stops).toContain('end');
  expect(r.endsLast).toBe(true);
  // The default ban is the tokenizer's specials from 256, clipped to this vocabulary.
  expect(r.defaultBan).toEqual({ lo: 256, hi: 259 });
});

// The GPU model's forward vs the CPU model, and batch-composition invariance (real Chromium).
import { test, expect } from './fixtures';

const ENTRY = '/tests/browser/model_forward.entry.ts';
interface Close {
  ok: boolean;
  maxAbsErr: number;
}

test('GPU forward matches the CPU model (tiny and an odd config) within atol=1e-5, rtol=1e-4', async ({ gpuPage }) => {
  // Logits are O(1) with N(0,0.1²)-perturbed weights; the GPU sums in f32, the CPU references
  // in f64 (rounded once per op). Observed max |Δ| on SwiftShader: 6.6e-7 (logits), 4.8e-7 (values).
  const tiny = { vocabSize: 259, maxT: 256, C: 32, L: 2, NH: 2 };
  const odd = { vocabSize: 131, maxT: 16, C: 48, L: 1, NH: 4 }; // HS = 12, odd V
  for (const [cfg, B, T, lengths] of [
    [tiny, 3, 13, [13, 5, 1]],
    [odd, 2, 7, [7, 4]],
  ] as const) {
    const r = await gpuPage.run<{ logits: Close; values: Close; dispatches: number }>(
      ENTRY,
      'forwardVsCpu',
      cfg,
      B,
      T,
      lengths,
      21,
      1e-5,
      1e-4,
    );
    expect(r.logits.ok, `logits ${JSON.stringify(r.logits)}`).toBe(true);
    expect(r.values.ok, `values ${JSON.stringify(r.values)}`).toBe(true);
    expect(r.dispatches).toBe(4 + 8 * cfg.L); // encoder, 8 per block, lnf, lm head, value head
  }
});

test('log-probs and logits of a row are bit-identical alone and inside a padded batch of 4; bad sizes and ids are named', async ({
  gpuPage,
}) => {
  const tiny = { vocabSize: 259, maxT: 256, C: 32, L: 2, NH: 2 };
  const r = await gpuPage.run<{ lpEqual: boolean; logitsEqual: boolean; lpDiff: number; logitDiff: number; finite: boolean }>(
    ENTRY,
    'batchInvariance',
    tiny,
    11,
    6,
    5,
  );
  expect(r.finite).toBe(true);
  expect(r.lpEqual, JSON.stringify(r)).toBe(true);
  expect(r.logitsEqual, JSON.stringify(r)).toBe(true);
  const msg = await gpuPage.run<string>(ENTRY, 'bindingLimitError');
  expect(msg).toMatch(/h0\.att.*maxStorageBufferBindingSize/);
  const bad = await gpuPage.run<string[]>(ENTRY, 'badInputErrors');
  expect(bad[0]).toMatch(/ids\[3\] = 64 is outside \[0, 64\)/);
  expect(bad[1]).toMatch(/B = 3 must be an integer in \[1, maxB = 2\]/);
  expect(bad[2]).toMatch(/T = 9 must be an integer in \[1, maxT = 8\]/);
  expect(bad[3]).toMatch(/params has 5 values/);
});

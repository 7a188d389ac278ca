// Forward kernels vs their CPU references in real Chromium (WebGPU on SwiftShader).
// Criterion per element: |gpu − ref| ≤ atol + rtol·|ref| (tests/browser/lib/compare.ts allClose).
// The references accumulate in f64 and round once; the GPU accumulates in f32, so the
// tolerances below scale with the reduction length and the magnitudes involved.
// Each test runs all cases of one kernel in one page (one device) to keep the suite fast.
import { test, expect } from './fixtures';

const ENTRY = '/tests/browser/kernels_forward.entry.ts';

interface Close {
  ok: boolean;
  maxAbsErr: number;
  firstBad: number;
  got: number;
  ref: number;
  n: number;
}
type Reports = Record<string, Close>;
type Case = [string, ...unknown[]];

async function runCases<T = Reports>(gpuPage: { run: <R>(p: string, f: string, ...a: unknown[]) => Promise<R> }, cases: Case[]) {
  return gpuPage.run<Array<{ label: string; result: T }>>(ENTRY, 'runCases', cases);
}

function expectAllClose(results: Array<{ label: string; result: Reports }>) {
  for (const { label, result } of results) {
    for (const [k, v] of Object.entries(result)) expect(v.ok, `${label} ${k}: ${JSON.stringify(v)}`).toBe(true);
  }
}

test('encoder_forward (exact), kv_cache_write and gather_rows (exact copies)', async ({ gpuPage }) => {
  // One f32 add per element / a copy on both sides: atol = rtol = 0.
  expectAllClose(
    await runCases(gpuPage, [
      ['encoderCheck', 3, 7, 48, 259, 16, 1], // odd T and V, non-zero offsets
      ['encoderCheck', 1, 16, 32, 64, 16, 2], // T = maxT
      ['kvCacheWriteCheck', 3, 5, 16, 9, 10], // some positions past Tmax are dropped
      ['gatherRowsCheck', 5, 48, 21, 12],
    ]),
  );
});

test('layernorm_forward: normal, odd C, huge, tiny and constant rows', async ({ gpuPage }) => {
  expectAllClose(
    await runCases(gpuPage, [
      ['layernormCheck', 21, 48, 'normal', 2, [1e-5, 1e-5]],
      ['layernormCheck', 7, 7, 'normal', 2, [1e-5, 1e-5]], // odd C
      ['layernormCheck', 9, 128, 'huge', 2, [1e-4, 1e-5]], // x ≈ 1e4: f32 rounding of 1e4-sized sums
      ['layernormCheck', 9, 48, 'tiny', 2, [1e-4, 1e-4]], // var ≈ 1e-6, eps = 1e-5 dominates rstd
      ['layernormCheck', 4, 32, 'const', 2, [1e-5, 1e-5]], // var = 0 exactly: out = b
    ]),
  );
});

test('matmul_forward: vec4 and scalar paths, odd sizes, offsets, bias/none, fused residual, huge/tiny', async ({ gpuPage }) => {
  // f32 dot products of length K with |terms| ≈ scale: atol = 1e-5·max(1,scale)·K/32, rtol = 1e-4.
  const cases: Array<[number, number, number, boolean, boolean, number, number, number]> = [
    [7, 48, 259, true, false, 0, 0, 1], // vec4 path, odd N and M (V = 259)
    [33, 128, 512, true, true, 4, 8, 1], // residual fused, aligned offsets
    [5, 7, 3, false, false, 1, 3, 1], // odd K: scalar path, odd offsets
    [6, 32, 1, true, false, 0, 0, 1], // value head shape M = 1
    [9, 64, 20, true, false, 0, 0, 1e3], // huge inputs
    [9, 64, 20, true, false, 0, 0, 1e-6], // tiny inputs (bias dominates)
  ];
  expectAllClose(
    await runCases(
      gpuPage,
      cases.map(
        ([N, K, M, bias, res, oi, ow, scale]) =>
          ['matmulCheck', N, K, M, bias, res, oi, ow, scale, 3, [1e-5 * Math.max(1, scale) * (K / 32), 1e-4]] as Case,
      ),
    ),
  );
});

test('attention_forward: odd T, T = 1, HS = 64, sharp softmax; att zero above the diagonal', async ({ gpuPage }) => {
  // atol = 1e-5·qScale (scores grow with qScale), rtol = 1e-4.
  const cases: Array<[number, number, number, number, number]> = [
    [2, 7, 48, 4, 1], // odd T, HS = 12
    [1, 1, 16, 1, 1], // a single position
    [3, 19, 64, 1, 1], // HS = 64 (register limit)
    [2, 9, 32, 2, 30], // sharp softmax (scores ≈ ±100)
  ];
  expectAllClose(
    await runCases(
      gpuPage,
      cases.map(([B, T, C, NH, q]) => ['attentionCheck', B, T, C, NH, q, 4, [1e-5 * q, 1e-4]] as Case),
    ),
  );
});

test('gelu_forward, logprob_forward (τ = 1, 1.5, 0.5) and crossentropy_forward incl. ±1e4 logits and padded rows', async ({ gpuPage }) => {
  const r = await runCases(gpuPage, [
    // gelu: n = 1031 incl. 0, ±1e-30, ±1e4, ±1e20, ±3e38 (tanh argument overflows): atol 1e-6, rtol 1e-5.
    ['geluCheck', 1031, 5, [1e-6, 1e-5]],
    // logprob, moderate logits, odd V: atol 1e-5, rtol 1e-5.
    ['logprobCheck', 9, 259, 0, 6, [1e-5, 1e-5]],
    // Rows shifted by ±1e4: the f32 spacing there is 9.8e-4 and z[a] − lse cancels to it: atol 2e-3.
    ['logprobCheck', 12, 1024, 1e4, 7, [2e-3, 1e-6]],
    // At the rollout temperatures the RL trainer scores at (log softmax(z/τ)): same tolerances
    // (at τ = 1.5 the ±1e4 rows shrink to ±6.7e3, whose f32 spacing is below 2e-3).
    ['logprobCheck', 9, 259, 0, 6, [1e-5, 1e-5], 1.5],
    ['logprobCheck', 9, 259, 0, 6, [1e-5, 1e-5], 0.5],
    ['logprobCheck', 12, 1024, 1e4, 7, [2e-3, 1e-6], 1.5],
    // Cross-entropy with fully padded rows (mask 0), a 0.5 weight and ±1e4 rows: atol 2e-3, rtol 1e-5.
    ['crossentropyCheck', 16, 259, 1e4, 'mixed', 8, [2e-3, 1e-5]],
  ]);
  expectAllClose(r);
  // Nothing valid: loss exactly 0 everywhere and mean 0 (not 0/0 = NaN).
  const [z] = await runCases(gpuPage, [['crossentropyCheck', 5, 64, 0, 'zero', 9, [0, 1e-6]]]);
  expect(z.result.loss.ok && z.result.mean.ok, JSON.stringify(z)).toBe(true);
});

test('sample_tokens: ids equal the CPU reference (greedy, τ = 1, 0.7, 1.3 with top-p 0.9); log-probs and entropies within atol 2e-3, rtol 1e-5', async ({
  gpuPage,
}) => {
  // Rows with |z| ≈ 1e4 carry the f32 spacing there (≈ 1e-3/τ) in the log-prob: atol 2e-3.
  const res = await runCases<{ idMismatches: number; distinct: number; logprob: Close; entropy: Close }>(
    gpuPage,
    (
      [
        [0, 1],
        [1, 1],
        [0.7, 1],
        [1.3, 0.9],
      ] as const
    ).map(([temp, topP]) => ['sampleCheck', 6, 259, temp, topP, 8, 11, [2e-3, 1e-5]] as Case),
  );
  res.forEach(({ label, result }, i) => {
    expect(result.idMismatches, label).toBe(0);
    if (i > 0) expect(result.distinct, `${label}: actually random, not stuck on the argmax`).toBeGreaterThan(8);
    expect(result.logprob.ok, `${label}: ${JSON.stringify(result.logprob)}`).toBe(true);
    expect(result.entropy.ok, `${label}: entropy ${JSON.stringify(result.entropy)}`).toBe(true);
  });
});

test('sample_tokens with banned ids (the specials but the stop id): never drawn, the allowed one is; ids and log-probs equal the CPU reference', async ({
  gpuPage,
}) => {
  const ban = { lo: 100, hi: 108, allow: 107 };
  const res = await runCases<{ idMismatches: number; bannedDraws: number; allowDraws: number; logprob: Close }>(
    gpuPage,
    (
      [
        [0, 1],
        [1, 1],
        [1.3, 0.9],
      ] as const
    ).map(([temp, topP]) => ['sampleCheck', 6, 259, temp, topP, 8, 12, [2e-3, 1e-5], ban] as Case),
  );
  res.forEach(({ label, result }) => {
    expect(result.idMismatches, label).toBe(0);
    expect(result.bannedDraws, label).toBe(0);
    expect(result.allowDraws, `${label}: the stop id keeps its mass`).toBeGreaterThan(0);
    expect(result.logprob.ok, `${label}: ${JSON.stringify(result.logprob)}`).toBe(true);
  });
});

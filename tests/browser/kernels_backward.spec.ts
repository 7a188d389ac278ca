// Backward kernels, AdamW and the global norm on real WebGPU vs their CPU references.
// Each check states its tolerance |got − ref| ≤ atol + rtol·|ref| (reported back from the page
// with the errors). Cases are grouped per test so one page compiles each pipeline once.
import { test, expect } from './fixtures';

const ENTRY = '/tests/browser/kernels_backward.entry.ts';

type Rep = { ok: boolean; maxAbsErr: number; firstBad: number; atol: number; rtol: number };
function expectAll(what: string, reports: Record<string, Rep>): void {
  for (const [k, r] of Object.entries(reports)) expect(r.ok, `${what} ${k}: ${JSON.stringify(r)}`).toBe(true);
}

// [N, K, M, dout scale, bias, accumulate dinp]: vec4 tiles with odd N, scalar odd sizes, large
// and tiny upstream gradients, the bias-free tied head, the value head (M = 1) accumulating dinp.
// Tolerance (set in the entry): atol = 1e-5·scale·√max(N,M) + 1e-6, rtol = 1e-4.
const MATMUL: Array<[number, number, number, number, boolean, boolean]> = [
  [7, 12, 20, 1, true, false],
  [5, 3, 7, 1, true, false],
  [33, 32, 64, 1e3, true, false],
  [9, 16, 8, 1e-3, false, false],
  [6, 8, 1, 1, true, true],
];
test('matmul_backward: vec4 and scalar paths, odd sizes, padded rows, large/tiny values, accumulation', async ({ gpuPage }) => {
  for (const [N, K, M, scale, bias, acc] of MATMUL) {
    const what = `N=${N} K=${K} M=${M} scale=${scale} bias=${bias} accDinp=${acc}`;
    const r = await gpuPage.run<{ reports: Record<string, Rep>; vec4: boolean; clean: boolean }>(
      ENTRY,
      'matmulCheck',
      N,
      K,
      M,
      11,
      scale,
      bias,
      acc,
    );
    expectAll(what, r.reports);
    expect(r.vec4, what).toBe(M % 4 === 0 && K % 4 === 0);
    expect(r.clean, `${what}: words outside the tensors untouched`).toBe(true);
  }
});

test('attention_backward: odd T, padded row, sharp and flat softmax (atol 1e-5·max(1,q-scale), rtol 1e-4)', async ({ gpuPage }) => {
  // HS = 4 and 8 with aligned offsets run the vec4 entry points, the rest the scalar ones.
  for (const [B, T, C, NH, qs, aligned] of [
    [2, 7, 12, 3, 1, true],
    [2, 7, 12, 3, 1, false],
    [1, 13, 10, 2, 4, true],
    [3, 5, 8, 1, 0.1, true],
  ] as const) {
    expectAll(
      `B=${B} T=${T} C=${C} NH=${NH} q-scale=${qs} aligned=${aligned}`,
      await gpuPage.run(ENTRY, 'attentionCheck', B, T, C, NH, 5, qs, aligned),
    );
  }
});

test('layernorm_backward (padded, huge and tiny rows; odd C; atol 1e-4, rtol 1e-4) and encoder_backward (atol 1e-5, rtol 1e-5)', async ({
  gpuPage,
}) => {
  expectAll('layernorm', await gpuPage.run(ENTRY, 'layernormCheck', 9, 21, 3));
  expectAll('encoder', await gpuPage.run(ENTRY, 'encoderCheck', 3, 5, 7, 11, 9, 4));
});

test('gelu_backward (huge/tiny/zero inputs), logprob_backward and crossentropy_backward (|z| ≈ 1e4, masked rows)', async ({ gpuPage }) => {
  expectAll('gelu', await gpuPage.run(ENTRY, 'geluCheck', 1001, 2));
  // τ = 1: atol 1e-6, rtol 1e-4. At the rollout temperatures of RL (dlogits = dlogprob·(onehot −
  // softmax(z/τ))/τ) the row of |z| ≈ 1e4 rounds z/τ in f32 (half an ulp at 1e4/0.7 is 4.9e-4,
  // which p = exp(z/τ − lse) carries as a relative error): rtol 1e-3 (measured 1.6e-4 at τ = 1.5).
  expectAll('logprob τ=1', await gpuPage.run(ENTRY, 'logprobCheck', 7, 37, 8, 1, 1e-4));
  for (const tau of [1.5, 0.7]) expectAll(`logprob τ=${tau}`, await gpuPage.run(ENTRY, 'logprobCheck', 7, 37, 8, tau, 1e-3));
  for (const allMasked of [false, true]) {
    expectAll(`crossentropy allMasked=${allMasked}`, await gpuPage.run(ENTRY, 'crossentropyCheck', 8, 29, 9, allMasked));
  }
});

test('adamw_update (three steps, gradScale from a GPU word; atol 1e-6, rtol 1e-5) and global_norm_forward (rtol 1e-5, repeatable bits)', async ({
  gpuPage,
}) => {
  expectAll('adamw', await gpuPage.run(ENTRY, 'adamwCheck', 1003, 12, 0.5));
  for (const maxNorm of [null, 1.0]) {
    const r = await gpuPage.run<{ reports: Record<string, Rep>; repeatable: boolean; scale: number }>(
      ENTRY,
      'globalNormCheck',
      100_003,
      6,
      maxNorm,
    );
    expectAll(`global_norm maxNorm=${maxNorm}`, r.reports);
    expect(r.repeatable, 'two runs give the same bits').toBe(true);
    if (maxNorm === null) expect(r.scale).toBe(1);
    else expect(r.scale).toBeLessThan(1);
  }
});

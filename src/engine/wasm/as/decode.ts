// The sampler's decode step fused into one task: every layer, the final LayerNorm and the LM
// head for B rows, one new token per row (src/engine/wasm/wasm_sampler.ts). The rows are independent, so
// thread tid runs the whole step for its own block of rows and the threads never meet inside
// the step: one wake-up per token instead of one per op (~11 per layer), which is what kept a
// decode step of B = 4 from gaining anything from a second thread.
//
// Each op is the very kernel the per-op path dispatches, called on the thread's rows alone
// (pointers offset to its first row, tid 0 of 1), so the arithmetic per element is the one of
// the per-op kernels: results are identical for any thread count.
//
// `tab` is an i32 table (byte offsets of engine arrays and dims), written by the sampler:
//   0 B, 1 C, 2 NH, 3 L, 4 maxT, 5 V, 6 x (B,C), 7 ln (B,C), 8 mean (B), 9 rstd (B),
//   10 qkv (B,3C), 11 atty (B,C), 12 proj (B,C), 13 fch (B,4C), 14 fchGelu (B,4C), 15 pos (B)
//   (−1: a stopped row), 16 logits (B,V), 17 scratch (threads, maxT), 18 lnfw, 19 lnfb,
//   20 wteᵀ (C,V); the draw (as/sample.ts): 21 uniforms (B), 22 ids (B) i32, 23 logprob (B),
//   24 entropy (B), 25 temperature (f32 bits), 26 top-p (f32 bits), 27 ban lo, 28 ban hi,
//   29 allowed banned id (−1: none), 30 sampling scratch (threads, V); then per layer l, at
//   31 + 14·l: ln1w, ln1b, qkvwᵀ, qkvb, attprojwᵀ, attprojb, ln2w, ln2b, fcwᵀ, fcb, fcprojwᵀ,
//   fcprojb, k cache (B,maxT,C), v cache (B,maxT,C).
// The step ends with each thread drawing its rows' tokens, so the draw runs in parallel too
// (in JavaScript, between steps, it was most of the step's serial time).
import { partLo, partHi } from './partition';
import { layernormForwardTask } from './layernorm';
import { gemmRows } from './matmul';
import { geluForwardTask, addTask } from './elementwise';
import { attentionDecodeTask } from './attention';
import { sampleRow } from './sample';

export const DECODE_HEAD_WORDS: i32 = 31;
export const DECODE_LAYER_WORDS: i32 = 14;

// @ts-ignore: decorator
@inline
function w(tab: usize, i: i32): i32 {
  return load<i32>(tab + (<usize>i << 2));
}
// @ts-ignore: decorator
@inline
function row(p: usize, r: i32, width: i32): usize {
  return p + (<usize>(r * width) << 2);
}

export function decodeStepTask(tab: usize, tid: i32, nth: i32): void {
  const B = w(tab, 0), C = w(tab, 1), NH = w(tab, 2), L = w(tab, 3), maxT = w(tab, 4), V = w(tab, 5);
  const r0 = partLo(B, 1, tid, nth);
  const r1 = partHi(B, 1, tid, nth);
  const n = r1 - r0;
  if (n <= 0) return;
  const x = row(w(tab, 6), r0, C), ln = row(w(tab, 7), r0, C);
  const mean = row(w(tab, 8), r0, 1), rstd = row(w(tab, 9), r0, 1);
  const qkvAll = w(tab, 10), qkv = row(qkvAll, r0, 3 * C);
  const atty = row(w(tab, 11), r0, C), proj = row(w(tab, 12), r0, C);
  const fchAll = w(tab, 13), fchGeluAll = w(tab, 14);
  const pos = row(w(tab, 15), r0, 1);
  const scratch = row(w(tab, 17), tid, maxT);
  for (let l = 0; l < L; l++) {
    const p = tab + (<usize>(DECODE_HEAD_WORDS + DECODE_LAYER_WORDS * l) << 2);
    const kc = <usize>w(p, 12), vc = <usize>w(p, 13);
    layernormForwardTask(x, w(p, 0), w(p, 1), ln, mean, rstd, n, C, 0, 1);
    gemmRows(w(tab, 7), C, 1, w(p, 2), 3 * C, qkvAll, 3 * C, w(p, 3), 1, r0, r1, 3 * C, C, 0);
    for (let r = 0; r < n; r++) {
      const t = load<i32>(pos + (<usize>r << 2));
      if (t < 0) continue;
      const src = row(qkv, r, 3 * C);
      const dst = <usize>(((r0 + r) * maxT + t) * C) << 2;
      memory.copy(kc + dst, src + (<usize>C << 2), <usize>C << 2);
      memory.copy(vc + dst, src + (<usize>(2 * C) << 2), <usize>C << 2);
    }
    attentionDecodeTask(qkv, row(kc, r0, maxT * C), row(vc, r0, maxT * C), pos, atty, scratch, n, maxT, C, NH, 0, 1);
    gemmRows(w(tab, 11), C, 1, w(p, 4), C, w(tab, 12), C, w(p, 5), 1, r0, r1, C, C, 0);
    addTask(x, proj, x, n * C, 0, 1);
    layernormForwardTask(x, w(p, 6), w(p, 7), ln, mean, rstd, n, C, 0, 1);
    gemmRows(w(tab, 7), C, 1, w(p, 8), 4 * C, fchAll, 4 * C, w(p, 9), 1, r0, r1, 4 * C, C, 0);
    geluForwardTask(row(fchAll, r0, 4 * C), row(fchGeluAll, r0, 4 * C), n * 4 * C, 0, 1);
    gemmRows(fchGeluAll, 4 * C, 1, w(p, 10), C, w(tab, 12), C, w(p, 11), 1, r0, r1, C, 4 * C, 0);
    addTask(x, proj, x, n * C, 0, 1);
  }
  layernormForwardTask(x, w(tab, 18), w(tab, 19), ln, mean, rstd, n, C, 0, 1);
  gemmRows(w(tab, 7), C, 1, w(tab, 20), V, w(tab, 16), V, 0, 0, r0, r1, V, C, 0);
  const temperature = reinterpret<f32>(w(tab, 25));
  const topP = reinterpret<f32>(w(tab, 26));
  const e = row(w(tab, 30), tid, V);
  for (let r = r0; r < r1; r++) {
    const o = <usize>r << 2;
    const u = load<f32>(<usize>w(tab, 21) + o);
    sampleRow(row(w(tab, 16), r, V), V, temperature, topP, w(tab, 27), w(tab, 28), w(tab, 29), u, e, <usize>w(tab, 22) + o, <usize>w(tab, 23) + o, <usize>w(tab, 24) + o);
  }
}

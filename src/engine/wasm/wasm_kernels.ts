/**
 * Launchers of the CPU engine's kernels (src/engine/wasm/as/*.ts), one per op and pass, named like
 * their CPU references in src/reference/*.ref.ts (`matmulForward` ↔ `matmulForwardRef`). Each
 * takes typed arguments (engine arrays and dims), checks every array's length against its
 * shape and throws an Error naming the tensor, then dispatches on all engine threads.
 *
 * Layouts are those of docs/KERNELS.md: row-major; weights (M, K) as in PyTorch nn.Linear.
 * The forward matmul reads a transposed copy Wᵀ (K, M) of each weight (see WasmModel), so all
 * products are the one register-tiled GEMM of as/matmul.ts.
 */
import type { Arr, WasmEngine } from './wasm_runtime';
import { f32bits } from './wasm_runtime';
import { checkTemperature } from '../../reference/ref_util';
import type { SampleBan } from '../../reference/sample_tokens.ref';

function need(op: string, name: string, a: Arr, n: number, shape: string): void {
  if (a.length < n) throw new Error(`${op}: ${name} (${a.label}) has ${a.length} values, expected ${shape} = ${n}`);
}
function dim(op: string, name: string, v: number): void {
  if (!Number.isInteger(v) || v <= 0) throw new Error(`${op}: ${name} must be a positive integer, got ${v}`);
}

/** Op codes, read once per engine from the module's exported globals. */
const codes = new WeakMap<WasmEngine, Record<string, number>>();
function op(e: WasmEngine, name: string): number {
  let c = codes.get(e);
  if (!c) codes.set(e, (c = {}));
  return (c[name] ??= e.op(name));
}

/** How C starts in a GEMM: zero, the bias broadcast over rows, or C's current value. */
type GemmInit = 'zero' | 'bias' | 'accumulate';
const INIT: Record<GemmInit, number> = { zero: 0, bias: 1, accumulate: 2 };

interface GemmArgs {
  /** A (rows, K): element (r, k) at offset r·rowStride + k·colStride. */
  a: Arr;
  rowStride: number;
  colStride: number;
  /** B (K, M) row-major. */
  b: Arr;
  /** C (rows, M) row-major. */
  c: Arr;
  bias?: Arr | null;
  init: GemmInit;
}

/**
 * C (rows, M) = init + A (rows, K) · B (K, M), f32, summed over k in increasing order.
 * @throws Error naming the array that is too short or the bad dimension.
 */
export function gemm(e: WasmEngine, g: GemmArgs, rows: number, M: number, K: number): void {
  const o = 'gemm';
  dim(o, 'rows', rows);
  dim(o, 'M', M);
  if (!Number.isInteger(K) || K < 0) throw new Error(`${o}: K must be a non-negative integer, got ${K}`);
  need(o, 'a', g.a, (rows - 1) * g.rowStride + (K - 1) * g.colStride + 1, '(rows,K) through its strides');
  need(o, 'b', g.b, K * M, '(K,M)');
  need(o, 'c', g.c, rows * M, '(rows,M)');
  if (g.init === 'bias') {
    if (!g.bias) throw new Error(`${o}: init 'bias' needs a bias`);
    need(o, 'bias', g.bias, M, '(M)');
  }
  e.dispatch(
    op(e, 'GEMM'),
    [g.a.ptr, g.rowStride, g.colStride, g.b.ptr, M, g.c.ptr, M, g.bias?.ptr ?? 0, INIT[g.init], rows, M, K],
    2 * rows * M * K,
  );
}

/** matmul_forward: out (N,M) = inp (N,K) · Wᵀ + bias, reading weightT = Wᵀ (K,M). */
export function matmulForward(
  e: WasmEngine,
  inp: Arr,
  weightT: Arr,
  bias: Arr | null,
  out: Arr,
  d: { N: number; K: number; M: number },
): void {
  gemm(e, { a: inp, rowStride: d.K, colStride: 1, b: weightT, c: out, bias, init: bias ? 'bias' : 'zero' }, d.N, d.M, d.K);
}

/**
 * matmul_backward: dinp (N,K) = dout (N,M) · W (`dinpInit` 'accumulate' adds to dinp),
 * dweight (M,K) += doutᵀ · inp, dbias (M) += Σ_rows dout (when given).
 */
export function matmulBackward(
  e: WasmEngine,
  dout: Arr,
  inp: Arr,
  weight: Arr,
  g: { dinp: Arr | null; dweight: Arr; dbias: Arr | null; dinpInit?: GemmInit },
  d: { N: number; K: number; M: number },
): void {
  const { N, K, M } = d;
  if (g.dinp) gemm(e, { a: dout, rowStride: M, colStride: 1, b: weight, c: g.dinp, init: g.dinpInit ?? 'zero' }, N, K, M);
  gemm(e, { a: dout, rowStride: 1, colStride: M, b: inp, c: g.dweight, init: 'accumulate' }, M, K, N);
  if (g.dbias) {
    need('matmulBackward', 'dout', dout, N * M, '(N,M)');
    need('matmulBackward', 'dbias', g.dbias, M, '(M)');
    e.dispatch(op(e, 'BIAS_GRAD'), [dout.ptr, g.dbias.ptr, N, M], N * M);
  }
}

/** dst (C, R) = srcᵀ for src (R, C). */
export function transpose(e: WasmEngine, src: Arr, dst: Arr, R: number, C: number): void {
  need('transpose', 'src', src, R * C, '(R,C)');
  need('transpose', 'dst', dst, R * C, '(C,R)');
  e.dispatch(op(e, 'TRANSPOSE'), [src.ptr, dst.ptr, R, C], 4 * R * C);
}

export function layernormForward(
  e: WasmEngine,
  inp: Arr,
  w: Arr,
  b: Arr,
  out: Arr,
  mean: Arr,
  rstd: Arr,
  d: { N: number; C: number },
): void {
  const o = 'layernormForward';
  need(o, 'inp', inp, d.N * d.C, '(N,C)');
  need(o, 'out', out, d.N * d.C, '(N,C)');
  need(o, 'w', w, d.C, '(C)');
  need(o, 'b', b, d.C, '(C)');
  need(o, 'mean', mean, d.N, '(N)');
  need(o, 'rstd', rstd, d.N, '(N)');
  e.dispatch(op(e, 'LAYERNORM_FORWARD'), [inp.ptr, w.ptr, b.ptr, out.ptr, mean.ptr, rstd.ptr, d.N, d.C], 8 * d.N * d.C);
}

/** layernorm_backward: dinp += …, dw += …, db += … (llm.c formulation, as layernormBackwardRef). */
export function layernormBackward(
  e: WasmEngine,
  dout: Arr,
  inp: Arr,
  w: Arr,
  mean: Arr,
  rstd: Arr,
  g: { dinp: Arr; dw: Arr; db: Arr },
  d: { N: number; C: number },
): void {
  const o = 'layernormBackward';
  need(o, 'dout', dout, d.N * d.C, '(N,C)');
  need(o, 'inp', inp, d.N * d.C, '(N,C)');
  need(o, 'dinp', g.dinp, d.N * d.C, '(N,C)');
  need(o, 'dw', g.dw, d.C, '(C)');
  need(o, 'db', g.db, d.C, '(C)');
  e.dispatch(op(e, 'LAYERNORM_BACKWARD_DINP'), [dout.ptr, inp.ptr, w.ptr, mean.ptr, rstd.ptr, g.dinp.ptr, d.N, d.C], 12 * d.N * d.C);
  e.dispatch(op(e, 'LAYERNORM_BACKWARD_DWDB'), [dout.ptr, inp.ptr, mean.ptr, rstd.ptr, g.dw.ptr, g.db.ptr, d.N, d.C], 6 * d.N * d.C);
}

export function geluForward(e: WasmEngine, inp: Arr, out: Arr, n: number): void {
  need('geluForward', 'inp', inp, n, '(n)');
  need('geluForward', 'out', out, n, '(n)');
  e.dispatch(op(e, 'GELU_FORWARD'), [inp.ptr, out.ptr, n], 20 * n);
}

/** dinp = dout·GELU'(inp); dinp may alias dout. */
export function geluBackward(e: WasmEngine, dout: Arr, inp: Arr, dinp: Arr, n: number): void {
  need('geluBackward', 'dout', dout, n, '(n)');
  need('geluBackward', 'inp', inp, n, '(n)');
  need('geluBackward', 'dinp', dinp, n, '(n)');
  e.dispatch(op(e, 'GELU_BACKWARD'), [dout.ptr, inp.ptr, dinp.ptr, n], 30 * n);
}

/** residual_forward: out = a + b (out may alias a). */
export function residualForward(e: WasmEngine, a: Arr, b: Arr, out: Arr, n: number): void {
  need('residualForward', 'a', a, n, '(n)');
  need('residualForward', 'b', b, n, '(n)');
  need('residualForward', 'out', out, n, '(n)');
  e.dispatch(op(e, 'ADD'), [a.ptr, b.ptr, out.ptr, n], n);
}

/** dst (S,C) row s = src row idx[s]; idx (S) i32 in [0, rows of src). */
export function gatherRows(e: WasmEngine, src: Arr, idx: Arr, dst: Arr, S: number, C: number): void {
  need('gatherRows', 'idx', idx, S, '(S)');
  need('gatherRows', 'dst', dst, S * C, '(S,C)');
  e.dispatch(op(e, 'GATHER_ROWS'), [src.ptr, idx.ptr, dst.ptr, S, C], S * C);
}

/** dst row idx[s] += src row s; idx distinct. */
export function scatterAddRows(e: WasmEngine, src: Arr, idx: Arr, dst: Arr, S: number, C: number): void {
  need('scatterAddRows', 'idx', idx, S, '(S)');
  need('scatterAddRows', 'src', src, S * C, '(S,C)');
  e.dispatch(op(e, 'SCATTER_ADD_ROWS'), [src.ptr, idx.ptr, dst.ptr, S, C], S * C);
}

export function encoderForward(e: WasmEngine, ids: Arr, wte: Arr, wpe: Arr, out: Arr, d: { B: number; T: number; C: number }): void {
  need('encoderForward', 'ids', ids, d.B * d.T, '(B,T)');
  need('encoderForward', 'out', out, d.B * d.T * d.C, '(B,T,C)');
  e.dispatch(op(e, 'ENCODER_FORWARD'), [ids.ptr, wte.ptr, wpe.ptr, out.ptr, d.B, d.T, d.C], d.B * d.T * d.C);
}

/** dwte[ids] += dout, dwpe[t] += dout (rows in increasing order). */
export function encoderBackward(e: WasmEngine, dout: Arr, ids: Arr, dwte: Arr, dwpe: Arr, d: { B: number; T: number; C: number }): void {
  need('encoderBackward', 'dout', dout, d.B * d.T * d.C, '(B,T,C)');
  e.dispatch(op(e, 'ENCODER_BACKWARD'), [dout.ptr, ids.ptr, dwte.ptr, dwpe.ptr, d.B, d.T, d.C], 2 * d.B * d.T * d.C);
}

interface AttentionDims {
  B: number;
  T: number;
  C: number;
  NH: number;
}

/** out (B,T,C), att (B,NH,T,T) from qkv (B,T,3C); positions ≥ lengths[b] give 0. scratch: threads·2·HS·T floats (the head's kᵀ and v). */
export function attentionForward(e: WasmEngine, qkv: Arr, out: Arr, att: Arr, lengths: Arr, scratch: Arr, d: AttentionDims): void {
  const o = 'attentionForward';
  if (d.C % d.NH !== 0) throw new Error(`${o}: C = ${d.C} must be divisible by NH = ${d.NH}`);
  need(o, 'qkv', qkv, d.B * d.T * 3 * d.C, '(B,T,3C)');
  need(o, 'out', out, d.B * d.T * d.C, '(B,T,C)');
  need(o, 'att', att, d.B * d.NH * d.T * d.T, '(B,NH,T,T)');
  need(o, 'lengths', lengths, d.B, '(B)');
  need(o, 'scratch', scratch, e.threads * 2 * (d.C / d.NH) * d.T, '(threads,2·HS,T)');
  e.dispatch(
    op(e, 'ATTENTION_FORWARD'),
    [qkv.ptr, out.ptr, att.ptr, lengths.ptr, scratch.ptr, d.B, d.T, d.C, d.NH],
    2 * d.B * d.T * d.T * d.C,
  );
}

/** dqkv (B,T,3C) written; scratch holds threads·(HS+T)·T floats. */
export function attentionBackward(
  e: WasmEngine,
  dout: Arr,
  qkv: Arr,
  att: Arr,
  dqkv: Arr,
  lengths: Arr,
  scratch: Arr,
  d: AttentionDims,
): void {
  const o = 'attentionBackward';
  need(o, 'dout', dout, d.B * d.T * d.C, '(B,T,C)');
  need(o, 'dqkv', dqkv, d.B * d.T * 3 * d.C, '(B,T,3C)');
  need(o, 'scratch', scratch, e.threads * (d.C / d.NH + d.T) * d.T, '(threads,HS+T,T)');
  e.dispatch(
    op(e, 'ATTENTION_BACKWARD'),
    [dout.ptr, qkv.ptr, att.ptr, dqkv.ptr, lengths.ptr, scratch.ptr, d.B, d.T, d.C, d.NH],
    4 * d.B * d.T * d.T * d.C,
  );
}

/**
 * The sampler's fused decode step (as/decode.ts): every layer, the final LayerNorm, the LM head
 * and the draw of one token per row (as sampleTokens) for B rows, each thread taking a block of
 * rows. `table` holds the pointers and dims in the layout of as/decode.ts (31 + 14·L words; the
 * draw's words from `sampleDrawWords`). Work (flops, for the serial/parallel choice):
 * B·(24·L·C² + 2·C·V + 4·L·C·workT + 30·V); one row runs on the calling thread alone.
 */
export function decodeStepFused(e: WasmEngine, table: Arr, d: { C: number; L: number; vocabSize: number }, B: number, workT: number): void {
  const words = e.constant('DECODE_TABLE_HEAD') + e.constant('DECODE_TABLE_LAYER') * d.L;
  need('decodeStepFused', 'table', table, words, '(31 + 14·L)');
  const work = B < 2 ? 0 : B * (24 * d.L * d.C * d.C + 2 * d.C * d.vocabSize + 4 * d.L * d.C * workT + 30 * d.vocabSize);
  e.dispatch(op(e, 'DECODE_STEP'), [table.ptr], work);
}

/** How tokens are drawn (sampleTokensRef's options less the seed, which is in the uniforms). */
export interface SampleDraw {
  /** τ ≥ 0 (0: greedy). */
  temperature: number;
  /** Nucleus mass in (0, 1]. */
  topP: number;
  /** Ids lo ≤ id < hi other than `allow` are never drawn. */
  ban?: SampleBan;
}

/** The draw's engine arrays for B rows: uniforms (B) in, ids (B) i32, logprob (B), entropy (B) out; scratch V floats per thread. */
export interface SampleArrays {
  uniforms: Arr;
  ids: Arr;
  logprob: Arr;
  entropy: Arr;
  scratch: Arr;
}

/**
 * The draw's i32 words as the kernel reads them: τ and top-p as f32 bits, ban lo, hi, allow (−1:
 * none; lo = hi = 0 without a ban).
 * @throws Error naming the bad temperature or top-p, or a ban that leaves no id of [0, V).
 */
export function sampleDrawWords(op: string, d: SampleDraw, V: number): number[] {
  if (!(Number.isFinite(d.temperature) && d.temperature >= 0))
    throw new Error(`${op}: temperature must be finite and ≥ 0, got ${d.temperature}`);
  if (!(d.topP > 0 && d.topP <= 1)) throw new Error(`${op}: topP must be in (0,1], got ${d.topP}`);
  const lo = d.ban?.lo ?? 0;
  const hi = d.ban?.hi ?? 0;
  const allow = d.ban?.allow ?? -1;
  if (lo <= 0 && hi >= V && !(allow >= 0 && allow < V)) throw new Error(`${op}: the ban [${lo}, ${hi}) leaves no id to draw`);
  return [f32bits(d.temperature), f32bits(d.topP), lo, hi, allow];
}

/**
 * sample_tokens: row b of logits (B,V) → ids[b] i32, logprob[b] and entropy[b] (nats), drawn with
 * the uniform uniforms[b] = sampleUniform(seed, row, step): sampleTokensRef's math in f32
 * (as/sample.ts; the reference documents it and sums in f64).
 * @throws Error naming a short array, a bad temperature or top-p, or a ban that leaves no id.
 */
export function sampleTokens(e: WasmEngine, logits: Arr, a: SampleArrays, d: { B: number; V: number } & SampleDraw): void {
  const o = 'sampleTokens';
  dim(o, 'B', d.B);
  dim(o, 'V', d.V);
  need(o, 'logits', logits, d.B * d.V, '(B,V)');
  for (const k of ['uniforms', 'ids', 'logprob', 'entropy'] as const) need(o, k, a[k], d.B, '(B)');
  need(o, 'scratch', a.scratch, e.threads * d.V, '(threads,V)');
  const words = sampleDrawWords(o, d, d.V);
  e.dispatch(
    op(e, 'SAMPLE_TOKENS'),
    [logits.ptr, d.V, d.B, a.uniforms.ptr, a.ids.ptr, a.logprob.ptr, a.entropy.ptr, a.scratch.ptr, ...words],
    d.B < 2 ? 0 : 30 * d.B * d.V,
  );
}

/**
 * lse (S) = logsumexp(z/τ), logp (S) = z[target]/τ − lse of logits (S,V) at temperature τ
 * (d.temperature, default 1; logprobForwardRef). @throws Error naming a short array or a bad τ.
 */
export function logprobForward(
  e: WasmEngine,
  logits: Arr,
  targets: Arr,
  lse: Arr,
  logp: Arr,
  d: { S: number; V: number; temperature?: number },
): void {
  const o = 'logprobForward';
  need(o, 'logits', logits, d.S * d.V, '(S,V)');
  need(o, 'targets', targets, d.S, '(S)');
  need(o, 'lse', lse, d.S, '(S)');
  need(o, 'logp', logp, d.S, '(S)');
  const tau = d.temperature ?? 1;
  checkTemperature(o, tau);
  e.dispatch(op(e, 'LOGPROB_FORWARD'), [logits.ptr, targets.ptr, lse.ptr, logp.ptr, d.S, d.V, f32bits(tau)], 20 * d.S * d.V);
}

/**
 * dlogits (S,V) = (coef[s]/τ)·(softmax(z/τ) − onehot(target)) with the lse of logprobForward at
 * the same τ (d.temperature, default 1); may alias logits. RL passes coef = −∂L/∂ℓ, so this is
 * −logprobBackwardRef(…, coef, τ). @throws Error naming a short array or a bad τ.
 */
export function logprobBackward(
  e: WasmEngine,
  logits: Arr,
  targets: Arr,
  lse: Arr,
  coef: Arr,
  dlogits: Arr,
  d: { S: number; V: number; temperature?: number },
): void {
  const o = 'logprobBackward';
  need(o, 'coef', coef, d.S, '(S)');
  need(o, 'dlogits', dlogits, d.S * d.V, '(S,V)');
  const tau = d.temperature ?? 1;
  checkTemperature(o, tau);
  e.dispatch(op(e, 'LOGPROB_BACKWARD'), [logits.ptr, targets.ptr, lse.ptr, coef.ptr, dlogits.ptr, d.S, d.V, f32bits(tau)], 20 * d.S * d.V);
}

/**
 * global_norm_forward: Σ x² over n values, as f32 partial sums of fixed chunks summed in chunk
 * order in f64 (independent of the thread count). `partials` holds ⌈n / chunk⌉ floats.
 */
export function sumOfSquares(e: WasmEngine, x: Arr, n: number, partials: Arr): number {
  const chunk = e.constant('SUMSQ_CHUNK_SIZE');
  const k = Math.ceil(n / chunk);
  need('sumOfSquares', 'partials', partials, k, '(⌈n/chunk⌉)');
  e.dispatch(op(e, 'SUMSQ'), [x.ptr, n, partials.ptr], 2 * n);
  const p = partials.f32();
  let s = 0;
  for (let i = 0; i < k; i++) s += p[i];
  return s;
}

interface AdamwArgs {
  lr: number;
  beta1: number;
  beta2: number;
  eps: number;
  /** 1-based step (bias corrections). */
  step: number;
  gradScale: number;
}

/** adamw_update in place on params, m, v, with per-element decay coefficients λ_i (as adamwUpdateRef with λ = decay[i]). */
export function adamwUpdate(e: WasmEngine, params: Arr, grads: Arr, m: Arr, v: Arr, decay: Arr, n: number, a: AdamwArgs): void {
  for (const [k, x] of [
    ['grads', grads],
    ['m', m],
    ['v', v],
    ['decay', decay],
    ['params', params],
  ] as const)
    need('adamwUpdate', k, x, n, '(P)');
  const bc1 = 1 - Math.pow(a.beta1, a.step);
  const bc2 = 1 - Math.pow(a.beta2, a.step);
  e.dispatch(
    op(e, 'ADAMW'),
    [
      params.ptr,
      grads.ptr,
      m.ptr,
      v.ptr,
      decay.ptr,
      n,
      f32bits(a.lr),
      f32bits(a.beta1),
      f32bits(a.beta2),
      f32bits(a.eps),
      f32bits(bc1),
      f32bits(bc2),
      f32bits(a.gradScale),
    ],
    20 * n,
  );
}

/**
 * The policy transformer on the CPU, composed only from the per-op kernel references
 * (src/reference/*.ref.ts), in the same order the GPU engine dispatches them. It is the
 * reference the WGSL training step is compared against, and a slow but exact fallback.
 *
 * Architecture (docs/KERNELS.md "Model"): x = wte[ids] + wpe[t]; per block
 *   x ← x + attproj(attention(qkv(LN1(x))));  x ← x + fcproj(gelu(fc(LN2(x))));
 * then h = LNf(x), logits = h·wteᵀ (tied, no bias), value = h·valuewᵀ + valueb.
 *
 * Works in f32 (Float32Array params, what the GPU uses) or f64 (Float64Array params, used by
 * the finite-difference test); every activation has the type of `params`.
 */
import { encoderForwardRef, type EncoderDims } from '../reference/encoder_forward.ref';
import { encoderBackwardRef } from '../reference/encoder_backward.ref';
import { layernormForwardRef } from '../reference/layernorm_forward.ref';
import { layernormBackwardRef } from '../reference/layernorm_backward.ref';
import { matmulForwardRef } from '../reference/matmul_forward.ref';
import { matmulBackwardRef } from '../reference/matmul_backward.ref';
import { attentionForwardRef } from '../reference/attention_forward.ref';
import { attentionBackwardRef } from '../reference/attention_backward.ref';
import { geluForwardRef } from '../reference/gelu_forward.ref';
import { geluBackwardRef } from '../reference/gelu_backward.ref';
import { crossentropyForwardRef, crossentropyScale } from '../reference/crossentropy_forward.ref';
import { crossentropyBackwardRef } from '../reference/crossentropy_backward.ref';
import { adamwUpdateRef } from '../reference/adamw_update.ref';
import { globalNormForwardRef } from '../reference/global_norm_forward.ref';
import { alloc, checkLen, type Floats } from '../reference/ref_util';
import { validateConfig, type ModelConfig } from './config';
import { paramLayout, paramView, type ParamLayout } from './layout';
import type { OptimizerStep } from './optimizer';

/** Batch shape: B rows of T positions, right-padded. */
interface BatchDims {
  B: number;
  T: number;
}

/** Activations of one block saved for the backward pass. */
interface BlockCache<A extends Floats> {
  /** Block input (residual stream) (N,C). */
  x: A;
  ln1: A;
  ln1Mean: A;
  ln1Rstd: A;
  /** (N,3C) */
  qkv: A;
  /** Attention output before the projection (N,C). */
  atty: A;
  /** Softmax probabilities (B,NH,T,T). */
  att: A;
  /** Residual after the attention sub-block (N,C). */
  x2: A;
  ln2: A;
  ln2Mean: A;
  ln2Rstd: A;
  /** MLP pre-activation (N,4C) and its GELU. */
  fch: A;
  fchGelu: A;
}

/** Everything cpuBackward needs from the forward pass. */
interface ForwardCache<A extends Floats> {
  cfg: ModelConfig;
  dims: BatchDims;
  ids: Int32Array;
  lengths: Int32Array;
  blocks: BlockCache<A>[];
  /** Residual stream after the last block (N,C). */
  xL: A;
  lnf: A;
  lnfMean: A;
  lnfRstd: A;
}

interface ForwardResult<A extends Floats> {
  /** (B,T,V) next-token logits. */
  logits: A;
  /** (B,T) value-head outputs. */
  values: A;
  cache: ForwardCache<A>;
}

const layoutCache = new WeakMap<ModelConfig, ParamLayout>();
function layoutOf(cfg: ModelConfig): ParamLayout {
  let l = layoutCache.get(cfg);
  if (!l) {
    l = paramLayout(cfg);
    layoutCache.set(cfg, l);
  }
  return l;
}

/** out = a + b elementwise (the residual add; generic over f32/f64). */
function residualAdd<A extends Floats>(a: A, b: A): A {
  const out = alloc(a, a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i] + b[i];
  return out;
}

/**
 * @throws Error naming the bad argument: ids (B,T) in [0, V), lengths (B) in [0, T], T ≤ maxT.
 */
function checkBatch(op: string, cfg: ModelConfig, ids: Int32Array, lengths: Int32Array, d: BatchDims): void {
  for (const k of ['B', 'T'] as const) {
    if (!Number.isInteger(d[k]) || d[k] <= 0) throw new Error(`${op}: ${k} must be a positive integer, got ${d[k]}`);
  }
  if (d.T > cfg.maxT) throw new Error(`${op}: T = ${d.T} exceeds ModelConfig.maxT = ${cfg.maxT}`);
  checkLen(op, 'ids', ids, d.B * d.T, '(B,T)');
  checkLen(op, 'lengths', lengths, d.B, '(B)');
  for (let b = 0; b < d.B; b++) {
    if (!(lengths[b] >= 0 && lengths[b] <= d.T)) throw new Error(`${op}: lengths[${b}] = ${lengths[b]} is outside [0, T = ${d.T}]`);
  }
}

/**
 * Full forward pass.
 *
 * Row b holds `lengths[b]` valid tokens followed by padding (any valid id, e.g. <pad>). The
 * attention is causal and rows are right-padded, so the outputs at valid positions do not
 * depend on the padding nor on the other rows (bit-identical; tested). Outputs at padded
 * positions are computed like any other and are meaningless: losses must mask them.
 * @param params (P) laid out by paramLayout(cfg)
 * @param ids (B,T) i32 in [0, V)
 * @param lengths (B) i32 in [0, T]
 * @returns logits (B,T,V), values (B,T), and the activation cache for cpuBackward
 * @throws Error naming the bad argument or config field.
 */
export function cpuForward<A extends Floats>(
  cfg: ModelConfig,
  params: A,
  ids: Int32Array,
  lengths: Int32Array,
  dims: BatchDims,
): ForwardResult<A> {
  const op = 'cpuForward';
  validateConfig(cfg);
  const layout = layoutOf(cfg);
  checkLen(op, 'params', params, layout.total, 'paramCount(cfg)');
  checkBatch(op, cfg, ids, lengths, dims);
  const { B, T } = dims;
  const { C, NH, L, vocabSize: V, maxT } = cfg;
  const N = B * T;
  const p = (name: string) => paramView(params, layout, name);
  const enc: EncoderDims = { B, T, C, V, maxT };
  let x = encoderForwardRef(ids, p('wte'), p('wpe'), enc);
  const blocks: BlockCache<A>[] = [];
  for (let l = 0; l < L; l++) {
    const h = `h${l}.`;
    const ln1 = layernormForwardRef(x, p(h + 'ln1w'), p(h + 'ln1b'), { N, C });
    const qkv = matmulForwardRef(ln1.out, p(h + 'qkvw'), p(h + 'qkvb'), { N, K: C, M: 3 * C });
    const at = attentionForwardRef(qkv, { B, T, C, NH });
    const proj = matmulForwardRef(at.out, p(h + 'attprojw'), p(h + 'attprojb'), { N, K: C, M: C });
    const x2 = residualAdd(x, proj);
    const ln2 = layernormForwardRef(x2, p(h + 'ln2w'), p(h + 'ln2b'), { N, C });
    const fch = matmulForwardRef(ln2.out, p(h + 'fcw'), p(h + 'fcb'), { N, K: C, M: 4 * C });
    const fchGelu = geluForwardRef(fch);
    const fcproj = matmulForwardRef(fchGelu, p(h + 'fcprojw'), p(h + 'fcprojb'), { N, K: 4 * C, M: C });
    blocks.push({
      x,
      ln1: ln1.out,
      ln1Mean: ln1.mean,
      ln1Rstd: ln1.rstd,
      qkv,
      atty: at.out,
      att: at.att,
      x2,
      ln2: ln2.out,
      ln2Mean: ln2.mean,
      ln2Rstd: ln2.rstd,
      fch,
      fchGelu,
    });
    x = residualAdd(x2, fcproj);
  }
  const lnf = layernormForwardRef(x, p('lnfw'), p('lnfb'), { N, C });
  const logits = matmulForwardRef(lnf.out, p('wte'), null, { N, K: C, M: V });
  const values = matmulForwardRef(lnf.out, p('valuew'), p('valueb'), { N, K: C, M: 1 });
  return {
    logits,
    values,
    cache: { cfg, dims, ids, lengths, blocks, xL: x, lnf: lnf.out, lnfMean: lnf.mean, lnfRstd: lnf.rstd },
  };
}

/**
 * Full backward pass: the gradient of a scalar loss whose gradients w.r.t. the logits and the
 * values are `dlogits` and `dvalues`, w.r.t. every parameter.
 * @param params (P) the parameters the forward used
 * @param cache from cpuForward
 * @param dlogits (B,T,V)
 * @param dvalues (B,T), or null when the loss does not use the value head
 * @returns grads (P), a fresh buffer laid out like params
 * @throws Error naming the argument on a size mismatch.
 */
export function cpuBackward<A extends Floats>(params: A, cache: ForwardCache<A>, dlogits: A, dvalues: A | null): A {
  const op = 'cpuBackward';
  const { cfg, dims, ids } = cache;
  const layout = layoutOf(cfg);
  checkLen(op, 'params', params, layout.total, 'paramCount(cfg)');
  const { B, T } = dims;
  const { C, NH, L, vocabSize: V, maxT } = cfg;
  const N = B * T;
  checkLen(op, 'dlogits', dlogits, N * V, '(B,T,V)');
  if (dvalues !== null) checkLen(op, 'dvalues', dvalues, N, '(B,T)');
  const grads = alloc(params, layout.total);
  const p = (name: string) => paramView(params, layout, name);
  const g = (name: string) => paramView(grads, layout, name);

  // Heads: tied lm head (no bias) and value head both read the final LayerNorm output.
  const dlnf = matmulBackwardRef(dlogits, cache.lnf, p('wte'), { N, K: C, M: V }, { dweight: g('wte'), dbias: null }).dinp;
  if (dvalues !== null) {
    const dv = matmulBackwardRef(dvalues, cache.lnf, p('valuew'), { N, K: C, M: 1 }, { dweight: g('valuew'), dbias: g('valueb') });
    for (let i = 0; i < dlnf.length; i++) dlnf[i] += dv.dinp[i];
  }
  // dres: gradient of the residual stream, accumulated by each LayerNorm backward.
  const dres = alloc(params, N * C);
  layernormBackwardRef(dlnf, cache.xL, p('lnfw'), cache.lnfMean, cache.lnfRstd, { N, C }, { dinp: dres, dw: g('lnfw'), db: g('lnfb') });
  for (let l = L - 1; l >= 0; l--) {
    const h = `h${l}.`;
    const c = cache.blocks[l];
    // x3 = x2 + fcproj(gelu(fc(LN2(x2)))): dres is d x3 = d fcproj.
    const dfcg = matmulBackwardRef(
      dres,
      c.fchGelu,
      p(h + 'fcprojw'),
      { N, K: 4 * C, M: C },
      { dweight: g(h + 'fcprojw'), dbias: g(h + 'fcprojb') },
    ).dinp;
    const dfch = geluBackwardRef(dfcg, c.fch);
    const dln2 = matmulBackwardRef(dfch, c.ln2, p(h + 'fcw'), { N, K: C, M: 4 * C }, { dweight: g(h + 'fcw'), dbias: g(h + 'fcb') }).dinp;
    layernormBackwardRef(dln2, c.x2, p(h + 'ln2w'), c.ln2Mean, c.ln2Rstd, { N, C }, { dinp: dres, dw: g(h + 'ln2w'), db: g(h + 'ln2b') });
    // dres is now d x2; x2 = x + attproj(attention(qkv(LN1(x)))).
    const datty = matmulBackwardRef(
      dres,
      c.atty,
      p(h + 'attprojw'),
      { N, K: C, M: C },
      { dweight: g(h + 'attprojw'), dbias: g(h + 'attprojb') },
    ).dinp;
    const dqkv = attentionBackwardRef(datty, c.qkv, c.att, { B, T, C, NH });
    const dln1 = matmulBackwardRef(
      dqkv,
      c.ln1,
      p(h + 'qkvw'),
      { N, K: C, M: 3 * C },
      { dweight: g(h + 'qkvw'), dbias: g(h + 'qkvb') },
    ).dinp;
    layernormBackwardRef(dln1, c.x, p(h + 'ln1w'), c.ln1Mean, c.ln1Rstd, { N, C }, { dinp: dres, dw: g(h + 'ln1w'), db: g(h + 'ln1b') });
  }
  encoderBackwardRef(dres, ids, { B, T, C, V, maxT }, { dwte: g('wte'), dwpe: g('wpe') });
  return grads;
}

/**
 * Next-token targets and loss mask for SFT on right-padded rows: position t of row b predicts
 * ids[b,t+1] and counts iff t+1 < lengths[b] (and, when `lossMask` is given, iff the predicted
 * token has lossMask[b,t+1] > 0, e.g. 1 on sampled/expert action tokens, 0 on context;
 * docs/ARCHITECTURE.md "Rows and trajectories"). Positions that do not count get target 0 and mask 0.
 * @param ids (B,T) i32 @param lengths (B) i32 @param lossMask optional (B,T) f32 weights ≥ 0
 * @returns targets (B·T) i32, mask (B·T) f32
 */
export function sftTargets(
  ids: Int32Array,
  lengths: Int32Array,
  dims: BatchDims,
  lossMask?: Float32Array,
): { targets: Int32Array; mask: Float32Array } {
  const { B, T } = dims;
  checkLen('sftTargets', 'ids', ids, B * T, '(B,T)');
  checkLen('sftTargets', 'lengths', lengths, B, '(B)');
  if (lossMask) checkLen('sftTargets', 'lossMask', lossMask, B * T, '(B,T)');
  const targets = new Int32Array(B * T);
  const mask = new Float32Array(B * T);
  for (let b = 0; b < B; b++) {
    for (let t = 0; t + 1 < Math.min(lengths[b], T); t++) {
      const i = b * T + t;
      const w = lossMask ? lossMask[i + 1] : 1;
      if (w > 0) {
        targets[i] = ids[i + 1];
        mask[i] = w;
      }
    }
  }
  return { targets, mask };
}

/**
 * Token-mean cross-entropy (nats/token) of logits against targets under mask, and its gradient:
 * crossentropy_forward then crossentropy_backward with scale 1/Σmask (0 if nothing is valid).
 * @param logits (N,V) @param targets (N) i32 @param mask (N) f32
 * @returns loss (number), dlogits (N,V) of the logits' type
 */
export function sftLoss<A extends Floats>(
  cfg: ModelConfig,
  logits: A,
  targets: Int32Array,
  mask: Float32Array,
): { loss: number; dlogits: A } {
  const N = targets.length;
  const d = { N, V: cfg.vocabSize };
  const m = (logits instanceof Float64Array ? Float64Array.from(mask) : mask) as A;
  const f = crossentropyForwardRef(logits, targets, m, d);
  const dlogits = crossentropyBackwardRef(logits, targets, m, f.lse, crossentropyScale(m), d);
  return { loss: f.meanLoss, dlogits };
}

/**
 * One optimizer step over the flat buffers, in place: global_norm_forward, then adamw_update
 * with gradScale = min(1, maxNorm/(norm + 1e-6)).
 * @param params,grads,m,v (P) each
 * @returns the pre-clipping gradient norm and the gradScale applied
 * @throws Error naming a bad size or hyper-parameter, or when the gradient norm is not finite
 *   (nothing is modified then).
 */
export function cpuAdamwStep(params: Floats, grads: Floats, m: Floats, v: Floats, hp: OptimizerStep): { norm: number; gradScale: number } {
  const { norm, gradScale } = globalNormForwardRef(grads, hp.maxNorm);
  if (!Number.isFinite(norm)) throw new Error(`cpuAdamwStep: gradient norm is ${norm}; step ${hp.step} skipped, parameters unchanged`);
  adamwUpdateRef(params, grads, m, v, { ...hp, gradScale });
  return { norm, gradScale };
}

/**
 * The transformer trunk of GpuModel (gpu_model.ts) as prepared dispatches: the activation buffers
 * a forward writes (allocated once for (maxB, maxT), packed densely as (B, T, …) for a smaller
 * shape), and the encoder, the L blocks and the final LayerNorm that write them, either over a
 * whole (B,T) batch or as one decode step of B rows against a KV cache. The heads (lm head, value
 * head, log-probs) and the KV-cache prefill stay with the model.
 */
import type { Gpu } from './device';
import { createStorage } from './buffers';
import type { PreparedDispatch, TensorView } from './kernels/dispatch_plan';
import { prepareEncoderForward } from './kernels/encoder_forward';
import { prepareLayernormForward } from './kernels/layernorm_forward';
import { prepareMatmulForward } from './kernels/matmul_forward';
import { prepareAttentionDecode, prepareAttentionForward } from './kernels/attention_forward';
import { prepareGeluForward } from './kernels/gelu_forward';
import { prepareKvCacheWrite } from './kernels/kv_cache_write';
import type { ModelConfig } from '../../model/config';

/** Activations of one transformer block (names as in cpu_model.ts `BlockCache`). */
interface GpuBlockActs {
  /** (B,T,C) LN1 output, with its saved statistics ln1Mean, ln1Rstd (B,T). */
  ln1: GPUBuffer;
  ln1Mean: GPUBuffer;
  ln1Rstd: GPUBuffer;
  /** (B,T,3C) as [q ‖ k ‖ v]. */
  qkv: GPUBuffer;
  /** (B,NH,T,T) softmax probabilities, 0 above the diagonal. */
  att: GPUBuffer;
  /** (B,T,C) attention output before the projection. */
  atty: GPUBuffer;
  /** (B,T,C) residual after the attention sub-block: x_l + attproj(atty). */
  x2: GPUBuffer;
  /** (B,T,C) LN2 output, statistics ln2Mean, ln2Rstd (B,T). */
  ln2: GPUBuffer;
  ln2Mean: GPUBuffer;
  ln2Rstd: GPUBuffer;
  /** (B,T,4C) MLP pre-activation and its GELU. */
  fch: GPUBuffer;
  fchGelu: GPUBuffer;
}

/** Every activation the forward writes, i.e. everything the backward pass may read. */
export interface GpuActivations {
  /** Residual streams, L+1 buffers (B,T,C): x[0] = embeddings, x[l+1] = output of block l. */
  x: GPUBuffer[];
  blocks: GpuBlockActs[];
  /** (B,T,C) final LayerNorm output, statistics lnfMean, lnfRstd (B,T). */
  lnf: GPUBuffer;
  lnfMean: GPUBuffer;
  lnfRstd: GPUBuffer;
  /** (B,T,V) next-token logits. */
  logits: GPUBuffer;
  /** (B,T) value-head outputs. */
  values: GPUBuffer;
  /** (B,T) log-prob of targets[b,t] under logits[b,t] (only with `{ logprob: true }`). */
  logprob: GPUBuffer;
  /** (B,T) logsumexp of each logits row (only with `{ logprob: true }`). */
  lse: GPUBuffer;
}

/** A KV cache for batched decoding: per layer (B, Tmax, 2C) as [k ‖ v], plus row positions. */
export interface KvCache {
  B: number;
  Tmax: number;
  /** L buffers (B,Tmax,2C). */
  layers: GPUBuffer[];
  /** (B) i32: the position of each row's token in the current decode step (host-written). */
  pos: GPUBuffer;
  /** (B) i32 zeros: the start position of a prefill. */
  zeros: GPUBuffer;
  /** (B) i32: row b·T + len_b − 1 of the prefill's (B·T) positions (host-written before a prefill). */
  lastRow: GPUBuffer;
  /** (B,C): the final hidden state at lastRow, input of the prefill's lm head. */
  lastHidden: GPUBuffer;
}

/** What the trunk reads of a model: GpuModel's device, config, activations, input ids and parameter views. */
interface TrunkModel {
  readonly gpu: Gpu;
  readonly cfg: ModelConfig;
  readonly acts: GpuActivations;
  /** (maxB·maxT) i32 input ids of a full forward. */
  readonly ids: GPUBuffer;
  /** A view of parameter `name`. @throws Error on an unknown name. */
  param(name: string): TensorView;
}

/** The activation buffers of `cfg` for (maxB, maxT). @throws Error naming a tensor over the device's binding limit. */
export function createActivations(device: GPUDevice, cfg: ModelConfig, maxB: number, maxT: number): GpuActivations {
  const { C, L, NH, vocabSize: V } = cfg;
  const N = maxB * maxT;
  const f = (label: string, n: number) => createStorage(device, `${label} (${n} f32)`, n * 4);
  const blocks: GpuBlockActs[] = [];
  const x: GPUBuffer[] = [f('x0', N * C)];
  for (let l = 0; l < L; l++) {
    const h = `h${l}.`;
    blocks.push({
      ln1: f(h + 'ln1', N * C),
      ln1Mean: f(h + 'ln1Mean', N),
      ln1Rstd: f(h + 'ln1Rstd', N),
      qkv: f(h + 'qkv', N * 3 * C),
      att: f(h + 'att', maxB * NH * maxT * maxT),
      atty: f(h + 'atty', N * C),
      x2: f(h + 'x2', N * C),
      ln2: f(h + 'ln2', N * C),
      ln2Mean: f(h + 'ln2Mean', N),
      ln2Rstd: f(h + 'ln2Rstd', N),
      fch: f(h + 'fch', N * 4 * C),
      fchGelu: f(h + 'fchGelu', N * 4 * C),
    });
    x.push(f(`x${l + 1}`, N * C));
  }
  return {
    x,
    blocks,
    lnf: f('lnf', N * C),
    lnfMean: f('lnfMean', N),
    lnfRstd: f('lnfRstd', N),
    logits: f('logits', N * V),
    values: f('values', N),
    logprob: f('logprob', N),
    lse: f('lse', N),
  };
}

/** Every buffer of `acts`. */
export function activationBuffers(acts: GpuActivations): GPUBuffer[] {
  const all = [...acts.x, acts.lnf, acts.lnfMean, acts.lnfRstd, acts.logits, acts.values, acts.logprob, acts.lse];
  for (const b of acts.blocks) all.push(...Object.values(b));
  return all;
}

/**
 * Encoder, L blocks and final LayerNorm: over the model's `ids` as (B,T), or, with `dec`, one
 * decode step (T = 1) of `dec.ids` at the positions `dec.cache.pos`, each row's k,v written into
 * the cache and its query attending to the cached positions.
 */
export function trunkDispatches(m: TrunkModel, B: number, T: number, dec: { cache: KvCache; ids: GPUBuffer } | null): PreparedDispatch[] {
  const { C, L, vocabSize: V } = m.cfg;
  const N = B * T;
  const a = m.acts;
  const g = m.gpu;
  const v = (buffer: GPUBuffer): TensorView => ({ buffer });
  const tag = dec ? ' decode' : '';
  const encoder = { B, T, C, V, maxT: m.cfg.maxT, wte: m.param('wte'), wpe: m.param('wpe'), out: { buffer: a.x[0] } };
  const ds: PreparedDispatch[] = [
    dec
      ? prepareEncoderForward(g, { ...encoder, ids: dec.ids, pos0: dec.cache.pos }, 'encoder_forward decode')
      : prepareEncoderForward(g, { ...encoder, ids: m.ids }),
  ];
  for (let l = 0; l < L; l++) {
    ds.push(...attentionHalf(m, l, B, T, dec?.cache ?? null), ...mlpHalf(m, l, N, tag));
  }
  ds.push(
    prepareLayernormForward(
      g,
      {
        N,
        C,
        inp: v(a.x[L]),
        w: m.param('lnfw'),
        b: m.param('lnfb'),
        out: v(a.lnf),
        mean: v(a.lnfMean),
        rstd: v(a.lnfRstd),
      },
      `lnf${tag}`,
    ),
  );
  return ds;
}

/** The attention half of block l: LN1, qkv, attention (decode: cache write, then attention over the cache), attproj with the residual. */
function attentionHalf(m: TrunkModel, l: number, B: number, T: number, cache: KvCache | null): PreparedDispatch[] {
  const { C, NH } = m.cfg;
  const N = B * T;
  const a = m.acts;
  const g = m.gpu;
  const v = (buffer: GPUBuffer): TensorView => ({ buffer });
  const tag = cache ? ' decode' : '';
  const h = `h${l}.`;
  const blk = a.blocks[l];
  const ds: PreparedDispatch[] = [];
  ds.push(
    prepareLayernormForward(
      g,
      {
        N,
        C,
        inp: v(a.x[l]),
        w: m.param(h + 'ln1w'),
        b: m.param(h + 'ln1b'),
        out: v(blk.ln1),
        mean: v(blk.ln1Mean),
        rstd: v(blk.ln1Rstd),
      },
      `${h}ln1${tag}`,
    ),
  );
  ds.push(
    prepareMatmulForward(
      g,
      { N, K: C, M: 3 * C, inp: v(blk.ln1), weight: m.param(h + 'qkvw'), bias: m.param(h + 'qkvb'), out: v(blk.qkv) },
      `${h}qkv${tag}`,
    ),
  );
  if (cache) {
    ds.push(
      prepareKvCacheWrite(
        g,
        { B, T: 1, C, Tmax: cache.Tmax, qkv: v(blk.qkv), pos0: cache.pos, cache: v(cache.layers[l]) },
        `${h}kv_cache_write${tag}`,
      ),
    );
    ds.push(
      prepareAttentionDecode(
        g,
        {
          B,
          C,
          NH,
          Tmax: cache.Tmax,
          qkv: v(blk.qkv),
          cache: v(cache.layers[l]),
          pos: cache.pos,
          att: v(blk.att),
          out: v(blk.atty),
        },
        `${h}attention${tag}`,
      ),
    );
  } else {
    ds.push(prepareAttentionForward(g, { B, T, C, NH, qkv: v(blk.qkv), att: v(blk.att), out: v(blk.atty) }, `${h}attention`));
  }
  ds.push(
    prepareMatmulForward(
      g,
      {
        N,
        K: C,
        M: C,
        inp: v(blk.atty),
        weight: m.param(h + 'attprojw'),
        bias: m.param(h + 'attprojb'),
        residual: v(a.x[l]),
        out: v(blk.x2),
      },
      `${h}attproj${tag}`,
    ),
  );
  return ds;
}

/** The MLP half of block l: LN2, fc, GELU, fcproj with the residual. */
function mlpHalf(m: TrunkModel, l: number, N: number, tag: string): PreparedDispatch[] {
  const { C } = m.cfg;
  const a = m.acts;
  const g = m.gpu;
  const v = (buffer: GPUBuffer): TensorView => ({ buffer });
  const h = `h${l}.`;
  const blk = a.blocks[l];
  const ds: PreparedDispatch[] = [];
  ds.push(
    prepareLayernormForward(
      g,
      {
        N,
        C,
        inp: v(blk.x2),
        w: m.param(h + 'ln2w'),
        b: m.param(h + 'ln2b'),
        out: v(blk.ln2),
        mean: v(blk.ln2Mean),
        rstd: v(blk.ln2Rstd),
      },
      `${h}ln2${tag}`,
    ),
  );
  ds.push(
    prepareMatmulForward(
      g,
      { N, K: C, M: 4 * C, inp: v(blk.ln2), weight: m.param(h + 'fcw'), bias: m.param(h + 'fcb'), out: v(blk.fch) },
      `${h}fc${tag}`,
    ),
  );
  ds.push(prepareGeluForward(g, { n: N * 4 * C, inp: v(blk.fch), out: v(blk.fchGelu) }, `${h}gelu${tag}`));
  ds.push(
    prepareMatmulForward(
      g,
      {
        N,
        K: 4 * C,
        M: C,
        inp: v(blk.fchGelu),
        weight: m.param(h + 'fcprojw'),
        bias: m.param(h + 'fcprojb'),
        residual: v(blk.x2),
        out: v(a.x[l + 1]),
      },
      `${h}fcproj${tag}`,
    ),
  );
  return ds;
}

/**
 * The backward pass of the GPU training step (gpu_train.ts) as prepared dispatches of one (B,T)
 * shape, mirroring cpuBackward (src/model/cpu_model.ts): lm head → [value head] → final LayerNorm
 * → per block, top down, the MLP half then the attention half → encoder. `dres` carries the
 * residual-stream gradient down the stack (every LayerNorm backward accumulates into it); the
 * parameter gradients land in the trainer's gradient buffer through `grad`.
 */
import type { Gpu } from './device';
import { createStorage } from './buffers';
import type { PreparedDispatch, TensorView } from './kernels/dispatch_plan';
import { prepareMatmulBackward } from './kernels/matmul_backward';
import { prepareLayernormBackward } from './kernels/layernorm_backward';
import { prepareGeluBackward } from './kernels/gelu_backward';
import { createAttentionScratch, prepareAttentionBackward } from './kernels/attention_backward';
import { prepareEncoderBackward, type TokenBucketBuffers } from './kernels/encoder_backward';
import type { GpuModel } from './gpu_model';

/** Backward scratch, sized for (maxB·maxT) rows: the gradients of the activations (`dres` the residual stream's). */
export type BackwardScratch = Record<
  'dlogits' | 'dvalues' | 'dlnf' | 'dres' | 'dln' | 'datty' | 'dqkv' | 'dfcg' | 'dfch' | 'attScratch',
  GPUBuffer
>;

/** The backward scratch of `model`'s largest shape (maxB, maxT). */
export function createBackwardScratch(gpu: Gpu, model: GpuModel): BackwardScratch {
  const { C, NH, vocabSize: V } = model.cfg;
  const N = model.maxB * model.maxT;
  const f = (label: string, n: number) => createStorage(gpu.device, `${label} (${n} f32)`, n * 4);
  return {
    dlogits: f('dlogits', N * V),
    dvalues: f('dvalues', N),
    dlnf: f('dlnf', N * C),
    dres: f('dres', N * C),
    dln: f('dln', N * C),
    datty: f('datty', N * C),
    dqkv: f('dqkv', N * 3 * C),
    dfcg: f('dfcg', N * 4 * C),
    dfch: f('dfch', N * 4 * C),
    attScratch: createAttentionScratch(gpu, model.maxB, NH, model.maxT),
  };
}

/**
 * The whole backward of one (B,T) shape, in encode order (module doc).
 * @param usesValues whether the loss head trains the value head (its gradient joins dlnf)
 * @param buckets the token buckets of the encoder backward (written per batch by the trainer)
 */
export function backwardDispatches(b: BackwardShape, usesValues: boolean, buckets: TokenBucketBuffers): PreparedDispatch[] {
  const { g, model, s, B, T, grad } = b;
  const ds = headBackward(b, usesValues);
  for (let l = model.cfg.L - 1; l >= 0; l--) ds.push(...mlpBackward(b, l), ...attentionBlockBackward(b, l));
  const { C, vocabSize: V } = model.cfg;
  ds.push(prepareEncoderBackward(g, { B, T, C, V, dout: view(s.dres), buckets, dwte: grad('wte'), dwpe: grad('wpe') }, 'encoder backward'));
  return ds;
}

/** What the backward builders of one (B,T) shape read: the model and its activations, the trainer's scratch and gradient views. */
interface BackwardShape {
  g: Gpu;
  model: GpuModel;
  s: BackwardScratch;
  B: number;
  T: number;
  N: number;
  /** The gradient view of a named parameter. @throws Error on an unknown name. */
  grad: (name: string) => TensorView;
}

function view(buffer: GPUBuffer): TensorView {
  return { buffer };
}

/** lm head → [value head, accumulating into dlnf] → final LayerNorm (dres ← dx[L]). */
function headBackward(b: BackwardShape, usesValues: boolean): PreparedDispatch[] {
  const { g, model, s, N, grad } = b;
  const { C, L, vocabSize: V } = model.cfg;
  const a = model.acts;
  const ds: PreparedDispatch[] = [
    prepareMatmulBackward(
      g,
      {
        N,
        K: C,
        M: V,
        dout: view(s.dlogits),
        inp: view(a.lnf),
        weight: model.param('wte'),
        dinp: view(s.dlnf),
        dweight: grad('wte'),
        dbias: null,
      },
      'lm_head backward',
    ),
  ];
  if (usesValues) {
    ds.push(
      prepareMatmulBackward(
        g,
        {
          N,
          K: C,
          M: 1,
          dout: view(s.dvalues),
          inp: view(a.lnf),
          weight: model.param('valuew'),
          dinp: view(s.dlnf),
          dweight: grad('valuew'),
          dbias: grad('valueb'),
          accumulateDinp: true,
        },
        'value_head backward',
      ),
    );
  }
  ds.push(
    prepareLayernormBackward(
      g,
      {
        N,
        C,
        dout: view(s.dlnf),
        inp: view(a.x[L]),
        w: model.param('lnfw'),
        mean: view(a.lnfMean),
        rstd: view(a.lnfRstd),
        dinp: view(s.dres),
        dw: grad('lnfw'),
        db: grad('lnfb'),
      },
      'lnf backward',
    ),
  );
  return ds;
}

/** The MLP half of block l, top down: fcproj, GELU, fc, LN2 (accumulating into dres). */
function mlpBackward(b: BackwardShape, l: number): PreparedDispatch[] {
  const { g, model, s, N, grad } = b;
  const { C } = model.cfg;
  const h = `h${l}.`;
  const blk = model.acts.blocks[l];
  return [
    prepareMatmulBackward(
      g,
      {
        N,
        K: 4 * C,
        M: C,
        dout: view(s.dres),
        inp: view(blk.fchGelu),
        weight: model.param(h + 'fcprojw'),
        dinp: view(s.dfcg),
        dweight: grad(h + 'fcprojw'),
        dbias: grad(h + 'fcprojb'),
      },
      `${h}fcproj backward`,
    ),
    prepareGeluBackward(g, { n: N * 4 * C, dout: view(s.dfcg), inp: view(blk.fch), dinp: view(s.dfch) }, `${h}gelu backward`),
    prepareMatmulBackward(
      g,
      {
        N,
        K: C,
        M: 4 * C,
        dout: view(s.dfch),
        inp: view(blk.ln2),
        weight: model.param(h + 'fcw'),
        dinp: view(s.dln),
        dweight: grad(h + 'fcw'),
        dbias: grad(h + 'fcb'),
      },
      `${h}fc backward`,
    ),
    prepareLayernormBackward(
      g,
      {
        N,
        C,
        dout: view(s.dln),
        inp: view(blk.x2),
        w: model.param(h + 'ln2w'),
        mean: view(blk.ln2Mean),
        rstd: view(blk.ln2Rstd),
        dinp: view(s.dres),
        dw: grad(h + 'ln2w'),
        db: grad(h + 'ln2b'),
      },
      `${h}ln2 backward`,
    ),
  ];
}

/** The attention half of block l, top down: attproj, attention (2 dispatches), qkv, LN1 (accumulating into dres). */
function attentionBlockBackward(b: BackwardShape, l: number): PreparedDispatch[] {
  const { g, model, s, B, T, N, grad } = b;
  const { C, NH } = model.cfg;
  const h = `h${l}.`;
  const blk = model.acts.blocks[l];
  return [
    prepareMatmulBackward(
      g,
      {
        N,
        K: C,
        M: C,
        dout: view(s.dres),
        inp: view(blk.atty),
        weight: model.param(h + 'attprojw'),
        dinp: view(s.datty),
        dweight: grad(h + 'attprojw'),
        dbias: grad(h + 'attprojb'),
      },
      `${h}attproj backward`,
    ),
    ...prepareAttentionBackward(
      g,
      { B, T, C, NH, dout: view(s.datty), qkv: view(blk.qkv), att: view(blk.att), dqkv: view(s.dqkv), scratch: s.attScratch },
      `${h}attention backward`,
    ),
    prepareMatmulBackward(
      g,
      {
        N,
        K: C,
        M: 3 * C,
        dout: view(s.dqkv),
        inp: view(blk.ln1),
        weight: model.param(h + 'qkvw'),
        dinp: view(s.dln),
        dweight: grad(h + 'qkvw'),
        dbias: grad(h + 'qkvb'),
      },
      `${h}qkv backward`,
    ),
    prepareLayernormBackward(
      g,
      {
        N,
        C,
        dout: view(s.dln),
        inp: view(model.acts.x[l]),
        w: model.param(h + 'ln1w'),
        mean: view(blk.ln1Mean),
        rstd: view(blk.ln1Rstd),
        dinp: view(s.dres),
        dw: grad(h + 'ln1w'),
        db: grad(h + 'ln1b'),
      },
      `${h}ln1 backward`,
    ),
  ];
}

/**
 * The same decoder-only transformer as src/model (docs/KERNELS.md "Model") written with TF.js
 * ops, for the benchmark's peer comparison (`hlab bench`). Same shapes, same parameter values
 * (built from the flat layout), same SFT loss (token-mean masked cross-entropy); trained with
 * TF.js's own gradient tape and its built-in Adam (β1 0.9, β2 0.95, ε 1e-8).
 *
 * Differences from our step, stated in docs/PERFORMANCE.md: on wasm the token embedding is a
 * one-hot matmul (TF.js-wasm lacks the gather gradient); TF.js Adam has no decoupled weight
 * decay and we do not add global-norm clipping here (both are cheap elementwise work that would
 * only add TF.js kernel launches), so the TF.js step does slightly less work than ours.
 *
 * Page-only module (imports TF.js and its wasm/webgpu backends).
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-webgpu';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import wasmUrl from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm?url';
import wasmSimdUrl from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm?url';
import wasmThreadedUrl from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-threaded-simd.wasm?url';
import type { ModelConfig } from '../model/config';
import { paramLayout } from '../model/layout';

export type TfBackend = 'webgpu' | 'wasm' | 'cpu';

let wasmPathsSet = false;
/** Makes variable names unique across instances (TF.js registers variables globally by name). */
let instanceCounter = 0;

/**
 * Make `name` the active TF.js backend (registering the wasm binaries' URLs once).
 * @throws Error naming the backend when TF.js cannot initialize it.
 */
export async function useTfBackend(name: TfBackend): Promise<void> {
  if (name === 'wasm' && !wasmPathsSet) {
    setWasmPaths({
      'tfjs-backend-wasm.wasm': wasmUrl,
      'tfjs-backend-wasm-simd.wasm': wasmSimdUrl,
      'tfjs-backend-wasm-threaded-simd.wasm': wasmThreadedUrl,
    });
    wasmPathsSet = true;
  }
  const ok = await tf.setBackend(name);
  if (!ok) throw new Error(`TF.js backend '${name}' failed to initialize`);
  await tf.ready();
}

/** What the wasm backend runs with (SIMD, threads). */
export async function tfWasmFeatures(): Promise<{ simd: boolean; threads: boolean }> {
  return {
    simd: Boolean(await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT')),
    threads: Boolean(await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT')),
  };
}

/** One TF.js model instance living on one backend (variables created while it was active). */
export class TfTransformer {
  private readonly vars = new Map<string, tf.Variable>();
  private readonly optimizer: tf.AdamOptimizer;
  private readonly causalBias: tf.Tensor;
  private ids: tf.Tensor2D | null = null;
  private targets: tf.Tensor1D | null = null;
  private mask: tf.Tensor1D | null = null;
  private B = 0;
  private T = 0;

  /**
   * Create the variables on the active backend from our flat parameters.
   * @param params (P) f32 laid out by paramLayout(cfg) (e.g. initParams(cfg, seed))
   * @throws Error when params does not match the layout.
   */
  constructor(
    readonly backend: TfBackend,
    readonly cfg: ModelConfig,
    params: Float32Array,
    lr: number,
    maxT: number,
  ) {
    const layout = paramLayout(cfg);
    const tag = `${backend}${instanceCounter++}`;
    if (params.length !== layout.total) throw new Error(`TfTransformer: params has ${params.length} values, layout needs ${layout.total}`);
    for (const e of layout.entries) {
      if (e.name === 'valuew' || e.name === 'valueb') continue; // SFT does not use the value head
      const t = tf.tensor(params.slice(e.offset, e.offset + e.size), e.shape);
      this.vars.set(e.name, tf.variable(t, true, `${tag}-${e.name}`));
      t.dispose();
    }
    this.optimizer = tf.train.adam(lr, 0.9, 0.95, 1e-8);
    // Additive causal mask: 0 on and below the diagonal, −1e9 above (exp underflows to 0).
    this.causalBias = tf.tidy(() => tf.sub(tf.linalg.bandPart(tf.ones([maxT, maxT]), -1, 0), 1).mul(1e9));
  }

  /** Upload a batch (B,T) ids and (B·T) targets/mask; kept until the next call. */
  setBatch(B: number, T: number, ids: Int32Array, targets: Int32Array, mask: Float32Array): void {
    this.ids?.dispose();
    this.targets?.dispose();
    this.mask?.dispose();
    this.B = B;
    this.T = T;
    this.ids = tf.tensor2d(ids, [B, T], 'int32');
    this.targets = tf.tensor1d(targets, 'int32');
    this.mask = tf.tensor1d(mask, 'float32');
  }

  private v(name: string): tf.Variable {
    const x = this.vars.get(name);
    if (!x) throw new Error(`TfTransformer: no variable '${name}'`);
    return x;
  }

  /** Token-mean masked cross-entropy of the current batch (nats/token), as a scalar tensor. */
  loss(): tf.Scalar {
    const { C, NH, L, vocabSize: V } = this.cfg;
    const { B, T } = this;
    if (!this.ids || !this.targets || !this.mask) throw new Error('TfTransformer.loss: setBatch() first');
    const N = B * T;
    const HS = C / NH;
    const ln = (x: tf.Tensor2D, w: string, b: string): tf.Tensor2D => {
      const mean = tf.mean(x, -1, true);
      const xc = tf.sub(x, mean);
      const variance = tf.mean(tf.square(xc), -1, true);
      return tf.add(tf.mul(tf.mul(xc, tf.rsqrt(tf.add(variance, 1e-5))), this.v(w)), this.v(b)) as tf.Tensor2D;
    };
    const linear = (x: tf.Tensor2D, w: string, b: string | null): tf.Tensor2D => {
      const y = tf.matMul(x, this.v(w), false, true);
      return (b ? tf.add(y, this.v(b)) : y) as tf.Tensor2D;
    };
    const gelu = (x: tf.Tensor): tf.Tensor => {
      const u = tf.mul(tf.add(x, tf.mul(tf.pow(x, 3), 0.044715)), Math.sqrt(2 / Math.PI));
      return tf.mul(tf.mul(x, 0.5), tf.add(tf.tanh(u), 1));
    };
    // The wasm backend has no UnsortedSegmentSum (the gradient of gather): there the token
    // embedding is a one-hot matmul (extra 2·N·V·C flops forward, 4·N·V·C backward).
    const flatIds = tf.reshape(this.ids, [N]) as tf.Tensor1D;
    const tok = this.backend === 'wasm' ? tf.matMul(tf.oneHot(flatIds, V), this.v('wte')) : tf.gather(this.v('wte'), flatIds);
    const pos = tf.tile(tf.slice(this.v('wpe'), [0, 0], [T, C]), [B, 1]);
    let x = tf.add(tok, pos) as tf.Tensor2D;
    const bias = tf.slice(this.causalBias, [0, 0], [T, T]);
    for (let l = 0; l < L; l++) {
      const h = `h${l}.`;
      const qkv = linear(ln(x, h + 'ln1w', h + 'ln1b'), h + 'qkvw', h + 'qkvb');
      const heads = tf.transpose(tf.reshape(qkv, [B, T, 3, NH, HS]), [2, 0, 3, 1, 4]); // (3,B,NH,T,HS)
      const [q, k, v] = tf.unstack(heads, 0) as tf.Tensor4D[];
      const scores = tf.add(tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(HS)), bias);
      const y = tf.matMul(tf.softmax(scores), v); // (B,NH,T,HS)
      const yy = tf.reshape(tf.transpose(y, [0, 2, 1, 3]), [N, C]) as tf.Tensor2D;
      x = tf.add(x, linear(yy, h + 'attprojw', h + 'attprojb')) as tf.Tensor2D;
      const fc = gelu(linear(ln(x, h + 'ln2w', h + 'ln2b'), h + 'fcw', h + 'fcb')) as tf.Tensor2D;
      x = tf.add(x, linear(fc, h + 'fcprojw', h + 'fcprojb')) as tf.Tensor2D;
    }
    const logits = linear(ln(x, 'lnfw', 'lnfb'), 'wte', null); // tied head (N,V)
    const logp = tf.logSoftmax(logits);
    const picked = tf.sum(tf.mul(logp, tf.oneHot(this.targets, V)), -1);
    const total = tf.sum(this.mask);
    return tf.div(tf.neg(tf.sum(tf.mul(picked, this.mask))), tf.maximum(total, 1)) as tf.Scalar;
  }

  /**
   * One training step (forward, backward, Adam) on the current batch; resolves after the loss
   * is read back (the same synchronization point as our step's metrics readback).
   * @returns the loss before the update
   */
  async trainStep(): Promise<number> {
    const loss = this.optimizer.minimize(() => this.loss(), true, [...this.vars.values()]);
    if (!loss) throw new Error('TfTransformer.trainStep: optimizer returned no loss');
    const [value] = await loss.data();
    loss.dispose();
    return value;
  }

  /** Release variables, optimizer slots and the batch. */
  dispose(): void {
    for (const x of this.vars.values()) x.dispose();
    this.optimizer.dispose();
    this.causalBias.dispose();
    this.ids?.dispose();
    this.targets?.dispose();
    this.mask?.dispose();
  }
}

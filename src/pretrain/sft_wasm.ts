/**
 * A third SFT backend: loss and gradients by TF.js on its WebAssembly backend (XNNPACK, SIMD),
 * the AdamW step by our own CPU reference (cpuAdamwStep), so the optimizer is bit-for-bit the
 * rule the WGSL step implements.
 *
 * Why it exists: on a machine without a GPU, WebGPU runs on SwiftShader at ≈ 0.3–1.8 GFLOP/s
 * (../shared/WEBGPU-NOTES.md), while TF.js-wasm ran 2-D matmuls of our shapes at 6–17 GFLOP/s on
 * one core (an ad-hoc measurement, not a checked-in benchmark; docs/PRETRAIN.md). Pretraining
 * the base model is an offline job (its checkpoint ships in public/ with the command that
 * rebuilds it), so it may use the fastest exact path the machine has; RL and
 * everything the app does stay on our WGSL engine. The architecture is the one of
 * cpu_model.ts (GPT-2 pre-LN, tied head, tanh GELU, LayerNorm ε = 1e-5, causal attention
 * scaled by 1/√HS); the parity test (tests/unit/sft_wasm.test.ts) compares loss and every
 * gradient with cpuForward/cpuBackward.
 *
 * Two choices that make it fast and exact where TF.js-wasm lacks kernels:
 *  - the logits are computed only at scored positions (the action tokens, ≈ 10 % of a row):
 *    the tied unembedding (N·V·C) dominates a small model's step otherwise;
 *  - gathers (token embedding, scored positions) get their gradients by a scatter-add in
 *    JavaScript (tf.customGrad): TF.js-wasm has no UnsortedSegmentSum, the gather gradient.
 *
 * Node and browser: TF.js finds its .wasm files itself in Node; a page would call
 * `setWasmPaths` first (src/bench/tfjs_transformer.ts does).
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import type { ModelConfig } from '../model/config';
import { cpuAdamwStep, sftTargets } from '../model/cpu_model';
import { paramLayout, type ParamLayout } from '../model/layout';
import type { RowBatch } from './rows';
import type { SftBackend } from './sft';

/** TF.js types customGrad's function with variadic (Tensor | GradSaveFunc) parameters. */
type GradFn = Parameters<typeof tf.customGrad>[0];

let ready: Promise<void> | null = null;

/**
 * Make TF.js-wasm the active backend (once).
 * @throws Error when the wasm backend cannot initialize.
 */
export function initWasmBackend(): Promise<void> {
  ready ??= (async () => {
    const ok = await tf.setBackend('wasm');
    if (!ok) throw new Error("TF.js backend 'wasm' failed to initialize");
    await tf.ready();
  })();
  return ready;
}

/**
 * Rows of `table` (R, C) at `index` (n) with a gradient that scatter-adds dy into an (R, C)
 * zero tensor on the CPU.
 */
function gatherRows(table: tf.Tensor2D, index: Int32Array): tf.Tensor2D {
  const R = table.shape[0];
  const C = table.shape[1];
  const idx = tf.tensor1d(index, 'int32');
  const f = tf.customGrad(((t: tf.Tensor, save: tf.GradSaveFunc) => {
    save([]);
    return {
      value: tf.gather(t as tf.Tensor2D, idx),
      gradFunc: (dy: tf.Tensor) => {
        const d = dy.dataSync() as Float32Array;
        const out = new Float32Array(R * C);
        for (let i = 0; i < index.length; i++) {
          const o = index[i] * C;
          const s = i * C;
          for (let c = 0; c < C; c++) out[o + c] += d[s + c];
        }
        return tf.tensor2d(out, [R, C]);
      },
    };
  }) as unknown as GradFn);
  const y = f(table) as tf.Tensor2D;
  idx.dispose();
  return y;
}

/**
 * a @ b for (…, n, k) @ (…, k, m) with every product, forward and backward, in the
 * untransposed form: TF.js-wasm ran matMul with a transpose flag ≈ 4× slower than with an
 * explicit tf.transpose first (ad hoc: 1.2–1.3 vs 4.5–4.9 GFLOP/s at 3328×64×256), and
 * autodiff of matMul emits the flagged forms (da = dy·bᵀ, db = aᵀ·dy).
 */
function mm(a: tf.Tensor, b: tf.Tensor): tf.Tensor {
  const f = tf.customGrad(((x: tf.Tensor, y: tf.Tensor, save: tf.GradSaveFunc) => {
    save([x, y]);
    return {
      value: tf.matMul(x, y),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [xs, ys] = saved;
        const r = xs.rank;
        const perm = [...Array(r).keys()];
        [perm[r - 2], perm[r - 1]] = [perm[r - 1], perm[r - 2]];
        return [tf.matMul(dy, tf.transpose(ys, perm)), tf.matMul(tf.transpose(xs, perm), dy)];
      },
    };
  }) as unknown as GradFn);
  return f(a, b);
}

/** Swap the last two axes. */
function tr(x: tf.Tensor): tf.Tensor {
  const perm = [...Array(x.rank).keys()];
  [perm[x.rank - 2], perm[x.rank - 1]] = [perm[x.rank - 1], perm[x.rank - 2]];
  return tf.transpose(x, perm);
}

/** Logits (S, V) at the flat positions `scored` of a (B, T) id batch (parameters as TF.js variables). */
function logitsAt(cfg: ModelConfig, v: (n: string) => tf.Tensor, causal: tf.Tensor2D, ids: Int32Array, B: number, T: number, scored: Int32Array): tf.Tensor2D {
  const { C, NH, L } = cfg;
  const N = B * T;
  const HS = C / NH;
  const ln = (x: tf.Tensor2D, w: string, b: string): tf.Tensor2D => {
    const mean = tf.mean(x, -1, true);
    const xc = tf.sub(x, mean);
    const variance = tf.mean(tf.square(xc), -1, true);
    return tf.add(tf.mul(tf.mul(xc, tf.rsqrt(tf.add(variance, 1e-5))), v(w)), v(b)) as tf.Tensor2D;
  };
  const linear = (x: tf.Tensor2D, w: string, b: string | null): tf.Tensor2D => {
    const y = mm(x, tr(v(w)));
    return (b ? tf.add(y, v(b)) : y) as tf.Tensor2D;
  };
  const gelu = (x: tf.Tensor): tf.Tensor => {
    const u = tf.mul(tf.add(x, tf.mul(tf.mul(tf.mul(x, x), x), 0.044715)), Math.sqrt(2 / Math.PI));
    return tf.mul(tf.mul(x, 0.5), tf.add(tf.tanh(u), 1));
  };
  const tokEmb = gatherRows(v('wte') as tf.Tensor2D, ids);
  const pos = tf.tile(tf.slice(v('wpe'), [0, 0], [T, C]), [B, 1]);
  let x = tf.add(tokEmb, pos) as tf.Tensor2D;
  const bias = tf.slice(causal, [0, 0], [T, T]);
  for (let l = 0; l < L; l++) {
    const h = `h${l}.`;
    const qkv = linear(ln(x, h + 'ln1w', h + 'ln1b'), h + 'qkvw', h + 'qkvb');
    const heads = tf.transpose(tf.reshape(qkv, [B, T, 3, NH, HS]), [2, 0, 3, 1, 4]); // (3,B,NH,T,HS)
    const [q, k, val] = tf.unstack(heads, 0) as tf.Tensor4D[];
    const scores = tf.add(tf.mul(mm(q, tr(k)), 1 / Math.sqrt(HS)), bias);
    const y = mm(tf.softmax(scores), val); // (B,NH,T,HS)
    const yy = tf.reshape(tf.transpose(y, [0, 2, 1, 3]), [N, C]) as tf.Tensor2D;
    x = tf.add(x, linear(yy, h + 'attprojw', h + 'attprojb')) as tf.Tensor2D;
    const fc = gelu(linear(ln(x, h + 'ln2w', h + 'ln2b'), h + 'fcw', h + 'fcb')) as tf.Tensor2D;
    x = tf.add(x, linear(fc, h + 'fcprojw', h + 'fcprojb')) as tf.Tensor2D;
  }
  const hf = ln(x, 'lnfw', 'lnfb');
  const hs = gatherRows(hf, scored); // (S, C): only scored positions reach the tied head
  return linear(hs, 'wte', null); // (S, V)
}

/** Token-mean cross-entropy of `targets` at the scored positions of one batch. */
function lossGraph(cfg: ModelConfig, v: (n: string) => tf.Tensor, causal: tf.Tensor2D, batch: RowBatch, scored: Int32Array, targets: Int32Array): tf.Scalar {
  const V = cfg.vocabSize;
  const logp = tf.logSoftmax(logitsAt(cfg, v, causal, batch.ids, batch.B, batch.T, scored));
  const picked = tf.sum(tf.mul(logp, tf.oneHot(tf.tensor1d(targets, 'int32'), V)));
  return tf.div(tf.neg(picked), Math.max(1, scored.length)) as tf.Scalar;
}

/**
 * Loss and gradients of one batch under `params`, without an optimizer step (the parity test
 * and the backend share it).
 * @param params (P) f32 laid out by paramLayout(cfg)
 * @returns loss (token-mean cross-entropy of the action tokens, nats), grads (P) f32 (value
 *   head entries 0: SFT does not use it), tokens (scored positions)
 * @throws Error when params does not match the layout or the batch is longer than maxT.
 */
export class WasmSftGraph {
  private readonly layout: ParamLayout;
  private readonly vars = new Map<string, tf.Variable>();
  private readonly causal: tf.Tensor2D;
  private static instances = 0;

  private constructor(readonly cfg: ModelConfig, params: Float32Array) {
    this.layout = paramLayout(cfg);
    if (params.length !== this.layout.total) throw new Error(`WasmSftGraph: params has ${params.length} values, paramLayout(cfg) needs ${this.layout.total}`);
    const tag = `sftw${WasmSftGraph.instances++}`;
    for (const e of this.layout.entries) {
      if (e.name === 'valuew' || e.name === 'valueb') continue;
      this.vars.set(e.name, tf.variable(tf.tensor(params.subarray(e.offset, e.offset + e.size), e.shape), true, `${tag}-${e.name}`));
    }
    // Additive causal mask: 0 on and below the diagonal, −1e9 above (exp underflows to exactly 0).
    this.causal = tf.tidy(() => tf.mul(tf.sub(tf.linalg.bandPart(tf.ones([cfg.maxT, cfg.maxT]), -1, 0), 1), 1e9)) as tf.Tensor2D;
  }

  /** @throws Error when TF.js-wasm cannot start or params does not match the layout. */
  static async create(cfg: ModelConfig, params: Float32Array): Promise<WasmSftGraph> {
    await initWasmBackend();
    return new WasmSftGraph(cfg, params);
  }

  private v = (n: string): tf.Tensor => {
    const x = this.vars.get(n);
    if (!x) throw new Error(`WasmSftGraph: no variable '${n}'`);
    return x;
  };

  /** Replace the parameters (after an optimizer step). @param params (P) f32 */
  write(params: Float32Array): void {
    // tidy: the temporary tensors are released, the variables keep their new data.
    tf.tidy(() => {
      for (const e of this.layout.entries) {
        const x = this.vars.get(e.name);
        if (x) x.assign(tf.tensor(params.subarray(e.offset, e.offset + e.size), e.shape));
      }
    });
  }

  /** Loss and flat gradients of `batch` (class doc). */
  lossAndGrads(batch: RowBatch): { loss: number; grads: Float32Array; tokens: number } {
    const { B, T } = batch;
    if (T > this.cfg.maxT) throw new Error(`WasmSftGraph: batch T = ${T} exceeds maxT = ${this.cfg.maxT}`);
    const { targets, mask } = sftTargets(batch.ids, batch.lengths, { B, T }, batch.mask);
    let S = 0;
    for (let i = 0; i < B * T; i++) if (mask[i] > 0) S++;
    const scored = new Int32Array(S);
    const tg = new Int32Array(S);
    for (let i = 0, j = 0; i < B * T; i++) {
      if (mask[i] > 0) {
        if (mask[i] !== 1) throw new Error(`WasmSftGraph: loss mask values must be 0 or 1, got ${mask[i]} at ${i}`);
        scored[j] = i;
        tg[j++] = targets[i];
      }
    }
    const names = [...this.vars.keys()];
    const grads = new Float32Array(this.layout.total);
    const loss = tf.tidy(() => {
      const { value, grads: g } = tf.variableGrads(() => lossGraph(this.cfg, this.v, this.causal, batch, scored, tg), names.map((n) => this.vars.get(n)!));
      for (const n of names) {
        const e = this.layout.byName.get(n)!;
        const gt = g[this.vars.get(n)!.name];
        if (gt) grads.set(gt.dataSync() as Float32Array, e.offset);
      }
      return value.dataSync()[0];
    });
    return { loss, grads, tokens: S };
  }

  /**
   * Next-token logits after each sequence (greedy decoding; a full forward, no KV cache).
   * @param seqs B id sequences, each of length 1..maxT
   * @returns (B, V) f32
   * @throws Error naming the sequence that is empty or longer than maxT.
   */
  nextLogits(seqs: readonly (readonly number[])[]): Float32Array {
    const B = seqs.length;
    let T = 0;
    seqs.forEach((q, b) => {
      if (q.length < 1 || q.length > this.cfg.maxT) throw new Error(`WasmSftGraph.nextLogits: seqs[${b}] has ${q.length} tokens, expected 1..maxT = ${this.cfg.maxT}`);
      T = Math.max(T, q.length);
    });
    const ids = new Int32Array(B * T);
    const last = new Int32Array(B);
    seqs.forEach((q, b) => {
      ids.set(q, b * T);
      last[b] = b * T + q.length - 1;
    });
    return tf.tidy(() => logitsAt(this.cfg, this.v, this.causal, ids, B, T, last).dataSync() as Float32Array);
  }

  /** Release the variables. */
  dispose(): void {
    for (const x of this.vars.values()) x.dispose();
    this.causal.dispose();
  }
}

/**
 * The wasm SFT backend: WasmSftGraph for loss and gradients, cpuAdamwStep (global-norm clip,
 * AdamW β = (0.9, 0.95), ε = 1e-8, the other backends' constants) for the update.
 * @param init (P) f32 starting parameters (copied)
 * @throws Error from WasmSftGraph.create; a step throws on a non-finite gradient norm (nothing applied).
 */
export async function wasmSftBackend(model: ModelConfig, init: Float32Array, hp: { weightDecay: number; maxNorm: number }): Promise<SftBackend & { dispose(): void }> {
  const params = init.slice();
  const m = new Float32Array(params.length);
  const v = new Float32Array(params.length);
  const g = await WasmSftGraph.create(model, params);
  return {
    name: 'wasm',
    async step(batch, lr, step) {
      const { loss, grads, tokens } = g.lossAndGrads(batch);
      const { norm } = cpuAdamwStep(params, grads, m, v, { lr, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: hp.weightDecay, maxNorm: hp.maxNorm, step });
      g.write(params);
      return { loss, gradNorm: norm, tokens };
    },
    params: async () => params.slice(),
    dispose: () => g.dispose(),
  };
}

/**
 * Greedy decoding on TF.js-wasm (eval_greedy.ts `Decoder`): all prompts advance together, one
 * full forward per generated token; a row stops at `<|end|>`, at `maxNewTokens`, or at maxT.
 * @param endId the `<|end|>` id (rows.ts endTokenId)
 */
export function wasmGreedyDecoder(g: WasmSftGraph, endId: number): (prompts: number[][], maxNew: number) => Promise<Array<{ ids: number[]; ended: boolean }>> {
  const V = g.cfg.vocabSize;
  return async (prompts, maxNew) => {
    const seqs = prompts.map((p) => [...p]);
    const outs = prompts.map(() => ({ ids: [] as number[], ended: false }));
    // Decode in chunks so a batch of long prompts stays within memory.
    for (let c0 = 0; c0 < seqs.length; c0 += 16) {
      const idx = [...Array(Math.min(16, seqs.length - c0)).keys()].map((i) => c0 + i);
      for (let k = 0; k < maxNew; k++) {
        const live = idx.filter((i) => !outs[i].ended && outs[i].ids.length < maxNew && seqs[i].length < g.cfg.maxT);
        if (live.length === 0) break;
        const logits = g.nextLogits(live.map((i) => seqs[i]));
        live.forEach((i, r) => {
          let best = 0;
          for (let v = 1; v < V; v++) if (logits[r * V + v] > logits[r * V + best]) best = v;
          outs[i].ids.push(best);
          seqs[i].push(best);
          if (best === endId) outs[i].ended = true;
        });
      }
    }
    return outs;
  };
}

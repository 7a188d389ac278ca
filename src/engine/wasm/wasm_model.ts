/**
 * The policy transformer on the CPU engine: the architecture of src/model/cpu_model.ts
 * (GPT-2 pre-LN, learned positions, causal attention, tanh-GELU MLP of width 4C, tied LM head,
 * scalar value head; docs/KERNELS.md "Model") with the same flat parameter layout
 * (src/model/layout.ts), so checkpoints move between this engine, WebGPU and the f64 CPU
 * reference unchanged.
 *
 * A training step is `forward` → loss head (the caller: SFT cross-entropy or the RL loss) →
 * `backward` → `optimizerStep` (global-norm clip + AdamW). The LM head is applied only at the
 * `scored` positions the loss needs (S of the B·T; ~10 % of a row in SFT and RL), which is
 * where a small model's step would otherwise spend most of its time (S·V·C vs B·T·V·C).
 *
 * Memory: parameters, gradients and AdamW moments live for the model's lifetime; a forward
 * allocates its activations after an engine mark and `endStep()` releases them, so a step's
 * memory is reused by the next. The forward matmuls read transposed weight copies (Wᵀ, K × M)
 * that are refreshed whenever the parameters change.
 */
import { validateConfig, type ModelConfig } from '../../model/config';
import type { OptimizerStep } from '../../model/optimizer';
import { paramLayout, type ParamLayout } from '../../model/layout';
import { Arr, type WasmEngine } from './wasm_runtime';
import {
  adamwUpdate,
  attentionBackward,
  attentionForward,
  encoderBackward,
  encoderForward,
  gatherRows,
  geluBackward,
  geluForward,
  layernormBackward,
  layernormForward,
  matmulBackward,
  matmulForward,
  residualForward,
  scatterAddRows,
  sumOfSquares,
  transpose,
} from './wasm_kernels';

/** The weights that get a transposed copy for the forward GEMM, with their (M, K) shapes. */
const MATRIX = ['qkvw', 'attprojw', 'fcw', 'fcprojw'] as const;

/** Activations of one block saved by forward for backward. */
interface BlockActs {
  x: Arr;
  ln1: Arr;
  ln1Mean: Arr;
  ln1Rstd: Arr;
  qkv: Arr;
  atty: Arr;
  att: Arr;
  x2: Arr;
  ln2: Arr;
  ln2Mean: Arr;
  ln2Rstd: Arr;
  fch: Arr;
  fchGelu: Arr;
}

/** What a forward pass leaves for the loss head and backward. */
interface WasmForward {
  B: number;
  T: number;
  /** Scored positions (S) as flat indices b·T + t, increasing. */
  scored: Int32Array;
  /** (S, V) logits at the scored positions (engine memory; valid until endStep). */
  logits: Arr;
  /** (B·T) value-head outputs, or null when not requested. */
  values: Arr | null;
  ids: Arr;
  lengths: Arr;
  scoredIdx: Arr;
  blocks: BlockActs[];
  xL: Arr;
  lnf: Arr;
  lnfMean: Arr;
  lnfRstd: Arr;
  lnfS: Arr;
}

interface WasmModelOptions {
  /**
   * Weight decay applies to every parameter (true, the WGSL engine's rule and the default) or
   * only to the matrices and embeddings, not LayerNorm gains/biases and biases (false; the
   * nanoGPT / GPT-2 practice).
   */
  decayAll?: boolean;
}

export class WasmModel {
  readonly layout: ParamLayout;
  readonly P: number;
  readonly params: Arr;
  readonly grads: Arr;
  readonly m: Arr;
  readonly v: Arr;
  /** (P) per-element decay mask (1 = decayed); AdamW multiplies it by λ. */
  private readonly decayMask: Arr;
  /** (P) λ·decayMask for the current λ. */
  private readonly decay: Arr;
  private decayLambda = NaN;
  private readonly wT = new Map<string, Arr>();
  private transposedFresh = false;
  private readonly partials: Arr;
  private stepMark: number | null = null;

  private constructor(
    readonly engine: WasmEngine,
    readonly cfg: ModelConfig,
    readonly opts: WasmModelOptions,
  ) {
    validateConfig(cfg);
    this.layout = paramLayout(cfg);
    this.P = this.layout.total;
    const P = this.P;
    this.params = engine.alloc(P, 'params');
    this.grads = engine.alloc(P, 'grads');
    this.m = engine.alloc(P, 'adam m');
    this.v = engine.alloc(P, 'adam v');
    this.decayMask = engine.alloc(P, 'decay mask');
    this.decay = engine.alloc(P, 'decay');
    this.partials = engine.alloc(Math.ceil(P / engine.constant('SUMSQ_CHUNK_SIZE')) + 1, 'sumsq partials');
    const dm = this.decayMask.f32();
    for (const e of this.layout.entries) {
      const base = e.name.replace(/^h\d+\./, '');
      const decayed = opts.decayAll !== false || ['wte', 'wpe', 'qkvw', 'attprojw', 'fcw', 'fcprojw', 'valuew'].includes(base);
      if (decayed) dm.fill(1, e.offset, e.offset + e.size);
    }
    const { C, L, vocabSize: V } = cfg;
    for (let l = 0; l < L; l++) {
      for (const n of MATRIX) {
        const e = this.layout.byName.get(`h${l}.${n}`)!;
        this.wT.set(`h${l}.${n}`, engine.alloc(e.size, `h${l}.${n}ᵀ`));
      }
    }
    this.wT.set('wte', engine.alloc(V * C, 'wteᵀ'));
    this.wT.set('valuew', engine.alloc(C, 'valuewᵀ'));
  }

  /** @throws Error naming the bad config field. */
  static create(engine: WasmEngine, cfg: ModelConfig, opts: WasmModelOptions = {}): WasmModel {
    return new WasmModel(engine, cfg, opts);
  }

  /** A view of parameter `name` inside `buf` (params, grads, m or v). */
  p(name: string, buf: Arr = this.params): Arr {
    const e = this.layout.byName.get(name);
    if (!e) throw new Error(`WasmModel: unknown parameter '${name}'`);
    return new Arr(this.engine, buf.ptr + e.offset * 4, e.size, `${buf.label}:${name}`);
  }

  /** Replace the parameters. @param params (P) f32 @throws Error on a length mismatch. */
  writeParams(params: Float32Array): void {
    this.params.write(params);
    this.transposedFresh = false;
  }

  readParams(): Float32Array {
    return this.params.read();
  }

  /** Write the whole optimizer state (a checkpoint restore). */
  writeState(s: { params: Float32Array; m: Float32Array; v: Float32Array }): void {
    this.writeParams(s.params);
    this.m.write(s.m);
    this.v.write(s.v);
  }

  /** Wᵀ (K, M) of weight `name` (as of the last prepareForward). */
  transposed(name: string): Arr {
    const t = this.wT.get(name);
    if (!t) throw new Error(`WasmModel: no transposed copy of '${name}'`);
    return t;
  }

  /** Refresh the transposed weight copies if the parameters changed (forward does this itself). */
  prepareForward(): void {
    if (this.transposedFresh) return;
    const { C, L, vocabSize: V } = this.cfg;
    const dims: Record<(typeof MATRIX)[number], [number, number]> = {
      qkvw: [3 * C, C],
      attprojw: [C, C],
      fcw: [4 * C, C],
      fcprojw: [C, 4 * C],
    };
    for (let l = 0; l < L; l++) {
      for (const n of MATRIX) transpose(this.engine, this.p(`h${l}.${n}`), this.wT.get(`h${l}.${n}`)!, dims[n][0], dims[n][1]);
    }
    transpose(this.engine, this.p('wte'), this.wT.get('wte')!, V, C);
    transpose(this.engine, this.p('valuew'), this.wT.get('valuew')!, 1, C);
    this.transposedFresh = true;
  }

  /**
   * Forward pass over right-padded rows.
   * @param ids (B,T) i32 in [0, V) @param lengths (B) i32 in [1, T]
   * @param scored (S) flat positions b·T + t (increasing, each t < lengths[b]) where logits are needed
   * @param wantValues compute the value head at every position
   * @throws Error naming the bad argument (shapes, ids, lengths, T > maxT, positions).
   */
  forward(ids: Int32Array, lengths: Int32Array, B: number, T: number, scored: Int32Array, wantValues: boolean): WasmForward {
    const op = 'WasmModel.forward';
    const { C, NH, L, vocabSize: V, maxT } = this.cfg;
    if (!Number.isInteger(B) || B < 1) throw new Error(`${op}: B must be a positive integer, got ${B}`);
    if (!Number.isInteger(T) || T < 1 || T > maxT) throw new Error(`${op}: T = ${T} must be an integer in [1, maxT = ${maxT}]`);
    if (ids.length !== B * T) throw new Error(`${op}: ids has ${ids.length} values, expected (B,T) = ${B * T}`);
    if (lengths.length !== B) throw new Error(`${op}: lengths has ${lengths.length} values, expected (B) = ${B}`);
    for (let i = 0; i < ids.length; i++)
      if (!(ids[i] >= 0 && ids[i] < V)) throw new Error(`${op}: ids[${i}] = ${ids[i]} is outside [0, ${V})`);
    for (let b = 0; b < B; b++)
      if (!(lengths[b] >= 0 && lengths[b] <= T)) throw new Error(`${op}: lengths[${b}] = ${lengths[b]} is outside [0, T = ${T}]`);
    for (let s = 0; s < scored.length; s++) {
      const i = scored[s];
      if (!(i >= 0 && i < B * T) || (s > 0 && i <= scored[s - 1]))
        throw new Error(`${op}: scored[${s}] = ${i} must be increasing positions in [0, B·T = ${B * T})`);
    }
    if (this.stepMark !== null) this.endStep();
    this.prepareForward();
    const e = this.engine;
    this.stepMark = e.mark();
    const N = B * T;
    const S = scored.length;
    // Every activation below is written in full by its kernel (attention writes the masked
    // and padded entries as 0): no zero-fill.
    const a = (n: number, label: string) => e.alloc(n, label, 'none');
    const idsA = a(N, 'ids');
    idsA.write(ids);
    const lenA = a(B, 'lengths');
    lenA.write(lengths);
    const scoredIdx = a(Math.max(1, S), 'scored');
    if (S > 0) scoredIdx.i32().set(scored);
    const attScratch = a(e.threads * 2 * (C / NH) * T, 'attention scratch');
    let x = a(N * C, 'x0');
    encoderForward(e, idsA, this.p('wte'), this.p('wpe'), x, { B, T, C });
    const blocks: BlockActs[] = [];
    for (let l = 0; l < L; l++) {
      const h = `h${l}.`;
      const ln1 = a(N * C, h + 'ln1'),
        ln1Mean = a(N, h + 'ln1 mean'),
        ln1Rstd = a(N, h + 'ln1 rstd');
      layernormForward(e, x, this.p(h + 'ln1w'), this.p(h + 'ln1b'), ln1, ln1Mean, ln1Rstd, { N, C });
      const qkv = a(N * 3 * C, h + 'qkv');
      matmulForward(e, ln1, this.wT.get(h + 'qkvw')!, this.p(h + 'qkvb'), qkv, { N, K: C, M: 3 * C });
      const atty = a(N * C, h + 'atty'),
        att = a(B * NH * T * T, h + 'att');
      attentionForward(e, qkv, atty, att, lenA, attScratch, { B, T, C, NH });
      const x2 = a(N * C, h + 'x2');
      matmulForward(e, atty, this.wT.get(h + 'attprojw')!, this.p(h + 'attprojb'), x2, { N, K: C, M: C });
      residualForward(e, x2, x, x2, N * C);
      const ln2 = a(N * C, h + 'ln2'),
        ln2Mean = a(N, h + 'ln2 mean'),
        ln2Rstd = a(N, h + 'ln2 rstd');
      layernormForward(e, x2, this.p(h + 'ln2w'), this.p(h + 'ln2b'), ln2, ln2Mean, ln2Rstd, { N, C });
      const fch = a(N * 4 * C, h + 'fch'),
        fchGelu = a(N * 4 * C, h + 'fch gelu');
      matmulForward(e, ln2, this.wT.get(h + 'fcw')!, this.p(h + 'fcb'), fch, { N, K: C, M: 4 * C });
      geluForward(e, fch, fchGelu, N * 4 * C);
      const x3 = a(N * C, h + 'x3');
      matmulForward(e, fchGelu, this.wT.get(h + 'fcprojw')!, this.p(h + 'fcprojb'), x3, { N, K: 4 * C, M: C });
      residualForward(e, x3, x2, x3, N * C);
      blocks.push({ x, ln1, ln1Mean, ln1Rstd, qkv, atty, att, x2, ln2, ln2Mean, ln2Rstd, fch, fchGelu });
      x = x3;
    }
    const lnf = a(N * C, 'lnf'),
      lnfMean = a(N, 'lnf mean'),
      lnfRstd = a(N, 'lnf rstd');
    layernormForward(e, x, this.p('lnfw'), this.p('lnfb'), lnf, lnfMean, lnfRstd, { N, C });
    const lnfS = a(Math.max(1, S) * C, 'lnf scored');
    const logits = a(Math.max(1, S) * V, 'logits (S,V)');
    if (S > 0) {
      gatherRows(e, lnf, scoredIdx, lnfS, S, C);
      matmulForward(e, lnfS, this.wT.get('wte')!, null, logits, { N: S, K: C, M: V });
    }
    let values: Arr | null = null;
    if (wantValues) {
      values = a(N, 'values');
      matmulForward(e, lnf, this.wT.get('valuew')!, this.p('valueb'), values, { N, K: C, M: 1 });
    }
    return { B, T, scored, logits, values, ids: idsA, lengths: lenA, scoredIdx, blocks, xL: x, lnf, lnfMean, lnfRstd, lnfS };
  }

  /**
   * Backward pass: grads = ∂L/∂params for a loss with gradients dlogits (S,V) at the scored
   * positions and dvalues (B·T) (or null). Overwrites `grads`.
   * @throws Error naming dlogits or dvalues on a size mismatch.
   */
  backward(f: WasmForward, dlogits: Arr, dvalues: Float32Array | null): void {
    const e = this.engine;
    const { C, NH, L, vocabSize: V } = this.cfg;
    const { B, T } = f;
    const N = B * T;
    const S = f.scored.length;
    if (dlogits.length < S * V) throw new Error(`WasmModel.backward: dlogits has ${dlogits.length} values, expected (S,V) = ${S * V}`);
    if (dvalues && dvalues.length !== N) throw new Error(`WasmModel.backward: dvalues has ${dvalues.length} values, expected (B·T) = ${N}`);
    const g = (n: string) => this.p(n, this.grads);
    this.grads.zero();
    // Accumulated into: dlnf (scatter, value head), dres (each LayerNorm backward adds its dinp).
    const a = (n: number, label: string) => e.alloc(n, label);
    // Written in full by their kernel before any read.
    const w = (n: number, label: string) => e.alloc(n, label, 'none');
    const dlnf = a(N * C, 'dlnf');
    if (S > 0) {
      const dlnfS = w(S * C, 'dlnf scored');
      matmulBackward(e, dlogits, f.lnfS, this.p('wte'), { dinp: dlnfS, dweight: g('wte'), dbias: null }, { N: S, K: C, M: V });
      scatterAddRows(e, dlnfS, f.scoredIdx, dlnf, S, C);
    }
    if (dvalues) {
      const dv = a(N, 'dvalues');
      dv.write(dvalues);
      matmulBackward(
        e,
        dv,
        f.lnf,
        this.p('valuew'),
        { dinp: dlnf, dinpInit: 'accumulate', dweight: g('valuew'), dbias: g('valueb') },
        { N, K: C, M: 1 },
      );
    }
    const dres = a(N * C, 'dres');
    layernormBackward(e, dlnf, f.xL, this.p('lnfw'), f.lnfMean, f.lnfRstd, { dinp: dres, dw: g('lnfw'), db: g('lnfb') }, { N, C });
    const big = w(N * 4 * C, 'd fch');
    const dC = w(N * C, 'd (N,C)');
    const dqkv = w(N * 3 * C, 'dqkv');
    const scratch = w(e.threads * (C / NH + T) * T, 'attention scratch');
    for (let l = L - 1; l >= 0; l--) {
      const h = `h${l}.`;
      const c = f.blocks[l];
      matmulBackward(
        e,
        dres,
        c.fchGelu,
        this.p(h + 'fcprojw'),
        { dinp: big, dweight: g(h + 'fcprojw'), dbias: g(h + 'fcprojb') },
        { N, K: 4 * C, M: C },
      );
      geluBackward(e, big, c.fch, big, N * 4 * C);
      matmulBackward(e, big, c.ln2, this.p(h + 'fcw'), { dinp: dC, dweight: g(h + 'fcw'), dbias: g(h + 'fcb') }, { N, K: C, M: 4 * C });
      layernormBackward(
        e,
        dC,
        c.x2,
        this.p(h + 'ln2w'),
        c.ln2Mean,
        c.ln2Rstd,
        { dinp: dres, dw: g(h + 'ln2w'), db: g(h + 'ln2b') },
        { N, C },
      );
      matmulBackward(
        e,
        dres,
        c.atty,
        this.p(h + 'attprojw'),
        { dinp: dC, dweight: g(h + 'attprojw'), dbias: g(h + 'attprojb') },
        { N, K: C, M: C },
      );
      attentionBackward(e, dC, c.qkv, c.att, dqkv, f.lengths, scratch, { B, T, C, NH });
      matmulBackward(e, dqkv, c.ln1, this.p(h + 'qkvw'), { dinp: dC, dweight: g(h + 'qkvw'), dbias: g(h + 'qkvb') }, { N, K: C, M: 3 * C });
      layernormBackward(
        e,
        dC,
        c.x,
        this.p(h + 'ln1w'),
        c.ln1Mean,
        c.ln1Rstd,
        { dinp: dres, dw: g(h + 'ln1w'), db: g(h + 'ln1b') },
        { N, C },
      );
    }
    encoderBackward(e, dres, f.ids, g('wte'), g('wpe'), { B, T, C });
  }

  /** Free the step's activations (the next forward does this itself). */
  endStep(): void {
    if (this.stepMark !== null) this.engine.release(this.stepMark);
    this.stepMark = null;
  }

  /**
   * Scratch in engine memory, valid until endStep (for loss heads). Needs a forward first.
   * @param fill 'none' for an output a kernel writes in full (WasmEngine.alloc)
   */
  scratch(n: number, label: string, fill: 'zero' | 'none' = 'zero'): Arr {
    if (this.stepMark === null) throw new Error('WasmModel.scratch: no step in progress (call forward first)');
    return this.engine.alloc(n, label, fill);
  }

  /** ‖grads‖₂ (f32 chunk partials summed in order in f64). */
  gradNorm(): number {
    return Math.sqrt(sumOfSquares(this.engine, this.grads, this.P, this.partials));
  }

  /**
   * Global-norm clipping then AdamW on the current grads, in place; a non-finite gradient norm
   * applies nothing (params, m, v unchanged) and returns applied false.
   * @returns the pre-clip norm, the clip multiplier and whether the step was applied
   */
  optimizerStep(hp: OptimizerStep): { norm: number; gradScale: number; applied: boolean } {
    const norm = this.gradNorm();
    if (!Number.isFinite(norm)) return { norm, gradScale: 0, applied: false };
    const gradScale = hp.maxNorm === Infinity ? 1 : Math.min(1, hp.maxNorm / (norm + 1e-6));
    if (this.decayLambda !== hp.weightDecay) {
      const dm = this.decayMask.f32();
      const d = this.decay.f32();
      for (let i = 0; i < this.P; i++) d[i] = dm[i] * hp.weightDecay;
      this.decayLambda = hp.weightDecay;
    }
    adamwUpdate(this.engine, this.params, this.grads, this.m, this.v, this.decay, this.P, {
      lr: hp.lr,
      beta1: hp.beta1,
      beta2: hp.beta2,
      eps: hp.eps,
      step: hp.step,
      gradScale,
    });
    this.transposedFresh = false;
    return { norm, gradScale, applied: true };
  }
}

/**
 * The policy transformer on the GPU: the flat parameter buffer, the activation buffers of a
 * maximum batch shape, and the forward pass as prepared WGSL dispatches (docs/ARCHITECTURE.md "Two engines for the policy", "The WebGPU engine").
 *
 * Same architecture and op order as the CPU model (src/model/cpu_model.ts, docs/KERNELS.md):
 *   x₀ = wte[ids] + wpe[t];  per block l:
 *     x2 = x_l + attproj(attention(qkv(LN1(x_l))));  x_{l+1} = x2 + fcproj(gelu(fc(LN2(x2))));
 *   lnf = LNf(x_L);  logits = lnf·wteᵀ (tied, no bias);  values = lnf·valuewᵀ + valueb.
 * The two residual adds are fused into the projection matmuls' stores ((acc + bias) + x, the
 * same rounding as a separate add).
 *
 * Activation buffers (see `GpuActivations`) are allocated once for (maxB, maxT); a forward of
 * a smaller (B, T) packs them densely as (B, T, …), so element (b, t) of an (N, X) tensor is
 * at (b·T + t)·X. They stay valid after `encodeForward` until the next forward is encoded: the
 * backward pass reads them in the same command buffer.
 *
 * Per shape, the dispatches (uniform params + bind groups) are prepared once and cached (a
 * small LRU of shapes), so encoding a forward creates no GPU objects.
 */
import type { Gpu } from './device';
import { createStorage, readF32 } from './buffers';
import { encodePrepared, type PreparedDispatch, type TensorView } from './kernels/dispatch_plan';
import { prepareEncoderForward } from './kernels/encoder_forward';
import { prepareLayernormForward } from './kernels/layernorm_forward';
import { prepareMatmulForward } from './kernels/matmul_forward';
import { prepareAttentionDecode, prepareAttentionForward } from './kernels/attention_forward';
import { prepareGeluForward } from './kernels/gelu_forward';
import { prepareLogprobForward } from './kernels/logprob_forward';
import { prepareKvCacheWrite } from './kernels/kv_cache_write';
import { prepareGatherRows } from './kernels/gather_rows';
import { validateConfig, type ModelConfig } from '../../model/config';
import { paramLayout, type ParamLayout } from '../../model/layout';

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
interface GpuActivations {
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

interface ForwardOptions {
  /** Also compute logprob (B,T) and lse (B,T) of the `targets` buffer (default false). */
  logprob?: boolean;
  /** Compute the value head (default true). */
  values?: boolean;
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

interface GpuModelOptions {
  /** Largest batch (rows) a forward will use. */
  maxB: number;
  /** Largest sequence length a forward will use (≤ cfg.maxT; default cfg.maxT). */
  maxT?: number;
  /** Prepared shapes kept (LRU, default 8). */
  planCacheSize?: number;
}

const I32 = 4;

export class GpuModel {
  readonly cfg: ModelConfig;
  readonly layout: ParamLayout;
  readonly maxB: number;
  readonly maxT: number;
  /** (P) f32, laid out by `layout` (labelled 'params'). */
  readonly params: GPUBuffer;
  /** (maxB·maxT) i32 input ids, packed (B,T) for the current shape. */
  readonly ids: GPUBuffer;
  /** (maxB·maxT) i32 targets for `{ logprob: true }`, packed (B,T). */
  readonly targets: GPUBuffer;
  readonly acts: GpuActivations;
  private readonly plans = new Map<string, PreparedDispatch[]>();
  private readonly planCacheSize: number;

  private constructor(
    readonly gpu: Gpu,
    cfg: ModelConfig,
    opts: GpuModelOptions,
  ) {
    this.cfg = validateConfig(cfg);
    this.layout = paramLayout(cfg);
    const { C, L, NH, vocabSize: V } = cfg;
    if (!Number.isInteger(opts.maxB) || opts.maxB <= 0) throw new Error(`GpuModel: maxB must be a positive integer, got ${opts.maxB}`);
    const maxT = opts.maxT ?? cfg.maxT;
    if (!Number.isInteger(maxT) || maxT <= 0 || maxT > cfg.maxT) {
      throw new Error(`GpuModel: maxT must be an integer in [1, ModelConfig.maxT = ${cfg.maxT}], got ${maxT}`);
    }
    if (C % 4 !== 0) throw new Error(`GpuModel: ModelConfig.C = ${C} must be a multiple of 4 (vec4 kernels)`);
    this.maxB = opts.maxB;
    this.maxT = maxT;
    this.planCacheSize = opts.planCacheSize ?? 8;
    const d = gpu.device;
    const N = this.maxB * maxT;
    const f = (label: string, n: number) => createStorage(d, `${label} (${n} f32)`, n * 4);
    this.params = createStorage(d, 'params', this.layout.total * 4);
    this.ids = createStorage(d, 'ids', N * I32);
    this.targets = createStorage(d, 'targets', N * I32);
    const blocks: GpuBlockActs[] = [];
    const x: GPUBuffer[] = [f('x0', N * C)];
    for (let l = 0; l < L; l++) {
      const h = `h${l}.`;
      blocks.push({
        ln1: f(h + 'ln1', N * C),
        ln1Mean: f(h + 'ln1Mean', N),
        ln1Rstd: f(h + 'ln1Rstd', N),
        qkv: f(h + 'qkv', N * 3 * C),
        att: f(h + 'att', this.maxB * NH * maxT * maxT),
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
    this.acts = {
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

  /**
   * Allocate parameters (zeros until `writeParams`) and activations for (maxB, maxT).
   * @throws Error naming the config field or option, or naming a tensor that exceeds
   *   maxStorageBufferBindingSize (e.g. the attention probabilities at large maxB·maxT²).
   */
  static create(gpu: Gpu, cfg: ModelConfig, opts: GpuModelOptions): GpuModel {
    return new GpuModel(gpu, cfg, opts);
  }

  /** Upload parameters (P) f32 laid out by `layout`. @throws Error on a length mismatch. */
  writeParams(params: Float32Array): void {
    if (params.length !== this.layout.total) {
      throw new Error(`GpuModel.writeParams: params has ${params.length} values, layout needs ${this.layout.total}`);
    }
    this.gpu.device.queue.writeBuffer(this.params, 0, params.buffer, params.byteOffset, params.byteLength);
  }

  /** Read the parameters back (one submit + map). */
  readParams(): Promise<Float32Array> {
    return readF32(this.gpu.device, this.params, this.layout.total);
  }

  /** A view of parameter `name` inside `params`. @throws Error on an unknown name. */
  param(name: string): TensorView {
    const e = this.layout.byName.get(name);
    if (!e) throw new Error(`GpuModel: unknown parameter '${name}'`);
    return { buffer: this.params, offset: e.offset };
  }

  /** @throws Error unless 1 ≤ B ≤ maxB and 1 ≤ T ≤ maxT. */
  checkShape(op: string, B: number, T: number): void {
    if (!Number.isInteger(B) || B < 1 || B > this.maxB) throw new Error(`${op}: B = ${B} must be an integer in [1, maxB = ${this.maxB}]`);
    if (!Number.isInteger(T) || T < 1 || T > this.maxT) throw new Error(`${op}: T = ${T} must be an integer in [1, maxT = ${this.maxT}]`);
  }

  /**
   * Upload token ids (B,T) i32 (right-padded rows; padding must be a valid id) to `ids`,
   * or to `targets` when `which = 'targets'`.
   * @throws Error naming the first id outside [0, V), or a bad shape.
   */
  writeIds(ids: Int32Array, B: number, T: number, which: 'ids' | 'targets' = 'ids'): void {
    const op = `GpuModel.write(${which})`;
    this.checkShape(op, B, T);
    if (ids.length !== B * T) throw new Error(`${op}: ${which} has ${ids.length} values, expected (B,T) = ${B * T}`);
    const V = this.cfg.vocabSize;
    for (let i = 0; i < ids.length; i++) {
      if (!(ids[i] >= 0 && ids[i] < V)) throw new Error(`${op}: ${which}[${i}] = ${ids[i]} is outside [0, ${V})`);
    }
    this.gpu.device.queue.writeBuffer(which === 'ids' ? this.ids : this.targets, 0, ids.buffer, ids.byteOffset, ids.byteLength);
  }

  /**
   * The forward pass of shape (B,T) as prepared dispatches (cached per shape and options):
   * reads `ids` (and `targets` with `{ logprob: true }`), writes `acts`. Encode them into your
   * own compute pass with `encodePrepared` (e.g. followed by the backward dispatches).
   * Dispatch count: 3 + 8L, +1 value head, +1 logprob.
   * @throws Error on a bad shape.
   */
  forwardDispatches(B: number, T: number, opts: ForwardOptions = {}): PreparedDispatch[] {
    this.checkShape('GpuModel.forwardDispatches', B, T);
    const withValues = opts.values ?? true;
    const key = `full:${B}:${T}:${opts.logprob ? 1 : 0}:${withValues ? 1 : 0}`;
    const hit = this.plans.get(key);
    if (hit) {
      this.plans.delete(key); // LRU: re-insert as newest
      this.plans.set(key, hit);
      return hit;
    }
    const ds = this.buildTrunk(B, T);
    const { C, vocabSize: V } = this.cfg;
    const N = B * T;
    const a = this.acts;
    ds.push(prepareMatmulForward(this.gpu, { N, K: C, M: V, inp: { buffer: a.lnf }, weight: this.param('wte'), bias: null, out: { buffer: a.logits } }, 'lm_head'));
    if (withValues) {
      ds.push(
        prepareMatmulForward(
          this.gpu,
          {
            N,
            K: C,
            M: 1,
            inp: { buffer: a.lnf },
            weight: this.param('valuew'),
            bias: this.param('valueb'),
            out: { buffer: a.values },
          },
          'value_head',
        ),
      );
    }
    if (opts.logprob) {
      ds.push(
        prepareLogprobForward(this.gpu, {
          N,
          V,
          logits: { buffer: a.logits },
          targets: { buffer: this.targets },
          logprob: { buffer: a.logprob },
          lse: { buffer: a.lse },
        }),
      );
    }
    this.plans.set(key, ds);
    while (this.plans.size > this.planCacheSize) this.plans.delete(this.plans.keys().next().value as string);
    return ds;
  }

  /**
   * Encode the forward of shape (B,T) into `encoder` as one compute pass (see
   * `forwardDispatches`). @returns the number of dispatches encoded.
   */
  encodeForward(encoder: GPUCommandEncoder, B: number, T: number, opts: ForwardOptions = {}): number {
    const pass = encoder.beginComputePass({ label: `forward B=${B} T=${T}` });
    const n = encodePrepared(pass, this.forwardDispatches(B, T, opts));
    pass.end();
    return n;
  }

  /**
   * Convenience for tests and tools: upload ids, run one forward (one submit), read back
   * logits (B,T,V) and values (B,T) (and logprob (B,T) when `targets` is given).
   * @throws Error on a bad shape or id.
   */
  async forward(ids: Int32Array, B: number, T: number, targets?: Int32Array): Promise<{ logits: Float32Array; values: Float32Array; logprob?: Float32Array }> {
    this.writeIds(ids, B, T);
    if (targets) this.writeIds(targets, B, T, 'targets');
    const enc = this.gpu.device.createCommandEncoder({ label: 'GpuModel.forward' });
    this.encodeForward(enc, B, T, { logprob: !!targets });
    this.gpu.device.queue.submit([enc.finish()]);
    const logits = await readF32(this.gpu.device, this.acts.logits, B * T * this.cfg.vocabSize);
    const values = await readF32(this.gpu.device, this.acts.values, B * T);
    const logprob = targets ? await readF32(this.gpu.device, this.acts.logprob, B * T) : undefined;
    return { logits, values, logprob };
  }

  /**
   * A KV cache for `B` rows of up to `Tmax` positions (≤ maxT).
   * @throws Error on a bad B or Tmax, or a cache layer exceeding the binding limit.
   */
  createKvCache(B: number, Tmax: number): KvCache {
    this.checkShape('GpuModel.createKvCache', B, Tmax);
    const d = this.gpu.device;
    const layers = Array.from({ length: this.cfg.L }, (_, l) => createStorage(d, `kv-cache h${l} (B=${B}, Tmax=${Tmax}, 2C)`, B * Tmax * 2 * this.cfg.C * 4));
    const pos = createStorage(d, 'kv-cache pos (B) i32', B * I32);
    const zeros = createStorage(d, 'kv-cache zeros (B) i32', B * I32);
    const lastRow = createStorage(d, 'kv-cache lastRow (B) i32', B * I32);
    const lastHidden = createStorage(d, 'kv-cache lastHidden (B,C)', B * this.cfg.C * 4);
    return { B, Tmax, layers, pos, zeros, lastRow, lastHidden };
  }

  /**
   * Prefill: the trunk of the full forward over the right-padded prompts (B,T) (`ids`), the k,v
   * of positions 0…T−1 of every layer copied into `cache`, then the lm head on each row's last
   * prompt position only: lnf row `cache.lastRow[b]` (host-written, = b·T + len_b − 1) is
   * gathered into `cache.lastHidden` and its logits land in row b of `acts.logits` (B,V), as
   * after a decode step. Dispatch count 2 + 9L + 2 (no value head). Not cached: the sampler
   * prepares it once per call.
   * @throws Error on a bad shape or T > cache.Tmax.
   */
  prefillDispatches(cache: KvCache, T: number): PreparedDispatch[] {
    const B = cache.B;
    this.checkShape('GpuModel.prefillDispatches', B, T);
    if (T > cache.Tmax) throw new Error(`GpuModel.prefillDispatches: T = ${T} exceeds the cache's Tmax = ${cache.Tmax}`);
    const { C, vocabSize: V } = this.cfg;
    const ds = this.buildTrunk(B, T);
    for (let l = 0; l < this.cfg.L; l++) {
      ds.push(
        prepareKvCacheWrite(
          this.gpu,
          {
            B,
            T,
            C,
            Tmax: cache.Tmax,
            qkv: { buffer: this.acts.blocks[l].qkv },
            pos0: cache.zeros,
            cache: { buffer: cache.layers[l] },
          },
          `kv_cache_write h${l} prefill`,
        ),
      );
    }
    ds.push(prepareGatherRows(this.gpu, { B, C, R: B * T, inp: this.acts.lnf, idx: cache.lastRow, out: cache.lastHidden }, 'gather last hidden'));
    ds.push(
      prepareMatmulForward(
        this.gpu,
        {
          N: B,
          K: C,
          M: V,
          inp: { buffer: cache.lastHidden },
          weight: this.param('wte'),
          bias: null,
          out: { buffer: this.acts.logits },
        },
        'lm_head prefill',
      ),
    );
    return ds;
  }

  /**
   * One decode step for all B rows of `cache`: row b feeds `ids[b]` at position `cache.pos[b]`
   * (both host- or GPU-written before the step), its k,v are written into the cache, its query
   * attends to positions 0…pos[b], and the step's logits (B,V) land in rows 0…B−1 of
   * `acts.logits`. Reuses the activation buffers as (B,1,…). Dispatch count 3 + 9L.
   * @param ids (B) i32 input token of each row (e.g. the sampler's output buffer)
   */
  decodeDispatches(cache: KvCache, ids: GPUBuffer): PreparedDispatch[] {
    const { C, vocabSize: V } = this.cfg;
    const B = cache.B;
    const a = this.acts;
    const g = this.gpu;
    const ds: PreparedDispatch[] = [];
    ds.push(
      prepareEncoderForward(
        g,
        {
          B,
          T: 1,
          C,
          V,
          maxT: this.cfg.maxT,
          ids,
          wte: this.param('wte'),
          wpe: this.param('wpe'),
          out: { buffer: a.x[0] },
          pos0: cache.pos,
        },
        'encoder_forward decode',
      ),
    );
    this.pushBlocks(ds, B, 1, { cache });
    ds.push(prepareMatmulForward(g, { N: B, K: C, M: V, inp: { buffer: a.lnf }, weight: this.param('wte'), bias: null, out: { buffer: a.logits } }, 'lm_head decode'));
    return ds;
  }

  /** Encoder, blocks and the final LayerNorm of a full forward. */
  private buildTrunk(B: number, T: number): PreparedDispatch[] {
    const { C, vocabSize: V } = this.cfg;
    const ds: PreparedDispatch[] = [
      prepareEncoderForward(this.gpu, {
        B,
        T,
        C,
        V,
        maxT: this.cfg.maxT,
        ids: this.ids,
        wte: this.param('wte'),
        wpe: this.param('wpe'),
        out: { buffer: this.acts.x[0] },
      }),
    ];
    this.pushBlocks(ds, B, T, null);
    return ds;
  }

  /** The L blocks and the final LayerNorm; decode mode when `dec` is given (T = 1). */
  private pushBlocks(ds: PreparedDispatch[], B: number, T: number, dec: { cache: KvCache } | null): void {
    const { C, NH, L } = this.cfg;
    const N = B * T;
    const a = this.acts;
    const g = this.gpu;
    const v = (buffer: GPUBuffer): TensorView => ({ buffer });
    const tag = dec ? ' decode' : '';
    for (let l = 0; l < L; l++) {
      const h = `h${l}.`;
      const blk = a.blocks[l];
      ds.push(
        prepareLayernormForward(
          g,
          {
            N,
            C,
            inp: v(a.x[l]),
            w: this.param(h + 'ln1w'),
            b: this.param(h + 'ln1b'),
            out: v(blk.ln1),
            mean: v(blk.ln1Mean),
            rstd: v(blk.ln1Rstd),
          },
          `${h}ln1${tag}`,
        ),
      );
      ds.push(prepareMatmulForward(g, { N, K: C, M: 3 * C, inp: v(blk.ln1), weight: this.param(h + 'qkvw'), bias: this.param(h + 'qkvb'), out: v(blk.qkv) }, `${h}qkv${tag}`));
      if (dec) {
        const { cache } = dec;
        ds.push(prepareKvCacheWrite(g, { B, T: 1, C, Tmax: cache.Tmax, qkv: v(blk.qkv), pos0: cache.pos, cache: v(cache.layers[l]) }, `${h}kv_cache_write${tag}`));
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
            weight: this.param(h + 'attprojw'),
            bias: this.param(h + 'attprojb'),
            residual: v(a.x[l]),
            out: v(blk.x2),
          },
          `${h}attproj${tag}`,
        ),
      );
      ds.push(
        prepareLayernormForward(
          g,
          {
            N,
            C,
            inp: v(blk.x2),
            w: this.param(h + 'ln2w'),
            b: this.param(h + 'ln2b'),
            out: v(blk.ln2),
            mean: v(blk.ln2Mean),
            rstd: v(blk.ln2Rstd),
          },
          `${h}ln2${tag}`,
        ),
      );
      ds.push(prepareMatmulForward(g, { N, K: C, M: 4 * C, inp: v(blk.ln2), weight: this.param(h + 'fcw'), bias: this.param(h + 'fcb'), out: v(blk.fch) }, `${h}fc${tag}`));
      ds.push(prepareGeluForward(g, { n: N * 4 * C, inp: v(blk.fch), out: v(blk.fchGelu) }, `${h}gelu${tag}`));
      ds.push(
        prepareMatmulForward(
          g,
          {
            N,
            K: 4 * C,
            M: C,
            inp: v(blk.fchGelu),
            weight: this.param(h + 'fcprojw'),
            bias: this.param(h + 'fcprojb'),
            residual: v(blk.x2),
            out: v(a.x[l + 1]),
          },
          `${h}fcproj${tag}`,
        ),
      );
    }
    ds.push(
      prepareLayernormForward(
        g,
        {
          N,
          C,
          inp: v(a.x[L]),
          w: this.param('lnfw'),
          b: this.param('lnfb'),
          out: v(a.lnf),
          mean: v(a.lnfMean),
          rstd: v(a.lnfRstd),
        },
        `lnf${tag}`,
      ),
    );
  }

  /** Release every buffer (parameters and activations). */
  destroy(): void {
    const all: GPUBuffer[] = [
      this.params,
      this.ids,
      this.targets,
      ...this.acts.x,
      this.acts.lnf,
      this.acts.lnfMean,
      this.acts.lnfRstd,
      this.acts.logits,
      this.acts.values,
      this.acts.logprob,
      this.acts.lse,
    ];
    for (const b of this.acts.blocks) all.push(...Object.values(b));
    for (const b of all) b.destroy();
    this.plans.clear();
  }
}

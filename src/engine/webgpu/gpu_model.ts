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
 * Activation buffers (`GpuActivations`, gpu_trunk.ts, which also builds the encoder, blocks and
 * final LayerNorm) are allocated once for (maxB, maxT); a forward of a smaller (B, T) packs them
 * densely as (B, T, …), so element (b, t) of an (N, X) tensor is at (b·T + t)·X. They stay valid after `encodeForward` until the next forward is encoded: the
 * backward pass reads them in the same command buffer.
 *
 * Per shape, the dispatches (uniform params + bind groups) are prepared once and cached (a
 * small LRU of shapes), so encoding a forward creates no GPU objects.
 */
import type { Gpu } from './device';
import { createStorage, readF32 } from './buffers';
import { encodePrepared, type PreparedDispatch, type TensorView } from './kernels/dispatch_plan';
import { prepareMatmulForward } from './kernels/matmul_forward';
import { prepareLogprobForward } from './kernels/logprob_forward';
import { prepareKvCacheWrite } from './kernels/kv_cache_write';
import { prepareGatherRows } from './kernels/gather_rows';
import { validateConfig, type ModelConfig } from '../../model/config';
import { paramLayout, type ParamLayout } from '../../model/layout';
import { activationBuffers, createActivations, trunkDispatches, type GpuActivations, type KvCache } from './gpu_trunk';

interface ForwardOptions {
  /** Also compute logprob (B,T) and lse (B,T) of the `targets` buffer (default false). */
  logprob?: boolean;
  /** Compute the value head (default true). */
  values?: boolean;
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
    const { C } = cfg;
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
    this.params = createStorage(d, 'params', this.layout.total * 4);
    this.ids = createStorage(d, 'ids', N * I32);
    this.targets = createStorage(d, 'targets', N * I32);
    this.acts = createActivations(d, this.cfg, this.maxB, maxT);
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
    const ds = trunkDispatches(this, B, T, null);
    const { C, vocabSize: V } = this.cfg;
    const N = B * T;
    const a = this.acts;
    ds.push(
      prepareMatmulForward(
        this.gpu,
        { N, K: C, M: V, inp: { buffer: a.lnf }, weight: this.param('wte'), bias: null, out: { buffer: a.logits } },
        'lm_head',
      ),
    );
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
  async forward(
    ids: Int32Array,
    B: number,
    T: number,
    targets?: Int32Array,
  ): Promise<{ logits: Float32Array; values: Float32Array; logprob?: Float32Array }> {
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
    const layers = Array.from({ length: this.cfg.L }, (_, l) =>
      createStorage(d, `kv-cache h${l} (B=${B}, Tmax=${Tmax}, 2C)`, B * Tmax * 2 * this.cfg.C * 4),
    );
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
    const ds = trunkDispatches(this, B, T, null);
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
    ds.push(
      prepareGatherRows(this.gpu, { B, C, R: B * T, inp: this.acts.lnf, idx: cache.lastRow, out: cache.lastHidden }, 'gather last hidden'),
    );
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
    const a = this.acts;
    const ds = trunkDispatches(this, cache.B, 1, { cache, ids });
    ds.push(
      prepareMatmulForward(
        this.gpu,
        { N: cache.B, K: C, M: V, inp: { buffer: a.lnf }, weight: this.param('wte'), bias: null, out: { buffer: a.logits } },
        'lm_head decode',
      ),
    );
    return ds;
  }

  /** Release every buffer (parameters and activations). */
  destroy(): void {
    for (const b of [this.params, this.ids, this.targets, ...activationBuffers(this.acts)]) b.destroy();
    this.plans.clear();
  }
}

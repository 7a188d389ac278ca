/**
 * Batched autoregressive sampling on the GPU with a KV cache (docs/ARCHITECTURE.md "Rollouts"):
 * a prefill over B right-padded prompts, then one decode step per token, each one submit and one
 * small readback (ids, log-probs, entropies) to stop rows; the loop is decode_loop.ts, shared
 * with the CPU engine. `useKvCache: false` recomputes every prefix (the benchmark's baseline).
 *
 * Invariants: row b's draw at step s uses u = hash(seed, b, s), so a call is reproducible and a
 * row never depends on the others' draws; `logprobs[i]` is log π(a_i) under the distribution
 * actually sampled from (softmax(z/τ), top-p renormalized), bit-identical at τ = 1, topP = 1 to
 * what training recomputes for the same ids. Greedy (τ = 0) returns log-softmax(z) of the argmax.
 */
import { checkSampleRequest, type SampleRequest, type SampledRow, type SampleStats } from '../sample_request';
import { decodeLoop } from '../decode_loop';
import type { GpuModel } from './gpu_model';
import type { KvCache } from './gpu_trunk';
import { createStorage } from './buffers';
import { DeviceLostError, mapReadChecked } from '../device_lost';
import { encodePrepared, type PreparedDispatch } from './kernels/dispatch_plan';
import { prepareSampleTokens } from './kernels/sample_tokens';

interface BatchState {
  cache: KvCache;
  decode: PreparedDispatch[];
  /** (B) i32: sampled ids, also the decode step's input ids. */
  ids: GPUBuffer;
  /** (B) f32 sampled log-probs. */
  logprob: GPUBuffer;
  /** (B) f32 policy entropy at τ = 1 (nats) of the distribution each id was drawn from. */
  entropy: GPUBuffer;
  /** (B,2) u32 [logits row, step]. */
  rows: GPUBuffer;
  /** MAP_READ staging (3B words: ids, log-probs, entropies). */
  staging: GPUBuffer;
}

export class Sampler {
  private readonly states = new Map<number, BatchState>();
  private inFlight = false;

  /** @param model the policy; its maxT is the context limit (prompt + new tokens). */
  constructor(readonly model: GpuModel) {}

  private state(B: number): BatchState {
    let s = this.states.get(B);
    if (s) return s;
    const d = this.model.gpu.device;
    const cache = this.model.createKvCache(B, this.model.maxT);
    const ids = createStorage(d, `sampler ids (B=${B}) i32`, B * 4);
    s = {
      cache,
      ids,
      decode: this.model.decodeDispatches(cache, ids),
      logprob: createStorage(d, `sampler logprob (B=${B})`, B * 4),
      entropy: createStorage(d, `sampler entropy (B=${B})`, B * 4),
      rows: createStorage(d, `sampler rows (B=${B}, 2) u32`, B * 8),
      staging: d.createBuffer({
        label: `sampler staging (B=${B})`,
        size: B * 12,
        usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
      }),
    };
    this.states.set(B, s);
    return s;
  }

  /**
   * Sample continuations of every prompt. Not re-entrant: the KV cache, the model's activation
   * buffers and the staging buffer are shared, so await one call before starting the next (a
   * second call while one runs is refused with an Error, before it touches any buffer).
   * @returns one SampledRow per prompt, and counters of the call
   * @throws Error naming the bad field: empty prompts, B > maxB, a prompt of length 0 or ≥
   *   model.maxT, an id outside [0,V), a budget < 1, temperature < 0, topP ∉ (0,1], a
   *   non-integer seed, or an endToken outside [0,V).
   */
  async sample(req: SampleRequest): Promise<{ rows: SampledRow[]; stats: SampleStats }> {
    if (this.inFlight)
      throw new Error('Sampler.sample: the previous call has not finished (await each call; the KV cache and buffers are shared)');
    this.inFlight = true;
    try {
      return await this.sampleOnce(req);
    } finally {
      this.inFlight = false;
    }
  }

  private async sampleOnce(req: SampleRequest): Promise<{ rows: SampledRow[]; stats: SampleStats }> {
    const t0 = performance.now();
    const m = this.model;
    const { vocabSize: V } = m.cfg;
    const { B, lens, budgets, ban } = checkSampleRequest('Sampler.sample', req, V, m.maxT, m.maxB);
    const useCache = req.useKvCache ?? true;
    const gpu = m.gpu;
    if (gpu.lost) throw new DeviceLostError(`${gpu.lost.reason}: ${gpu.lost.message}`);
    const st = this.state(B);
    const d = gpu.device;
    const samp = (R: number) =>
      prepareSampleTokens(gpu, {
        B,
        V,
        R,
        logits: { buffer: m.acts.logits },
        rows: st.rows,
        ids: st.ids,
        logprob: st.logprob,
        entropy: st.entropy,
        seed: req.seed,
        temperature: req.temperature,
        topP: req.topP ?? 1,
        ...(ban ? { ban: { lo: ban.lo, hi: ban.hi, ...(req.endToken !== undefined ? { allow: req.endToken } : {}) } } : {}),
      });
    const sampleFull = new Map<number, PreparedDispatch>();
    const sampleAt = (R: number) => {
      let s = sampleFull.get(R);
      if (!s) sampleFull.set(R, (s = samp(R)));
      return s;
    };
    const prefill = useCache ? m.prefillDispatches(st.cache, Math.max(...lens)) : null;
    const rowsHost = new Uint32Array(2 * B);

    return decodeLoop(req.prompts, budgets, m.maxT, req.endToken, useCache, t0, async (s, x, stats) => {
      let ds: PreparedDispatch[];
      if (x.kind === 'full') {
        // Full forward over the current prefixes (prefill, or the no-cache baseline).
        m.writeIds(x.ids, B, x.T);
        const last = Int32Array.from(x.cur, (c, b) => b * x.T + c - 1);
        for (let b = 0; b < B; b++) {
          rowsHost[2 * b] = last[b];
          rowsHost[2 * b + 1] = s;
        }
        if (prefill) {
          // The prefill's lm head runs on the gathered last rows: logits row b.
          d.queue.writeBuffer(st.cache.lastRow, 0, last);
          for (let b = 0; b < B; b++) rowsHost[2 * b] = b;
          ds = [...prefill, sampleAt(B)];
        } else {
          ds = [...m.forwardDispatches(B, x.T, { values: false }), sampleAt(B * x.T)];
        }
      } else {
        for (let b = 0; b < B; b++) {
          rowsHost[2 * b] = b;
          rowsHost[2 * b + 1] = s;
        }
        d.queue.writeBuffer(st.cache.pos, 0, Int32Array.from(x.pos));
        ds = [...st.decode, sampleAt(B)];
      }
      d.queue.writeBuffer(st.rows, 0, rowsHost);
      const enc = d.createCommandEncoder({ label: `sampler step ${s}` });
      const pass = enc.beginComputePass({ label: `sampler step ${s}` });
      stats.dispatches += encodePrepared(pass, ds);
      pass.end();
      enc.copyBufferToBuffer(st.ids, 0, st.staging, 0, B * 4);
      enc.copyBufferToBuffer(st.logprob, 0, st.staging, B * 4, B * 4);
      enc.copyBufferToBuffer(st.entropy, 0, st.staging, B * 8, B * 4);
      d.queue.submit([enc.finish()]);
      stats.submits++;
      await mapReadChecked(d, st.staging);
      const words = st.staging.getMappedRange().slice(0);
      st.staging.unmap();
      stats.readbacks++;
      return {
        ids: new Int32Array(words, 0, B),
        logprobs: new Float32Array(words, B * 4, B),
        entropies: new Float32Array(words, B * 8, B),
      };
    });
  }

  /** Release the caches and staging buffers (the model is not destroyed). */
  destroy(): void {
    for (const s of this.states.values()) {
      for (const b of [
        ...s.cache.layers,
        s.cache.pos,
        s.cache.zeros,
        s.cache.lastRow,
        s.cache.lastHidden,
        s.ids,
        s.logprob,
        s.entropy,
        s.rows,
        s.staging,
      ])
        b.destroy();
    }
    this.states.clear();
  }
}

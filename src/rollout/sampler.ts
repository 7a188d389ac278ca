/**
 * Batched autoregressive sampling on the GPU with a KV cache (docs/ARCHITECTURE.md "Rows and trajectories", "Rollouts").
 *
 * A call samples continuations for B prompts of different lengths at once:
 *  1. prefill — one full forward over the right-padded prompts (B, Tp = max prompt length),
 *     k and v of every layer copied into a per-layer cache (B, Tmax, 2C), the lm head applied
 *     to each row's last prompt position only, and the first token of each row sampled;
 *  2. decode steps — row b feeds its previous token at its own position pos_b = len_b + s − 1,
 *     appends k,v to the cache and attends over positions 0…pos_b; then one token per row.
 * Each step (prefill included) is one command buffer, one submit and one small readback
 * (B ids + B log-probs + B entropies, 12B bytes) used to stop rows; the sampled ids go from the sampling
 * kernel to the next step's embedding on the GPU without a round trip.
 *
 * Randomness: row b's draw at step s uses u = hash(seed, b, s) (sample_tokens.wgsl), so a
 * call is reproducible and a row's tokens do not depend on the other rows' draws.
 * Log-probs: `logprobs[i]` is log π(a_i) under the distribution actually sampled from:
 * softmax(z/τ), truncated to the top-p nucleus and renormalized when topP < 1. With τ = 1 and
 * topP = 1 it is bit-identical to logprob_forward on the same logits, i.e. what training
 * recomputes (the trainer scores exactly these ids, docs/ARCHITECTURE.md "Rows and trajectories"). Greedy (τ = 0) returns
 * log-softmax(z) at τ = 1 of the argmax.
 *
 * `useKvCache: false` recomputes the full forward over every row's whole prefix at each step
 * (the baseline of the KV-cache benchmark); it samples the same tokens up to f32 rounding.
 */
import { checkSampleRequest, type SampleRequest, type SampledRow, type SampleStats, type StopReason } from './sample_request';
import type { GpuModel, KvCache } from '../model/gpu_model';
import { createStorage } from '../gpu/buffers';
import { DeviceLostError, mapReadChecked } from '../gpu/device_lost';
import { encodePrepared, type PreparedDispatch } from '../kernels/dispatch_plan';
import { prepareSampleTokens } from '../kernels/sample_tokens';

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
      staging: d.createBuffer({ label: `sampler staging (B=${B})`, size: B * 12, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST }),
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
    if (this.inFlight) throw new Error('Sampler.sample: the previous call has not finished (await each call; the KV cache and buffers are shared)');
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
    const Tmax = m.maxT;
    const { B, lens, budgets, ban } = checkSampleRequest('Sampler.sample', req, V, Tmax, m.maxB);
    const topP = req.topP ?? 1;
    const useCache = req.useKvCache ?? true;
    const gpu = m.gpu;
    if (gpu.lost) throw new DeviceLostError(`${gpu.lost.reason}: ${gpu.lost.message}`);
    const st = this.state(B);
    const d = gpu.device;
    const Tp = Math.max(...lens);
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
        topP,
        ...(ban ? { ban: { lo: ban.lo, hi: ban.hi, ...(req.endToken !== undefined ? { allow: req.endToken } : {}) } } : {}),
      });
    const sampleFull = new Map<number, PreparedDispatch>();
    const sampleAt = (R: number) => {
      let s = sampleFull.get(R);
      if (!s) sampleFull.set(R, (s = samp(R)));
      return s;
    };
    const prefill = useCache ? m.prefillDispatches(st.cache, Tp) : null;

    const out: Array<{ ids: number[]; lps: number[]; ents: number[]; stop: StopReason | null }> = lens.map(() => ({ ids: [], lps: [], ents: [], stop: null }));
    const stats: SampleStats = { steps: 0, submits: 0, readbacks: 0, dispatches: 0, tokens: 0, ms: 0, firstStepMs: 0, firstStepDispatches: 0 };
    const rowsHost = new Uint32Array(2 * B);
    const posHost = new Int32Array(B);

    for (let s = 0; ; s++) {
      // Rows that cannot take another token stop before the step.
      for (let b = 0; b < B; b++) if (!out[b].stop && lens[b] + s >= Tmax) out[b].stop = 'context';
      if (out.every((r) => r.stop)) break;
      let ds: PreparedDispatch[];
      if (s === 0 || !useCache) {
        // Full forward over the current prefixes (prefill, or the no-cache baseline).
        const cur = out.map((r, b) => lens[b] + r.ids.length);
        const T = s === 0 ? Tp : Math.max(...cur);
        const ids = new Int32Array(B * T);
        for (let b = 0; b < B; b++) {
          ids.set(req.prompts[b], b * T);
          ids.set(out[b].ids, b * T + lens[b]);
          rowsHost[2 * b] = b * T + cur[b] - 1;
          rowsHost[2 * b + 1] = s;
        }
        m.writeIds(ids, B, T);
        if (prefill) {
          // The prefill's lm head runs on the gathered last rows: logits row b.
          d.queue.writeBuffer(
            st.cache.lastRow,
            0,
            Int32Array.from(cur, (c, b) => b * T + c - 1),
          );
          for (let b = 0; b < B; b++) rowsHost[2 * b] = b;
          ds = [...prefill, sampleAt(B)];
        } else {
          ds = [...m.forwardDispatches(B, T, { values: false }), sampleAt(B * T)];
        }
      } else {
        for (let b = 0; b < B; b++) {
          // A stopped row keeps its last position (its outputs are ignored).
          posHost[b] = Math.min(lens[b] + out[b].ids.length - 1, Tmax - 1);
          rowsHost[2 * b] = b;
          rowsHost[2 * b + 1] = s;
        }
        d.queue.writeBuffer(st.cache.pos, 0, posHost);
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
      stats.steps++;
      if (s === 0) {
        stats.firstStepMs = performance.now() - t0;
        stats.firstStepDispatches = stats.dispatches;
      }
      const sid = new Int32Array(words, 0, B);
      const slp = new Float32Array(words, B * 4, B);
      const sent = new Float32Array(words, B * 8, B);
      for (let b = 0; b < B; b++) {
        const r = out[b];
        if (r.stop) continue;
        r.ids.push(sid[b]);
        r.lps.push(slp[b]);
        r.ents.push(sent[b]);
        if (req.endToken !== undefined && sid[b] === req.endToken) r.stop = 'end';
        else if (r.ids.length >= budgets[b]) r.stop = 'length';
      }
    }
    const rows = out.map((r) => ({ ids: Int32Array.from(r.ids), logprobs: Float32Array.from(r.lps), entropies: Float32Array.from(r.ents), stop: r.stop as StopReason }));
    stats.tokens = rows.reduce((a, r) => a + r.ids.length, 0);
    stats.ms = performance.now() - t0;
    return { rows, stats };
  }

  /** Release the caches and staging buffers (the model is not destroyed). */
  destroy(): void {
    for (const s of this.states.values()) {
      for (const b of [...s.cache.layers, s.cache.pos, s.cache.zeros, s.cache.lastRow, s.cache.lastHidden, s.ids, s.logprob, s.entropy, s.rows, s.staging]) b.destroy();
    }
    this.states.clear();
  }
}

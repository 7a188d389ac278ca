/**
 * Batched autoregressive sampling on the CPU engine with a KV cache: the contract of the GPU
 * sampler (src/engine/webgpu/gpu_sampler.ts; same `SampleRequest`, stop reasons and counters, and the same
 * loop, src/engine/decode_loop.ts) and its randomness, so a seed gives the same draws on either
 * engine up to the logits' rounding.
 *
 *  1. prefill — one WasmModel forward over the right-padded prompts (B, Tp) with the LM head
 *     at each row's last prompt position only; k and v of every layer copied from its qkv into
 *     a per-layer cache (B, maxT, C) each;
 *  2. decode steps — row b feeds its previous token at pos_b = len_b + s − 1: per layer
 *     LayerNorm, qkv (B × C · C × 3C), k/v appended at pos_b, attention over 0…pos_b, the
 *     projection and the MLP; the LM head on B rows; one token per row. The whole step is one
 *     engine task (as/decode.ts) whose threads each take a block of rows, so a step costs one
 *     wake-up rather than one per op.
 * Tokens are drawn by the engine's sample_tokens kernel (as/sample.ts; at the end of the fused
 * decode step, and as its own dispatch after the prefill), whose CPU reference is
 * sampleTokensRef (src/reference/sample_tokens.ref.ts, the math of the GPU's kernel too):
 * u = hash(seed, b, s) computed here, softmax(z/τ) (top-p when topP < 1), greedy at τ = 0; its
 * log-prob is log π(id) under the sampled distribution (τ = 1, topP = 1: the log-softmax the
 * trainer recomputes, summed the same way); its entropy is the policy's at τ = 1, per token.
 */
import { sampleUniform } from '../../reference/sample_tokens.ref';
import { decodeLoop } from '../decode_loop';
import { checkSampleRequest, type SampleRequest, type SampledRow, type SampleStats } from '../sample_request';
import type { Arr } from './wasm_runtime';
import { decodeStepFused, type SampleArrays, type SampleDraw, sampleDrawWords, sampleTokens } from './wasm_kernels';
import type { WasmModel } from './wasm_model';

export class WasmSampler {
  private busy = false;

  /** @param model the policy; its cfg.maxT is the context limit (prompt + new tokens). */
  constructor(readonly model: WasmModel) {}

  /**
   * Sample continuations of every prompt (module doc). Not re-entrant.
   * @throws Error naming the bad field: no prompts, a prompt of length 0 or ≥ maxT, an id
   *   outside [0, V), a budget < 1, temperature < 0, topP ∉ (0, 1], a non-integer seed, an
   *   endToken outside [0, V), or a second call while one is running.
   */
  async sample(req: SampleRequest): Promise<{ rows: SampledRow[]; stats: SampleStats }> {
    if (this.busy) throw new Error('WasmSampler.sample: a call is already running; await it before starting another');
    this.busy = true;
    try {
      return await this.sampleNow(req);
    } finally {
      this.busy = false;
    }
  }

  private async sampleNow(req: SampleRequest): Promise<{ rows: SampledRow[]; stats: SampleStats }> {
    const t0 = performance.now();
    const m = this.model;
    const e = m.engine;
    const { vocabSize: V, C, L, maxT: Tmax } = m.cfg;
    const { B, lens, budgets, ban } = checkSampleRequest('WasmSampler.sample', req, V, Tmax);
    // Banned ids (the tokenizer's specials except the end token) are never drawn, as on the GPU.
    const draw: SampleDraw = {
      temperature: req.temperature,
      topP: req.topP ?? 1,
      ...(ban ? { ban: { lo: ban.lo, hi: ban.hi, ...(req.endToken !== undefined ? { allow: req.endToken } : {}) } } : {}),
    };
    const useCache = req.useKvCache ?? true;
    const d0 = e.dispatches;
    m.endStep(); // a training step's activations: freed before the caches go above them
    const mark = e.mark();
    try {
      // Persistent for the call: caches (L × 2 × (B, maxT, C)) and decode buffers.
      const kc: Arr[] = [];
      const vc: Arr[] = [];
      if (useCache) {
        for (let l = 0; l < L; l++) {
          kc.push(e.alloc(B * Tmax * C, `k cache ${l}`));
          vc.push(e.alloc(B * Tmax * C, `v cache ${l}`));
        }
      }
      const out = sampleArrays(m, B);
      const dec = useCache ? decodeBuffers(m, B, kc, vc, out, draw) : null;
      return await decodeLoop(req.prompts, budgets, Tmax, req.endToken, useCache, t0, (s, x, stats) => {
        const u = out.uniforms.f32(); // a fresh view: the prefill's forward may grow the memory
        for (let b = 0; b < B; b++) u[b] = sampleUniform(req.seed, b, s);
        if (x.kind === 'full') {
          const { ids, T, cur } = x;
          const last = Int32Array.from(cur, (c, b) => b * T + c - 1);
          const f = m.forward(ids, Int32Array.from(cur), B, T, last, false);
          sampleTokens(e, f.logits, out, { B, V, ...draw });
          if (useCache) {
            for (let l = 0; l < L; l++) {
              const qkv = f.blocks[l].qkv.f32();
              const k = kc[l].f32();
              const v = vc[l].f32();
              for (let b = 0; b < B; b++) {
                for (let t = 0; t < lens[b]; t++) {
                  const src = (b * T + t) * 3 * C;
                  const dst = (b * Tmax + t) * C;
                  k.set(qkv.subarray(src + C, src + 2 * C), dst);
                  v.set(qkv.subarray(src + 2 * C, src + 3 * C), dst);
                }
              }
            }
          }
          m.endStep();
        } else {
          // A stopped row is skipped by attention (position −1).
          const pos = x.pos.map((p, b) => (x.live[b] ? p : -1));
          decodeStep(m, dec!, x.tokens, pos, Math.max(...pos) + 1);
        }
        stats.dispatches = e.dispatches - d0;
        return { ids: out.ids.i32().slice(), logprobs: out.logprob.f32().slice(), entropies: out.entropy.f32().slice() };
      });
    } finally {
      m.endStep();
      e.release(mark);
    }
  }
}

/** The draw's arrays for B rows (kernels.ts SampleArrays). */
function sampleArrays(m: WasmModel, B: number): SampleArrays {
  const e = m.engine;
  return {
    uniforms: e.alloc(B, 'sample uniforms'),
    ids: e.alloc(B, 'sampled ids'),
    logprob: e.alloc(B, 'sampled log-probs'),
    entropy: e.alloc(B, 'sampled entropies'),
    scratch: e.alloc(e.threads * m.cfg.vocabSize, 'sample scratch'),
  };
}

interface DecodeBuffers {
  B: number;
  x: Arr;
  pos: Arr;
  /** The fused step's table of pointers and dims (as/decode.ts). */
  table: Arr;
}

/** The decode step's buffers and its table (as/decode.ts layout), for B rows over the caches kc, vc, drawing into `out`. */
function decodeBuffers(m: WasmModel, B: number, kc: Arr[], vc: Arr[], out: SampleArrays, draw: SampleDraw): DecodeBuffers {
  const e = m.engine;
  const { C, NH, L, vocabSize: V, maxT } = m.cfg;
  const a = (n: number, l: string) => e.alloc(n, `decode ${l}`);
  const x = a(B * C, 'x');
  const pos = a(B, 'pos');
  const logits = a(B * V, 'logits');
  const head = [
    B,
    C,
    NH,
    L,
    maxT,
    V,
    x.ptr,
    a(B * C, 'ln').ptr,
    a(B, 'mean').ptr,
    a(B, 'rstd').ptr,
    a(B * 3 * C, 'qkv').ptr,
    a(B * C, 'atty').ptr,
    a(B * C, 'proj').ptr,
  ];
  head.push(
    a(B * 4 * C, 'fch').ptr,
    a(B * 4 * C, 'fch gelu').ptr,
    pos.ptr,
    logits.ptr,
    a(e.threads * maxT, 'scratch').ptr,
    m.p('lnfw').ptr,
    m.p('lnfb').ptr,
    m.transposed('wte').ptr,
    out.uniforms.ptr,
    out.ids.ptr,
    out.logprob.ptr,
    out.entropy.ptr,
    ...sampleDrawWords('WasmSampler.sample', draw, V),
    out.scratch.ptr,
  );
  const layers: number[] = [];
  for (let l = 0; l < L; l++) {
    const h = `h${l}.`;
    const t = (n: string) => m.transposed(h + n).ptr;
    const p = (n: string) => m.p(h + n).ptr;
    layers.push(
      p('ln1w'),
      p('ln1b'),
      t('qkvw'),
      p('qkvb'),
      t('attprojw'),
      p('attprojb'),
      p('ln2w'),
      p('ln2b'),
      t('fcw'),
      p('fcb'),
      t('fcprojw'),
      p('fcprojb'),
      kc[l].ptr,
      vc[l].ptr,
    );
  }
  const table = e.alloc(head.length + layers.length, 'decode table');
  table.write(Int32Array.from([...head, ...layers]));
  return { B, x, pos, table };
}

/**
 * One decode step for B rows: token tokens[b] at position pos[b] (−1: a stopped row, skipped
 * by attention). Writes k, v at pos into the caches and the draw into the step's SampleArrays.
 */
function decodeStep(m: WasmModel, d: DecodeBuffers, tokens: number[], pos: number[], workT: number): void {
  const { C } = m.cfg;
  const B = d.B;
  m.prepareForward();
  // Embedding in JS: B rows of C values.
  const x = d.x.f32();
  const wte = m.p('wte').f32();
  const wpe = m.p('wpe').f32();
  for (let b = 0; b < B; b++) {
    const t = Math.max(0, pos[b]);
    for (let c = 0; c < C; c++) x[b * C + c] = wte[tokens[b] * C + c] + wpe[t * C + c];
  }
  d.pos.i32().set(pos);
  decodeStepFused(m.engine, d.table, m.cfg, B, workT);
}

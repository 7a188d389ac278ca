/**
 * The decode loop both engines' samplers share (src/engine/webgpu/gpu_sampler.ts on WebGPU,
 * src/engine/wasm/wasm_sampler.ts on the CPU engine): which rows still run, what each step feeds the model,
 * when a row stops, and the call's counters. The engine supplies one `DecodeStep`: the model
 * call and the draw of one token per row with its kernels.
 *
 * Step s = 0 (and every step when the KV cache is off) is a full forward over the current
 * prefixes, right-padded to (B, T); later steps feed each row's previous token at its position
 * pos_b = len_b + s − 1. A row stops after its end token ('end'), at its budget ('length') or
 * when its next position would reach maxT ('context', checked before the step).
 */
import type { SampleStats, SampledRow, StopReason } from './sample_request';

/** What one step feeds the model. */
type DecodeInput =
  /**
   * A full forward: `ids` (B, T) right-padded prompts + sampled ids; `cur[b]` is row b's length,
   * whose last position's logits are sampled.
   */
  | { kind: 'full'; ids: Int32Array; T: number; cur: number[] }
  /**
   * A cached step: row b's last sampled id at position `pos[b]`; a stopped row (live[b] false)
   * keeps its last position and its outputs are ignored.
   */
  | { kind: 'cached'; tokens: number[]; pos: number[]; live: boolean[] };

/** One drawn token per row: id, log π(id) under the sampled distribution, entropy at τ = 1. */
interface DecodeDraw {
  ids: ArrayLike<number>;
  logprobs: ArrayLike<number>;
  entropies: ArrayLike<number>;
}

/**
 * An engine's step s: run the model on `x` and draw one token per row. It may add to the
 * engine-specific counters of `stats` (submits, readbacks, dispatches).
 */
type DecodeStep = (s: number, x: DecodeInput, stats: SampleStats) => Promise<DecodeDraw> | DecodeDraw;

/**
 * Run the loop (module doc) for B rows.
 * @param prompts the B prompts (already checked: checkSampleRequest)
 * @param budgets per-row new-token budgets
 * @param endToken a row stops after sampling it (undefined: never)
 * @param useCache false: every step is a full forward (the KV-cache benchmark's baseline)
 * @param t0 performance.now() when the call began (its `ms` and `firstStepMs` count from there)
 * @returns one SampledRow per prompt and the call's counters (ms, firstStepMs, tokens, steps set here)
 */
export async function decodeLoop(
  prompts: readonly Int32Array[],
  budgets: readonly number[],
  Tmax: number,
  endToken: number | undefined,
  useCache: boolean,
  t0: number,
  step: DecodeStep,
): Promise<{ rows: SampledRow[]; stats: SampleStats }> {
  const B = prompts.length;
  const lens = prompts.map((p) => p.length);
  const out: Array<{ ids: number[]; lps: number[]; ents: number[]; stop: StopReason | null }> = lens.map(() => ({
    ids: [],
    lps: [],
    ents: [],
    stop: null,
  }));
  const stats: SampleStats = {
    steps: 0,
    submits: 0,
    readbacks: 0,
    dispatches: 0,
    tokens: 0,
    ms: 0,
    firstStepMs: 0,
    firstStepDispatches: 0,
  };
  for (let s = 0; ; s++) {
    // Rows that cannot take another token stop before the step.
    for (let b = 0; b < B; b++) if (!out[b].stop && lens[b] + s >= Tmax) out[b].stop = 'context';
    if (out.every((r) => r.stop)) break;
    let x: DecodeInput;
    if (s === 0 || !useCache) {
      const cur = out.map((r, b) => lens[b] + r.ids.length);
      const T = Math.max(...cur);
      const ids = new Int32Array(B * T);
      for (let b = 0; b < B; b++) {
        ids.set(prompts[b], b * T);
        ids.set(out[b].ids, b * T + lens[b]);
      }
      x = { kind: 'full', ids, T, cur };
    } else {
      x = {
        kind: 'cached',
        tokens: out.map((r) => r.ids[r.ids.length - 1]),
        pos: out.map((r, b) => Math.min(lens[b] + r.ids.length - 1, Tmax - 1)),
        live: out.map((r) => r.stop === null),
      };
    }
    const d = await step(s, x, stats);
    stats.steps++;
    if (s === 0) {
      stats.firstStepMs = performance.now() - t0;
      stats.firstStepDispatches = stats.dispatches;
    }
    for (let b = 0; b < B; b++) {
      const r = out[b];
      if (r.stop) continue;
      r.ids.push(d.ids[b]);
      r.lps.push(d.logprobs[b]);
      r.ents.push(d.entropies[b]);
      if (endToken !== undefined && d.ids[b] === endToken) r.stop = 'end';
      else if (r.ids.length >= budgets[b]) r.stop = 'length';
    }
  }
  const rows = out.map((r) => ({
    ids: Int32Array.from(r.ids),
    logprobs: Float32Array.from(r.lps),
    entropies: Float32Array.from(r.ents),
    stop: r.stop as StopReason,
  }));
  stats.tokens = rows.reduce((a, r) => a + r.ids.length, 0);
  stats.ms = performance.now() - t0;
  return { rows, stats };
}

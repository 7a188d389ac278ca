/**
 * A quick check of how a (pretrained) policy acts: greedy decoding on tasks under harnesses,
 * pass@1 with behaviour counts. Episodes of one call advance together: each round, the
 * contexts of all unfinished episodes are decoded in one batch (`Decoder`), the actions
 * stepped into their harnesses. Contexts are cut by the rollout rule (rows.ts `rolloutContext`)
 * and at most `actionReserve` tokens are generated; an action that hits that cap without
 * `<|end|>` is passed as cut off (truncation, not a parse error; docs/ARCHITECTURE.md "Rows and trajectories").
 *
 * Decoders: the GPU `Sampler` (temperature 0) in the browser (sft_gpu.ts) or the CPU model
 * (`cpuGreedyDecoder`, full recompute per token; tests and no-WebGPU fallback).
 */
import { cpuForward } from '../model/cpu_model';
import type { ModelConfig } from '../model/config';
import type { Tokenizer } from '../model/tokenizer';
import { createHarness } from '../harness/registry';
import type { Harness } from '../harness/types';
import { getSuite } from '../tasks';
import type { Task } from '../tasks/types';
import { decodeAction, endTokenId, rolloutContext, type RowLimits } from '../model/rows';

/** Decode continuations of prompts: for each prompt, the generated ids and whether `<|end|>` stopped it. */
export type Decoder = (prompts: number[][], maxNewTokens: number) => Promise<Array<{ ids: number[]; ended: boolean }>>;

export interface GreedyEpisode {
  harness: string;
  taskId: string;
  pass: boolean;
  score: number;
  turns: number;
  parseErrors: number;
  workflowViolations: number;
  toolCalls: number;
  /** The first action text (for inspection). */
  firstAction: string;
}

export interface GreedyReport {
  episodes: GreedyEpisode[];
  passAt1: number;
  /** Per harness id: pass rate. */
  byHarness: Record<string, number>;
  /** Fraction of actions that parsed as a call or workflow message. */
  validActionRate: number;
}

/**
 * Evaluate every (task, harness) pair once, greedily.
 * @param harnessIds composed or black-box ids (createHarness)
 * @param maxTurns turn cap per episode (the harness truncates at it)
 * @throws Error naming an unknown harness id.
 */
export async function evaluateGreedy(
  tok: Tokenizer,
  decode: Decoder,
  tasks: readonly Task[],
  harnessIds: readonly string[],
  limits: RowLimits,
  maxTurns = 12,
  makeHarness: (id: string, maxTurns: number) => Harness = (id, mt) => createHarness(id, { budget: { maxTurns: mt, maxContextTokens: Number.POSITIVE_INFINITY, maxActionTokens: Number.MAX_SAFE_INTEGER } }),
): Promise<GreedyReport> {
  const eps = harnessIds.flatMap((hid) => tasks.map((task) => ({ task, h: makeHarness(hid, maxTurns), first: '' })));
  for (const e of eps) e.h.reset(e.task);
  let actions = 0;
  let valid = 0;
  for (;;) {
    const live = eps.filter((e) => !e.h.done);
    if (live.length === 0) break;
    const prompts = live.map((e) => rolloutContext(tok, e.h.contextText(), limits));
    const outs = await decode(prompts, limits.actionReserve);
    live.forEach((e, i) => {
      const text = decodeAction(tok, outs[i].ids);
      if (e.h.turns().length === 0) e.first = text;
      const r = e.h.step(text, { cutOff: !outs[i].ended });
      actions++;
      if (r.kind === 'tool' || r.kind === 'message') valid++;
    });
  }
  const episodes = eps.map(({ task, h, first }): GreedyEpisode => {
    const v = getSuite(task.suite).verify(task, h.sandboxState(), h.transcript());
    const t = h.tags();
    return { harness: h.id, taskId: task.id, pass: v.pass, score: v.score, turns: t.turns, parseErrors: t.parseErrors, workflowViolations: t.workflowViolations, toolCalls: t.toolCalls, firstAction: first.slice(0, 160) };
  });
  const byHarness: Record<string, number> = {};
  for (const hid of new Set(episodes.map((e) => e.harness))) {
    const es = episodes.filter((e) => e.harness === hid);
    byHarness[hid] = es.filter((e) => e.pass).length / es.length;
  }
  return { episodes, passAt1: episodes.filter((e) => e.pass).length / Math.max(1, episodes.length), byHarness, validActionRate: valid / Math.max(1, actions) };
}

/**
 * Greedy decoding with the CPU model: one full forward per generated token per prompt (no KV
 * cache; O(T²) per token, fine for tests and tiny models). Stops a row at `<|end|>`, at
 * `maxNewTokens`, or at cfg.maxT.
 */
export function cpuGreedyDecoder(cfg: ModelConfig, params: Float32Array, tok: Tokenizer): Decoder {
  const end = endTokenId(tok);
  return async (prompts, maxNew) =>
    prompts.map((p) => {
      const seq = [...p];
      const ids: number[] = [];
      let ended = false;
      while (ids.length < maxNew && seq.length < cfg.maxT) {
        const T = seq.length;
        const { logits } = cpuForward(cfg, params, Int32Array.from(seq), Int32Array.of(T), { B: 1, T });
        const row = logits.subarray((T - 1) * cfg.vocabSize, T * cfg.vocabSize);
        let best = 0;
        for (let v = 1; v < cfg.vocabSize; v++) if (row[v] > row[best]) best = v;
        ids.push(best);
        seq.push(best);
        if (best === end) {
          ended = true;
          break;
        }
      }
      return { ids, ended };
    });
}

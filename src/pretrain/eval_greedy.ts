/**
 * A quick check of how a (pretrained) policy acts: greedy decoding on tasks under harnesses,
 * pass@1 with behaviour counts, run by the rollout engine (`runEpisodes`): each round, the
 * contexts of all unfinished episodes are decoded in batches (`Decoder`), the actions stepped
 * into their harnesses. Contexts are cut by the rollout rule (rows.ts `rolloutContext`)
 * and at most `actionReserve` tokens are generated; an action that hits that cap without
 * `<|end|>` is passed as cut off (truncation, not a parse error; docs/ARCHITECTURE.md "Rows and trajectories").
 *
 * Decoders: the GPU `Sampler` (temperature 0) in the browser (sft_gpu.ts) or the CPU model
 * (`cpuGreedyDecoder`, full recompute per token; tests and no-WebGPU fallback).
 */
import { cpuForward } from '../model/cpu_model';
import type { ModelConfig } from '../model/config';
import type { Tokenizer } from '../model/tokenizer';
import type { Task } from '../tasks/types';
import { decodeAction, endTokenId, type RowLimits } from '../model/rows';
import { inProcessEnv, runEpisodes, type Policy } from '../rollout/engine';
import { localEnvApi } from '../rollout/env';

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
 * A `Decoder` as the rollout engine's `Policy` (greedy: temperature and seed are ignored; the
 * decoders are deterministic). Log-probs are not computed (0): greedy evaluation trains nothing.
 */
function decoderPolicy(decode: Decoder, maxT: number, maxB = 64): Policy {
  return {
    maxB,
    maxT,
    async sample(prompts, maxNew) {
      const outs = await decode(
        prompts.map((p) => Array.from(p)),
        maxNew,
      );
      return outs.map((o) => ({ ids: Int32Array.from(o.ids), logprobs: new Float32Array(o.ids.length), stop: o.ended ? ('end' as const) : ('length' as const) }));
    },
  };
}

/**
 * Evaluate every (task, harness) pair once, greedily, through the rollout engine
 * (src/rollout/engine.ts `runEpisodes`, in-process environments): the one episode loop of RL
 * rollouts and evaluation, with the same context cut and cut-off rule.
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
): Promise<GreedyReport> {
  const reqs = harnessIds.flatMap((harnessId) => tasks.map((t, i) => ({ taskId: t.id, harnessId, group: i })));
  const { trajectories } = await runEpisodes(reqs, {
    tok,
    policy: decoderPolicy(decode, limits.maxT),
    env: inProcessEnv(localEnvApi(tok)),
    maxTurns,
    maxNewTokens: limits.actionReserve,
    contextTokens: limits.maxT,
    temperature: 0,
    seed: 0,
  });
  let actions = 0;
  let valid = 0;
  const episodes = trajectories.map((t): GreedyEpisode => {
    for (const turn of t.turns) {
      actions++;
      if (turn.kind === 'tool' || turn.kind === 'message') valid++;
    }
    const first = t.turns[0] ? decodeAction(tok, Array.from(t.turns[0].actionIds)) : '';
    return {
      harness: t.harnessId,
      taskId: t.taskId,
      pass: t.pass,
      score: t.score,
      turns: t.tags?.turns ?? t.turns.length,
      parseErrors: t.tags?.parseErrors ?? 0,
      workflowViolations: t.tags?.workflowViolations ?? 0,
      toolCalls: t.tags?.toolCalls ?? 0,
      firstAction: first.slice(0, 160),
    };
  });
  const byHarness: Record<string, number> = {};
  for (const hid of harnessIds) {
    const es = episodes.filter((e) => e.harness === hid);
    byHarness[hid] = es.filter((e) => e.pass).length / Math.max(1, es.length);
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

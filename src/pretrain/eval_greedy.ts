/**
 * A quick check of how a (pretrained) policy acts: greedy decoding on tasks under harnesses,
 * pass@1 with behaviour counts, run by the rollout engine (`runEpisodes`): each round, the
 * contexts of all unfinished episodes are sampled at τ = 0 by an engine's policy
 * (src/engine, `Engine.createPolicy`; the one greedy decode path), the actions stepped into
 * their harnesses. Contexts are cut by the rollout rule (rows.ts `rolloutContextFit`) and at most
 * `actionReserve` tokens are generated; an action that hits that cap without `<|end|>` is
 * passed as cut off (truncation, not a parse error; docs/ARCHITECTURE.md "Rows and trajectories").
 */
import type { Tokenizer } from '../model/tokenizer';
import type { Task } from '../tasks/types';
import { decodeAction, type RowLimits } from '../episode/rows';
import { inProcessEnv, runEpisodes, type Policy } from '../rollout/rollout';
import { localEnvApi } from '../episode/host';

interface GreedyEpisode {
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
 * Evaluate every (task, harness) pair once, greedily (`policy` sampled at τ = 0), through the
 * rollout engine (src/rollout/rollout.ts `runEpisodes`, in-process environments): the one
 * episode loop of RL rollouts and evaluation, with the same context cut and cut-off rule.
 * @param policy an engine's policy (`Engine.createPolicy`); its maxB prompts go per call
 * @param harnessIds composed or black-box ids (createHarness)
 * @param maxTurns turn cap per episode (the harness truncates at it)
 * @throws Error naming an unknown harness id.
 */
export async function evaluateGreedy(
  tok: Tokenizer,
  policy: Policy,
  tasks: readonly Task[],
  harnessIds: readonly string[],
  limits: RowLimits,
  maxTurns = 12,
): Promise<GreedyReport> {
  const reqs = harnessIds.flatMap((harnessId) => tasks.map((t, i) => ({ taskId: t.id, harnessId, group: i })));
  const { trajectories } = await runEpisodes(reqs, {
    tok,
    policy,
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
  return {
    episodes,
    passAt1: episodes.filter((e) => e.pass).length / Math.max(1, episodes.length),
    byHarness,
    validActionRate: valid / Math.max(1, actions),
  };
}

/**
 * What a rollout produces (docs/ARCHITECTURE.md "Rows and trajectories"): per episode a
 * Trajectory of turns, each the exact context ids the policy saw, the sampled ids and their
 * sampling log-probs, so each turn is one training row; per batch the RolloutStats counters.
 * rollout.ts runs the episodes that fill them; training, evaluation and the reports read them.
 */
import type { ActionKind, BehaviourTags } from '../harness/types';

/** Why the sampler ended an action: `<|end|>`, the new-token budget, or the model's context limit. */
export type SampleStop = 'end' | 'length' | 'context';

/** One policy turn = one training row. */
export interface TurnSample {
  /** Context ids the policy saw (after truncation), loss mask 0. */
  contextIds: Int32Array;
  /** Sampled ids (the `<|end|>` included when it stopped the action), loss mask 1. */
  actionIds: Int32Array;
  /** log π_old of each sampled id, from the sampler. */
  logprobs: Float32Array;
  /** The policy's entropy at each sampled id's position, nats, from the sampler (absent when the policy reports none). */
  entropies?: Float32Array;
  stop: SampleStop;
  kind: ActionKind | 'env_failed';
  /** Context tokens the cut dropped from this turn's context (0 when it fit); always set by runEpisodes. */
  droppedContextTokens?: number;
}

export interface Trajectory {
  index: number;
  taskId: string;
  harnessId: string;
  group: number;
  turns: TurnSample[];
  /** The RL reward: verifier pass 0/1, or the partial-credit score under rl.reward = score. */
  reward: number;
  /** Verifier partial-credit score in [0,1]. */
  score: number;
  pass: boolean;
  terminated: boolean;
  truncated: boolean;
  tags: BehaviourTags | null;
  /** Every retry of its environment job failed; reward 0, counted in metrics. */
  envFailed: boolean;
}

export interface RolloutStats {
  episodes: number;
  /** Environment steps (policy turns). */
  envSteps: number;
  sampledTokens: number;
  sampleMs: number;
  envMs: number;
  ms: number;
  /** Rounds (batched policy turns). */
  rounds: number;
  envFailures: number;
  /** Env calls that rebuilt an episode by replay on a fresh worker. */
  replays: number;
  /** Context tokens dropped by the cut (rows.ts `fitContext`), summed over all turns. */
  droppedContextTokens: number;
  /** Turns whose context was cut. */
  cutContexts: number;
}

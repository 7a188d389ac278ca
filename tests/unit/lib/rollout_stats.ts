import type { RolloutStats } from '../../../src/rollout/trajectory';

/**
 * The counters of a small rollout batch (4 episodes of 2 turns, nothing failed, replayed or cut),
 * for fixtures that carry an evaluation's stats without reading them.
 */
export function rolloutStats(): RolloutStats {
  return {
    episodes: 4,
    envSteps: 8,
    sampledTokens: 40,
    sampleMs: 1,
    envMs: 1,
    ms: 2,
    rounds: 2,
    envFailures: 0,
    replays: 0,
    droppedContextTokens: 0,
    cutContexts: 0,
  };
}

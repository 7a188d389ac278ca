/**
 * The scalar reward of a finished episode, from the verifier's outcome (src/tasks/common.ts
 * `verification`). Pure; the runner picks the mode from the spec option `rl.reward`.
 *
 *  - 'pass': r = 1 when every sub-check passes, else 0 (binary outcome reward, as in GRPO's
 *    verifiable-reward setting; Shao et al. 2024).
 *  - 'score': r = the verifier's partial credit, in [0, 1] (ClawGym's recipe of sub-check
 *    credit, redesigned so that inaction earns nothing): r = progress · (preserved ? 1 : 0.25)
 *    · (finished ? 1 : 0.5). An episode that changes nothing scores 0, a passing one 1, and
 *    r = 1 iff pass, so both modes agree on what success is; 'score' only adds a gradient
 *    towards it for groups where nothing passes (GRPO drops groups of equal rewards, which with
 *    'pass' and a weak base is nearly every group).
 *
 * pass@1 stays the evaluation metric whatever the training reward is.
 */

type RewardMode = 'pass' | 'score';

const REWARD_MODES: readonly RewardMode[] = ['pass', 'score'];

/** What rewardOf reads of an episode outcome (rollout `episodeOutcome`, harness expert episodes). */
interface RewardInput {
  pass: boolean;
  /** The verifier's partial credit in [0, 1]. */
  score: number;
}

/**
 * The reward of one episode.
 * @param outcome the verifier's verdict: pass and score ∈ [0, 1]
 * @param mode 'pass' (0/1) or 'score' (partial credit)
 * @returns a number in [0, 1]; 1 exactly when outcome.pass (for a consistent outcome)
 * @throws Error on an unknown mode, a non-boolean pass, a score outside [0, 1] or not finite,
 *   or an inconsistent outcome (pass with score < 1, or score 1 without pass): a verifier bug
 *   must not become a training signal.
 */
export function rewardOf(outcome: RewardInput, mode: RewardMode): number {
  const { pass, score } = outcome;
  if (typeof pass !== 'boolean') throw new Error(`rewardOf: pass must be a boolean, got ${JSON.stringify(pass)}`);
  if (typeof score !== 'number' || !Number.isFinite(score) || score < 0 || score > 1)
    throw new Error(`rewardOf: score must be a finite number in [0, 1], got ${score}`);
  if (pass !== (score === 1))
    throw new Error(`rewardOf: inconsistent outcome (pass ${pass}, score ${score}); a verifier's score is 1 exactly when it passes`);
  if (mode === 'pass') return pass ? 1 : 0;
  if (mode === 'score') return score;
  throw new Error(`rewardOf: mode must be one of ${REWARD_MODES.join(', ')}, got ${JSON.stringify(mode)}`);
}

/**
 * GRPO advantages per trajectory for the tests and fixtures that have trajectories but no
 * update (the app's results fixture, the trajectory sample tests).
 */
import { grpoGroupOffsets } from '../../../src/rl/advantages';
import { grpoAdvantageForwardRef, type GrpoParams } from '../../../src/reference/grpo_advantage_forward.ref';

/**
 * GRPO advantages per trajectory from rewards and group ids alone (no rows): the grpo estimator's
 * per-episode values. Groups are matched by id, so they need not be contiguous (for contiguous
 * groups the result is that of `grpoAdvantages`). Rewards are rounded to f32 as the trainers
 * upload them. For views and fixtures that have trajectories but no update.
 * @param rewards (E) finite rewards
 * @param groups (E) integer group ids
 * @returns (E) advantages
 * @throws Error naming the field on mismatched lengths, a non-finite reward or a non-integer group.
 */
export function grpoTrajectoryAdvantages(rewards: ArrayLike<number>, groups: ArrayLike<number>, cfg: GrpoParams): number[] {
  const op = 'grpoTrajectoryAdvantages';
  const E = rewards.length;
  if (groups.length !== E) throw new Error(`${op}: groups has ${groups.length} entries, expected one per reward (${E})`);
  for (let e = 0; e < E; e++) {
    if (!Number.isFinite(rewards[e])) throw new Error(`${op}: rewards[${e}] = ${rewards[e]} is not finite`);
    if (!Number.isInteger(groups[e])) throw new Error(`${op}: groups[${e}] = ${groups[e]} is not an integer`);
  }
  if (E === 0) return [];
  // Stable order by group id → contiguous groups for the estimator, then scatter back.
  const order = Array.from({ length: E }, (_, e) => e).sort((a, b) => groups[a] - groups[b] || a - b);
  const sorted = order.map((e) => ({ group: groups[e], reward: rewards[e] }));
  const offsets = grpoGroupOffsets(sorted);
  const r = Float32Array.from(sorted, (t) => t.reward);
  const { episodeAdvantages } = grpoAdvantageForwardRef(r, offsets, new Int32Array([0]), new Float32Array([1]), { B: 1, T: 1 }, cfg);
  const out = new Array<number>(E);
  order.forEach((e, i) => (out[e] = episodeAdvantages[i]));
  return out;
}

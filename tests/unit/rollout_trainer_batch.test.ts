// Rows and advantages built from trajectories (src/rl/trainer_batch.ts): GRPO groups,
// PPO GAE chained across the rows of a multi-turn episode, minibatch partitions.
import { describe, expect, it } from 'vitest';
import { buildRows, minibatchIndices, type TrajectoryLike } from '../../src/rl/trainer_batch';
import { grpoAdvantages, ppoAdvantages } from '../../src/rl/advantages';
import { rlLossConfig } from '../../src/rl/config';

const turn = (ctx: number[], act: number[], lp = act.map(() => -1)) => ({
  contextIds: Int32Array.from(ctx),
  actionIds: Int32Array.from(act),
  logprobs: Float32Array.from(lp),
});
const traj = (group: number, reward: number, turns: ReturnType<typeof turn>[], terminated = true): TrajectoryLike => ({
  group,
  reward,
  terminated,
  truncated: !terminated,
  turns,
});

describe('trainer batch', () => {
  it('GRPO: (r − mean)/(std + δ) per group, broadcast to policy tokens only', () => {
    const trajs = [
      traj(0, 1, [turn([1, 2], [3, 4])]),
      traj(0, 0, [turn([1], [5])]),
      traj(1, 1, [turn([1], [6])]),
      traj(1, 1, [turn([1], [7])]),
    ];
    const rows = buildRows(trajs, 0, 64, 8);
    expect(rows.T).toBe(8);
    const { advantages, groupOffsets } = grpoAdvantages(trajs, rows, rlLossConfig());
    expect(Array.from(groupOffsets)).toEqual([0, 2, 4]);
    const std = Math.SQRT1_2; // unbiased std of {1, 0}
    const a = 0.5 / (std + 1e-6);
    // Row 0: context [1,2], action [3,4] → positions 1, 2 predict the action.
    expect(advantages[1]).toBeCloseTo(a, 5);
    expect(advantages[2]).toBeCloseTo(a, 5);
    expect(advantages[0]).toBe(0);
    expect(advantages[3]).toBe(0);
    expect(advantages[8]).toBeCloseTo(-a, 5);
    // Group 1 has equal rewards: exactly 0.
    for (let i = 16; i < 32; i++) expect(advantages[i]).toBe(0);
    expect(() => grpoAdvantages([trajs[0], trajs[2], trajs[1]], buildRows([trajs[0], trajs[2], trajs[1]], 0, 64), rlLossConfig())).toThrow(
      /group 0 is not contiguous/,
    );
  });

  it('PPO: GAE chains the rows of an episode (bootstrap from the next row), reward on the last row', () => {
    const cfg = rlLossConfig({ algorithm: 'ppo', gamma: 1, lambda: 1, normalizeAdvantages: false });
    const trajs = [traj(0, 1, [turn([1], [2]), turn([3, 4], [5])])];
    const rows = buildRows(trajs, 0, 16, 4);
    const T = rows.T;
    const values = new Float32Array(2 * T);
    values[0] = 0.25; // row 0, position 0 predicts id 2
    values[T + 1] = 0.5; // row 1, position 1 predicts id 5
    const { advantages, returns } = ppoAdvantages(trajs, rows, values, cfg);
    // γ = λ = 1: row 1: A = r − V = 0.5; row 0 bootstraps from V(row 1) = 0.5: A = 0.5 − 0.25.
    expect(advantages[T + 1]).toBeCloseTo(0.5, 6);
    expect(advantages[0]).toBeCloseTo(0.25, 6);
    expect(returns[0]).toBeCloseTo(0.5, 6);
    expect(returns[T + 1]).toBeCloseTo(1, 6);
  });

  it('buildRows refuses a row longer than maxT and mismatched log-probs, naming the turn', () => {
    expect(() => buildRows([traj(0, 0, [turn([1, 2, 3], [4, 5])])], 0, 4)).toThrow(/trajectory 0 turn 0 has 5 tokens > maxT = 4/);
    expect(() => buildRows([traj(0, 0, [turn([1], [4, 5], [-1])])], 0, 8)).toThrow(/2 ids but 1 log-probs/);
  });

  it('minibatches partition the rows, seeded per (step, epoch)', () => {
    const mb = minibatchIndices(10, 3, 1, 2, 0);
    expect(mb).toHaveLength(3);
    expect(mb.flat().sort((a, b) => a - b)).toEqual([...Array(10).keys()]);
    expect(minibatchIndices(10, 3, 1, 2, 0)).toEqual(mb);
    expect(minibatchIndices(10, 3, 1, 2, 1)).not.toEqual(mb);
    expect(minibatchIndices(2, 4, 1, 1, 0)).toHaveLength(2);
  });
});

// Trajectory samples kept in the experiment output: seeded selection (one pass + one fail
// first), context capping with contextOffset, advantage shapes; and the display side of the
// advantage registry (src/rl/advantages.ts): GRPO advantages per trajectory equal to the
// trainer's (grpoAdvantages over buildRows), per-token gathering from a (B·T) buffer, and
// what an update applied mapped back to its input trajectories.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sampleTrajectories } from '../../src/experiment/trajectory_sample';
import type { Trajectory } from '../../src/rollout/trajectory';
import { rlLossConfig } from '../../src/rl/config';
import { buildRows } from '../../src/rl/trainer_batch';
import { grpoAdvantages, ppoAdvantages, trajectoryAdvantages } from '../../src/rl/advantages';
import { grpoTrajectoryAdvantages } from './lib/trajectory_advantages';
import type { RlRows } from '../../src/rl/trainer_batch';

/** Per-token advantages per trajectory of a (B·T) buffer, as an update that kept all `E` trajectories reports them. */
const rowAdvantagesPerTrajectory = (E: number, rows: RlRows, advantages: Float32Array) =>
  trajectoryAdvantages(E, {
    kept: Array.from({ length: E }, (_, e) => e),
    rows,
    oldValues: null,
    advantages,
    returns: null,
    episodeAdvantages: null,
  }) as number[][];
import { filteredUpdate, type RlUpdateMetrics } from '../../src/rl/update';
import { Rng } from '../../src/util/rng';

/** A synthetic trajectory whose ids come from a seeded stream (contents are irrelevant here). */
function traj(index: number, group: number, pass: boolean, turnShape: [number, number][], seed = index): Trajectory {
  const rng = Rng.derive(seed, 'traj');
  return {
    index,
    taskId: `workspace/organize/t2/${1000 + group}`,
    harnessId: `S${group % 3}-T0-O0-C0-W0`,
    group,
    reward: pass ? 1 : 0,
    score: pass ? 1 : 0.25,
    pass,
    terminated: true,
    truncated: false,
    envFailed: false,
    tags: null,
    turns: turnShape.map(([nc, na]) => ({
      contextIds: Int32Array.from({ length: nc }, () => rng.int(500)),
      actionIds: Int32Array.from({ length: na }, () => rng.int(500)),
      logprobs: Float32Array.from({ length: na }, () => -rng.float() * 3),
      stop: 'end' as const,
      kind: 'tool' as const,
    })),
  };
}

const meta = { method: 'grpo', seed: 3, step: 7 };

/**
 * Two two-turn trajectories in groups of their own, one passing, the second's first action empty
 * (5 and 1 action tokens), as rows (maxT 32, padded to a multiple of 8), with made-up value estimates per row position.
 */
function twoTurnPair(): { trajs: Trajectory[]; rows: RlRows; values: Float32Array } {
  const trajs = [
    traj(0, 0, true, [
      [3, 2],
      [4, 3],
    ]),
    traj(1, 1, false, [
      [2, 0],
      [3, 1],
    ]),
  ];
  const rows = buildRows(trajs, 0, 32, 8);
  const values = Float32Array.from({ length: rows.B * rows.T }, (_, i) => (i % 7) / 10);
  return { trajs, rows, values };
}

describe('sampleTrajectories', () => {
  const trajs = [
    traj(0, 0, false, [[10, 3]]),
    traj(1, 0, false, [[12, 2]]),
    traj(2, 1, true, [[9, 4]]),
    traj(3, 1, false, [[8, 1]]),
    traj(4, 2, false, [[7, 2]]),
  ];
  const adv = trajs.map((t) => t.reward - 0.2);

  it('is deterministic in the seed, sorted by index, and includes one pass and one fail', () => {
    for (let s = 0; s < 20; s++) {
      const a = sampleTrajectories(trajs, adv, meta, { perStep: 2, seed: s });
      const b = sampleTrajectories(trajs, adv, meta, { perStep: 2, seed: s });
      expect(a).toEqual(b);
      expect(a.map((x) => x.pass).sort()).toEqual([false, true]);
      expect(a[0].index).toBeLessThan(a[1].index);
    }
    // Different seeds explore different failing trajectories.
    const failing = new Set<number>();
    for (let s = 0; s < 30; s++)
      for (const x of sampleTrajectories(trajs, adv, meta, { perStep: 2, seed: s })) if (!x.pass) failing.add(x.index);
    expect(failing.size).toBeGreaterThan(1);
  });

  it('copies the fields, parses suite/family, caps the context and records contextOffset', () => {
    const [s] = sampleTrajectories([trajs[2]], [0.8], meta, { perStep: 1, seed: 0, maxTokensPerTurn: 4 });
    expect(s).toMatchObject({
      method: 'grpo',
      seed: 3,
      step: 7,
      index: 0,
      suite: 'workspace',
      family: 'organize',
      harnessId: 'S1-T0-O0-C0-W0',
      group: 1,
      reward: 1,
      pass: true,
      advantage: 0.8,
    });
    expect(s.turns[0].contextOffset).toBe(5);
    expect(s.turns[0].contextIds).toEqual(Array.from(trajs[2].turns[0].contextIds.slice(5)));
    expect(s.turns[0].actionIds).toEqual(Array.from(trajs[2].turns[0].actionIds));
    expect(s.turns[0].logprobs.length).toBe(4);
    // JSON round trip is lossless (no typed arrays, no NaN).
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
  });

  it('takes everything when perStep exceeds the step, nothing for 0', () => {
    expect(sampleTrajectories(trajs, adv, meta, { perStep: 99, seed: 1 }).map((x) => x.index)).toEqual([0, 1, 2, 3, 4]);
    expect(sampleTrajectories(trajs, adv, meta, { perStep: 0, seed: 1 })).toEqual([]);
  });

  it('keeps per-token advantages (PPO) and checks their length', () => {
    const t = traj(0, 0, true, [
      [5, 2],
      [6, 3],
    ]);
    const [s] = sampleTrajectories([t], [[0.1, 0.2, 0.3, 0.4, 0.5]], meta, { perStep: 1, seed: 0 });
    expect(s.advantage).toEqual([0.1, 0.2, 0.3, 0.4, 0.5]);
    expect(() => sampleTrajectories([t], [[0.1]], meta, { perStep: 1, seed: 0 })).toThrow(
      /advantages\[0\] has 1 values, expected one per action token \(5\)/,
    );
  });

  it('names the bad field', () => {
    expect(() => sampleTrajectories(trajs, [1], meta, { perStep: 1, seed: 0 })).toThrow(/advantages has 1 entries/);
    expect(() => sampleTrajectories(trajs, adv, meta, { perStep: -1, seed: 0 })).toThrow(/opts.perStep/);
    expect(() => sampleTrajectories(trajs, adv, meta, { perStep: 1, seed: 0.5 })).toThrow(/opts.seed/);
    expect(() => sampleTrajectories(trajs, adv, meta, { perStep: 1, seed: 0, maxTokensPerTurn: 1.5 })).toThrow(/opts.maxTokensPerTurn/);
  });
});

describe('grpoTrajectoryAdvantages', () => {
  it('equals the trainer’s GRPO advantages (buildRows + grpoAdvantages) for contiguous groups', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 1, max: 4 }), fc.array(fc.constantFrom(0, 0.5, 1), { minLength: 4, maxLength: 4 })), {
          minLength: 1,
          maxLength: 5,
        }),
        fc.boolean(),
        (groups, noStd) => {
          const trajs: Trajectory[] = [];
          groups.forEach(([n, rs], g) => {
            for (let k = 0; k < n; k++) {
              const t = traj(trajs.length, g, rs[k] > 0.5, [[3, 2]]);
              t.reward = rs[k];
              trajs.push(t);
            }
          });
          const cfg = rlLossConfig({ noStdDivision: noStd });
          const rows = buildRows(trajs, 0, 64, 8);
          const ref = grpoAdvantages(trajs, rows, cfg).advantages;
          const got = grpoTrajectoryAdvantages(
            trajs.map((t) => t.reward),
            trajs.map((t) => t.group),
            cfg,
          );
          const perTok = rowAdvantagesPerTrajectory(trajs.length, rows, ref);
          trajs.forEach((_, e) => {
            for (const a of perTok[e]) expect(a).toBe(Math.fround(got[e]));
          });
        },
      ),
      { seed: 7, numRuns: 60 },
    );
  });

  it('matches by group id, not position, and zeroes a flat group', () => {
    const cfg = rlLossConfig();
    const a = grpoTrajectoryAdvantages([1, 0, 0, 1, 1, 1], [0, 1, 0, 1, 2, 2], cfg);
    const b = grpoTrajectoryAdvantages([1, 0, 0, 1], [0, 0, 1, 1], cfg);
    expect(a[0]).toBeCloseTo(b[0], 6);
    expect(a[2]).toBeCloseTo(b[1], 6);
    expect(a[0]).toBeGreaterThan(0);
    expect(a[4]).toBe(0);
    expect(a[5]).toBe(0);
    // Dr. GRPO: r − mean.
    expect(grpoTrajectoryAdvantages([1, 0], [0, 0], rlLossConfig({ noStdDivision: true }))).toEqual([0.5, -0.5]);
  });

  it('names the bad field', () => {
    const cfg = rlLossConfig();
    expect(() => grpoTrajectoryAdvantages([1, 0], [0], cfg)).toThrow(/groups has 1 entries/);
    expect(() => grpoTrajectoryAdvantages([NaN], [0], cfg)).toThrow(/rewards\[0\] = NaN/);
    expect(() => grpoTrajectoryAdvantages([1], [0.5], cfg)).toThrow(/groups\[0\] = 0.5/);
    expect(grpoTrajectoryAdvantages([], [], cfg)).toEqual([]);
  });
});

describe('rowAdvantagesPerTrajectory', () => {
  it('gathers PPO per-token advantages in turn order (one per action token)', () => {
    const { trajs, rows, values } = twoTurnPair();
    const { advantages } = ppoAdvantages(trajs, rows, values, rlLossConfig({ algorithm: 'ppo', normalizeAdvantages: false }));
    const per = rowAdvantagesPerTrajectory(2, rows, advantages);
    expect(per[0].length).toBe(5);
    expect(per[1].length).toBe(1);
    // Feeds sampleTrajectories as PPO advantages.
    const s = sampleTrajectories(trajs, per, meta, { perStep: 2, seed: 0 });
    expect((s[0].advantage as number[]).length).toBe(5);
    expect(() => rowAdvantagesPerTrajectory(2, rows, advantages.subarray(1))).toThrow(/advantages has/);
    expect(() => rowAdvantagesPerTrajectory(1, rows, advantages)).toThrow(/rows.rowEpisode\[\d\] = 1 is outside/);
  });

  it('a task id not of the suite/family/tier/seed form keeps its suite and an empty family', () => {
    const [s] = sampleTrajectories([{ ...traj(0, 0, true, [[3, 2]]), taskId: 'odd' }], [0.8], meta, { perStep: 1, seed: 0 });
    expect(s).toMatchObject({ suite: 'odd', family: '' });
  });
});

/** The metrics a stand-in trainer step reports (filteredUpdate adds its own entropy and dropped groups). */
const NO_METRICS: RlUpdateMetrics = {
  policyLoss: 0,
  valueLoss: 0,
  clipFrac: 0,
  approxKl: 0,
  klRef: 0,
  entropy: 0,
  gradNorm: 0,
  optimizerSteps: 1,
  skippedSteps: 0,
  rows: 0,
  tokens: 0,
  droppedGroups: 0,
  ms: 0,
};

describe('trajectoryAdvantages (what an update applied, per input trajectory)', () => {
  it('GRPO: the applied per-episode values at the kept indices, 0 for a dropped group; equals grpoTrajectoryAdvantages', async () => {
    const trajs = [traj(0, 0, false, [[3, 2]]), traj(1, 0, false, [[4, 1]]), traj(2, 1, true, [[3, 2]]), traj(3, 1, false, [[2, 3]])];
    const cfg = rlLossConfig();
    // The update's filter drops group 0 (both fail); the trainer's step sees group 1 alone and applies its GRPO advantages.
    const opts = { cfg, lr: 1e-3, weightDecay: 0, maxGradNorm: 1, epochs: 1, minibatches: 1, padId: 0, seed: 0 };
    const seen: number[][] = [];
    const { applied, metrics } = await filteredUpdate(trajs, opts, 0, (kept) => {
      seen.push(kept.map((t) => trajs.indexOf(t as Trajectory)));
      const rows = buildRows(kept, 0, 32, 8);
      return { metrics: NO_METRICS, applied: { kept: kept.map((_, i) => i), rows, oldValues: null, ...grpoAdvantages(kept, rows, cfg) } };
    });
    expect(seen).toEqual([[2, 3]]);
    expect(applied.kept).toEqual([2, 3]);
    expect(metrics.droppedGroups).toBe(1);
    const got = trajectoryAdvantages(4, applied);
    expect(got[0]).toBe(0);
    expect(got[1]).toBe(0);
    expect(got[2]).toBeGreaterThan(0);
    const all = grpoTrajectoryAdvantages(
      trajs.map((t) => t.reward),
      trajs.map((t) => t.group),
      cfg,
    );
    got.forEach((a, e) => expect(a).toBe(Math.fround(all[e])));
    // Nothing trained on: every trajectory 0.
    expect(
      trajectoryAdvantages(2, {
        kept: [],
        rows: null,
        oldValues: null,
        advantages: new Float32Array(0),
        returns: null,
        episodeAdvantages: new Float32Array(0),
      }),
    ).toEqual([0, 0]);
  });

  it('PPO: per-token values in turn order (rowAdvantagesPerTrajectory), and names an inconsistent input', () => {
    const { trajs, rows, values } = twoTurnPair();
    const est = ppoAdvantages(trajs, rows, values, rlLossConfig({ algorithm: 'ppo' }));
    const applied = { kept: [0, 1], rows, oldValues: values, ...est };
    expect(trajectoryAdvantages(2, applied)).toEqual(rowAdvantagesPerTrajectory(2, rows, est.advantages));
    expect(() => trajectoryAdvantages(1, applied)).toThrow(/kept index 1 is outside \[0, 1\)/);
    expect(() => trajectoryAdvantages(2, { ...applied, episodeAdvantages: new Float32Array(1) })).toThrow(/episodeAdvantages has 1 values/);
  });
});

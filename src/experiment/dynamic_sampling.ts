/**
 * Dynamic sampling as DAPO defines it (Yu et al., "DAPO: an open-source LLM reinforcement
 * learning system at scale", 2025, §3.2; verl's `filter_groups`): a GRPO group whose rewards
 * are all equal has zero advantage and gives no gradient, so a step keeps sampling fresh tasks
 * until it holds tasksPerStep informative groups — or until `maxRounds` generation rounds —
 * and trains on those. Signal-matched training: methods whose tasks are often all-pass or
 * all-fail (harness scaling through harnesses the base barely solves) get as many informative
 * groups per optimizer step as the others, at the price of more sampled episodes, which the
 * step record counts.
 *
 * Round 0 is the epoch sampler's draw (plan.ts stepTasks); round k ≥ 1 draws tasksPerStep
 * pool tasks with Rng.derive(seed, 'rl-resample', step, k), each task's harness from the
 * round-robin schedule as usual. Pure in (seed, step, schedule state): a resumed run samples
 * the same rounds.
 */
import type { Trajectory } from '../rollout/trajectory';

/** The informative groups of one round's rollouts (group ids as the requests gave them). */
function informativeGroups(trajs: readonly Trajectory[]): Map<number, Trajectory[]> {
  const groups = new Map<number, Trajectory[]>();
  for (const t of trajs) groups.set(t.group, [...(groups.get(t.group) ?? []), t]);
  const out = new Map<number, Trajectory[]>();
  for (const [g, ts] of groups) {
    // The update's all-equal test (rl/update.ts dropZeroVarianceGroups): rewards equal in f32.
    const r0 = Math.fround(ts[0].reward);
    if (!Number.isFinite(r0) || ts.some((t) => Math.fround(t.reward) !== r0)) out.set(g, ts);
  }
  return out;
}

/** What the step's rounds gathered (DynamicStep.add). */
interface DynamicResult {
  /** The kept trajectories, groups renumbered 0, 1, … in the order they were kept. */
  trajectories: Trajectory[];
  /** Informative groups kept (≤ tasksPerStep). */
  groups: number;
  /** Generation rounds run and episodes sampled over them. */
  rounds: number;
  sampledEpisodes: number;
  sampledGroups: number;
}

/** Accumulates the rounds of one RL step (module doc). */
export class DynamicStep {
  private kept: Trajectory[] = [];
  private nGroups = 0;
  private nRounds = 0;
  private episodes = 0;
  private sampled = 0;

  /** @param want informative groups the step needs (tasksPerStep); @param maxRounds generation rounds at most (≥ 1) */
  constructor(
    private readonly want: number,
    private readonly maxRounds: number,
  ) {
    if (!Number.isInteger(maxRounds) || maxRounds < 1) throw new Error(`DynamicStep: maxRounds must be an integer ≥ 1, got ${maxRounds}`);
  }

  /** Take one round's rollouts: keep its informative groups until the step has `want`. */
  add(trajs: readonly Trajectory[]): void {
    this.nRounds++;
    this.episodes += trajs.length;
    this.sampled += new Set(trajs.map((t) => t.group)).size;
    for (const ts of informativeGroups(trajs).values()) {
      if (this.nGroups >= this.want) break;
      for (const t of ts) this.kept.push({ ...t, group: this.nGroups });
      this.nGroups++;
    }
  }

  /** Whether another round is needed and allowed. */
  needsMore(): boolean {
    return this.nGroups < this.want && this.nRounds < this.maxRounds;
  }

  /** Rounds run so far (the next round's index). */
  get rounds(): number {
    return this.nRounds;
  }

  result(): DynamicResult {
    return {
      trajectories: this.kept,
      groups: this.nGroups,
      rounds: this.nRounds,
      sampledEpisodes: this.episodes,
      sampledGroups: this.sampled,
    };
  }
}

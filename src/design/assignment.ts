/**
 * Task → harness assignment (docs/ARCHITECTURE.md "Harness space and design") and the round-robin schedule over a task's harnesses.
 *
 * - Locality-aware: for each task x, the anchor h_x ~ Uniform(H_tr); the other K−1 harnesses
 *   are the K−1 members of H_tr \ {h_x} with the smallest Hamming distance d_H(h_x, ·), ties
 *   broken by a seeded shuffle. Harnesses are listed anchor first, then by non-decreasing
 *   distance.
 * - Random (ablation): anchor as above, the other K−1 drawn uniformly without replacement from
 *   H_tr \ {h_x}, listed in draw order.
 *
 * Determinism: task x's draws come from `Rng.derive(seed, 'assignment', strategy, x)`, so a
 * task's harnesses depend only on (seed, strategy, task id, H_tr, K), not on how many other
 * tasks there are or their order.
 */

import { Rng } from '../util/rng';
import { DEFAULT_SPACE, formatHarnessId, hammingDistance, type HarnessSpace, type LevelVector, parseHarnessId } from './space';

export type AssignmentStrategy = 'locality' | 'random';

/** A task id as the task suite names it, or its index. */
type TaskId = string | number;

/** The K harnesses of one task. */
export interface TaskAssignment {
  task: TaskId;
  /** K training harness ids, anchor first. */
  harnesses: string[];
  /** d_H(anchor, harnesses[i]); distances[0] = 0. Non-decreasing for 'locality'. */
  distances: number[];
}

/** Inputs of `assignHarnesses`. */
interface AssignmentOptions {
  /** Training harnesses H_tr: ids (parsed in `space`) or level vectors; distinct. */
  training: readonly (string | LevelVector)[];
  /** Harnesses per task, 1 ≤ K ≤ |H_tr|. */
  K: number;
  /** Number of tasks (ids 0..n−1) or the task ids themselves (distinct). */
  tasks: number | readonly TaskId[];
  strategy?: AssignmentStrategy;
  seed?: number;
  space?: HarnessSpace;
}

/**
 * Assign K training harnesses to every task.
 * @returns one entry per task, in task order.
 * @throws Error naming K and its allowed range 1..|H_tr| when K is out of range; naming the bad
 *   field for an empty or repeated training set, repeated task ids, a bad strategy or seed.
 */
export function assignHarnesses(opts: AssignmentOptions): TaskAssignment[] {
  const space = opts.space ?? DEFAULT_SPACE;
  const strategy = opts.strategy ?? 'locality';
  const seed = opts.seed ?? 0;
  if (strategy !== 'locality' && strategy !== 'random')
    throw new Error(`assignment: strategy must be 'locality' or 'random', got '${strategy as string}'`);
  if (!Number.isInteger(seed)) throw new Error(`assignment: seed must be an integer, got ${seed}`);
  if (!opts.training || opts.training.length === 0) throw new Error('assignment: training set is empty');
  const vectors = opts.training.map((h) => (typeof h === 'string' ? parseHarnessId(h, space) : [...h]));
  const ids = vectors.map((v) => formatHarnessId(v, space));
  if (new Set(ids).size !== ids.length) {
    const dup = ids.find((id, i) => ids.indexOf(id) !== i);
    throw new Error(`assignment: training harness '${dup}' appears twice`);
  }
  const n = ids.length;
  const K = opts.K;
  if (!Number.isInteger(K) || K < 1 || K > n)
    throw new Error(`assignment: K = ${K} is out of range; K must be an integer in 1..${n} (the training-set size)`);
  let tasks: TaskId[];
  if (typeof opts.tasks === 'number') {
    if (!Number.isInteger(opts.tasks) || opts.tasks < 0)
      throw new Error(`assignment: tasks must be a non-negative integer, got ${opts.tasks}`);
    tasks = Array.from({ length: opts.tasks }, (_, i) => i);
  } else {
    tasks = [...opts.tasks];
    if (new Set(tasks.map(String)).size !== tasks.length) throw new Error('assignment: task ids must be distinct');
  }
  // Pairwise distances once: n ≤ |H| is small (18 by default).
  const dist = vectors.map((a) => vectors.map((b) => hammingDistance(a, b)));

  return tasks.map((task) => {
    const rng = Rng.derive(seed, 'assignment', strategy, String(task));
    const anchor = rng.int(n);
    const others = rng.shuffle(Array.from({ length: n }, (_, i) => i).filter((i) => i !== anchor));
    // Stable sort after a seeded shuffle = ties broken uniformly at random.
    const chosen =
      strategy === 'locality' ? others.sort((a, b) => dist[anchor][a] - dist[anchor][b]).slice(0, K - 1) : others.slice(0, K - 1);
    const order = [anchor, ...chosen];
    return { task, harnesses: order.map((i) => ids[i]), distances: order.map((i) => dist[anchor][i]) };
  });
}

/** Serializable state of a `RoundRobinSchedule`: per task (as a string key), times drawn so far. */
export interface RoundRobinState {
  draws: Record<string, number>;
}

/**
 * The round-robin use of a task's K harnesses over the steps in which the task is drawn: the
 * k-th draw of task x (k = 0, 1, …) uses harnesses[k mod K] — the anchor first.
 * Its state (a per-task draw counter) goes into checkpoints via `state()` / `fromState`.
 */
export class RoundRobinSchedule {
  private readonly byTask = new Map<string, TaskAssignment>();
  private draws = new Map<string, number>();

  /** @throws Error on repeated task ids or a task with no harnesses. */
  constructor(assignments: readonly TaskAssignment[], state?: RoundRobinState) {
    for (const a of assignments) {
      const key = String(a.task);
      if (this.byTask.has(key)) throw new Error(`RoundRobinSchedule: task '${key}' assigned twice`);
      if (a.harnesses.length === 0) throw new Error(`RoundRobinSchedule: task '${key}' has no harnesses`);
      this.byTask.set(key, a);
    }
    if (state) {
      if (typeof state.draws !== 'object' || state.draws === null) throw new Error('RoundRobinSchedule: state.draws must be an object');
      for (const [key, k] of Object.entries(state.draws)) {
        if (!this.byTask.has(key)) throw new Error(`RoundRobinSchedule: state names unknown task '${key}'`);
        if (!Number.isInteger(k) || k < 0)
          throw new Error(`RoundRobinSchedule: state.draws['${key}'] must be a non-negative integer, got ${k}`);
        this.draws.set(key, k);
      }
    }
  }

  /** Rebuild a schedule from its assignments and `state()`. */
  static fromState(assignments: readonly TaskAssignment[], state: RoundRobinState): RoundRobinSchedule {
    return new RoundRobinSchedule(assignments, state);
  }

  private entry(task: TaskId): TaskAssignment {
    const a = this.byTask.get(String(task));
    if (!a) throw new Error(`RoundRobinSchedule: unknown task '${String(task)}'`);
    return a;
  }

  /** The harness the next draw of `task` will use, without advancing. @throws on an unknown task. */
  peek(task: TaskId): string {
    const a = this.entry(task);
    const k = this.draws.get(String(task)) ?? 0;
    return a.harnesses[k % a.harnesses.length];
  }

  /** Draw `task` once: its harness for this step, and advance its counter. @throws on an unknown task. */
  next(task: TaskId): string {
    const h = this.peek(task);
    const key = String(task);
    this.draws.set(key, (this.draws.get(key) ?? 0) + 1);
    return h;
  }

  /** Times `task` has been drawn. */
  drawCount(task: TaskId): number {
    this.entry(task);
    return this.draws.get(String(task)) ?? 0;
  }

  /** JSON-safe state for checkpoints (only tasks drawn at least once). */
  state(): RoundRobinState {
    const draws: Record<string, number> = {};
    for (const [k, v] of [...this.draws.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) draws[k] = v;
    return { draws };
  }
}

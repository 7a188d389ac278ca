/**
 * Trajectories → training rows and minibatches for the RL trainers (docs/ARCHITECTURE.md "Rows and trajectories", "RL objective"). Pure TS
 * (Node, workers, page): the GPU trainer (trainer.ts) uploads what this module builds; the
 * advantages of the rows come from the estimator registry (advantages.ts).
 *
 * Row layout (next-token form, as the training step scores it): a turn with context ids c
 * (n_c) and sampled ids a (n_a) is the row x = c ‖ a of length n = n_c + n_a. Position t
 * predicts x[t+1], so
 *   targets[t]     = x[t+1]                       (t < n − 1; padding after),
 *   mask[t]        = 1 iff x[t+1] is a sampled id (t = n_c − 1 … n − 2),
 *   oldLogprob[t]  = the sampler's log π_old(x[t+1])  (never recomputed),
 * so every sampled token is scored exactly once, at the position that produced it. A run of
 * appending turns is one row x = c_last ‖ a_last whose prefix holds every earlier (c_k, a_k)
 * exactly; each a_k span is masked at its own offset. Under causal attention the logits at a
 * position depend on the prefix only, so this scores the same ids with the same contexts as one
 * row per turn, without recomputing the shared prefix for every turn: the update's forward and
 * backward cover each episode's tokens about once instead of once per turn.
 * Rows are right-padded to T = the longest row rounded up to `padMultiple`, capped at maxT.
 */
import { Rng } from '../util/rng';
import { appendGroups } from '../episode/rows';

/** What the batch builder needs of a trajectory (a subset of rollout/trajectory.ts `Trajectory`). */
export interface TrajectoryLike {
  group: number;
  reward: number;
  terminated: boolean;
  truncated: boolean;
  turns: ReadonlyArray<{ contextIds: Int32Array; actionIds: Int32Array; logprobs: Float32Array }>;
}

/** A padded (B,T) batch of rows with per-token RL inputs. */
export interface RlRows {
  B: number;
  T: number;
  /** (B,T) i32 input ids (padding `padId`). */
  ids: Int32Array;
  /** (B·T) i32 next-token targets. */
  targets: Int32Array;
  /** (B·T) f32 1 on positions that predict a sampled id. */
  mask: Float32Array;
  /** (B·T) f32 sampling log-probs at masked positions, 0 elsewhere. */
  oldLogprobs: Float32Array;
  /** (B) i32 episode (trajectory index) of each row. */
  rowEpisode: Int32Array;
  /** (B) 1 on an episode's last row. */
  lastRow: Uint8Array;
}

/**
 * Pack the turns of `trajs` (in order) as rows: one row per run of appending turns (rows.ts
 * `appendGroups`: turn k+1's context ids start with turn k's context ‖ sampled ids, so the row's
 * prefix before each sampled span is exactly the context the sampler saw, and every sampled id
 * is scored once, with its own log π_old); a turn whose context rewrote the history (context
 * management, a cut, a re-tokenized action) starts a new row of its episode.
 * @throws Error naming the trajectory and turn when a row is longer than maxT or a turn has
 *   mismatched ids/log-probs, or when there are no turns at all.
 */
export function buildRows(trajs: readonly TrajectoryLike[], padId: number, maxT: number, padMultiple = 32): RlRows {
  const rows: Array<{ ids: Int32Array; spans: Array<{ at: number; a: Int32Array; lp: Float32Array }>; ep: number; last: boolean }> = [];
  trajs.forEach((tr, e) => {
    tr.turns.forEach((t, k) => {
      if (t.actionIds.length !== t.logprobs.length)
        throw new Error(`buildRows: trajectory ${e} turn ${k} has ${t.actionIds.length} ids but ${t.logprobs.length} log-probs`);
      if (t.contextIds.length < 1) throw new Error(`buildRows: trajectory ${e} turn ${k} has an empty context`);
      if (t.contextIds.length + t.actionIds.length > maxT)
        throw new Error(`buildRows: trajectory ${e} turn ${k} has ${t.contextIds.length + t.actionIds.length} tokens > maxT = ${maxT}`);
    });
    const turns = tr.turns.filter((t) => t.actionIds.length > 0);
    const groups = appendGroups(turns);
    groups.forEach((g, gi) => {
      const lastTurn = turns[g[g.length - 1]];
      const ids = new Int32Array(lastTurn.contextIds.length + lastTurn.actionIds.length);
      ids.set(lastTurn.contextIds);
      ids.set(lastTurn.actionIds, lastTurn.contextIds.length);
      rows.push({
        ids,
        spans: g.map((k) => ({ at: turns[k].contextIds.length, a: turns[k].actionIds, lp: turns[k].logprobs })),
        ep: e,
        last: gi === groups.length - 1,
      });
    });
  });
  if (rows.length === 0) throw new Error('buildRows: no turns with sampled tokens');
  const longest = Math.max(...rows.map((r) => r.ids.length));
  const T = Math.min(maxT, Math.ceil(longest / padMultiple) * padMultiple);
  const B = rows.length;
  const ids = new Int32Array(B * T).fill(padId);
  const targets = new Int32Array(B * T).fill(padId);
  const mask = new Float32Array(B * T);
  const oldLogprobs = new Float32Array(B * T);
  const rowEpisode = new Int32Array(B);
  const lastRow = new Uint8Array(B);
  rows.forEach((r, b) => {
    const o = b * T;
    ids.set(r.ids, o);
    const n = r.ids.length;
    for (let t = 0; t < n - 1; t++) targets[o + t] = ids[o + t + 1];
    for (const s of r.spans) {
      for (let j = 0; j < s.a.length; j++) {
        const t = s.at - 1 + j;
        mask[o + t] = 1;
        oldLogprobs[o + t] = s.lp[j];
      }
    }
    rowEpisode[b] = r.ep;
    lastRow[b] = r.last ? 1 : 0;
  });
  return { B, T, ids, targets, mask, oldLogprobs, rowEpisode, lastRow };
}

/** Rows [lo, hi) of a (B·X) array. */
export function sliceRows<A extends Float32Array | Int32Array>(a: A, T: number, idx: readonly number[]): A {
  const out = new (a.constructor as { new (n: number): A })(idx.length * T);
  idx.forEach((b, i) => out.set(a.subarray(b * T, (b + 1) * T) as never, i * T));
  return out;
}

/**
 * Minibatch partition of rows 0…B−1: a seeded shuffle per epoch, cut into `minibatches`
 * near-equal parts (none empty; fewer parts when B < minibatches).
 */
export function minibatchIndices(B: number, minibatches: number, seed: number, step: number, epoch: number): number[][] {
  const order = Rng.derive(seed, 'minibatch', step, epoch).shuffle(Array.from({ length: B }, (_, i) => i));
  const k = Math.max(1, Math.min(minibatches, B));
  const out: number[][] = [];
  for (let i = 0; i < k; i++) out.push(order.slice(Math.floor((i * B) / k), Math.floor(((i + 1) * B) / k)));
  return out;
}

/**
 * Checkpoint retention policy, pure: which steps of a run to keep and which to delete.
 * `CheckpointStore` applies it after each successful commit (and on demand).
 */
import { CheckpointError } from './errors';

export interface RetentionPolicy {
  /** Keep the `keepLast` highest steps (integer ≥ 1). */
  keepLast: number;
  /** Also keep every step that is a multiple of `keepEvery` (integer ≥ 1), e.g. 1000 for milestones. */
  keepEvery?: number;
}

/** @throws CheckpointError('invalid-input') naming `retention.keepLast` or `retention.keepEvery`. */
export function validateRetention(policy: RetentionPolicy): RetentionPolicy {
  if (typeof policy !== 'object' || policy === null) {
    throw new CheckpointError('invalid-input', `retention must be an object { keepLast, keepEvery? }, got ${String(policy)}`);
  }
  if (!Number.isSafeInteger(policy.keepLast) || policy.keepLast < 1) {
    throw new CheckpointError('invalid-input', `retention.keepLast must be an integer ≥ 1, got ${String(policy.keepLast)}`);
  }
  if (policy.keepEvery !== undefined && (!Number.isSafeInteger(policy.keepEvery) || policy.keepEvery < 1)) {
    throw new CheckpointError('invalid-input', `retention.keepEvery must be an integer ≥ 1 when given, got ${String(policy.keepEvery)}`);
  }
  return policy;
}

/**
 * Split the steps of a run into those to keep and those to delete.
 *
 * Kept: the `keepLast` highest steps, every step divisible by `keepEvery` (when given), and
 * every step in `protectedSteps` (the run's latest pointer: never deleted, even when it is not
 * among the highest steps).
 *
 * @param steps the run's checkpoint steps, any order, duplicates ignored.
 * @returns both lists sorted ascending; together they hold each distinct step once.
 * @throws CheckpointError('invalid-input') for a bad policy.
 */
export function planRetention(
  steps: readonly number[],
  protectedSteps: readonly number[],
  policy: RetentionPolicy,
): { keep: number[]; remove: number[] } {
  validateRetention(policy);
  const distinct = [...new Set(steps)].sort((a, b) => a - b);
  const keep = new Set<number>(distinct.slice(Math.max(0, distinct.length - policy.keepLast)));
  for (const s of protectedSteps) if (distinct.includes(s)) keep.add(s);
  if (policy.keepEvery !== undefined) for (const s of distinct) if (s % policy.keepEvery === 0) keep.add(s);
  return {
    keep: distinct.filter((s) => keep.has(s)),
    remove: distinct.filter((s) => !keep.has(s)),
  };
}

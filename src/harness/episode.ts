/**
 * An episode's behaviour tags with the verifier's verdict folded in (the episode host reports
 * them with every rollout).
 */
import type { Task, Verification } from '../tasks/types';
import { computeTags } from './tags';
import type { BehaviourTags, Harness } from './types';

/**
 * Tags with the verifier's verdict folded in (recovery by pass, state-tracking kind (c)).
 * @param verification the verifier's result, or undefined when unknown.
 */
export function episodeTags(h: Harness, task: Task, verification?: Verification): BehaviourTags {
  const t = h.tags();
  return computeTags(h.turns(), {
    terminated: t.terminated,
    truncation: t.truncationReason,
    pass: verification?.pass,
    needsStateTracking: task.needsStateTracking,
  });
}

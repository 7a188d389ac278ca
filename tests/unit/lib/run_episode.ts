/**
 * The episode loop for any text policy, for tests: render the context, ask the policy for an
 * action, step the harness, until it is done. Rollout workers make the same `Harness` calls
 * with a sampler in place of `policy`.
 */
import type { SandboxState, Transcript } from '../../../src/sandbox/types';
import type { Task, TaskSuite, Verification } from '../../../src/tasks/types';
import { episodeTags } from '../../../src/harness/episode';
import type { BehaviourTags, Harness, TurnRecord } from '../../../src/harness/types';

/** A policy maps the exact context text to an action text; `cutOff` marks an action cut by the token cap. */
type TextPolicy = (context: string, turn: number) => string | { action: string; cutOff?: boolean };

interface EpisodeOutcome {
  harness: string;
  taskId: string;
  turns: readonly TurnRecord[];
  transcript: Transcript;
  final: SandboxState;
  /** Present when a suite was given. */
  verification?: Verification;
  tags: BehaviourTags;
}

/**
 * Run one episode of `policy` on `task` under `harness` (reset first). Stops when the harness is
 * done; the harness's turn budget bounds the loop.
 * @param suite when given, the final state and transcript are verified.
 */
export function runEpisode(harness: Harness, task: Task, policy: TextPolicy, suite?: TaskSuite): EpisodeOutcome {
  harness.reset(task);
  // The harness enforces maxTurns; the extra bound only guards against a harness bug.
  for (let turn = 1; !harness.done && turn <= harness.budget.maxTurns + 1; turn++) {
    const out = policy(harness.contextText(), turn);
    const { action, cutOff } = typeof out === 'string' ? { action: out, cutOff: false } : out;
    harness.step(action, { cutOff });
  }
  const transcript = harness.transcript();
  const final = harness.sandboxState();
  const verification = suite ? suite.verify(task, final, transcript) : undefined;
  const res: EpisodeOutcome = {
    harness: harness.id,
    taskId: task.id,
    turns: harness.turns(),
    transcript,
    final,
    tags: episodeTags(harness, task, verification),
  };
  if (verification) res.verification = verification;
  return res;
}

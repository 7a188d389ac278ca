/**
 * The episode loop for any text policy: render the context, ask the policy for an action, step
 * the harness, until it is done. Rollout workers use the same `Harness` calls with a sampler in
 * place of `policy`; this synchronous loop serves tests, the fuzz harness and the CLI.
 */
import type { SandboxState, Transcript } from '../sandbox/types';
import type { Task, TaskSuite, Verification } from '../tasks/types';
import { computeTags } from './tags';
import type { BehaviourTags, Harness, TurnRecord } from './types';

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

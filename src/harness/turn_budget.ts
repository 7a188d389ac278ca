/**
 * Turn budgets in tool-call turns (docs/ARCHITECTURE.md "Contexts, budgets and the expert"): a
 * spec's `rollout.maxTurns` counts the turns a task's own tool calls take; each harness adds the
 * turns its workflow requires on top of them, so a plan-first or todo/verify harness is not
 * starved by its own workflow messages. One cap for rollouts, evaluation (`hlab run`,
 * `hlab evaluate`, the pretraining greedy pass@1) and the feasibility check:
 *
 *   episode cap = maxTurns + workflowOverheadTurns(harness, task)
 *
 * The overhead comes from the harness's workflow realization (`Workflow.overhead`, or the
 * black-box class's `workflowOverhead`): its fixed messages (W1: the plan; W2: the todo list and
 * its checked-off copy; coding CLI: the TodoWrite list and its checked-off copy) plus, for a
 * workflow that verifies writes (W2), one re-read per file the task's canonical solution leaves
 * written and unread at finish (counted by a dry run of the solver through W2's own bookkeeping).
 */
import type { Task } from '../tasks/types';
import { ASSISTANT_ID, AssistantHarness } from './blackbox/assistant';
import { CODING_CLI_ID, CodingCliHarness } from './blackbox/coding_cli';
import { W2, type WorkflowOverhead } from './realizations/workflow';
import { componentsOf } from './registry';
import { solverSteps } from './dry_run';

const written = new Map<string, number>();

/**
 * Files the task's canonical solution writes or appends and does not read afterwards (W2 needs
 * one re-read each before finish); memoized per task id.
 */
function unverifiedWrites(task: Task): number {
  let n = written.get(task.id);
  if (n !== undefined) return n;
  const state = W2.init();
  for (const { call, result } of solverSteps(task)) if (result) W2.after(state, call, result);
  n = state.unverified.size;
  if (written.size >= 4096) written.clear();
  written.set(task.id, n);
  return n;
}

/** The workflow overhead of a harness id. @throws Error naming an unknown harness id. */
function workflowOverheadOf(harnessId: string): WorkflowOverhead {
  if (harnessId === CODING_CLI_ID) return CodingCliHarness.workflowOverhead;
  if (harnessId === ASSISTANT_ID) return AssistantHarness.workflowOverhead;
  try {
    return componentsOf(harnessId).W.overhead;
  } catch (e) {
    throw new Error(`unknown harness id '${harnessId}': ${(e as Error).message.replace(/^harness id '[^']*':\s*/, '')}`);
  }
}

/** Turns the harness's workflow adds to `task`'s tool calls (0 under W0 and the assistant). */
function workflowOverheadTurns(harnessId: string, task: Task): number {
  const o = workflowOverheadOf(harnessId);
  return o.messages + (o.verifiesWrites ? unverifiedWrites(task) : 0);
}

/**
 * An episode's turn cap: `maxTurns` tool-call turns plus the harness's workflow overhead.
 * @param maxTurns tool-call turns (rollout.maxTurns), an integer ≥ 1
 * @throws Error on a bad maxTurns or an unknown harness id.
 */
export function turnCap(maxTurns: number, harnessId: string, task: Task): number {
  if (!Number.isInteger(maxTurns) || maxTurns < 1) throw new Error(`maxTurns must be an integer ≥ 1, got ${maxTurns}`);
  return maxTurns + workflowOverheadTurns(harnessId, task);
}

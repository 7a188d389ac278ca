/**
 * The task solver's canonical run on a bare sandbox (no harness): what the honest expert's later
 * calls will need (expert.ts `HonestDriver.preserve`) and which files a solution leaves written and
 * unread (turn_budget.ts). The one dry run both use.
 */
import type { ToolCall, ToolResult } from '../sandbox/types';
import { getSuite } from '../tasks';
import type { Task, TaskSuite } from '../tasks/types';
import { defaultSandboxFactory } from './sandbox_port';

/** Calls the dry run follows at most (a solver that never finishes is a bug the real run reports). */
const DRY_RUN_CALLS = 200;

/** One solver call and the sandbox's result (null for the final finish, which is not executed). */
interface SolverStep {
  call: ToolCall;
  result: ToolResult | null;
}

/**
 * The solver's steps on a copy of the task's initial files. Stops at finish, at 200 calls, or
 * when the solver or the sandbox throws (the real run reports that error).
 */
export function solverSteps(task: Task, suite: TaskSuite = getSuite(task.suite)): SolverStep[] {
  const sb = defaultSandboxFactory()(structuredClone(task.initial));
  const solver = suite.solver(task);
  const steps: SolverStep[] = [];
  let last: ToolResult | null = null;
  try {
    for (let i = 0; i < DRY_RUN_CALLS; i++) {
      const call = solver.next(last);
      if (call.tool === 'finish') {
        steps.push({ call, result: null });
        break;
      }
      last = sb.exec(call);
      steps.push({ call, result: last });
    }
  } catch {
    /* the real run reports the solver's error */
  }
  return steps;
}

/** The solver's canonical calls (`solverSteps` without the results). */
export function dryRun(task: Task, suite: TaskSuite): ToolCall[] {
  return solverSteps(task, suite).map((s) => s.call);
}

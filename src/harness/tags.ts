/**
 * Behaviour tags of one episode (docs/ARCHITECTURE.md "Sandbox, tasks and behaviour tags"), computed from the turn records alone (so the
 * same function tags live rollouts, replays and expert demonstrations).
 *
 * Definitions (operational, per episode):
 * - `parseErrors`: turns whose action was not a call in the harness's syntax (kind 'parse_error').
 *   A cut-off action at the token budget is truncation, not a parse error.
 * - `workflowViolations`: turns the workflow refused (kind 'rejected'): a tool call before the
 *   W1 plan or W2 todo list, finish with unverified writes or open todos, a coding-CLI edit
 *   without a prior read, an empty plan/todo message.
 * - `toolErrors`: turns whose tool call ran and failed (canonical error result, or a black-box
 *   tool's own failure such as an edit whose old text is absent).
 * - `recovered`: null when none of the three happened; otherwise true iff a later turn ran a
 *   tool call successfully after the *last* such error (or `opts.pass` is true: the episode
 *   still passed its verifier).
 * - `stateTrackingErrors`: acting on stale or wrong state, counted as events of three kinds:
 *   (a) stale path — a call on a path the episode itself had moved away or deleted (and not
 *       re-created since): `read/list/append/move/delete/search` of that path or below it;
 *   (b) ignored failure — a call identical to an earlier call that failed with `not_found`,
 *       with no successful write/append/move/mkdir in between (it repeats what it saw fail);
 *   (c) wrong result on a state-tracking task — when `opts.task.needsStateTracking` and
 *       `opts.pass === false` for an episode that finished: the answer or files disagree with
 *       what the episode had to carry over from earlier observations (the verifier's checks
 *       compare against the values in the initial files).
 */
import type { ToolCall } from '../sandbox/types';
import { normPath } from './tools';
import type { BehaviourTags, TruncationReason, TurnRecord } from './types';

interface TagOptions {
  terminated: boolean;
  truncation: TruncationReason | null;
  /** The verifier's pass, when known (enables `recovered` by pass and kind (c)). */
  pass?: boolean;
  needsStateTracking?: boolean;
}

const MUTATING = new Set(['write', 'append', 'move', 'mkdir']);

/** Paths a call acts on as an existing thing (for stale-path detection). */
function usedPaths(call: ToolCall): string[] {
  const a = call.args;
  switch (call.tool) {
    case 'read':
    case 'append':
    case 'delete':
      return [a.path];
    case 'list':
    case 'search':
      return a.path === undefined ? [] : [a.path];
    case 'move':
      return [a.from];
    default:
      return [];
  }
}

function within(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir + '/');
}

export function computeTags(records: readonly TurnRecord[], opts: TagOptions): BehaviourTags {
  let parseErrors = 0;
  let workflowViolations = 0;
  let toolErrors = 0;
  let toolCalls = 0;
  let lastErrorTurn = -1;
  let lastSuccessTurn = -1;
  const events: string[] = [];
  const removed = new Set<string>();
  const failedNotFound = new Map<string, number>();
  for (const r of records) {
    if (r.kind === 'parse_error') parseErrors++;
    if (r.kind === 'rejected') workflowViolations++;
    if (r.kind === 'tool') {
      toolCalls++;
      if (r.toolError) toolErrors++;
      else lastSuccessTurn = r.turn;
    }
    if (r.kind === 'parse_error' || r.kind === 'rejected' || (r.kind === 'tool' && r.toolError)) lastErrorTurn = r.turn;

    r.calls.forEach((call, i) => {
      const res = r.results[i];
      let paths: string[] = [];
      try {
        paths = usedPaths(call).map(normPath);
      } catch {
        paths = [];
      }
      for (const p of paths) {
        for (const gone of removed) {
          if (within(p, gone)) {
            events.push(`turn ${r.turn}: ${call.tool} ${p} after the episode moved or deleted ${gone}`);
            break;
          }
        }
      }
      const key = JSON.stringify([call.tool, call.args]);
      if (failedNotFound.has(key))
        events.push(`turn ${r.turn}: repeated ${call.tool} that failed with not_found at turn ${failedNotFound.get(key)}`);
      if (!res) return;
      if (!res.ok && res.error?.code === 'not_found') failedNotFound.set(key, r.turn);
      if (res.ok) {
        if (MUTATING.has(call.tool)) failedNotFound.clear();
        const a = call.args;
        if (call.tool === 'delete') removed.add(normPath(a.path));
        if (call.tool === 'move') removed.add(normPath(a.from));
        // Re-creation makes the path live again.
        const created =
          call.tool === 'write' || call.tool === 'append' || call.tool === 'mkdir'
            ? normPath(a.path)
            : call.tool === 'move'
              ? normPath(a.to)
              : null;
        if (created !== null) for (const g of [...removed]) if (within(created, g) || within(g, created)) removed.delete(g);
      }
    });
  }
  if (opts.needsStateTracking && opts.pass === false && opts.terminated) {
    events.push('finished a state-tracking task with a result the verifier rejects');
  }
  const anyError = parseErrors + workflowViolations + toolErrors > 0;
  return {
    turns: records.length,
    toolCalls,
    parseErrors,
    workflowViolations,
    toolErrors,
    recovered: anyError ? lastSuccessTurn > lastErrorTurn || opts.pass === true : null,
    stateTrackingErrors: events.length,
    stateTrackingEvents: events,
    terminated: opts.terminated,
    truncated: opts.truncation !== null,
    truncationReason: opts.truncation,
  };
}

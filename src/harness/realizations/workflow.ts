/**
 * W — the workflow (docs/ARCHITECTURE.md "Harness runtime"): which actions are allowed when, and which extra steps the
 * policy must take. `gate(state, call)` allows or rejects a parsed call before it runs; `message`
 * handles non-call workflow messages (a plan, a todo list); `after` does the bookkeeping.
 * - W0 `free`: act until finish, nothing required.
 * - W1 `plan-first`: the first message must be a plan ("Plan: …"); tool calls before it are rejected.
 * - W2 `todo-verify`: the first message must be a todo list ("Todo:" then "- [ ] item" lines);
 *   every file written or appended must be re-read (a successful `read` after the last write)
 *   before `finish`, and the latest todo list must have every item checked ("- [x]").
 * A rejected call is not run; the runtime shows the message and counts a workflow violation.
 *
 * `overhead` is what a workflow costs in turns on top of the task's tool calls (the turn budget
 * rollout.maxTurns counts tool-call turns; src/harness/turn_budget.ts adds this per harness):
 * W0 nothing, W1 the plan, W2 the todo list, the checked-off list and one re-read per file left
 * written-but-unread.
 */
import type { ToolCall, ToolResult } from '../../sandbox/types';
import { normPath } from '../tools';
import type { WorkflowStatus } from '../types';

export interface TodoItem {
  text: string;
  done: boolean;
}

/** Mutable per-episode workflow state (owned by the runtime, changed only through the W object). */
export interface WorkflowState {
  planned: boolean;
  todo: TodoItem[] | null;
  /** Normalized paths written/appended and not read since. */
  unverified: Set<string>;
}

export type GateDecision = { allow: true } | { allow: false; message: string };
/** Outcome of a workflow message: accepted (with a note) or rejected (a violation). */
export type MessageOutcome = { accepted: true; note: string } | { accepted: false; message: string };

/** Turns a workflow requires beyond the task's own tool calls. */
export interface WorkflowOverhead {
  /** Workflow messages every episode must send (a plan, a todo list and its checked-off copy). */
  messages: number;
  /** One re-read per file written and not read since, before finish (W2's verify rule). */
  verifiesWrites: boolean;
}

export interface Workflow {
  id: string;
  name: string;
  readonly overhead: WorkflowOverhead;
  /** One or two lines for S's prompt ('' for none). */
  readonly instructions: string;
  init(): WorkflowState;
  /** Handle `text` if it is a workflow message of this W; null when it is not (then T parses it). */
  message(state: WorkflowState, text: string): MessageOutcome | null;
  gate(state: WorkflowState, call: ToolCall): GateDecision;
  /** Bookkeeping after a call ran. */
  after(state: WorkflowState, call: ToolCall, result: ToolResult): void;
  status(state: WorkflowState): WorkflowStatus;
}

const ALLOW: GateDecision = { allow: true };

/** The status of a todo-and-verify workflow: the list's open items and the written files not read back. */
export function todoStatus(s: WorkflowState): WorkflowStatus {
  return {
    needsPlan: false,
    needsTodo: s.todo === null,
    openTodos: (s.todo ?? []).filter((t) => !t.done).map((t) => t.text),
    unverified: [...s.unverified].sort(),
  };
}

function baseState(): WorkflowState {
  return { planned: false, todo: null, unverified: new Set() };
}

/** Track written-but-not-re-read paths (used by W2; harmless elsewhere). */
function trackWrites(state: WorkflowState, call: ToolCall, result: ToolResult): void {
  if (!result.ok) return;
  const a = call.args;
  switch (call.tool) {
    case 'write':
    case 'append':
      state.unverified.add(normPath(a.path));
      break;
    case 'read':
      state.unverified.delete(normPath(a.path));
      break;
    case 'delete': {
      const p = normPath(a.path);
      for (const u of [...state.unverified]) if (u === p || u.startsWith(p + '/')) state.unverified.delete(u);
      break;
    }
    case 'move': {
      const from = normPath(a.from);
      // A move into an existing folder lands at folder/name: the sandbox says where ("moved A to DEST").
      const out = result.output.trim();
      const head = [`moved ${from} to `, `moved ${from}/ to `].find((h) => out.startsWith(h));
      const to = normPath(head ? out.slice(head.length).replace(/\/$/, '') : a.to);
      for (const u of [...state.unverified]) {
        if (u === from || u.startsWith(from + '/')) {
          state.unverified.delete(u);
          state.unverified.add(to + u.slice(from.length));
        }
      }
      break;
    }
    default:
  }
}

export const W0: Workflow = {
  id: 'W0',
  name: 'free',
  overhead: { messages: 0, verifiesWrites: false },
  instructions: 'Call finish when the task is done.',
  init: baseState,
  message: () => null,
  gate: () => ALLOW,
  after: trackWrites,
  status: () => ({ needsPlan: false, needsTodo: false, openTodos: [], unverified: [] }),
};

const PLAN_RE = /^\s*plan:/i;

export const W1: Workflow = {
  id: 'W1',
  name: 'plan-first',
  overhead: { messages: 1, verifiesWrites: false },
  instructions: "Your first message is a plan: 'Plan:' and your steps. Then one call per message; call finish at the end.",
  init: baseState,
  message(state, text) {
    if (!PLAN_RE.test(text)) return null;
    if (text.replace(PLAN_RE, '').trim() === '') return { accepted: false, message: "a plan needs steps after 'Plan:'" };
    state.planned = true;
    return { accepted: true, note: 'plan recorded; now act' };
  },
  gate(state) {
    return state.planned ? ALLOW : { allow: false, message: "plan first: send a message starting with 'Plan:' before any tool call" };
  },
  after: trackWrites,
  status: (s) => ({ needsPlan: !s.planned, needsTodo: false, openTodos: [], unverified: [] }),
};

const TODO_RE = /^\s*todo:/i;
const ITEM_RE = /^\s*-\s*\[( |x|X)\]\s*(.*)$/;

/** Parse "Todo:\n- [ ] a\n- [x] b" into items; lines that are not items are ignored. */
export function parseTodo(text: string): TodoItem[] {
  const items: TodoItem[] = [];
  for (const line of text.replace(TODO_RE, '').split('\n')) {
    const m = ITEM_RE.exec(line);
    if (m && m[2].trim() !== '') items.push({ text: m[2].trim(), done: m[1] !== ' ' });
  }
  return items;
}

/** Format a todo list as W2 expects it. */
export function formatTodo(items: readonly TodoItem[]): string {
  return 'Todo:\n' + items.map((t) => `- [${t.done ? 'x' : ' '}] ${t.text}`).join('\n');
}

export const W2: Workflow = {
  id: 'W2',
  name: 'todo-verify',
  overhead: { messages: 2, verifiesWrites: true },
  instructions:
    "First message: a todo list ('Todo:' then '- [ ] step' lines). Re-read each file you write. Before you call finish, resend the list with every item '- [x]'.",
  init: baseState,
  message(state, text) {
    if (!TODO_RE.test(text)) return null;
    const items = parseTodo(text);
    if (items.length === 0) return { accepted: false, message: "a todo list needs at least one '- [ ] item' line" };
    state.todo = items;
    const open = items.filter((t) => !t.done).length;
    return { accepted: true, note: `todo list recorded: ${open} open, ${items.length - open} done` };
  },
  gate(state, call) {
    if (state.todo === null) return { allow: false, message: "start with a todo list: 'Todo:' then '- [ ] step' lines" };
    if (call.tool === 'finish') {
      if (state.unverified.size > 0)
        return { allow: false, message: `verify before finish: re-read ${[...state.unverified].sort().join(', ')}` };
      const open = state.todo.filter((t) => !t.done);
      if (open.length > 0)
        return { allow: false, message: `check off your todo list before finish (${open.length} open): resend it with '- [x]'` };
    }
    return ALLOW;
  },
  after: trackWrites,
  status: todoStatus,
};

export const WORKFLOWS: readonly Workflow[] = [W0, W1, W2];

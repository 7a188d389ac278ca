/**
 * The scripted expert through a harness (DESIGN.md §6): wraps a task's `CanonicalSolver` (which
 * speaks canonical calls) so that it satisfies any harness — formats calls in T's syntax or the
 * black-box syntax, sends W1's plan and W2's todo list first, re-reads written files and checks
 * off the todo list before finish (W2), reads before editing or overwriting (coding-cli),
 * appends as read + write where a harness has no append (black-box). The solver sees canonical
 * results of its own calls only, never the extra workflow steps.
 *
 * Its per-turn (context, action) texts are the demonstrations for pretraining and SFT.
 */
import type { ToolCall, ToolResult } from '../sandbox/types';
import { getSuite } from '../tasks';
import type { Task, TaskSuite, Verification } from '../tasks/types';
import { AssistantHarness, assistantDirective } from './blackbox/assistant';
import { bashFor, CodingCliHarness, formatCliCall } from './blackbox/coding_cli';
import { ComposedHarness } from './composed';
import { episodeTags } from './episode';
import { formatTodo, type TodoItem } from './realizations/workflow';
import { createHarness } from './registry';
import type { BehaviourTags, Harness, StepResult, TurnRecord } from './types';
import type { Transcript } from '../sandbox/types';

export interface ExpertOptions {
  /** The task's suite (default: `getSuite(task.suite)`). */
  suite?: TaskSuite;
  /** Turn cap of the expert episode (default 200; the context cap is lifted for the expert). */
  maxTurns?: number;
}

export interface ExpertEpisode {
  harness: string;
  taskId: string;
  pass: boolean;
  verification: Verification;
  transcript: Transcript;
  tags: BehaviourTags;
  /** Every turn: the exact context text and action text (demonstrations), observation, kind. */
  turns: readonly TurnRecord[];
  /** Set when the expert could not drive the harness (a bug: a refused or unparsable action). */
  error?: string;
}

const PLAN = 'Plan:\n1. look at the files the task names\n2. make the changes it asks for\n3. check the result, then finish';
const TODO_ITEMS = ['inspect the inputs', 'make the changes', 'verify and finish'];

/** Texts to send for one canonical call, and which step's canonical result answers the solver. */
interface Adapter {
  opening(h: Harness): string[];
  beforeFinish(h: Harness): string[];
  actions(call: ToolCall): string[];
}

function composedAdapter(h: ComposedHarness): Adapter {
  const T = h.components.T;
  return {
    opening() {
      const st = h.workflowStatus();
      const out: string[] = [];
      if (st.needsPlan) out.push(PLAN);
      if (st.needsTodo) out.push(formatTodo(TODO_ITEMS.map((text) => ({ text, done: false }))));
      return out;
    },
    beforeFinish() {
      const st = h.workflowStatus();
      const out = st.unverified.map((path) => T.format({ tool: 'read', args: { path } }));
      if (st.openTodos.length) out.push(formatTodo(TODO_ITEMS.map((text) => ({ text, done: true }))));
      return out;
    },
    actions: (call) => [T.format(call)],
  };
}

/** Files up to this size are edited in place (a canonical read of them is never truncated). */
const EDIT_MAX_CHARS = 1500;

/**
 * The single edit turning `old` into `next`: the changed span (common prefix and suffix
 * removed) widened to whole lines. Null when there is no change, the span is empty in `old`
 * (a pure insertion) or it is not unique in `old` (an Edit would be ambiguous).
 */
export function editFor(old: string, next: string): { oldString: string; newString: string } | null {
  if (old === next) return null;
  let p = 0;
  while (p < old.length && p < next.length && old[p] === next[p]) p++;
  let s = 0;
  while (s < old.length - p && s < next.length - p && old[old.length - 1 - s] === next[next.length - 1 - s]) s++;
  const start = p === 0 ? 0 : old.lastIndexOf('\n', p - 1) + 1;
  let end = old.indexOf('\n', old.length - s);
  if (end < 0) end = old.length;
  const oldString = old.slice(start, end);
  const newString = next.slice(start, next.length - (old.length - end));
  // Unique, also against overlapping matches, so the Edit tool's first match is this span.
  if (oldString === '' || oldString === newString || old.indexOf(oldString) !== start || old.indexOf(oldString, start + 1) !== -1) return null;
  return { oldString, newString };
}

function codingCliAdapter(h: CodingCliHarness): Adapter {
  const todos = (done: boolean): string => TODO_ITEMS.map((t): TodoItem => ({ text: t, done })).map((t) => `- [${t.done ? 'x' : ' '}] ${t.text}`).join('\n');
  return {
    opening: () => [formatCliCall({ name: 'TodoWrite', args: { todos: todos(false) } })],
    beforeFinish: () => [formatCliCall({ name: 'TodoWrite', args: { todos: todos(true) } })],
    actions(call) {
      const a = call.args;
      const readFirst = (path: string) => (h.peekFile(path) !== undefined && !h.hasRead(path) ? [formatCliCall({ name: 'Read', args: { file_path: path } })] : []);
      switch (call.tool) {
        case 'read':
          return [formatCliCall({ name: 'Read', args: { file_path: a.path } })];
        case 'write': {
          // Overwriting a file with a local change: an Edit of the changed lines, as a coding
          // agent would; otherwise Write (after the Read the gate requires).
          const old = h.peekFile(a.path);
          const edit = old !== undefined && old.length <= EDIT_MAX_CHARS ? editFor(old, a.content) : null;
          if (edit) return [...readFirst(a.path), formatCliCall({ name: 'Edit', args: { file_path: a.path, old_string: edit.oldString, new_string: edit.newString } })];
          return [...readFirst(a.path), formatCliCall({ name: 'Write', args: { file_path: a.path, content: a.content } })];
        }
        case 'append': {
          // No append tool: read (the gate needs it), then write old + new.
          const pre = readFirst(a.path);
          return [...pre, '__APPEND__'];
        }
        case 'search':
          return [formatCliCall({ name: 'Grep', args: a.path === undefined ? { pattern: a.query } : { pattern: a.query, path: a.path } })];
        case 'finish':
          return [formatCliCall({ name: 'Finish', args: a.answer === undefined ? {} : { answer: a.answer } })];
        default:
          return [formatCliCall({ name: 'Bash', args: { command: bashFor(call) } })];
      }
    },
  };
}

function assistantAdapter(h: AssistantHarness): Adapter {
  return {
    opening: () => [],
    beforeFinish: () => [],
    actions(call) {
      if (call.tool === 'append') return h.peekFile(call.args.path) !== undefined ? [`@read ${call.args.path}`, '__APPEND__'] : ['__APPEND__'];
      return [assistantDirective(call)];
    },
  };
}

/** Resolve the deferred append write: the file's content at send time plus the appended text. */
function appendText(h: Harness, call: ToolCall): string {
  const peek = (h as CodingCliHarness | AssistantHarness).peekFile(call.args.path) ?? '';
  const content = peek + call.args.content;
  if (h instanceof CodingCliHarness) return formatCliCall({ name: 'Write', args: { file_path: call.args.path, content } });
  return assistantDirective({ tool: 'write', args: { path: call.args.path, content } });
}

function adapterFor(h: Harness): Adapter {
  if (h instanceof ComposedHarness) return composedAdapter(h);
  if (h instanceof CodingCliHarness) return codingCliAdapter(h);
  if (h instanceof AssistantHarness) return assistantAdapter(h);
  throw new Error(`expert: no adapter for harness '${h.id}'`);
}

/**
 * Run the expert on `task` under harness `harnessId`.
 * @returns the episode with verification, tags and per-turn (context, action) texts; `error`
 *   is set (and pass is false) if the expert's action was refused or failed to parse, which
 *   means a bug in a harness or in this adapter.
 * @throws Error naming an unknown harness id.
 */
export function runExpertEpisode(task: Task, harnessId: string, opts: ExpertOptions = {}): ExpertEpisode {
  const suite = opts.suite ?? getSuite(task.suite);
  const h = createHarness(harnessId, {
    budget: { maxTurns: opts.maxTurns ?? 200, maxContextTokens: Number.POSITIVE_INFINITY, maxActionTokens: Number.MAX_SAFE_INTEGER },
  });
  h.reset(task);
  const adapter = adapterFor(h);
  let error: string | undefined;
  const send = strictSender(h);
  try {
    for (const t of adapter.opening(h)) send(t);
    const solver = suite.solver(task);
    let last: ToolResult | null = null;
    while (!h.done) {
      const call = solver.next(last);
      if (call.tool === 'finish') for (const t of adapter.beforeFinish(h)) send(t);
      let r: StepResult | null = null;
      for (const t of adapter.actions(call)) {
        if (h.done) break;
        r = send(t === '__APPEND__' ? appendText(h, call) : t);
      }
      if (!r) throw new Error(`expert: no action for ${call.tool}`);
      // The solver sees the canonical result of its own call: the last canonical result of the
      // final action (black-box tools may run several canonical calls, e.g. Edit = read + write).
      last = r.results.length ? r.results[r.results.length - 1] : { ok: !r.observation.includes('error'), output: r.observation };
    }
  } catch (e) {
    error = (e as Error).message;
  }
  return expertEpisodeResult(h, task, suite, error);
}

/**
 * `h.step` for scripted drivers (the expert here, the procedural expert of src/pretrain): a
 * parse error or a workflow rejection of a scripted action is a bug in a harness or a driver,
 * so it throws instead of becoming an observation.
 * @throws Error naming the kind, the harness and the action.
 */
export function strictSender(h: Harness): (text: string) => StepResult {
  return (text) => {
    const r = h.step(text);
    if (r.kind === 'parse_error' || r.kind === 'rejected') {
      throw new Error(`expert action ${r.kind} under ${h.id}: ${JSON.stringify(text.slice(0, 80))} → ${r.observation.slice(0, 160)}`);
    }
    return r;
  };
}

/**
 * Verify a scripted episode's final state and package it; `error` (the driver's failure, if
 * any) makes it a fail whatever the verifier says.
 */
export function expertEpisodeResult(h: Harness, task: Task, suite: TaskSuite, error?: string): ExpertEpisode {
  const transcript = h.transcript();
  const verification = suite.verify(task, h.sandboxState(), transcript);
  const out: ExpertEpisode = {
    harness: h.id,
    taskId: task.id,
    pass: verification.pass && error === undefined,
    verification,
    transcript,
    tags: episodeTags(h, task, verification),
    turns: h.turns(),
  };
  if (error !== undefined) out.error = error;
  return out;
}

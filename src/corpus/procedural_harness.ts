/**
 * Procedurally randomized harnesses for pretraining (docs/PRETRAIN.md): a seeded family of
 * `Harness`es whose surface forms (S, T, O, C, W) are drawn at random, so the base model learns
 * to act under *a* harness from its prompt rather than under the evaluated ones.
 * `createProceduralHarness(seed)` composes one drawn realization per component with the
 * runtime's own `ComposedHarness` (same episode loop, budgets, tags, transcripts).
 *
 * Invariant: no drawn realization is an evaluated one or a black-box harness (structural, see
 * procedural_tools.ts; tested in tests/unit/pretrain_procedural.test.ts).
 */
import type { ToolCall, ToolResult } from '../sandbox/types';
import type { Task, TaskSuite } from '../tasks/types';
import { ComposedHarness } from '../harness/composed';
import type { BaseHarnessOptions } from '../harness/base';
import { C0, makeC1, makeC2, type ContextPolicy } from '../harness/realizations/context';
import type { NoticeKind, ObservationFormat } from '../harness/realizations/observation';
import type { SystemPrompt } from '../harness/realizations/system';
import {
  todoStatus,
  W0,
  W1,
  W2,
  type GateDecision,
  type MessageOutcome,
  type Workflow,
  type WorkflowState,
} from '../harness/realizations/workflow';
import { normPath } from '../harness/tools';
import { composedAdapter, driveExpert, type ExpertEpisode } from '../harness/expert';
import type { Message } from '../harness/types';
import { Rng } from '../util/rng';
import { proceduralToolInterface } from './procedural_tools';
import { NOVEL_NAME_P, novelName, type ProcSurfaces, type ProcSyntax, type ProcToolInterface } from './procedural_surface';
import { proceduralEnvelopeInterface } from './procedural_envelope';

/** A forced draw: one of PROC_SYNTAXES, or 'envelope' (T0's envelope with drawn names, procedural_envelope.ts; never drawn unforced). */
type ProcDrawSyntax = ProcSyntax | 'envelope';

// ---------------------------------------------------------------------------------------------
// S: prompts.

const ROLES = [
  'You are an agent that works inside a small sandboxed file system.',
  'You act as a file assistant. Everything you do goes through the tools below.',
  'Act as an operator of a virtual workspace; all files live under /.',
  'You are a helpful workspace bot with file tools.',
  'Your job: carry out requests in a sandbox of files and folders.',
  'Role: automation agent for a private document store.',
];
const ONE_CALL = [
  'Answer with a single tool call per turn.',
  'Each reply must be exactly one call, nothing else.',
  'One call per reply; no commentary.',
  'Write only the call, one per message.',
];
const RULES = [
  'Look before you change: list or read first when unsure.',
  'Keep names, numbers and text exactly as written in the files.',
  'When a call fails, read the message and adjust.',
  'Stop only once the whole request is satisfied.',
  'Paths may be absolute (/x/y.txt) or relative to /.',
  'Never invent file contents.',
];
const HEADER_STYLES: ReadonlyArray<(s: string) => string> = [
  (s) => `# ${s}`,
  (s) => `${s.toUpperCase()}:`,
  (s) => `[${s}]`,
  (s) => `=== ${s} ===`,
  (s) => `<${s.toLowerCase()}>`,
  (s) => `** ${s} **`,
];
const SECTION_NAMES: Record<'role' | 'rules' | 'tools' | 'example' | 'workflow' | 'task', readonly string[]> = {
  role: ['Role', 'Identity', 'About you', 'Persona'],
  rules: ['Guidelines', 'Notes', 'Conventions', 'Constraints'],
  tools: ['Tool reference', 'Available tools', 'Commands', 'Interface'],
  example: ['Sample call', 'Usage', 'For instance', 'Demo'],
  workflow: ['Procedure', 'Process', 'How to work', 'Protocol'],
  task: ['Assignment', 'Objective', 'Job', 'Request'],
};
const TASK_PREFIXES = ['', 'Task: ', 'Please do this: ', 'Goal: ', 'User request: ', 'TODO for you: '];
const GO_LINES = ['Start now.', 'Go ahead.', 'Proceed with the task above.', 'Begin when ready.'];

/** What the procedural S drew. */
interface ProcPromptSurface {
  order: string[];
  header: number;
  taskInSystem: boolean;
}

function proceduralSystem(rng: Rng): SystemPrompt & { surface: ProcPromptSurface } {
  const header = rng.int(HEADER_STYLES.length);
  const h = HEADER_STYLES[header];
  const role = rng.pick(ROLES);
  const oneCall = rng.pick(ONE_CALL);
  const rules = rng.shuffle(RULES).slice(0, rng.int(3));
  const taskInSystem = rng.float() < 0.4;
  const taskPrefix = rng.pick(TASK_PREFIXES);
  const go = rng.pick(GO_LINES);
  const names = Object.fromEntries(Object.entries(SECTION_NAMES).map(([k, v]) => [k, rng.pick(v)])) as Record<
    keyof typeof SECTION_NAMES,
    string
  >;
  const keys: Array<keyof typeof SECTION_NAMES> = ['role', 'tools', 'example', 'workflow'];
  if (rules.length) keys.push('rules');
  if (taskInSystem) keys.push('task');
  const order = rng.shuffle(keys);
  return {
    id: 'Pprompt',
    name: 'procedural-prompt',
    surface: { order, header, taskInSystem },
    render(task, p) {
      const body: Record<string, string> = {
        role: `${role} ${oneCall}`,
        rules: rules.map((r) => `- ${r}`).join('\n'),
        tools: p.toolDocs,
        example: p.example,
        workflow: p.workflow,
        task: task.instruction,
      };
      const sections = order.filter((k) => body[k] !== '').map((k) => `${h(names[k])}\n${body[k]}`);
      return { system: sections.join('\n'), user: taskInSystem ? go : `${taskPrefix}${task.instruction}` };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// O: observations.

const PROC_OBSERVATION_STYLES = ['raw', 'envelope', 'numbered', 'wrapped'] as const;
type ProcObservationStyle = (typeof PROC_OBSERVATION_STYLES)[number];

function clipChars(text: string, max: number, note: (n: number) => string): string {
  return text.length <= max ? text : `${text.slice(0, max)}${note(text.length - max)}`;
}

function proceduralObservation(rng: Rng): ObservationFormat & { surface: { style: ProcObservationStyle; detail: Record<string, string> } } {
  const style = rng.pick(PROC_OBSERVATION_STYLES);
  const maxChars = 400 + 100 * rng.int(6);
  const errWord = rng.pick(['ERROR', 'failed', 'error!', 'problem', 'E']);
  const empty = rng.pick(['(empty)', '<nothing>', 'done, no output', '∅']);
  const moreNote = rng.pick([
    (n: number) => `\n… (${n} chars cut)`,
    (n: number) => `\n[+${n} chars]`,
    (n: number) => `\n<${n} more characters>`,
  ]);
  const noticeWords: Record<NoticeKind, string> = {
    parse_error: rng.pick(['could not parse', 'syntax error', 'unreadable call', 'bad format']),
    rejected: rng.pick(['not allowed now', 'refused', 'blocked', 'denied']),
    note: rng.pick(['noted', 'ok', 'accepted', 'recorded']),
  };
  const notice = (kind: NoticeKind, message: string): string => `${noticeWords[kind]}: ${clipChars(message, maxChars, moreNote)}`;
  const errLine = (r: ToolResult) => `${errWord} (${r.error?.code ?? 'error'}): ${r.error?.message ?? 'failed'}`;
  switch (style) {
    case 'raw': {
      const prefix = rng.pick(['', 'output:\n', '>> ', 'result:\n']);
      return {
        id: 'Praw',
        name: 'procedural-raw',
        notice,
        surface: { style, detail: { prefix: JSON.stringify(prefix), maxChars: String(maxChars) } },
        render: (r) => (!r.ok ? errLine(r) : r.output === '' ? empty : prefix + clipChars(r.output, maxChars, moreNote)),
      };
    }
    case 'envelope': {
      const okKey = rng.pick(['ok', 'success', 'passed', 'good']);
      const outKey = rng.pick(['result', 'data', 'stdout', 'out', 'text', 'body']);
      const errKey = rng.pick(['err', 'reason', 'problem', 'failure']);
      const codeKey = rng.pick(['code', 'kind', 'type', 'errno']);
      return {
        id: 'Penvelope',
        name: 'procedural-envelope',
        surface: { style, detail: { okKey, outKey, errKey, codeKey, maxChars: String(maxChars) } },
        render: (r) =>
          JSON.stringify(
            r.ok
              ? { [okKey]: true, [outKey]: clipChars(r.output, maxChars, moreNote) }
              : { [okKey]: false, [codeKey]: r.error?.code ?? 'error', [errKey]: r.error?.message ?? 'failed' },
          ),
        notice: (kind, message) => JSON.stringify({ [okKey]: kind === 'note', [kind === 'note' ? outKey : errKey]: notice(kind, message) }),
      };
    }
    case 'numbered': {
      const sep = rng.pick([': ', ' │ ', '\t', ') ', ' - ']);
      const maxLines = 8 + rng.int(23);
      const start = rng.pick([0, 1]);
      const more = rng.pick([(n: number) => `(${n} lines not shown)`, (n: number) => `+${n} lines`, (n: number) => `...and ${n} more`]);
      return {
        id: 'Pnumbered',
        name: 'procedural-numbered',
        notice,
        surface: { style, detail: { separator: JSON.stringify(sep), maxLines: String(maxLines), start: String(start) } },
        render(r) {
          if (!r.ok) return errLine(r);
          if (r.output === '') return empty;
          const lines = r.output.split('\n');
          const shown = lines.slice(0, maxLines).map((l, i) => `${i + start}${sep}${l.length > 160 ? l.slice(0, 160) + '…' : l}`);
          return lines.length > maxLines ? `${shown.join('\n')}\n${more(lines.length - maxLines)}` : shown.join('\n');
        },
      };
    }
    case 'wrapped': {
      const tag = rng.pick(['result', 'out', 'observation', 'tool_output', 'response']);
      return {
        id: 'Pwrapped',
        name: 'procedural-wrapped',
        surface: { style, detail: { tag, maxChars: String(maxChars) } },
        render: (r) => `<${tag}>\n${!r.ok ? errLine(r) : r.output === '' ? empty : clipChars(r.output, maxChars, moreNote)}\n</${tag}>`,
        notice: (kind, message) => `<${tag}>\n${notice(kind, message)}\n</${tag}>`,
      };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// C: context policies (the runtime's C1 and C2 with random parameters and wording).

const PROC_CONTEXT_KINDS = ['full', 'last-k', 'summary'] as const;
type ProcContextKind = (typeof PROC_CONTEXT_KINDS)[number];

/** Replace the runtime's fixed placeholder / summary header in a view by drawn wording. */
function reword(
  base: ContextPolicy,
  placeholder: string,
  summaryHead: string,
  kind: ProcContextKind,
  detail: Record<string, string>,
): ContextPolicy & { surface: { kind: ProcContextKind; detail: Record<string, string> } } {
  return {
    id: `P${kind}`,
    name: `procedural-${kind}`,
    surface: { kind, detail },
    view(h, len) {
      return base.view(h, len).map((m): Message => {
        if (m.policy) return m;
        if (m.role === 'tool' && m.text === '[older output hidden]' && !h.turns.some((t) => t.observation.text === m.text))
          return { ...m, text: placeholder };
        if (m.role === 'user' && m.text.startsWith('[summary of turns '))
          return { ...m, text: m.text.replace(/^\[summary of turns ([0-9]+-[0-9]+)\]/, `${summaryHead} ($1)`) };
        return m;
      });
    },
  };
}

function proceduralContext(rng: Rng) {
  const kind = rng.pick(PROC_CONTEXT_KINDS);
  const placeholder = rng.pick(['(output omitted)', '<elided>', '[old result removed]', '…']);
  const head = rng.pick(['Earlier steps', 'History so far', 'Recap', 'Done before']);
  if (kind === 'full') return reword(C0, placeholder, head, kind, {});
  if (kind === 'last-k') {
    const k = 1 + rng.int(4);
    return reword(makeC1(k), placeholder, head, kind, { k: String(k), placeholder });
  }
  const budgetTokens = 200 + 40 * rng.int(6);
  const keepTurns = 1 + rng.int(3);
  return reword(makeC2({ budgetTokens, keepTurns, maxSummaryItems: 8 }), placeholder, head, kind, {
    budgetTokens: String(budgetTokens),
    keepTurns: String(keepTurns),
    header: head,
  });
}

// ---------------------------------------------------------------------------------------------
// W: workflows with random keywords.

const PROC_WORKFLOW_KINDS = ['free', 'plan-first', 'todo-verify'] as const;
type ProcWorkflowKind = (typeof PROC_WORKFLOW_KINDS)[number];

/** Checkbox styles [open, done] of todo items (W2's '- [ ]' / '- [x]' excluded). */
const CHECKBOXES: ReadonlyArray<readonly [string, string]> = [
  ['* ( ) ', '* (x) '],
  ['[ ] ', '[v] '],
  ['- todo: ', '- done: '],
  ['o ', '✓ '],
];
// 'Plan …' and 'Todo …' keywords but never W1's 'Plan:' nor W2's 'Todo:' (a banned first word gets a prior of ~0).
// Several continuations of each ('Plan of action:', 'Plans:', 'Plan —' …): with only one, a model learns
// 'Plan' → ' of' by heart and never reads the keyword from the prompt (W1's ':' once cost 9–14
// nats after 16 M tokens), so the token after 'Plan' / 'Todo' must be one the prompt decides.
/** The 'Plan …' / 'Todo …' keywords, which only the v2 draws use (ProcSurfaces). */
const V2_PLAN_WORDS = ['Plan of action:', 'Planned steps:', 'Plans:', 'Planning:', 'Plan outline:', 'Plan —', 'Plan (steps):'];
const V2_LIST_WORDS = ['Todo list:', 'Todos:', 'Todo items:', 'Todo —', 'Todo (open):', 'To-do:'];
const PLAN_WORDS = ['Approach:', 'Steps:', 'Strategy:', 'Outline:', 'Intent:', ...V2_PLAN_WORDS];
const LIST_WORDS = ['Checklist:', 'Tasks:', 'Agenda:', 'Open items:', ...V2_LIST_WORDS];
const V2_KEYWORDS = [...V2_PLAN_WORDS, ...V2_LIST_WORDS];
const PLAN_STEPS = ['inspect the files named in the request', 'make the requested changes', 'check the result and finish'];
const TODO_ITEMS = ['inspect the inputs', 'make the changes', 'verify and finish'];
/** A workflow keyword: from `words`, or (NOVEL_NAME_P) a made-up capitalized word — never W1's 'Plan:' nor W2's 'Todo:'. */
function keyword(rng: Rng, words: readonly string[], surfaces: ProcSurfaces): string {
  if (surfaces === 'v1') return rng.pick(words.filter((w) => !V2_KEYWORDS.includes(w)));
  if (rng.float() >= NOVEL_NAME_P) return rng.pick(words);
  const w = novelName(rng, new Set(['plan', 'todo']));
  return `${w[0].toUpperCase()}${w.slice(1)}:`;
}

/** A procedural workflow plus the texts its expert sends (the runtime's W has none). */
interface ProcWorkflow extends Workflow {
  readonly surface: { kind: ProcWorkflowKind; detail: Record<string, string> };
  /** The plan message (plan-first) or null. */
  planText(): string | null;
  /** The todo list with every item open (done=false) or checked (done=true); null unless todo-verify. */
  todoText(done: boolean): string | null;
}

function trackWrites(state: WorkflowState, call: ToolCall, result: ToolResult): void {
  if (!result.ok) return;
  const a = call.args;
  if (call.tool === 'write' || call.tool === 'append') state.unverified.add(normPath(a.path));
  else if (call.tool === 'read') state.unverified.delete(normPath(a.path));
  else if (call.tool === 'delete' || call.tool === 'move') {
    const from = normPath(call.tool === 'move' ? a.from : a.path);
    for (const u of [...state.unverified]) {
      if (u === from || u.startsWith(from + '/')) {
        state.unverified.delete(u);
        if (call.tool === 'move') state.unverified.add(normPath(a.to) + u.slice(from.length));
      }
    }
  }
}

const escRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** How an episode ends when its tool interface has no finish tool (procedural_envelope.ts): wordings of the black-box prompts' rule. */
const REPLY_LINES = [
  'When done, reply with the answer in plain text (no tool call).',
  'Once everything is done, answer in plain text without a call; that ends the session.',
  'Your last message is plain text, not JSON: the answer, or a short note when there is none.',
  'To end, write a normal message (no tool call) with the answer.',
];

/** @param finishName the finish tool's surface name, or null when a plain-text reply ends the episode */
function proceduralWorkflow(rng: Rng, finishName: string | null, surfaces: ProcSurfaces): ProcWorkflow {
  const kind = rng.pick(PROC_WORKFLOW_KINDS);
  const ALLOW: GateDecision = { allow: true };
  const init = (): WorkflowState => ({ planned: false, todo: null, unverified: new Set() });
  const finishLine =
    finishName === null
      ? rng.pick(REPLY_LINES)
      : rng.pick([
          `Use ${finishName} once everything is done.`,
          `End with ${finishName} when finished.`,
          `When the request is complete, call ${finishName}.`,
        ]);
  const beforeFinish = finishName === null ? 'your final reply' : finishName;
  if (kind === 'free') {
    return {
      id: 'Pfree',
      name: 'procedural-free',
      overhead: W0.overhead,
      instructions: finishLine,
      surface: { kind, detail: {} },
      init,
      message: () => null,
      gate: () => ALLOW,
      after: trackWrites,
      status: () => ({ needsPlan: false, needsTodo: false, openTodos: [], unverified: [] }),
      planText: () => null,
      todoText: () => null,
    };
  }
  if (kind === 'plan-first') {
    const word = keyword(rng, PLAN_WORDS, surfaces);
    const re = new RegExp(`^\\s*${escRe(word)}`, 'i');
    return {
      id: 'Pplan',
      name: 'procedural-plan-first',
      overhead: W1.overhead,
      instructions: `Before any call, send your plan as a message starting with '${word}'. ${finishLine}`,
      surface: { kind, detail: { keyword: word } },
      init,
      message(state, text): MessageOutcome | null {
        if (!re.test(text)) return null;
        if (text.replace(re, '').trim() === '') return { accepted: false, message: `a plan needs steps after '${word}'` };
        state.planned = true;
        return { accepted: true, note: 'plan accepted' };
      },
      gate: (state) => (state.planned ? ALLOW : { allow: false, message: `first send a plan starting with '${word}'` }),
      after: trackWrites,
      status: (s) => ({ needsPlan: !s.planned, needsTodo: false, openTodos: [], unverified: [] }),
      planText: () => `${word}\n${PLAN_STEPS.map((s, i) => `${i + 1}) ${s}`).join('\n')}`,
      todoText: () => null,
    };
  }
  const word = keyword(rng, LIST_WORDS, surfaces);
  const [open, done] = rng.pick(CHECKBOXES);
  const re = new RegExp(`^\\s*${escRe(word)}`, 'i');
  const parse = (text: string) => {
    const items: { text: string; done: boolean }[] = [];
    for (const line of text.replace(re, '').split('\n')) {
      const l = line.trim();
      for (const [mark, isDone] of [
        [open.trim(), false],
        [done.trim(), true],
      ] as const) {
        if (l.startsWith(mark) && l.slice(mark.length).trim() !== '') {
          items.push({ text: l.slice(mark.length).trim(), done: isDone });
          break;
        }
      }
    }
    return items;
  };
  return {
    id: 'Ptodo',
    name: 'procedural-todo-verify',
    overhead: W2.overhead,
    // A reply-ending draw says how to end (a finish call is named by the sentence itself).
    instructions: `Open with a list: '${word}' then one '${open.trim()} item' per line. Read back every file you write. Before ${beforeFinish}, resend the list with each item as '${done.trim()} item'.${finishName === null ? ` ${finishLine}` : ''}`,
    surface: { kind, detail: { keyword: word, open: open.trim(), done: done.trim() } },
    init,
    message(state, text): MessageOutcome | null {
      if (!re.test(text)) return null;
      const items = parse(text);
      if (items.length === 0) return { accepted: false, message: `the list needs at least one '${open.trim()} item' line` };
      state.todo = items;
      return { accepted: true, note: `list saved (${items.filter((t) => !t.done).length} open)` };
    },
    gate(state, call) {
      if (state.todo === null) return { allow: false, message: `start with a list: '${word}' then '${open.trim()} item' lines` };
      if (call.tool === 'finish') {
        if (state.unverified.size > 0) return { allow: false, message: `read back first: ${[...state.unverified].sort().join(', ')}` };
        const n = state.todo.filter((t) => !t.done).length;
        if (n > 0) return { allow: false, message: `${n} item(s) still open; resend the list with '${done.trim()}'` };
      }
      return ALLOW;
    },
    after: trackWrites,
    status: todoStatus,
    planText: () => null,
    todoText: (d) => `${word}\n${TODO_ITEMS.map((t) => (d ? done : open) + t).join('\n')}`,
  };
}

// ---------------------------------------------------------------------------------------------
// The harness.

/** Everything a procedural harness drew (JSON-safe; for display, docs and tests). */
interface ProceduralSurface {
  seed: number;
  S: ProcPromptSurface;
  T: ProcToolInterface['surface'];
  O: { style: ProcObservationStyle; detail: Record<string, string> };
  C: { kind: ProcContextKind; detail: Record<string, string> };
  W: { kind: ProcWorkflowKind; detail: Record<string, string> };
}

/** Constraints on a draw (tests use them to cover every variant). */
interface ProceduralDrawOptions {
  syntax?: ProcDrawSyntax;
  /** 'v2' (default, pretraining) or 'v1' (the tokenizer corpus's draws; procedural_tools.ts ProcSurfaces). */
  surfaces?: ProcSurfaces;
}

/** A composed harness whose components are procedural; id `proc-<seed>`. */
class ProceduralHarness extends ComposedHarness {
  readonly surface: ProceduralSurface;
  readonly tool: ProcToolInterface;
  readonly workflow: ProcWorkflow;

  constructor(seed: number, opts: BaseHarnessOptions & ProceduralDrawOptions = {}) {
    if (!Number.isInteger(seed) || seed < 0) throw new Error(`createProceduralHarness: seed must be a non-negative integer, got ${seed}`);
    const surfaces = opts.surfaces ?? 'v2';
    const rt = Rng.derive(seed, 'procedural', 'T');
    const T = opts.syntax === 'envelope' ? proceduralEnvelopeInterface(rt) : proceduralToolInterface(rt, opts.syntax, surfaces);
    const S = proceduralSystem(Rng.derive(seed, 'procedural', 'S'));
    const O = proceduralObservation(Rng.derive(seed, 'procedural', 'O'));
    const C = proceduralContext(Rng.derive(seed, 'procedural', 'C'));
    const W = proceduralWorkflow(
      Rng.derive(seed, 'procedural', 'W'),
      T.surface.detail.reply === 'true' ? null : T.surface.toolNames.finish,
      surfaces,
    );
    super(`proc-${seed}${opts.syntax ? `-${opts.syntax}` : ''}`, { S, T, O, C, W }, opts);
    this.tool = T;
    this.workflow = W;
    this.surface = { seed, S: S.surface, T: T.surface, O: O.surface, C: C.surface, W: W.surface };
  }
}

/**
 * The procedural harness of `seed` (deterministic in seed and `opts.syntax`).
 * @throws Error when seed is not a non-negative integer.
 */
export function createProceduralHarness(seed: number, opts: BaseHarnessOptions & ProceduralDrawOptions = {}): ProceduralHarness {
  return new ProceduralHarness(seed, opts);
}

// ---------------------------------------------------------------------------------------------
// The expert through a procedural harness.

interface ProceduralExpertOptions {
  suite?: TaskSuite;
  /** Turn cap (default 200); the context cap is lifted as for the runtime's expert. */
  maxTurns?: number;
  syntax?: ProcDrawSyntax;
  /** Draw version (ProceduralDrawOptions.surfaces; default 'v2'). */
  surfaces?: ProcSurfaces;
  /** Honest to its context (default true; src/harness/expert.ts `HonestDriver`). */
  honest?: boolean;
  /** The text the model will see of a context (src/harness/expert.ts `ExpertOptions.view`). */
  view?: (context: string, action?: string) => string;
}

/**
 * Run the task's canonical solver through procedural harness `seed`: sends the workflow's plan
 * or open todo list first, formats each call in the drawn syntax, re-reads written files and
 * resends the checked list before finish: the expert's loop (src/harness/expert.ts `driveExpert`)
 * with the drawn workflow's texts.
 * @returns the episode; `error` set (pass false) when an expert action was refused or did not
 *   parse — a bug in a procedural realization.
 */
export function runProceduralExpert(task: Task, seed: number, opts: ProceduralExpertOptions = {}): ExpertEpisode {
  const h = createProceduralHarness(seed, {
    syntax: opts.syntax,
    surfaces: opts.surfaces,
    budget: { maxTurns: opts.maxTurns ?? 200, maxContextTokens: Number.POSITIVE_INFINITY, maxActionTokens: Number.MAX_SAFE_INTEGER },
  });
  h.reset(task);
  const w = h.workflow;
  // Asked for only when the drawn workflow is plan-first / todo-verify, where the texts exist.
  return driveExpert(h, task, composedAdapter(h, { plan: () => w.planText()!, todo: (done) => w.todoText(done)! }), opts);
}

/**
 * The scripted expert through a harness (docs/ARCHITECTURE.md "Harness runtime"): wraps a task's `CanonicalSolver` (which
 * speaks canonical calls) so that it satisfies any harness — formats calls in T's syntax or in a
 * black-box harness's tool names (its finish is a plain-text reply there), sends W1's plan and
 * W2's todo list first, re-reads written files and checks
 * off the todo list before finish (W2), reads before editing or overwriting (coding-cli),
 * appends as read + write where a harness has no append (black-box). The solver sees canonical
 * results of its own calls only, never the extra workflow steps.
 *
 * Its per-turn (context, action) texts are the demonstrations for pretraining and SFT.
 */
import type { ToolCall, ToolResult } from '../sandbox/types';
import { getSuite } from '../tasks';
import type { Task, TaskSuite, Verification } from '../tasks/types';
import { ASSISTANT_TOOLS, AssistantHarness, assistantCallText } from './blackbox/assistant';
import { bashFor, CodingCliHarness, formatCliCall } from './blackbox/coding_cli';
import { formatCall, replyText } from './blackbox/envelope';
import { ComposedHarness } from './composed';
import { episodeTags } from './episode';
import { formatTodo, type TodoItem } from './realizations/workflow';
import { createHarness } from './registry';
import type { BehaviourTags, Harness, StepResult, TurnRecord } from './types';
import type { Transcript } from '../sandbox/types';
import { atoms, NOTES_HEADER, NOTES_PATH } from './honesty';
import { dryRun } from './dry_run';
import { ContextBudgetError } from './context_budget';
import { appendEdit, editFor } from './text_edits';

interface ExpertOptions {
  /** The task's suite (default: `getSuite(task.suite)`). */
  suite?: TaskSuite;
  /** Turn cap of the expert episode (default 200; the context cap is lifted for the expert). */
  maxTurns?: number;
  /**
   * Honest to its context (default true, `HonestDriver`); false replays the solver with perfect
   * memory (dishonest: it may use what the context no longer shows; for measurements and tests).
   */
  honest?: boolean;
  /**
   * The text the model will see of a context (default: all of it): e.g. rows.ts `cutView` for
   * the SFT/rollout cut, so the expert also re-reads what the cut drops.
   */
  view?: (context: string, action?: string) => string;
  /**
   * Token counter of the harness's context policies (C2 summaries, coding-CLI compaction);
   * default ⌈chars / 4⌉. Pass the tokenizer's length (episode/rows.ts `tokenCounter`) to run the
   * episode as a rollout does (its environment host counts with the policy's tokenizer).
   */
  tokenLength?: (text: string) => number;
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
  /** With `error`: 'opening' when the harness's opening alone exceeds the context budget (a ContextBudgetError from the cut, context_budget.ts), else 'driver'. */
  errorKind?: 'opening' | 'driver';
  /** The expert's fixed texts (plan, todo lists): never facts for `honestyViolations`. */
  phrases?: string[];
}

const PLAN = 'Plan:\n1. look at the files the task names\n2. make the changes it asks for\n3. check the result, then finish';
const TODO_ITEMS = ['inspect the inputs', 'make the changes', 'verify and finish'];

/** Texts to send for one canonical call, and which step's canonical result answers the solver. */
interface Adapter {
  opening(h: Harness): string[];
  beforeFinish(h: Harness): string[];
  actions(call: ToolCall): string[];
  /** Texts adding `lines` to the notes file (`existing`: its content now, null when absent). */
  note(existing: string | null, lines: string): string[];
}

/** The texts a composed harness's workflow asks of the expert: the plan (W1) and the todo list, open or checked off (W2). */
interface WorkflowTexts {
  plan(): string;
  todo(done: boolean): string;
}

const RUNTIME_TEXTS: WorkflowTexts = { plan: () => PLAN, todo: (done) => formatTodo(TODO_ITEMS.map((text) => ({ text, done }))) };

/**
 * The expert's adapter of a composed harness: calls in its T's syntax, its workflow's plan and
 * todo texts (default: the runtime's W1 / W2; a procedural harness passes its drawn keywords).
 */
export function composedAdapter(h: ComposedHarness, texts: WorkflowTexts = RUNTIME_TEXTS): Adapter {
  const T = h.components.T;
  return {
    opening() {
      const st = h.workflowStatus();
      const out: string[] = [];
      if (st.needsPlan) out.push(texts.plan());
      if (st.needsTodo) out.push(texts.todo(false));
      return out;
    },
    beforeFinish() {
      const st = h.workflowStatus();
      const out = st.unverified.map((path) => T.format({ tool: 'read', args: { path } }));
      if (st.openTodos.length) out.push(texts.todo(true));
      return out;
    },
    actions: (call) => [T.format(call)],
    note: (existing, lines) => [
      existing === null
        ? T.format({ tool: 'write', args: { path: NOTES_PATH, content: NOTES_HEADER + lines } })
        : T.format({ tool: 'append', args: { path: NOTES_PATH, content: lines } }),
    ],
  };
}

/** Files up to this size are edited in place (a canonical read of them is never truncated). */
const EDIT_MAX_CHARS = 1500;

function codingCliAdapter(h: CodingCliHarness): Adapter {
  const todos = (done: boolean): string =>
    TODO_ITEMS.map((t): TodoItem => ({ text: t, done }))
      .map((t) => `- [${t.done ? 'x' : ' '}] ${t.text}`)
      .join('\n');
  return {
    opening: () => [formatCliCall({ name: 'TodoWrite', args: { todos: todos(false) } })],
    beforeFinish: () => [formatCliCall({ name: 'TodoWrite', args: { todos: todos(true) } })],
    actions(call) {
      const a = call.args;
      const readFirst = (path: string) =>
        h.peekFile(path) !== undefined && !h.hasRead(path) ? [formatCliCall({ name: 'Read', args: { file_path: path } })] : [];
      switch (call.tool) {
        case 'read':
          return [formatCliCall({ name: 'Read', args: { file_path: a.path } })];
        case 'write': {
          // Overwriting a file with a local change: an Edit of the changed lines, as a coding
          // agent would; otherwise Write (after the Read the gate requires).
          const old = h.peekFile(a.path);
          const edit = old !== undefined && old.length <= EDIT_MAX_CHARS ? editFor(old, a.content) : null;
          if (edit)
            return [
              ...readFirst(a.path),
              formatCliCall({ name: 'Edit', args: { file_path: a.path, old_string: edit.oldString, new_string: edit.newString } }),
            ];
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
          // No finish tool: the final reply (a message without a call) is the answer.
          return [replyText(a.answer ?? 'Done.')];
        case 'list':
          return [formatCliCall({ name: 'LS', args: { path: a.path ?? '/' } })];
        default:
          return [formatCliCall({ name: 'Bash', args: { command: bashFor(call) } })];
      }
    },
    // Write creates the file (and counts as read); later notes go in after the fixed first line
    // by an Edit whose old text is that constant line, so no hidden content is copied.
    note: (existing, lines) => [
      existing === null
        ? formatCliCall({ name: 'Write', args: { file_path: NOTES_PATH, content: NOTES_HEADER + lines } })
        : formatCliCall({ name: 'Edit', args: { file_path: NOTES_PATH, old_string: NOTES_HEADER, new_string: NOTES_HEADER + lines } }),
    ],
  };
}

function assistantAdapter(h: AssistantHarness): Adapter {
  return {
    opening: () => [],
    beforeFinish: () => [],
    actions(call) {
      if (call.tool === 'append')
        return h.peekFile(call.args.path) !== undefined
          ? [assistantCallText({ tool: 'read', args: { path: call.args.path } }), '__APPEND__']
          : ['__APPEND__'];
      // No finish tool: the reply to the user (a message without a call) is the answer.
      if (call.tool === 'finish') return [replyText(call.args.answer ?? 'Done.')];
      return [assistantCallText(call)];
    },
    // The assistant keeps every action verbatim, so the old notes are visible in its own earlier write.
    note: (existing, lines) => [
      assistantCallText({ tool: 'write', args: { path: NOTES_PATH, content: (existing ?? NOTES_HEADER) + lines } }),
    ],
  };
}

/**
 * Resolve the deferred append: an edit of the file's tail at send time (`appendEdit`: a few
 * words copied, not the whole file, so black-box actions stay short), or, where no tail is
 * unique, a write of the whole content plus the appended text.
 */
function appendText(h: Harness, call: ToolCall): string {
  const peek = (h as CodingCliHarness | AssistantHarness).peekFile(call.args.path) ?? '';
  const path = call.args.path;
  const edit = appendEdit(peek, call.args.content);
  if (h instanceof CodingCliHarness) {
    if (edit) return formatCliCall({ name: 'Edit', args: { file_path: path, old_string: edit.oldString, new_string: edit.newString } });
    return formatCliCall({ name: 'Write', args: { file_path: path, content: peek + call.args.content } });
  }
  if (edit) return formatCall(ASSISTANT_TOOLS, { name: 'edit', args: { path, oldText: edit.oldString, newText: edit.newString } });
  return assistantCallText({ tool: 'write', args: { path, content: peek + call.args.content } });
}

/**
 * The texts that drive `h` like the expert: its workflow opening and the action(s) running one
 * canonical call. Used by the expert and by tests that must reach every harness's tools.
 * @throws Error for a harness class without an adapter.
 */
export function adapterFor(h: Harness): Adapter {
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
  const h = createHarness(harnessId, {
    budget: { maxTurns: opts.maxTurns ?? 200, maxContextTokens: Number.POSITIVE_INFINITY, maxActionTokens: Number.MAX_SAFE_INTEGER },
    ...(opts.tokenLength ? { tokenLength: opts.tokenLength } : {}),
  });
  h.reset(task);
  return driveExpert(h, task, adapterFor(h), opts);
}

/**
 * The expert's loop on a reset harness `h`: the adapter's opening, then the task's canonical
 * solver call by call (each made honest to the context first, `HonestDriver`), with the
 * adapter's texts before finish. Shared by `runExpertEpisode` and the procedural expert
 * (src/corpus/procedural_harness.ts).
 * @returns the episode; `error` set (pass false) when an action was refused or did not parse.
 */
export function driveExpert(
  h: Harness,
  task: Task,
  adapter: Adapter,
  opts: Pick<ExpertOptions, 'suite' | 'honest' | 'view'> = {},
): ExpertEpisode {
  const suite = opts.suite ?? getSuite(task.suite);
  let error: unknown;
  const honest = new HonestDriver(h, strictSender(h), adapter, opts.honest ?? true, opts.view);
  try {
    for (const t of adapter.opening(h)) honest.sendFixed(t);
    const plan = dryRun(task, suite);
    const solver = suite.solver(task);
    let last: ToolResult | null = null;
    for (let i = 0; !h.done; i++) {
      const call = solver.next(last);
      honest.preserve(call, plan.slice(i + 1));
      if (call.tool === 'finish') {
        honest.dropNotes();
        for (const t of adapter.beforeFinish(h)) honest.sendFixed(t);
      }
      let r: StepResult | null = null;
      for (const t of adapter.actions(call)) {
        if (h.done) break;
        r = honest.send(t === '__APPEND__' ? () => appendText(h, call) : t, call.tool !== 'finish');
      }
      if (!r) throw new Error(`expert: no action for ${call.tool}`);
      // The solver sees the canonical result of its own call: the last canonical result of the
      // final action (black-box tools may run several canonical calls, e.g. Edit = read + write).
      last = r.results.length ? r.results[r.results.length - 1] : { ok: !r.observation.includes('error'), output: r.observation };
    }
  } catch (e) {
    error = e;
  }
  return { ...expertEpisodeResult(h, task, suite, error), phrases: honest.phrases };
}

/** How the honest driver runs canonical calls and keeps notes under one harness. */
interface HonestOps {
  /** Texts that run one canonical read-only call (read, list, search) or delete. */
  actions(call: ToolCall): string[];
  note(existing: string | null, lines: string): string[];
}

/**
 * Makes the scripted expert honest to its context (honesty.ts): before each action it checks
 * that every fact the action uses is in the context the harness shows now; when not, it makes
 * them visible again and only then sends the action:
 *  1. one source covers them: re-read that file (one the episode read or wrote, still present
 *     with the facts) or re-run that listing / search;
 *  2. several sources: re-run each, copying the lines with the facts into the notes file
 *     (`NOTES_PATH`; honest: the lines are in the observation just shown), then read the notes.
 * Extra actions are themselves made honest first (their paths may be hidden facts; depth ≤ 2).
 * The notes file is deleted before finish (`dropNotes`), so the final workspace is the solver's.
 * The solver never sees these extra steps.
 */
class HonestDriver {
  /** Fixed texts sent (plan, todo lists): never facts. */
  readonly phrases: string[] = [];
  private notes: string | null = null;
  private readonly learned = new Set<string>();
  private learnedTurns = 0;

  /** The harness may hide earlier observations (anything but full history). */
  private readonly hides: boolean;

  /**
   * @param enabled false: `send` and `preserve` add nothing (perfect-memory replay)
   * @param view the text the model will see of a context (default: all of it; a cut hides old turns even under full history)
   */
  constructor(
    private readonly h: Harness,
    private readonly sendRaw: (text: string) => StepResult,
    private readonly ops: HonestOps,
    private readonly enabled = true,
    private readonly view?: (context: string, action?: string) => string,
  ) {
    this.hides = view !== undefined || !(h instanceof ComposedHarness && (h.components.C.id === 'C0' || h.components.C.id === 'Pfull'));
  }

  /** The context text the model sees now (before `action`, whose length may tighten a row's cut). */
  private shown(action?: string): string {
    const c = this.h.contextText();
    return this.view ? this.view(c, action) : c;
  }

  /** Send a fixed text of the expert's own (plan, todo list, W2 re-read): no facts to check. */
  sendFixed(text: string): StepResult {
    this.phrases.push(text);
    return this.sendRaw(text);
  }

  /**
   * Send an action after making its facts visible.
   * @param text the action, or a thunk computing it after the extra steps (append's read + write)
   * @param allowNotes false for finish: no notes file may be created after `dropNotes`
   */
  send(text: string | (() => string), allowNotes = true, depth = 0): StepResult {
    // Revealing one fact may hide another (C1's window moves): check again after each round.
    for (let round = 0; this.enabled && round < 2 && depth < 2; round++) {
      const t0 = typeof text === 'string' ? text : text();
      const missing = this.missing(t0);
      if (missing.size === 0) break;
      this.reveal(missing, this.missing(t0, true), allowNotes, depth, round > 0);
    }
    return this.sendRaw(typeof text === 'string' ? text : text());
  }

  /**
   * Before the solver's destructive call (overwrite, delete): facts of the file it destroys that
   * later calls (`later`, from a dry run) still need and no other present file holds go into the
   * notes file first, while they can be shown (re-read if hidden). Only where the harness hides
   * old observations (`hides`).
   */
  preserve(call: ToolCall, later: readonly ToolCall[]): void {
    if (!this.enabled || !this.hides || (call.tool !== 'write' && call.tool !== 'delete') || call.args.path === NOTES_PATH) return;
    const files = this.h.sandboxState().files;
    const p = call.args.path.startsWith('/') ? call.args.path : '/' + call.args.path;
    const doomed = Object.keys(files).filter((f) => f === p || f.startsWith(p + '/'));
    if (doomed.length === 0) return;
    const turns = this.h.turns();
    const constant = atoms([turns.length ? turns[0].context : '', NOTES_PATH, NOTES_HEADER, ...this.phrases].join('\n'));
    const need = atoms(later.map((c) => JSON.stringify(c.args)).join('\n'));
    const kept = atoms(
      [
        call.tool === 'write' ? call.args.content : '',
        this.notes ?? '',
        ...Object.entries(files)
          .filter(([f]) => !doomed.includes(f))
          .map(([, t]) => t),
      ].join('\n'),
    );
    for (const f of doomed) {
      const lines = files[f].split('\n').filter((l) => [...atoms(l)].some((a) => need.has(a) && !constant.has(a) && !kept.has(a)));
      if (lines.length === 0) continue;
      const add = lines.join('\n') + '\n';
      const shownNow = atoms(this.shown());
      const hidden = [...atoms(add)].filter((a) => !shownNow.has(a));
      const reread = () => this.run({ tool: 'read', args: { path: f } }, true, 0);
      if (hidden.length) reread();
      this.writeNote(add, reread);
    }
  }

  /**
   * Add `add` (lines of the observation just shown) to the notes file. Where the harness's way
   * of adding copies the old notes (bb-assistant's whole-file write) and they are not shown,
   * read the notes first and show the source again (`reshow`), so the note action is honest too.
   */
  private writeNote(add: string, reshow: () => void): void {
    let texts = this.ops.note(this.notes, add);
    if (this.notes !== null && texts.some((t) => this.missing(t).size > 0)) {
      this.run({ tool: 'read', args: { path: NOTES_PATH } }, true, 0);
      reshow();
      texts = this.ops.note(this.notes, add);
    }
    for (const t of texts) this.sendRaw(t);
    this.notes = this.h.sandboxState().files[NOTES_PATH] ?? null;
  }

  /** Delete the notes file (before finish). */
  dropNotes(): void {
    if (this.notes === null) return;
    for (const t of this.ops.actions({ tool: 'delete', args: { path: NOTES_PATH } })) this.sendRaw(t);
    this.notes = null;
  }

  /** Facts of `action` (honesty.ts) its current context does not show (with `all`: every fact). */
  private missing(action: string, all = false): Set<string> {
    const turns = this.h.turns();
    const opening = turns.length ? turns[0].context : this.h.contextText();
    const constant = atoms([opening, NOTES_PATH, NOTES_HEADER, ...this.phrases].join('\n'));
    // Atoms learned so far, extended incrementally (turns only grow within an episode).
    const learned = this.learned;
    for (; this.learnedTurns < turns.length; this.learnedTurns++) {
      const t = turns[this.learnedTurns];
      for (const a of atoms(t.action)) learned.add(a);
      for (const a of atoms(t.observation)) learned.add(a);
    }
    const visible = atoms(this.shown(action));
    return new Set([...atoms(action)].filter((a) => learned.has(a) && !constant.has(a) && (all || !visible.has(a))));
  }

  /** Candidate sources of hidden facts: present files the episode read or wrote, and its earlier listings and searches. */
  private sources(): Array<{ call: ToolCall; text: string }> {
    const files = this.h.sandboxState().files;
    const out: Array<{ call: ToolCall; text: string }> = [];
    const seen = new Set<string>();
    const steps = this.h.transcript().steps;
    for (let i = steps.length - 1; i >= 0; i--) {
      const { call, result } = steps[i];
      if (!call || !result?.ok) continue;
      let src: { call: ToolCall; text: string } | null = null;
      const path = call.tool === 'move' ? call.args.to : call.args.path;
      if (call.tool === 'read' || call.tool === 'write' || call.tool === 'append' || call.tool === 'move') {
        const p = path.startsWith('/') ? path : '/' + path;
        if (files[p] !== undefined) src = { call: { tool: 'read', args: { path } }, text: files[p] };
      } else if (call.tool === 'list' || call.tool === 'search') src = { call, text: result.output };
      if (!src) continue;
      const key = JSON.stringify(src.call);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(src);
    }
    return out;
  }

  /**
   * Make `missing` visible: one covering source is re-run; several (or `forceNotes`: a second
   * round, after re-running one source hid another) go through the notes file, which then gets
   * every fact of the action (`facts`), so that showing one cannot hide another.
   */
  private reveal(missing: Set<string>, facts: Set<string>, allowNotes: boolean, depth: number, forceNotes: boolean): void {
    const srcs = this.sources().map((s) => ({ ...s, atoms: atoms(s.text) }));
    const covers = (s: (typeof srcs)[number], m: Set<string>) => [...m].filter((a) => s.atoms.has(a)).length;
    const one = srcs.find((s) => covers(s, missing) === missing.size);
    if (one && !(forceNotes && allowNotes)) {
      this.run(one.call, allowNotes, depth);
      return;
    }
    // Greedy cover by sources, most facts first (most recent on ties).
    const left = new Set(missing);
    const chosen: Array<{ src: (typeof srcs)[number]; facts: Set<string> }> = [];
    while (left.size) {
      let best = srcs[0];
      let n = 0;
      for (const s of srcs) {
        const c = covers(s, left);
        if (c > n) [best, n] = [s, c];
      }
      if (n === 0) break;
      const facts = new Set([...left].filter((a) => best.atoms.has(a)));
      for (const a of facts) left.delete(a);
      chosen.push({ src: best, facts });
    }
    if (!allowNotes || (chosen.length < 2 && !forceNotes)) {
      for (const c of chosen) this.run(c.src.call, allowNotes, depth);
      return;
    }
    // Notes: cover every fact of the action, not only the ones hidden now.
    const all = new Set([...facts].filter((a) => srcs.some((x) => x.atoms.has(a))));
    for (const c of chosen) for (const a of c.facts) all.delete(a);
    for (const a of all) {
      const src = chosen.find((c) => c.src.atoms.has(a)) ?? null;
      if (src) src.facts.add(a);
      else {
        const s2 = srcs.find((x) => x.atoms.has(a))!;
        chosen.push({ src: s2, facts: new Set([...all].filter((b) => s2.atoms.has(b))) });
      }
    }
    for (const c of chosen) {
      this.run(c.src.call, allowNotes, depth);
      const lines = c.src.text.split('\n').filter((l) => [...atoms(l)].some((a) => c.facts.has(a)));
      if (lines.length === 0) continue;
      this.writeNote(lines.join('\n') + '\n', () => this.run(c.src.call, allowNotes, depth));
    }
    this.run({ tool: 'read', args: { path: NOTES_PATH } }, allowNotes, depth);
  }

  private run(call: ToolCall, allowNotes: boolean, depth: number): void {
    for (const t of this.ops.actions(call)) this.send(t, allowNotes, depth + 1);
  }
}

/**
 * `h.step` for the scripted expert: a
 * parse error or a workflow rejection of a scripted action is a bug in a harness or a driver,
 * so it throws instead of becoming an observation.
 * @throws Error naming the kind, the harness and the action.
 */
function strictSender(h: Harness): (text: string) => StepResult {
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
function expertEpisodeResult(h: Harness, task: Task, suite: TaskSuite, error?: unknown): ExpertEpisode {
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
  if (error !== undefined) {
    out.error = error instanceof Error ? error.message : String(error);
    out.errorKind = error instanceof ContextBudgetError ? 'opening' : 'driver';
  }
  return out;
}

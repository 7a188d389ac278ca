/**
 * Black-box harness 'bb-coding-cli': a Claude-Code-like coding CLI, built as one module (not a
 * composition of S/T/O/C/W). Calls go through the policy's native channel — T0's JSON envelope
 * (envelope.ts) — with Claude Code's own tool and argument names; everything else is its own:
 * - tools (Claude Code's names and parameters, mapped onto the canonical sandbox):
 *   Read{file_path, offset?, limit?} (line-numbered `N→line`, an offset/limit window),
 *   Write{file_path, content}, Edit{file_path, old_string, new_string, replace_all?} (exact unique
 *   old_string, or replace_all), LS{path}, Glob{pattern, path?} (`*`, `**`, `?`),
 *   Grep{pattern, path?} (literal text → canonical search), Bash{command, description?}
 *   (ls, mkdir [-p], mv, rm [-r], pwd), TodoWrite{todos} (a `- [ ] step` checklist, or Claude
 *   Code's [{content, status}] array);
 * - end of episode: a message that is not a call (does not start with `{`) is the final reply
 *   and its text the answer; there is no finish tool, so T0's `finish` (like every canonical
 *   name: read, write, list…) is an unknown tool here ("No such tool available");
 * - workflow: Edit, and Write over an existing file, are refused unless the file was Read in
 *   this episode (or written by it) — a workflow violation;
 * - observations: raw tool output; errors wrapped in <tool_use_error>…</tool_use_error>, in
 *   Claude Code's words (unknown tool, InputValidationError for missing/unexpected parameters);
 * - context: full history until the rendered view passes `compactAtTokens`, then automatic
 *   compaction: all turns but the last are replaced by a summary (files read and modified,
 *   todos, one line per earlier step), after which history grows again until the next one.
 * Tool names and parameters: Claude Code's tool reference (docs.claude.com, "Tools available to
 * Claude": Read, Write, Edit, LS, Glob, Grep, Bash, TodoWrite).
 */
import { normalizePath } from '../../sandbox/sandbox';
import type { ToolCall, ToolResult } from '../../sandbox/types';
import type { Task } from '../../tasks/types';
import { BaseHarness, type ActOutcome, type BaseHarnessOptions } from '../base';
import { clip } from '../realizations/observation';
import { parseTodo, type TodoItem, type WorkflowOverhead } from '../realizations/workflow';
import { renderPrompt } from '../render';
import { briefCall } from '../tools';
import type { Message, WorkflowStatus } from '../types';
import {
  describeTools,
  formatCall,
  openingMessages,
  readMessage,
  type BlackboxCall,
  type BlackboxTool,
  type ChannelError,
} from './envelope';
import { operands, shellCommand, shellSplit } from './shell_words';

export const CODING_CLI_ID = 'bb-coding-cli';

/** Claude Code's tools as this harness offers them (names and parameters are case-sensitive). */
export const CODING_CLI_TOOLS: readonly BlackboxTool[] = [
  { name: 'Read', required: ['file_path'], optional: ['offset', 'limit'], types: { offset: 'number', limit: 'number' } },
  { name: 'Write', required: ['file_path', 'content'], optional: [] },
  { name: 'Edit', required: ['file_path', 'old_string', 'new_string'], optional: ['replace_all'], types: { replace_all: 'boolean' } },
  { name: 'LS', required: ['path'], optional: [] },
  { name: 'Glob', required: ['pattern'], optional: ['path'] },
  { name: 'Grep', required: ['pattern'], optional: ['path'] },
  { name: 'Bash', required: ['command'], optional: ['description'] },
  { name: 'TodoWrite', required: ['todos'], optional: [], types: { todos: 'todos' } },
];
const EXPECTED = 'expected one JSON object like {"tool":"Read","args":{"file_path":"/notes.txt"}}';
const READ_LIMIT = 40;
const MAX_OUTPUT = 1200;

/** A call in this harness's names (every value a string). */
type CliCall = BlackboxCall;

/** Format a call as the envelope (arguments in definition order). @throws Error on an unknown tool or argument. */
export function formatCliCall(call: CliCall): string {
  return formatCall(CODING_CLI_TOOLS, call);
}

/** Claude Code's wording of a failed call attempt (without the <tool_use_error> wrapper). */
function channelErrorText(e: ChannelError): string {
  const invalid = (tool: string, issue: string) => `InputValidationError: ${tool} failed due to the following issue:\n${issue}`;
  switch (e.kind) {
    case 'envelope':
      return `Invalid tool call: ${e.message}`;
    case 'unknown_tool':
      return `Error: No such tool available: ${e.tool}`;
    case 'missing':
      return invalid(e.tool, `The required parameter \`${e.arg}\` is missing`);
    case 'unexpected':
      return invalid(e.tool, `An unexpected parameter \`${e.arg}\` was provided`);
    case 'type':
      return invalid(e.tool, `The parameter \`${e.arg}\` type is expected as \`${e.expected === 'todos' ? 'array' : e.expected}\``);
  }
}

/** Glob → RegExp over absolute paths: `**` any depth, `*` within a component, `?` one char. */
function globToRegExp(pattern: string): RegExp {
  let p = pattern.trim();
  if (!p.startsWith('/')) p = '/' + p;
  let re = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '*' && p[i + 1] === '*') {
      re += p[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += p[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

function lineNumbered(content: string, offset: number, limit: number): string {
  const lines = content.split('\n');
  const start = Math.max(0, offset - 1);
  const shown = lines.slice(start, start + limit).map((l, i) => `${start + i + 1}→${l.length > 200 ? l.slice(0, 200) + '…' : l}`);
  const more = lines.length - (start + shown.length);
  return shown.join('\n') + (more > 0 ? `\n… ${more} more lines (Read with offset=${start + shown.length + 1})` : '');
}

function errorObs(message: string): string {
  return `<tool_use_error>${clip(message, 300).text}</tool_use_error>`;
}

interface CliTurn {
  action: Message;
  observation: Message;
  brief: string;
}

export interface CodingCliOptions extends BaseHarnessOptions {
  /** Compact when the rendered view passes this many tokens (default min(384, 0.8·maxContextTokens)). */
  compactAtTokens?: number;
}

/** The outcome builders `dispatch` hands to the tool methods that need them. */
interface DispatchHelpers {
  ok: (observation: string, calls: ToolCall[], results: ToolResult[], brief: string) => { o: ActOutcome; brief: string };
  fail: (message: string, calls: ToolCall[], results: ToolResult[], brief: string) => { o: ActOutcome; brief: string };
  reject: (message: string, call: ToolCall, brief: string) => { o: ActOutcome; brief: string };
  run: (call: ToolCall) => ToolResult;
  norm: (p: string) => string;
}

export class CodingCliHarness extends BaseHarness {
  readonly id = CODING_CLI_ID;
  /** Turns its workflow adds to the task's tool calls (turn_budget.ts): the TodoWrite list its prompt asks for and its checked-off copy. */
  static readonly workflowOverhead: WorkflowOverhead = { messages: 2, verifiesWrites: false };
  private prefix: Message[] = [];
  private summary: Message | null = null;
  private live: CliTurn[] = [];
  private allBriefs: string[] = [];
  private readSet = new Set<string>();
  private modified = new Set<string>();
  private todos: TodoItem[] = [];
  private readonly compactAt: number;
  /** Number of compactions so far (for tests and analysis). */
  compactions = 0;

  constructor(opts: CodingCliOptions = {}) {
    super(opts);
    this.compactAt = opts.compactAtTokens ?? Math.min(384, Math.floor(0.8 * this.budget.maxContextTokens));
  }

  static prompt(): string {
    return [
      'You are Coder, a CLI agent in a project rooted at /. One tool call per message.',
      describeTools(CODING_CLI_TOOLS),
      'Bash runs ls, mkdir -p, mv, rm -r, pwd. Read a file before you Edit or overwrite it. Track steps with TodoWrite ("- [ ] step" lines).',
      'When done, reply with the answer in plain text (no tool call).',
    ].join('\n');
  }

  protected startEpisode(task: Task): void {
    this.prefix = openingMessages(CodingCliHarness.prompt(), task);
    this.summary = null;
    this.live = [];
    this.allBriefs = [];
    this.readSet = new Set();
    this.modified = new Set();
    this.todos = [];
    this.compactions = 0;
  }

  view(): Message[] {
    const out = [...this.prefix];
    if (this.summary) out.push(this.summary);
    for (const t of this.live) out.push(t.action, t.observation);
    return out;
  }

  workflowStatus(): WorkflowStatus {
    return { needsPlan: false, needsTodo: false, openTodos: this.todos.filter((t) => !t.done).map((t) => t.text), unverified: [] };
  }

  /** Whether the episode has read (or written) `path` — the Edit/Write precondition. */
  hasRead(path: string): boolean {
    try {
      return this.readSet.has(normalizePath(path));
    } catch {
      return false;
    }
  }

  /** Current content of a file (for the expert driver), or undefined. */
  peekFile(path: string): string | undefined {
    try {
      return this.sandboxState().files[normalizePath(path)];
    } catch {
      return undefined;
    }
  }

  protected act(action: string): ActOutcome {
    const out = this.dispatch(action);
    this.live.push({
      action: { role: 'assistant', text: action, policy: true },
      observation: { role: 'tool', text: out.o.observation, policy: false },
      brief: out.brief,
    });
    this.allBriefs.push(out.brief);
    this.maybeCompact();
    return out.o;
  }

  /** Automatic compaction: when the view passes the threshold, fold all turns but the last into a summary. */
  private maybeCompact(): void {
    if (this.live.length < 2) return;
    if (this.tokenLength(renderPrompt(this.view())) <= this.compactAt) return;
    const keep = this.live.slice(-1);
    const folded = this.allBriefs.length - keep.length;
    const recent = this.allBriefs.slice(0, folded).slice(-8);
    const lines = [
      `[conversation compacted: ${folded} earlier steps]`,
      `Read: ${[...this.readSet].sort().join(', ') || 'none'}`,
      `Modified: ${[...this.modified].sort().join(', ') || 'none'}`,
    ];
    if (this.todos.length) lines.push(`Todos: ${this.todos.map((t) => `[${t.done ? 'x' : ' '}] ${t.text}`).join('; ')}`);
    lines.push('Recent steps:', ...recent.map((b) => `- ${b}`));
    this.summary = { role: 'user', text: lines.join('\n'), policy: false };
    this.live = keep;
    this.compactions++;
  }

  private dispatch(action: string): { o: ActOutcome; brief: string } {
    const m = readMessage(action, CODING_CLI_TOOLS, EXPECTED);
    if ('reply' in m) {
      // A message without a tool call ends the session; its text is the answer.
      const r = this.finishCall(m.reply);
      return {
        o: {
          kind: 'tool',
          observation: '',
          calls: [{ tool: 'finish', args: { answer: m.reply } }],
          results: [r],
          toolError: false,
          finished: { answer: m.reply },
        },
        brief: 'reply',
      };
    }
    if ('error' in m) {
      this.recordNotRun(null);
      return {
        o: { kind: 'parse_error', observation: errorObs(channelErrorText(m.error)), calls: [], results: [], toolError: false },
        brief: 'invalid call',
      };
    }
    const parsed = m.call;
    const a = parsed.args;
    const ok = (observation: string, calls: ToolCall[], results: ToolResult[], brief: string) => ({
      o: { kind: 'tool' as const, observation: clip(observation, MAX_OUTPUT).text, calls, results, toolError: false },
      brief,
    });
    const fail = (message: string, calls: ToolCall[], results: ToolResult[], brief: string) => ({
      o: { kind: 'tool' as const, observation: errorObs(message), calls, results, toolError: true },
      brief,
    });
    const reject = (message: string, call: ToolCall, brief: string) => {
      this.recordNotRun(call);
      return { o: { kind: 'rejected' as const, observation: errorObs(message), calls: [], results: [], toolError: false }, brief };
    };
    const run = (call: ToolCall) => this.exec(call);
    const norm = (p: string) => {
      try {
        return normalizePath(p);
      } catch {
        return p;
      }
    };
    switch (parsed.name) {
      case 'Read': {
        const call: ToolCall = { tool: 'read', args: { path: a.file_path } };
        const r = run(call);
        if (!r.ok) return fail(r.error?.message ?? 'read failed', [call], [r], `${briefCall(call)}: error`);
        this.readSet.add(norm(a.file_path));
        const offset = a.offset !== undefined && /^\d+$/.test(a.offset) ? Math.max(1, Number(a.offset)) : 1;
        const limit = a.limit !== undefined && /^\d+$/.test(a.limit) ? Math.max(1, Math.min(200, Number(a.limit))) : READ_LIMIT;
        const body = r.output === '' ? '(empty file)' : lineNumbered(r.output, offset, limit);
        return ok(body, [call], [r], `${briefCall(call)}: ok`);
      }
      case 'Write': {
        const call: ToolCall = { tool: 'write', args: { path: a.file_path, content: a.content } };
        const exists = this.peekFile(a.file_path) !== undefined;
        if (exists && !this.hasRead(a.file_path))
          return reject(
            'File has not been read yet. Read it first before writing to it.',
            call,
            `Write ${a.file_path}: refused (not read)`,
          );
        const r = run(call);
        if (!r.ok) return fail(r.error?.message ?? 'write failed', [call], [r], `${briefCall(call)}: error`);
        this.readSet.add(norm(a.file_path));
        this.modified.add(norm(a.file_path));
        return ok(`${exists ? 'Updated' : 'Created'} ${norm(a.file_path)}`, [call], [r], `${briefCall(call)}: ok`);
      }
      case 'Edit':
        return this.edit(a, { ok, fail, reject, run, norm });
      case 'LS': {
        const call: ToolCall = { tool: 'list', args: { path: a.path } };
        const r = run(call);
        if (!r.ok) return fail(r.error?.message ?? 'list failed', [call], [r], `${briefCall(call)}: error`);
        return ok(r.output, [call], [r], `LS ${briefCall(call)}: ok`);
      }
      case 'Glob': {
        let re: RegExp;
        try {
          // A relative pattern is matched under `path` (default the root), as Claude Code's Glob does.
          const base = a.path === undefined ? '/' : norm(a.path).replace(/\/?$/, '/');
          re = globToRegExp(a.pattern.trim().startsWith('/') ? a.pattern : base + a.pattern.trim());
        } catch {
          return fail(`bad pattern ${JSON.stringify(a.pattern).slice(0, 60)}`, [], [], 'Glob: error');
        }
        const hits = Object.keys(this.sandboxState().files)
          .filter((f) => re.test(f))
          .sort();
        return ok(hits.length ? hits.join('\n') : 'No files found', [], [], `Glob ${a.pattern.slice(0, 30)}: ${hits.length} files`);
      }
      case 'Grep': {
        const call: ToolCall = { tool: 'search', args: a.path === undefined ? { query: a.pattern } : { query: a.pattern, path: a.path } };
        const r = run(call);
        if (!r.ok) return fail(r.error?.message ?? 'search failed', [call], [r], `${briefCall(call)}: error`);
        return ok(r.output, [call], [r], `${briefCall(call)}: ok`);
      }
      case 'Bash':
        return this.bash(a.command, ok, fail);
      case 'TodoWrite': {
        const items = parseTodo(a.todos);
        if (items.length === 0) return fail("todos: write one '- [ ] task' per line", [], [], 'TodoWrite: error');
        this.todos = items;
        const open = items.filter((t) => !t.done).length;
        return ok(`Todos updated: ${open} open, ${items.length - open} done`, [], [], `TodoWrite: ${open} open`);
      }
      default:
        // Unreachable: readMessage only returns tools of CODING_CLI_TOOLS.
        return fail(`Error: No such tool available: ${parsed.name}`, [], [], 'unknown tool');
    }
  }

  /** Claude Code's Edit: read-before-edit, one exact match unless replace_all, then write back (both calls recorded). */
  private edit(a: Record<string, string>, h: DispatchHelpers): { o: ActOutcome; brief: string } {
    const { ok, fail, reject, run, norm } = h;
    const readCall: ToolCall = { tool: 'read', args: { path: a.file_path } };
    if (!this.hasRead(a.file_path))
      return reject('File has not been read yet. Read it first before editing it.', readCall, `Edit ${a.file_path}: refused (not read)`);
    if (a.old_string === '') return fail('old_string must not be empty', [], [], `Edit ${a.file_path}: error`);
    if (a.old_string === a.new_string) return fail('old_string and new_string are the same', [], [], `Edit ${a.file_path}: error`);
    const r = run(readCall);
    if (!r.ok) return fail(r.error?.message ?? 'read failed', [readCall], [r], `Edit ${a.file_path}: error`);
    if (r.truncated) return fail('file too large to edit', [readCall], [r], `Edit ${a.file_path}: error`);
    const n = r.output.split(a.old_string).length - 1;
    if (n === 0) return fail('String to replace not found in file.', [readCall], [r], `Edit ${a.file_path}: not found`);
    const all = a.replace_all === 'true';
    if (n > 1 && !all)
      return fail(
        `Found ${n} matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, add more context.`,
        [readCall],
        [r],
        `Edit ${a.file_path}: ambiguous`,
      );
    const next = all ? r.output.split(a.old_string).join(a.new_string) : r.output.replace(a.old_string, () => a.new_string);
    const writeCall: ToolCall = { tool: 'write', args: { path: a.file_path, content: next } };
    const w = run(writeCall);
    if (!w.ok) return fail(w.error?.message ?? 'write failed', [readCall, writeCall], [r, w], `Edit ${a.file_path}: error`);
    this.modified.add(norm(a.file_path));
    return ok(
      `Edited ${norm(a.file_path)} (${all ? n : 1} replacement${all && n > 1 ? 's' : ''})`,
      [readCall, writeCall],
      [r, w],
      `Edit ${norm(a.file_path)}: ok`,
    );
  }

  private bash(
    command: string,
    ok: (o: string, c: ToolCall[], r: ToolResult[], b: string) => { o: ActOutcome; brief: string },
    fail: (m: string, c: ToolCall[], r: ToolResult[], b: string) => { o: ActOutcome; brief: string },
  ): { o: ActOutcome; brief: string } {
    const words = shellSplit(command);
    if (!Array.isArray(words)) return fail(`bash: ${words.error}`, [], [], 'Bash: error');
    if (words.length === 0) return fail('bash: empty command', [], [], 'Bash: error');
    const [cmd, ...rest] = words;
    const ops = operands(rest);
    let call: ToolCall;
    switch (cmd) {
      case 'pwd':
        return ok('/', [], [], 'Bash pwd');
      case 'ls':
        if (ops.length > 1) return fail('ls: one directory at a time', [], [], 'Bash ls: error');
        call = { tool: 'list', args: ops.length ? { path: ops[0] } : {} };
        break;
      case 'mkdir':
        if (ops.length !== 1) return fail('usage: mkdir -p DIR', [], [], 'Bash mkdir: error');
        call = { tool: 'mkdir', args: { path: ops[0] } };
        break;
      case 'mv':
        if (ops.length !== 2) return fail('usage: mv FROM TO', [], [], 'Bash mv: error');
        call = { tool: 'move', args: { from: ops[0], to: ops[1] } };
        break;
      case 'rm':
        if (ops.length !== 1) return fail('usage: rm [-r] PATH', [], [], 'Bash rm: error');
        call = { tool: 'delete', args: { path: ops[0] } };
        break;
      default:
        return fail(`bash: ${cmd.slice(0, 30)}: command not found (available: ls, mkdir, mv, rm, pwd)`, [], [], 'Bash: not found');
    }
    const r = this.exec(call);
    const brief = `Bash ${briefCall(call)}: ${r.ok ? 'ok' : 'error'}`;
    if (!r.ok) return fail(r.error?.message ?? `${cmd} failed`, [call], [r], brief);
    if (call.tool === 'move') {
      // A read of a moved file carries over to its new path (the content is unchanged).
      const moved = r.output.match(/^moved (.*) to (.*)$/);
      try {
        const from = normalizePath(call.args.from);
        if (this.readSet.has(from) && moved && !moved[1].endsWith('/')) this.readSet.add(moved[2]);
      } catch {
        /* unreachable: the move succeeded, so its paths normalize */
      }
    }
    return ok(r.output, [call], [r], brief);
  }
}

/** Bash command text for a canonical list/mkdir/move/delete call. */
export function bashFor(call: ToolCall): string {
  const a = call.args;
  switch (call.tool) {
    case 'list':
      return shellCommand('ls', [], a.path === undefined ? [] : [a.path]);
    case 'mkdir':
      return shellCommand('mkdir', ['-p'], [a.path]);
    case 'move':
      return shellCommand('mv', [], [a.from, a.to]);
    case 'delete':
      return shellCommand('rm', ['-r'], [a.path]);
    default:
      throw new Error(`bashFor: no bash form for ${call.tool}`);
  }
}

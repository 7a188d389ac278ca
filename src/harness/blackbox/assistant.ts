/**
 * Black-box harness 'bb-assistant': an OpenClaw-like personal assistant, built as one module.
 * Its own prompt, syntax, observation format, context policy and workflow:
 * - prompt: bootstrap files (AGENTS.md, USER.md, TOOLS.md) and a skill note (skills/files.md),
 *   loaded into the system message the way assistant harnesses inject workspace files;
 * - syntax: one directive per message, first line `@tool …`:
 *     `@read PATH` · `@write PATH` + newline + the whole content · `@exec COMMAND` · `@reply ANSWER`;
 *   `exec` is a tiny shell (ls, cat, grep [-r], mkdir [-p], mv, rm [-r]) with POSIX quoting;
 *   `@reply` ends the session with the answer (rest of the message, may span lines);
 * - observations: `[tool] ok` / `[tool] error: …` header, then the output (capped);
 * - context: tool-result pruning (OpenClaw's soft trim / hard clear): results older than the
 *   last `keepResults` are trimmed to head + tail with a "[pruned N chars]" mark; results older
 *   than `clearAfter` turns are replaced by "[old tool result cleared]";
 * - workflow: free (no gate).
 */
import { normalizePath } from '../../sandbox/sandbox';
import type { ToolCall, ToolResult } from '../../sandbox/types';
import type { Task } from '../../tasks/types';
import { BaseHarness, type ActOutcome, type BaseHarnessOptions } from '../base';
import { clip } from '../realizations/observation';
import type { Message, WorkflowStatus } from '../types';
import type { WorkflowOverhead } from '../realizations/workflow';
import { operands, shellCommand, shellSplit } from './shell_words';

export const ASSISTANT_ID = 'bb-assistant';
const MAX_OUTPUT = 1000;
const SYNTAX = 'one directive per message: @read PATH | @write PATH (content on the next lines) | @exec COMMAND | @reply ANSWER';

export interface AssistantOptions extends BaseHarnessOptions {
  /** Most recent tool results shown in full (default 2). */
  keepResults?: number;
  /** Results older than this many turns are cleared (default 6). */
  clearAfter?: number;
}

export class AssistantHarness extends BaseHarness {
  readonly id = ASSISTANT_ID;
  /** Turns its workflow adds to the task's tool calls (turn_budget.ts): none (no plan, todo or verify rule). */
  static readonly workflowOverhead: WorkflowOverhead = { messages: 0, verifiesWrites: false };
  private prefix: Message[] = [];
  private turnsLog: { action: Message; observation: Message }[] = [];
  private readonly keepResults: number;
  private readonly clearAfter: number;

  constructor(opts: AssistantOptions = {}) {
    super(opts);
    this.keepResults = opts.keepResults ?? 2;
    this.clearAfter = opts.clearAfter ?? 6;
    if (!(this.keepResults >= 1) || !(this.clearAfter > this.keepResults)) {
      throw new Error(`assistant: need keepResults ≥ 1 and clearAfter > keepResults, got ${this.keepResults}, ${this.clearAfter}`);
    }
  }

  static prompt(): string {
    return [
      '# AGENTS.md',
      "You are Claw, the user's assistant. Their files (mail, calendar, notes, data) live under /.",
      '# USER.md',
      'Wants exact names, dates and numbers; short replies.',
      '# TOOLS.md',
      SYNTAX,
      'exec runs: ls, cat, grep -r TEXT DIR, mkdir -p, mv, rm -r',
      '# skills/files.md',
      'To add to a file, @read it, then @write the old text plus the new.',
    ].join('\n');
  }

  protected startEpisode(task: Task): void {
    this.prefix = [
      { role: 'system', text: AssistantHarness.prompt(), policy: false },
      { role: 'user', text: task.instruction, policy: false },
    ];
    this.turnsLog = [];
  }

  view(): Message[] {
    const out = [...this.prefix];
    const n = this.turnsLog.length;
    this.turnsLog.forEach((t, i) => {
      out.push(t.action);
      const age = n - i; // 1 = latest
      if (age <= this.keepResults) out.push(t.observation);
      else if (age > this.clearAfter) out.push({ role: 'tool', text: '[old tool result cleared]', policy: false });
      else {
        const s = t.observation.text;
        out.push({ role: 'tool', text: s.length <= 160 ? s : `${s.slice(0, 100)}\n…[pruned ${s.length - 140} chars]…\n${s.slice(-40)}`, policy: false });
      }
    });
    return out;
  }

  workflowStatus(): WorkflowStatus {
    return { needsPlan: false, needsTodo: false, openTodos: [], unverified: [] };
  }

  protected act(action: string): ActOutcome {
    const o = this.dispatch(action);
    this.turnsLog.push({ action: { role: 'assistant', text: action, policy: true }, observation: { role: 'tool', text: o.observation, policy: false } });
    return o;
  }

  private dispatch(action: string): ActOutcome {
    const text = action.replace(/^\s+/, '');
    const m = /^@([a-z]+)(?:[ \t]+([^\n]*))?(?:\n([\s\S]*))?$/.exec(text);
    const obs = (tool: string, r: ToolResult) => (r.ok ? `[${tool}] ok\n${clip(r.output, MAX_OUTPUT).text}` : `[${tool}] error: ${clip(r.error?.message ?? 'failed', 300).text}`);
    const parseError = (msg: string): ActOutcome => {
      this.recordNotRun(null);
      return { kind: 'parse_error', observation: `[error] ${msg}; ${SYNTAX}`, calls: [], results: [], toolError: false };
    };
    if (!m) return parseError('not a directive');
    const [, tool, argLine = '', body] = m;
    const runOne = (call: ToolCall, label: string): ActOutcome => {
      const r = this.exec(call);
      return { kind: 'tool', observation: obs(label, r), calls: [call], results: [r], toolError: !r.ok };
    };
    switch (tool) {
      case 'read': {
        if (body !== undefined && body.trim() !== '') return parseError('@read takes one path on one line');
        if (argLine.trim() === '') return parseError('@read needs a path');
        return runOne({ tool: 'read', args: { path: argLine.trim() } }, 'read');
      }
      case 'write': {
        if (argLine.trim() === '') return parseError('@write needs a path');
        if (body === undefined) return parseError('@write: put the content on the lines after the path');
        return runOne({ tool: 'write', args: { path: argLine.trim(), content: body } }, 'write');
      }
      case 'reply': {
        const answer = body === undefined ? argLine : `${argLine}\n${body}`;
        const r = this.finishCall(answer);
        return { kind: 'tool', observation: '[reply] sent', calls: [{ tool: 'finish', args: { answer } }], results: [r], toolError: false, finished: { answer } };
      }
      case 'exec':
        return this.exec_(body === undefined ? argLine : `${argLine}\n${body}`, runOne);
      default:
        return parseError(`unknown directive @${tool.slice(0, 20)}`);
    }
  }

  private exec_(command: string, runOne: (call: ToolCall, label: string) => ActOutcome): ActOutcome {
    const fail = (message: string): ActOutcome => ({ kind: 'tool', observation: `[exec] error: ${message}`, calls: [], results: [], toolError: true });
    const words = shellSplit(command);
    if (!Array.isArray(words)) return fail(words.error);
    if (words.length === 0) return fail('empty command');
    const [cmd, ...rest] = words;
    const ops = operands(rest);
    switch (cmd) {
      case 'ls':
        if (ops.length > 1) return fail('ls: one directory at a time');
        return runOne({ tool: 'list', args: ops.length ? { path: ops[0] } : {} }, 'exec');
      case 'cat':
        if (ops.length !== 1) return fail('usage: cat FILE');
        return runOne({ tool: 'read', args: { path: ops[0] } }, 'exec');
      case 'grep':
        if (ops.length < 1 || ops.length > 2) return fail('usage: grep -r TEXT [DIR]');
        return runOne({ tool: 'search', args: ops.length === 2 ? { query: ops[0], path: ops[1] } : { query: ops[0] } }, 'exec');
      case 'mkdir':
        if (ops.length !== 1) return fail('usage: mkdir -p DIR');
        return runOne({ tool: 'mkdir', args: { path: ops[0] } }, 'exec');
      case 'mv':
        if (ops.length !== 2) return fail('usage: mv FROM TO');
        return runOne({ tool: 'move', args: { from: ops[0], to: ops[1] } }, 'exec');
      case 'rm':
        if (ops.length !== 1) return fail('usage: rm -r PATH');
        return runOne({ tool: 'delete', args: { path: ops[0] } }, 'exec');
      default:
        return fail(`${cmd.slice(0, 30)}: command not found (ls, cat, grep, mkdir, mv, rm)`);
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
}

/** The directive text for a canonical call (append is handled by the expert as read + write). */
export function assistantDirective(call: ToolCall): string {
  const a = call.args;
  switch (call.tool) {
    case 'read':
      return `@read ${a.path}`;
    case 'write':
      return `@write ${a.path}\n${a.content}`;
    case 'list':
      return '@exec ' + shellCommand('ls', [], a.path === undefined ? [] : [a.path]);
    case 'search':
      return '@exec ' + shellCommand('grep', ['-r'], a.path === undefined ? [a.query] : [a.query, a.path]);
    case 'mkdir':
      return '@exec ' + shellCommand('mkdir', ['-p'], [a.path]);
    case 'move':
      return '@exec ' + shellCommand('mv', [], [a.from, a.to]);
    case 'delete':
      return '@exec ' + shellCommand('rm', ['-r'], [a.path]);
    case 'finish':
      return a.answer === undefined ? '@reply' : `@reply ${a.answer}`;
    default:
      throw new Error(`assistantDirective: no direct form for ${call.tool} (use read + write)`);
  }
}

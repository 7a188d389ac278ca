/**
 * Black-box harness 'bb-assistant': an OpenClaw-like personal assistant, built as one module.
 * Calls go through the policy's native channel — T0's JSON envelope (envelope.ts) — with
 * OpenClaw's own tool and argument names; everything else is its own:
 * - prompt: bootstrap files (AGENTS.md, USER.md, TOOLS.md) and a skill note (skills/files.md),
 *   loaded into the system message the way assistant harnesses inject workspace files;
 * - tools (OpenClaw's coding tools, from pi-coding-agent, and its exec): read{path, offset?,
 *   limit?}, write{path, content} (whole file), edit{path, oldText, newText} (exact unique text),
 *   exec{command, workdir?} — a tiny shell (ls, cat, grep [-r], mkdir [-p], mv, rm [-r]) with
 *   POSIX quoting;
 * - end of episode: a message that is not a call (does not start with `{`) is the reply to the
 *   user and ends the session with its text as the answer. OpenClaw's read/write share T0's
 *   names and argument names (path, content), so those T0 calls do run here; T0's other tools
 *   (list, append, move, delete, search, mkdir, finish) are unknown ("Tool … not found");
 * - observations: `[tool] ok` / `[tool] error: …` header, then the output (capped);
 * - context: tool-result pruning (OpenClaw's soft trim / hard clear): results older than the
 *   last `keepResults` are trimmed to head + tail with a "[pruned N chars]" mark; results older
 *   than `clearAfter` turns are replaced by "[old tool result cleared]";
 * - workflow: free (no gate).
 * Tool names and parameters: docs.openclaw.ai (tools; gateway/background-process for exec) and
 * pi-coding-agent's tool schemas (read/write/edit: path, offset, limit, content, oldText, newText).
 */
import { normalizePath } from '../../sandbox/sandbox';
import type { ToolCall, ToolResult } from '../../sandbox/types';
import type { Task } from '../../tasks/types';
import { BaseHarness, type ActOutcome, type BaseHarnessOptions } from '../base';
import { clip } from '../realizations/observation';
import type { Message, WorkflowStatus } from '../types';
import type { WorkflowOverhead } from '../realizations/workflow';
import { describeTools, formatCall, openingMessages, readMessage, type BlackboxTool, type ChannelError } from './envelope';
import { operands, shellCommand, shellSplit } from './shell_words';

export const ASSISTANT_ID = 'bb-assistant';
const MAX_OUTPUT = 1000;

/** OpenClaw's tools as this harness offers them. */
export const ASSISTANT_TOOLS: readonly BlackboxTool[] = [
  { name: 'read', required: ['path'], optional: ['offset', 'limit'], types: { offset: 'number', limit: 'number' } },
  { name: 'write', required: ['path', 'content'], optional: [] },
  { name: 'edit', required: ['path', 'oldText', 'newText'], optional: [] },
  { name: 'exec', required: ['command'], optional: ['workdir'] },
];
const EXPECTED = 'expected one JSON object like {"tool":"read","args":{"path":"/notes.md"}}';

/** OpenClaw's (pi-agent-core's) wording of a failed call attempt. */
function channelErrorText(e: ChannelError): string {
  switch (e.kind) {
    case 'envelope':
      return `invalid tool call: ${e.message}`;
    case 'unknown_tool':
      return `Tool ${e.tool} not found`;
    case 'missing':
      return `Validation failed for tool "${e.tool}": must have required property '${e.arg}'`;
    case 'unexpected':
      return `Validation failed for tool "${e.tool}": must NOT have additional property '${e.arg}'`;
    case 'type':
      return `Validation failed for tool "${e.tool}": ${e.arg} must be ${e.expected === 'todos' ? 'array' : e.expected}`;
  }
}

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
      "You are Claw, the user's assistant. Their files live under /.",
      '# USER.md',
      'Wants exact names, dates and numbers; short replies.',
      '# TOOLS.md',
      describeTools(ASSISTANT_TOOLS),
      'exec runs: ls, cat, grep -r TEXT DIR, mkdir -p, mv, rm -r',
      'When done, reply in plain text (no tool call).',
      '# skills/files.md',
      'To add to a file, read it, then edit its end.',
    ].join('\n');
  }

  protected startEpisode(task: Task): void {
    this.prefix = openingMessages(AssistantHarness.prompt(), task);
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
        out.push({
          role: 'tool',
          text: s.length <= 160 ? s : `${s.slice(0, 100)}\n…[pruned ${s.length - 140} chars]…\n${s.slice(-40)}`,
          policy: false,
        });
      }
    });
    return out;
  }

  workflowStatus(): WorkflowStatus {
    return { needsPlan: false, needsTodo: false, openTodos: [], unverified: [] };
  }

  protected act(action: string): ActOutcome {
    const o = this.dispatch(action);
    this.turnsLog.push({
      action: { role: 'assistant', text: action, policy: true },
      observation: { role: 'tool', text: o.observation, policy: false },
    });
    return o;
  }

  private dispatch(action: string): ActOutcome {
    const m = readMessage(action, ASSISTANT_TOOLS, EXPECTED);
    if ('reply' in m) {
      // A message without a tool call is the reply to the user: the session ends with it.
      const r = this.finishCall(m.reply);
      return {
        kind: 'tool',
        observation: '',
        calls: [{ tool: 'finish', args: { answer: m.reply } }],
        results: [r],
        toolError: false,
        finished: { answer: m.reply },
      };
    }
    if ('error' in m) {
      this.recordNotRun(null);
      return {
        kind: 'parse_error',
        observation: `[error] ${clip(channelErrorText(m.error), 300).text}`,
        calls: [],
        results: [],
        toolError: false,
      };
    }
    const { name, args: a } = m.call;
    const obs = (tool: string, r: ToolResult, out = r.output) =>
      r.ok ? `[${tool}] ok\n${clip(out, MAX_OUTPUT).text}` : `[${tool}] error: ${clip(r.error?.message ?? 'failed', 300).text}`;
    const fail = (tool: string, message: string, calls: ToolCall[], results: ToolResult[]): ActOutcome => ({
      kind: 'tool',
      observation: `[${tool}] error: ${clip(message, 300).text}`,
      calls,
      results,
      toolError: true,
    });
    switch (name) {
      case 'read': {
        const call: ToolCall = { tool: 'read', args: { path: a.path } };
        const r = this.exec(call);
        if (!r.ok || (a.offset === undefined && a.limit === undefined))
          return { kind: 'tool', observation: obs('read', r), calls: [call], results: [r], toolError: !r.ok };
        return {
          kind: 'tool',
          observation: obs('read', r, window(r.output, a.offset, a.limit)),
          calls: [call],
          results: [r],
          toolError: false,
        };
      }
      case 'write': {
        const call: ToolCall = { tool: 'write', args: { path: a.path, content: a.content } };
        const r = this.exec(call);
        return { kind: 'tool', observation: obs('write', r), calls: [call], results: [r], toolError: !r.ok };
      }
      case 'edit': {
        const readCall: ToolCall = { tool: 'read', args: { path: a.path } };
        const r = this.exec(readCall);
        if (!r.ok) return fail('edit', clip(r.error?.message ?? 'read failed', 300).text, [readCall], [r]);
        if (r.truncated) return fail('edit', 'file too large to edit', [readCall], [r]);
        const n = a.oldText === '' ? 0 : r.output.split(a.oldText).length - 1;
        if (n === 0)
          return fail(
            'edit',
            `Could not find the exact text in ${a.path}. The old text must match exactly including all whitespace and newlines.`,
            [readCall],
            [r],
          );
        if (n > 1)
          return fail(
            'edit',
            `Found ${n} occurrences of the text in ${a.path}. The text must be unique. Please provide more context to make it unique.`,
            [readCall],
            [r],
          );
        const writeCall: ToolCall = { tool: 'write', args: { path: a.path, content: r.output.replace(a.oldText, () => a.newText) } };
        const w = this.exec(writeCall);
        if (!w.ok) return fail('edit', clip(w.error?.message ?? 'write failed', 300).text, [readCall, writeCall], [r, w]);
        return {
          kind: 'tool',
          observation: `[edit] ok\nSuccessfully replaced text in ${a.path}.`,
          calls: [readCall, writeCall],
          results: [r, w],
          toolError: false,
        };
      }
      case 'exec': {
        const runOne = (call: ToolCall): ActOutcome => {
          const r = this.exec(call);
          return { kind: 'tool', observation: obs('exec', r), calls: [call], results: [r], toolError: !r.ok };
        };
        return this.exec_(a.command, a.workdir, runOne);
      }
      default:
        // Unreachable: readMessage only returns tools of ASSISTANT_TOOLS.
        return fail(name, `Tool ${name} not found`, [], []);
    }
  }

  /** exec's shell: one command; relative operands resolve against `workdir` (default /). */
  private exec_(command: string, workdir: string | undefined, runOne: (call: ToolCall) => ActOutcome): ActOutcome {
    const fail = (message: string): ActOutcome => ({
      kind: 'tool',
      observation: `[exec] error: ${clip(message, 300).text}`,
      calls: [],
      results: [],
      toolError: true,
    });
    const words = shellSplit(command);
    if (!Array.isArray(words)) return fail(words.error);
    if (words.length === 0) return fail('empty command');
    const [cmd, ...rest] = words;
    const base = workdir === undefined || workdir.trim() === '' ? '' : workdir.replace(/\/?$/, '/');
    const at = (p: string) => (base === '' || p.startsWith('/') ? p : base + p);
    // grep's first operand is the text, not a path.
    const ops = operands(rest).map((p, i) => (cmd === 'grep' && i === 0 ? p : at(p)));
    switch (cmd) {
      case 'ls':
        if (ops.length > 1) return fail('ls: one directory at a time');
        return runOne({ tool: 'list', args: ops.length ? { path: ops[0] } : {} });
      case 'cat':
        if (ops.length !== 1) return fail('usage: cat FILE');
        return runOne({ tool: 'read', args: { path: ops[0] } });
      case 'grep':
        if (ops.length < 1 || ops.length > 2) return fail('usage: grep -r TEXT [DIR]');
        return runOne({ tool: 'search', args: ops.length === 2 ? { query: ops[0], path: ops[1] } : { query: ops[0] } });
      case 'mkdir':
        if (ops.length !== 1) return fail('usage: mkdir -p DIR');
        return runOne({ tool: 'mkdir', args: { path: ops[0] } });
      case 'mv':
        if (ops.length !== 2) return fail('usage: mv FROM TO');
        return runOne({ tool: 'move', args: { from: ops[0], to: ops[1] } });
      case 'rm':
        if (ops.length !== 1) return fail('usage: rm -r PATH');
        return runOne({ tool: 'delete', args: { path: ops[0] } });
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

/**
 * Lines `offset`… (1-based; default 1) of `text`, at most `limit` of them (default all), with
 * pi-coding-agent's continuation note when lines are left.
 */
function window(text: string, offset: string | undefined, limit: string | undefined): string {
  const lines = text.split('\n');
  const start = offset !== undefined && /^\d+$/.test(offset) ? Math.max(1, Number(offset)) : 1;
  const n = limit !== undefined && /^\d+$/.test(limit) ? Math.max(1, Number(limit)) : lines.length;
  const shown = lines.slice(start - 1, start - 1 + n);
  const end = start - 1 + shown.length;
  return end < lines.length
    ? `${shown.join('\n')}\n[Showing lines ${start}-${end} of ${lines.length}. Use offset=${end + 1} to continue]`
    : shown.join('\n');
}

/**
 * The call text (the envelope in OpenClaw's names) for a canonical call that maps onto one of
 * its tools: read and write directly, list/search/mkdir/move/delete through exec.
 * @throws Error for append (the expert does read + write) and finish (a reply, not a call: `replyText`)
 */
export function assistantCallText(call: ToolCall): string {
  const a = call.args;
  const fmt = (name: string, args: Record<string, string>) => formatCall(ASSISTANT_TOOLS, { name, args });
  const exec = (command: string) => fmt('exec', { command });
  switch (call.tool) {
    case 'read':
      return fmt('read', { path: a.path });
    case 'write':
      return fmt('write', { path: a.path, content: a.content });
    case 'list':
      return exec(shellCommand('ls', [], a.path === undefined ? [] : [a.path]));
    case 'search':
      return exec(shellCommand('grep', ['-r'], a.path === undefined ? [a.query] : [a.query, a.path]));
    case 'mkdir':
      return exec(shellCommand('mkdir', ['-p'], [a.path]));
    case 'move':
      return exec(shellCommand('mv', [], [a.from, a.to]));
    case 'delete':
      return exec(shellCommand('rm', ['-r'], [a.path]));
    default:
      throw new Error(`assistantCallText: no call form for ${call.tool} (append: read + write; finish: a reply)`);
  }
}

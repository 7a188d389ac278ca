/**
 * The black-box harnesses' call channel: the policy's native one. Real black-box harnesses
 * (Claude Code, OpenClaw) do not invent a call syntax; they declare their tools to the model
 * and receive calls through the model's own tool-call channel. Our policy's native channel is
 * the base harness's envelope, T0: `{"tool":NAME,"args":{ARG:"value"}}` — so a black-box call
 * is that envelope, byte for byte in form (the same `readEnvelope` / `writeEnvelope` /
 * `describeEnvelope` as T0, src/harness/realizations/tool_interface.ts), carrying the
 * harness's own tool and argument names. Everything else stays each harness's own.
 *
 * A message is a call attempt when it starts with `{` (after whitespace), as under T0; any
 * other message is the model's final reply, which ends the episode with that text as the
 * answer — the way both real harnesses end a turn (a reply without a tool call), and why
 * neither has a finish tool.
 *
 * Values are JSON strings, as under T0; where the real tool's schema types a parameter
 * (a number, a boolean, Claude Code's todo array) that JSON type is accepted too and read into
 * the same string form (`ParamType`).
 */
import { describeEnvelope, readEnvelope, writeEnvelope } from '../realizations/tool_interface';
import type { Task } from '../../tasks/types';
import type { Message } from '../types';

/** How a parameter's value may be written besides a JSON string (the real tool's schema type). */
type ParamType = 'number' | 'boolean' | 'todos';

/** One tool of a black-box harness: its own name and argument names. */
export interface BlackboxTool {
  name: string;
  required: readonly string[];
  optional: readonly string[];
  /** Parameters whose schema type is not a string (also accepted as a JSON string). */
  types?: Readonly<Record<string, ParamType>>;
}

/** A parsed call: the tool name and its arguments, every value read into a string. */
export interface BlackboxCall {
  name: string;
  args: Record<string, string>;
}

/** Why a call attempt failed, for each harness to word in its own error format. */
export type ChannelError =
  | { kind: 'envelope'; message: string }
  | { kind: 'unknown_tool'; tool: string }
  | { kind: 'missing'; tool: string; arg: string }
  | { kind: 'unexpected'; tool: string; arg: string }
  | { kind: 'type'; tool: string; arg: string; expected: 'string' | ParamType };

/** What one message is: a well-formed call, a failed call attempt, or the final reply. */
type ChannelMessage = { call: BlackboxCall } | { error: ChannelError } | { reply: string };

/** Whether `text` is a call attempt (starts with `{` after whitespace) rather than a reply. */
export function isCallAttempt(text: string): boolean {
  return text.trimStart().startsWith('{');
}

/** `todos` as Claude Code's schema writes it ([{content, status}]) → the `- [ ] text` checklist; null when malformed. */
function todoList(v: unknown): string | null {
  if (!Array.isArray(v) || v.length === 0) return null;
  const lines: string[] = [];
  for (const item of v) {
    if (typeof item !== 'object' || item === null) return null;
    const { content, status } = item as Record<string, unknown>;
    if (typeof content !== 'string' || !['pending', 'in_progress', 'completed'].includes(status as string)) return null;
    lines.push(`- [${status === 'completed' ? 'x' : ' '}] ${content}`);
  }
  return lines.join('\n');
}

/** A value of `type` read into its string form, or null when it is not of that type. */
function valueText(v: unknown, type: ParamType | undefined): string | null {
  if (typeof v === 'string') return v;
  if (type === 'number' && typeof v === 'number' && Number.isInteger(v) && v >= 0) return String(v);
  if (type === 'boolean' && typeof v === 'boolean') return String(v);
  if (type === 'todos') return todoList(v);
  return null;
}

/**
 * Read one message through the channel.
 * @param tools the harness's tools (names are case-sensitive, as in both real harnesses)
 * @param expected one line shown after an envelope error (an example call in this harness's names)
 * @returns the call (arguments in definition order), a structured error, or the reply (trimmed); never throws
 */
export function readMessage(text: string, tools: readonly BlackboxTool[], expected: string): ChannelMessage {
  if (!isCallAttempt(text)) return { reply: text.trim() };
  const env = readEnvelope(text, expected);
  if ('error' in env) return { error: { kind: 'envelope', message: env.error } };
  const def = tools.find((t) => t.name === env.tool);
  if (!def) return { error: { kind: 'unknown_tool', tool: env.tool.slice(0, 40) } };
  const known = [...def.required, ...def.optional];
  for (const k of Object.keys(env.args))
    if (!known.includes(k)) return { error: { kind: 'unexpected', tool: def.name, arg: k.slice(0, 40) } };
  for (const k of def.required) if (!Object.hasOwn(env.args, k)) return { error: { kind: 'missing', tool: def.name, arg: k } };
  const args: Record<string, string> = {};
  for (const k of known) {
    if (!Object.hasOwn(env.args, k)) continue;
    const type = def.types?.[k];
    const v = valueText(env.args[k], type);
    if (v === null) return { error: { kind: 'type', tool: def.name, arg: k, expected: type ?? 'string' } };
    args[k] = v;
  }
  return { call: { name: def.name, args } };
}

/**
 * The envelope text of a call (string values, arguments in definition order): what a policy
 * fluent in T0 writes with this harness's names.
 * @throws Error on an unknown tool, an unknown argument or a missing required one
 */
export function formatCall(tools: readonly BlackboxTool[], call: BlackboxCall): string {
  const def = tools.find((t) => t.name === call.name);
  if (!def) throw new Error(`formatCall: unknown tool '${call.name}'`);
  const known = [...def.required, ...def.optional];
  for (const k of Object.keys(call.args)) if (!known.includes(k)) throw new Error(`formatCall: ${call.name} has no argument '${k}'`);
  for (const k of def.required) if (!Object.hasOwn(call.args, k)) throw new Error(`formatCall: ${call.name} needs '${k}'`);
  const args: Record<string, string> = {};
  for (const k of known) if (Object.hasOwn(call.args, k)) args[k] = call.args[k];
  return writeEnvelope(call.name, args);
}

/** The tool docs of the channel, in T0's form: `Tools: Name{arg,opt?} …` and the call line. */
export function describeTools(tools: readonly BlackboxTool[]): string {
  return describeEnvelope(tools);
}

/**
 * The final-reply text for `answer` (the message that ends an episode).
 * @throws Error when the answer would be read as a call attempt (it starts with `{`)
 */
export function replyText(answer: string): string {
  if (isCallAttempt(answer))
    throw new Error(`replyText: an answer starting with '{' reads as a call attempt: ${JSON.stringify(answer.slice(0, 40))}`);
  return answer;
}

/** The fixed head of a black-box episode's context: the product's system prompt, then the task. */
export function openingMessages(prompt: string, task: Pick<Task, 'instruction'>): Message[] {
  return [
    { role: 'system', text: prompt, policy: false },
    { role: 'user', text: task.instruction, policy: false },
  ];
}

/**
 * T — the tool interface (docs/ARCHITECTURE.md "Harness runtime"): how the policy writes a call and how the tools are
 * documented. Three realizations over the one canonical tool set:
 * - T0 `json`:   {"tool":"read","args":{"path":"a.txt"}}
 * - T1 `shell`:  cat a.txt — renamed tools, positional args, double quotes with \" \\ \n \t \r
 * - T2 `tagged`: <call tool="read"><file>a.txt</file></call> — renamed args, XML escapes
 *
 * Invariant (property-tested): `parse(format(call))` deep-equals `call` for every canonical call
 * (valid tool, its required args, any subset of its optional args, arbitrary string values).
 * `parse` never throws: any other text yields a `ParseError` whose message shows the expected
 * format, which the runtime turns into an observation (the tool is not run).
 */
import type { ToolCall, ToolName } from '../../sandbox/types';
import { TOOL_SPECS, checkArgs, toolSpec, type ToolSpec } from '../tools';

/** A failed parse: `error` names what was wrong and shows the expected format. */
export interface ParseError {
  error: string;
}

export function isParseError(x: ToolCall | ParseError): x is ParseError {
  return (x as ParseError).error !== undefined;
}

export interface ToolInterface {
  id: string;
  name: string;
  /** Compact docs of `tools` in this syntax (goes into S's prompt). */
  describe(tools?: readonly ToolSpec[]): string;
  /** Text → canonical call, or a ParseError (never throws). */
  parse(text: string): ToolCall | ParseError;
  /** Canonical call → text in this syntax. @throws Error on a non-canonical call (unknown tool/arg). */
  format(call: ToolCall): string;
  /** One line: the expected format with an example (used in parse-error observations). */
  readonly expected: string;
  /** The name this syntax gives a canonical tool (e.g. T1: finish → 'done'). */
  toolName(tool: ToolName): string;
}

function assertCanonical(call: ToolCall): void {
  const bad = checkArgs(call);
  if (bad) throw new Error(`format: non-canonical call: ${bad}`);
}

function argList(spec: ToolSpec, names: Record<string, string> = {}): string {
  return [...spec.required.map((a) => names[a] ?? a), ...spec.optional.map((a) => (names[a] ?? a) + '?')].join(',');
}

// ---------------------------------------------------------------------------------------------
// T0: JSON objects. The envelope (`{"tool":NAME,"args":{…}}`) is also the black-box harnesses'
// call channel (src/harness/blackbox/envelope.ts): they reuse these three functions with their
// own tool names, so the two cannot drift apart.

const T0_EXPECTED = 'expected one JSON object like {"tool":"read","args":{"path":"notes.txt"}}';

/** A call read off the envelope: the tool name and its raw (unchecked) argument object. */
interface Envelope {
  tool: string;
  args: Record<string, unknown>;
}

/**
 * Parse `text` (trimmed) as one JSON object: the first step of every JSON call syntax (T0's
 * envelope, the black-box envelope, the procedural json syntax).
 * @param expected one line shown after every error (the caller's example call)
 * @returns the object (wrapped, so that a parsed "error" key is never taken for a ParseError), or a ParseError (never throws)
 */
export function readJsonObject(text: string, expected: string): { object: Record<string, unknown> } | ParseError {
  const t = text.trim();
  if (!t.startsWith('{')) return { error: `not a JSON object; ${expected}` };
  let v: unknown;
  try {
    v = JSON.parse(t);
  } catch (e) {
    return { error: `invalid JSON (${(e as Error).message.slice(0, 80)}); ${expected}` };
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return { error: `not a JSON object; ${expected}` };
  return { object: v as Record<string, unknown> };
}

/**
 * Parse the JSON call envelope `{"tool":NAME,"args":{…}}` ("args" may be omitted; no other key).
 * Checks the shape only, not the tool or its arguments.
 * @param expected one line shown after every error (the caller's example call)
 * @returns the envelope, or a ParseError naming what was wrong (never throws)
 */
export function readEnvelope(text: string, expected: string): Envelope | ParseError {
  const read = readJsonObject(text, expected);
  if ('error' in read) return read;
  const o = read.object;
  for (const k of Object.keys(o)) if (k !== 'tool' && k !== 'args') return { error: `unexpected key '${k.slice(0, 40)}'; ${expected}` };
  if (typeof o.tool !== 'string') return { error: `"tool" must be a string; ${expected}` };
  const args = o.args === undefined ? {} : o.args;
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return { error: `"args" must be an object; ${expected}` };
  return { tool: o.tool, args: args as Record<string, unknown> };
}

/** The envelope text of a call: `{"tool":NAME,"args":{…}}`, keys in `args`' insertion order, no spaces. */
export function writeEnvelope(tool: string, args: Readonly<Record<string, unknown>>): string {
  return JSON.stringify({ tool, args });
}

/**
 * The envelope's tool docs: `Tools: name{req,opt?} …` and the call form line.
 * @param tools name plus argument names (required first, then optional) per tool
 */
export function describeEnvelope(tools: readonly { name: string; required: readonly string[]; optional: readonly string[] }[]): string {
  return `Tools: ${tools.map((s) => `${s.name}{${[...s.required, ...s.optional.map((a) => a + '?')].join(',')}}`).join(' ')}\nCall: {"tool":NAME,"args":{ARG:"value"}}`;
}

const T0: ToolInterface = {
  id: 'T0',
  name: 'json',
  expected: T0_EXPECTED,
  toolName: (tool) => tool,
  describe(tools = TOOL_SPECS) {
    return describeEnvelope(tools);
  },
  format(call) {
    assertCanonical(call);
    return writeEnvelope(call.tool, call.args);
  },
  parse(text) {
    const env = readEnvelope(text, T0_EXPECTED);
    return 'error' in env ? env : buildCall(env.tool, env.args, T0_EXPECTED);
  },
};

/** Validate tool + args and copy into a fresh object (unknown keys such as __proto__ are rejected first). */
function buildCall(tool: string, args: Record<string, unknown>, expected: string): ToolCall | ParseError {
  const spec = toolSpec(tool);
  if (!spec) return { error: `unknown tool '${tool.slice(0, 40)}' (tools: ${TOOL_SPECS.map((s) => s.name).join(', ')}); ${expected}` };
  const bad = checkArgs({ tool, args });
  if (bad) return { error: `${bad.slice(0, 120)} (args: ${argList(spec)}); ${expected}` };
  const out: Record<string, string> = {};
  for (const k of [...spec.required, ...spec.optional]) if (Object.hasOwn(args, k)) out[k] = args[k] as string;
  return { tool: spec.name, args: out };
}

// ---------------------------------------------------------------------------------------------
// T1: shell-like commands with renamed tools.

const T1_NAMES: Record<string, string> = {
  list: 'ls',
  read: 'cat',
  write: 'put',
  append: 'add',
  move: 'mv',
  delete: 'rm',
  search: 'grep',
  mkdir: 'mkdir',
  finish: 'done',
};
const T1_TOOLS = new Map(Object.entries(T1_NAMES).map(([canon, cmd]) => [cmd, canon]));
const T1_EXPECTED = 'expected one command like: cat notes.txt (quote args with spaces: put "my file.txt" "line 1\\nline 2")';
/** Words that need no quotes. Anything else (incl. '') is double-quoted. */
const T1_BARE = /^[A-Za-z0-9_./@%+=:,~-]+$/;

function t1Quote(s: string): string {
  if (T1_BARE.test(s)) return s;
  let out = '"';
  for (const ch of s) {
    if (ch === '\\') out += '\\\\';
    else if (ch === '"') out += '\\"';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else out += ch;
  }
  return out + '"';
}

const T1_ESCAPES: Record<string, string> = { '\\': '\\', '"': '"', n: '\n', r: '\r', t: '\t' };

/** Split a command into words: bare words or double-quoted strings; one line outside quotes. */
function t1Split(text: string): string[] | ParseError {
  const words: string[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i];
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    if (c === '\n' || c === '\r') return { error: `one command per message (write newlines inside quotes as \\n); ${T1_EXPECTED}` };
    if (c === '"') {
      let w = '';
      i++;
      let closed = false;
      while (i < n) {
        const d = text[i];
        if (d === '"') {
          closed = true;
          i++;
          break;
        }
        if (d === '\\') {
          const e = text[i + 1];
          if (e === undefined) break;
          const rep = T1_ESCAPES[e];
          if (rep === undefined) return { error: `unknown escape '\\${e}' (use \\" \\\\ \\n \\t \\r); ${T1_EXPECTED}` };
          w += rep;
          i += 2;
          continue;
        }
        w += d;
        i++;
      }
      if (!closed) return { error: `unterminated quote; ${T1_EXPECTED}` };
      if (i < n && text[i] !== ' ' && text[i] !== '\t') return { error: `missing space after a quoted argument; ${T1_EXPECTED}` };
      words.push(w);
      continue;
    }
    let w = '';
    while (i < n && text[i] !== ' ' && text[i] !== '\t' && text[i] !== '\n' && text[i] !== '\r') {
      if (text[i] === '"' || text[i] === '\\') return { error: `stray ${text[i]} in an unquoted word; ${T1_EXPECTED}` };
      w += text[i];
      i++;
    }
    words.push(w);
  }
  return words;
}

function t1Usage(spec: ToolSpec): string {
  const cmd = T1_NAMES[spec.name];
  return [cmd, ...spec.required.map((a) => a.toUpperCase()), ...spec.optional.map((a) => `[${a.toUpperCase()}]`)].join(' ');
}

const T1: ToolInterface = {
  id: 'T1',
  name: 'shell',
  expected: T1_EXPECTED,
  toolName: (tool) => T1_NAMES[tool],
  describe(tools = TOOL_SPECS) {
    return `Commands: ${tools.map(t1Usage).join(' | ')}\nQuote args with spaces: "a b"; escapes \\" \\\\ \\n`;
  },
  format(call) {
    assertCanonical(call);
    const spec = toolSpec(call.tool)!;
    const words = [T1_NAMES[call.tool]];
    for (const a of spec.required) words.push(t1Quote(call.args[a]));
    for (const a of spec.optional) if (Object.hasOwn(call.args, a)) words.push(t1Quote(call.args[a]));
    return words.join(' ');
  },
  parse(text) {
    const words = t1Split(text.trim());
    if (!Array.isArray(words)) return words;
    if (words.length === 0) return { error: `empty message; ${T1_EXPECTED}` };
    const canon = T1_TOOLS.get(words[0]);
    if (!canon)
      return { error: `unknown command '${words[0].slice(0, 40)}' (commands: ${Object.values(T1_NAMES).join(', ')}); ${T1_EXPECTED}` };
    const spec = toolSpec(canon)!;
    const rest = words.slice(1);
    const min = spec.required.length;
    const max = min + spec.optional.length;
    if (rest.length < min || rest.length > max) {
      return { error: `${words[0]} takes ${min === max ? min : `${min}-${max}`} argument(s), got ${rest.length}; usage: ${t1Usage(spec)}` };
    }
    const args: Record<string, string> = {};
    [...spec.required, ...spec.optional].forEach((a, j) => {
      if (j < rest.length) args[a] = rest[j];
    });
    return { tool: spec.name, args };
  },
};

// ---------------------------------------------------------------------------------------------
// T2: XML-like tagged calls with renamed arguments.

const T2_ARG_NAMES: Record<string, string> = { path: 'file', content: 'text', from: 'src', to: 'dst', query: 'pattern', answer: 'result' };
const T2_ARG_CANON = new Map(Object.entries(T2_ARG_NAMES).map(([c, r]) => [r, c]));
const T2_EXPECTED = 'expected <call tool="read"><file>notes.txt</file></call> (escape < > & as &lt; &gt; &amp;)';

function xmlEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
function xmlUnescape(s: string): string {
  return s.replace(/&(lt|gt|amp|quot|apos);/g, (_, e: string) => ENTITIES[e]);
}

const T2: ToolInterface = {
  id: 'T2',
  name: 'tagged',
  expected: T2_EXPECTED,
  toolName: (tool) => tool,
  describe(tools = TOOL_SPECS) {
    return `Tools: ${tools.map((s) => `${s.name}(${argList(s, T2_ARG_NAMES)})`).join(' ')}\nCall: <call tool="NAME"><ARG>value</ARG></call>; escape < > & as &lt; &gt; &amp;`;
  },
  format(call) {
    assertCanonical(call);
    const spec = toolSpec(call.tool)!;
    let inner = '';
    for (const a of [...spec.required, ...spec.optional]) {
      if (!Object.hasOwn(call.args, a)) continue;
      const tag = T2_ARG_NAMES[a];
      inner += `<${tag}>${xmlEscape(call.args[a])}</${tag}>`;
    }
    return `<call tool="${call.tool}">${inner}</call>`;
  },
  parse(text) {
    const t = text.trim();
    const m = /^<call tool="([^"<>]*)">([\s\S]*)<\/call>$/.exec(t);
    if (!m) {
      if (t.startsWith('<call') && !t.endsWith('</call>')) return { error: `missing </call>; ${T2_EXPECTED}` };
      return { error: `not a <call> element; ${T2_EXPECTED}` };
    }
    const tool = m[1];
    const spec = toolSpec(tool);
    if (!spec) return { error: `unknown tool '${tool.slice(0, 40)}' (tools: ${TOOL_SPECS.map((s) => s.name).join(', ')}); ${T2_EXPECTED}` };
    const inner = m[2];
    const args: Record<string, string> = {};
    let i = 0;
    while (i < inner.length) {
      if (/\s/.test(inner[i])) {
        i++;
        continue;
      }
      const open = /^<([a-z_]+)>/.exec(inner.slice(i, i + 32));
      if (!open) return { error: `expected an argument tag like <file> inside <call>; ${T2_EXPECTED}` };
      const tag = open[1];
      const canon = T2_ARG_CANON.get(tag);
      if (!canon || (!spec.required.includes(canon) && !spec.optional.includes(canon))) {
        return { error: `${tool} has no argument <${tag}> (args: ${argList(spec, T2_ARG_NAMES)}); ${T2_EXPECTED}` };
      }
      if (Object.hasOwn(args, canon)) return { error: `argument <${tag}> given twice; ${T2_EXPECTED}` };
      const start = i + open[0].length;
      const close = inner.indexOf(`</${tag}>`, start);
      if (close < 0) return { error: `missing </${tag}>; ${T2_EXPECTED}` };
      const raw = inner.slice(start, close);
      if (raw.includes('<')) return { error: `unescaped '<' inside <${tag}> (write &lt;); ${T2_EXPECTED}` };
      args[canon] = xmlUnescape(raw);
      i = close + tag.length + 3;
    }
    for (const a of spec.required) {
      if (!Object.hasOwn(args, a))
        return { error: `${tool}: missing <${T2_ARG_NAMES[a]}> (args: ${argList(spec, T2_ARG_NAMES)}); ${T2_EXPECTED}` };
    }
    const out: Record<string, string> = {};
    for (const a of [...spec.required, ...spec.optional]) if (Object.hasOwn(args, a)) out[a] = args[a];
    return { tool: spec.name, args: out };
  },
};

export const TOOL_INTERFACES: readonly ToolInterface[] = [T0, T1, T2];

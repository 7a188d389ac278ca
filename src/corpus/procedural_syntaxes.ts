/**
 * The five call syntaxes of procedural tool interfaces (procedural_tools.ts has the table):
 * json, func, shell, tagged and yaml — each a maker that draws its keys, tags or flags and
 * returns a ToolInterface whose `parse(format(call))` is `call`.
 */
import type { ToolName } from '../sandbox/types';
import { TOOL_SPECS } from '../harness/tools';
import { readJsonObject, type ParseError } from '../harness/realizations/tool_interface';
import type { Rng } from '../util/rng';
import { type ProcSurfaces, v1List, type ProcToolInterface, drawName, drawNames, argDoc, Names } from './procedural_surface';

/**
 * Keys naming the tool in `json` / `yaml`, and of the nested argument object. T0's 'tool' and
 * 'args' are among them but never together (`opArgsKeys`): no procedural call is T0's, while
 * the model still sees both words as keys (a word banned from a position gets a prior of ~0
 * there, which no pretrained model has: measured 12.8 nats on T0's 'tool' after SFT without it).
 */
const OP_KEYS = ['tool', 'name', 'op', 'action', 'fn', 'call', 'command', 'use', 'invoke'];
const ARGS_KEYS = ['args', 'params', 'arguments', 'input', 'with', 'kwargs', 'parameters'];
/** Wrapper tags of `tagged` and their name attributes: T2's 'call' and 'tool' never together. */
const WRAP_TAGS = ['call', 'invoke', 'tool_call', 'action', 'use', 'request', 'op', 'cmd'];
const WRAP_ATTRS = ['tool', 'name', 'fn', 'op', 'id', 'kind'];

/** The op key and the argument-object key: never T0's pair ('tool', 'args'). */
function opArgsKeys(rng: Rng, surfaces: ProcSurfaces): { opKey: string; argsKey: string } {
  if (surfaces === 'v1') return { opKey: rng.pick(v1List(OP_KEYS)), argsKey: rng.pick(v1List(ARGS_KEYS)) };
  const opKey = drawName(rng, OP_KEYS, new Set());
  const argsKey = drawName(rng, ARGS_KEYS, new Set(opKey === 'tool' ? [opKey, 'args'] : [opKey]));
  return { opKey, argsKey };
}
/** Leading prompts and flag prefixes of `shell`. */
const SHELL_PROMPTS = ['', '$ ', '> ', 'run '];
const SHELL_FLAGS = ['--', '-', '+', ':'];

/**
 * Scan a JSON string literal starting at text[i] === '"'. Returns the decoded value and the
 * index after the closing quote, or null when malformed.
 */
function scanJsonString(text: string, i: number): { value: string; end: number } | null {
  if (text[i] !== '"') return null;
  let j = i + 1;
  while (j < text.length) {
    const c = text[j];
    if (c === '\\') j += 2;
    else if (c === '"') break;
    else j++;
  }
  if (j >= text.length) return null;
  try {
    const v: unknown = JSON.parse(text.slice(i, j + 1));
    return typeof v === 'string' ? { value: v, end: j + 1 } : null;
  } catch {
    return null;
  }
}

/** The `json` syntax: an op key and the arguments nested under an args key, or flat. */
export function makeJson(rng: Rng, surfaces: ProcSurfaces): ProcToolInterface {
  const nested = rng.float() < 0.6;
  const { opKey, argsKey } = opArgsKeys(rng, surfaces);
  // Flat calls share the object with the op key: no argument may be named like it.
  const { toolNames, argNames } = drawNames(rng, new Set(nested ? [] : [opKey]), surfaces);
  const example = nested
    ? `{"${opKey}":"${toolNames.read}","${argsKey}":{"${argNames.path}":"notes.txt"}}`
    : `{"${opKey}":"${toolNames.read}","${argNames.path}":"notes.txt"}`;
  const expected = `expected one JSON object like ${example}`;
  const n = new Names(toolNames, argNames, expected);
  return {
    id: 'Pjson',
    name: 'procedural-json',
    expected,
    toolName: (tool: ToolName) => toolNames[tool],
    surface: { syntax: 'json', toolNames, argNames, detail: { opKey, argsKey, nested: String(nested) } },
    describe: () => `Tools: ${n.docs((s) => `${toolNames[s.name]}(${argDoc(s, argNames)})`)}\nCall format: ${example}`,
    format(call) {
      const pairs = n.pairs(call);
      const obj: Record<string, unknown> = { [opKey]: toolNames[call.tool] };
      if (nested) obj[argsKey] = Object.fromEntries(pairs);
      else for (const [k, v] of pairs) obj[k] = v;
      return JSON.stringify(obj);
    },
    parse(text) {
      const read = readJsonObject(text, expected);
      if ('error' in read) return read;
      const o = read.object;
      if (typeof o[opKey] !== 'string') return { error: `"${opKey}" must name a tool; ${expected}` };
      const spec = n.spec(o[opKey] as string);
      if ('error' in spec) return spec;
      let pairs: Array<[string, unknown]>;
      if (nested) {
        for (const k of Object.keys(o))
          if (k !== opKey && k !== argsKey) return { error: `unexpected key '${k.slice(0, 40)}'; ${expected}` };
        const a = o[argsKey] === undefined ? {} : o[argsKey];
        if (typeof a !== 'object' || a === null || Array.isArray(a)) return { error: `"${argsKey}" must be an object; ${expected}` };
        pairs = Object.entries(a as Record<string, unknown>);
      } else {
        pairs = Object.entries(o).filter(([k]) => k !== opKey);
      }
      return n.build(spec, pairs);
    },
  };
}

/** The `func` syntax: `name(arg="…", …)` with JSON string literal values. */
export function makeFunc(rng: Rng, surfaces: ProcSurfaces): ProcToolInterface {
  const { toolNames, argNames } = drawNames(rng, new Set(), surfaces);
  const sep = rng.pick([', ', ',', '; ']);
  const example = `${toolNames.read}(${argNames.path}="notes.txt")`;
  const expected = `expected one call like ${example} (values in double quotes, JSON escapes)`;
  const n = new Names(toolNames, argNames, expected);
  const sepChar = sep.trim();
  return {
    id: 'Pfunc',
    name: 'procedural-func',
    expected,
    toolName: (tool: ToolName) => toolNames[tool],
    surface: { syntax: 'func', toolNames, argNames, detail: { separator: JSON.stringify(sep) } },
    describe: () => `Tools: ${n.docs((s) => `${toolNames[s.name]}(${argDoc(s, argNames)})`)}\nCall: NAME(ARG="value"${sep}ARG="value")`,
    format(call) {
      return `${toolNames[call.tool]}(${n
        .pairs(call)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(sep)})`;
    },
    parse(text) {
      const t = text.trim();
      const m = /^([a-z_]+)\(/.exec(t);
      if (!m || !t.endsWith(')')) return { error: `not a call NAME(...); ${expected}` };
      const spec = n.spec(m[1]);
      if ('error' in spec) return spec;
      const body = t.slice(m[0].length, -1);
      const pairs: Array<[string, unknown]> = [];
      let i = 0;
      const ws = () => {
        while (i < body.length && (body[i] === ' ' || body[i] === '\t' || body[i] === '\n')) i++;
      };
      ws();
      while (i < body.length) {
        const km = /^([a-z_]+)\s*=\s*/.exec(body.slice(i, i + 60));
        if (!km) return { error: `expected ARG="value" inside ${m[1]}(...); ${expected}` };
        i += km[0].length;
        const s = scanJsonString(body, i);
        if (!s) return { error: `argument '${km[1]}' needs a double-quoted value; ${expected}` };
        pairs.push([km[1], s.value]);
        i = s.end;
        ws();
        if (i < body.length) {
          if (body[i] !== sepChar) return { error: `separate arguments with '${sepChar}'; ${expected}` };
          i++;
          ws();
          if (i >= body.length) return { error: `trailing '${sepChar}'; ${expected}` };
        }
      }
      return n.build(spec, pairs);
    },
  };
}

const SHELL_BARE = /^[A-Za-z0-9_./@%=,~-]+$/;
/** The quote characters of `shell` values (v1: single quotes only). */
type ShellQuoteChar = "'" | '"';

/** A value as one shell word: bare when safe, else in `q` quotes with \\ \q \n \r \t escapes. */
function shellQuote(s: string, q: ShellQuoteChar = "'"): string {
  if (SHELL_BARE.test(s)) return s;
  let out = q;
  for (const ch of s) {
    if (ch === '\\') out += '\\\\';
    else if (ch === q) out += `\\${q}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else out += ch;
  }
  return out + q;
}

/** Words of one line: bare words or `q`-quoted strings with \\ \q \n \r \t escapes. */
function shellWords(text: string, expected: string, q: ShellQuoteChar = "'"): string[] | ParseError {
  const esc: Record<string, string> = { '\\': '\\', [q]: q, n: '\n', r: '\r', t: '\t' };
  const words: string[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    if (c === '\n' || c === '\r') return { error: `one command per message (write newlines inside quotes as \\n); ${expected}` };
    if (c === q) {
      let w = '';
      i++;
      let closed = false;
      while (i < text.length) {
        const d = text[i];
        if (d === q) {
          closed = true;
          i++;
          break;
        }
        if (d === '\\') {
          const rep = esc[text[i + 1]];
          if (rep === undefined) return { error: `unknown escape in quotes (use \\${q} \\\\ \\n \\t \\r); ${expected}` };
          w += rep;
          i += 2;
          continue;
        }
        w += d;
        i++;
      }
      if (!closed) return { error: `unterminated quote; ${expected}` };
      if (i < text.length && text[i] !== ' ' && text[i] !== '\t') return { error: `missing space after a quoted value; ${expected}` };
      words.push(w);
      continue;
    }
    let w = '';
    while (i < text.length && !' \t\n\r'.includes(text[i])) {
      if (text[i] === "'" || text[i] === '"' || text[i] === '\\') return { error: `stray ${text[i]} in an unquoted word; ${expected}` };
      w += text[i++];
    }
    words.push(w);
  }
  return words;
}

/** T1's command names: a prompt-less positional shell may not use them (its calls would read as T1's). */
const T1_COMMANDS = ['ls', 'cat', 'put', 'add', 'mv', 'rm', 'grep', 'mkdir', 'done'];

/**
 * `shell`: a command line, optionally behind a prompt. v2 also draws positional arguments
 * (`view a.txt 'x y'`, as T1 and the coding CLI's tools do) and double quotes: measured on
 * checkpoint s9, T1's space after the command cost 8.7 nats and its opening `"` 15.7, because
 * every flagged single-quoted draw put `--arg` or `'` there. Exclusion from T1 is kept
 * structurally: a prompt-less positional draw never uses T1's command names, and every other
 * draw has a prompt or flags, which T1 has not.
 */
export function makeShell(rng: Rng, surfaces: ProcSurfaces): ProcToolInterface {
  const v1 = surfaces === 'v1' ? drawNames(rng, new Set(), surfaces) : null;
  const prompt = rng.pick(SHELL_PROMPTS);
  const positional = v1 === null && rng.float() < 0.5;
  const q: ShellQuoteChar = v1 === null && rng.float() < 0.5 ? '"' : "'";
  // Without a prompt, a call without arguments would read like T1's (`ls`, `done`); positional, any call would.
  const reserved = prompt === '' ? (positional ? T1_COMMANDS : ['ls', 'done']) : [];
  const { toolNames, argNames } = v1 ?? drawNames(rng, new Set(reserved), surfaces);
  const flag = positional ? '' : rng.pick(SHELL_FLAGS);
  const slot = (a: string) => (positional ? argNames[a].toUpperCase() : `${flag}${argNames[a]} V`);
  const example = positional ? `${prompt}${toolNames.read} notes.txt` : `${prompt}${toolNames.read} ${flag}${argNames.path} notes.txt`;
  const expected = `expected one command like: ${example} (quote values with spaces in ${q}...${q})`;
  const n = new Names(toolNames, argNames, expected);
  return {
    id: 'Pshell',
    name: 'procedural-shell',
    expected,
    toolName: (tool: ToolName) => toolNames[tool],
    surface: {
      syntax: 'shell',
      toolNames,
      argNames,
      detail: { prompt: JSON.stringify(prompt), flag, positional: String(positional), quote: q },
    },
    describe: () =>
      `Commands: ${TOOL_SPECS.map((s) => [toolNames[s.name], ...s.required.map(slot), ...s.optional.map((a) => `[${slot(a)}]`)].join(' ')).join(' | ')}\nQuote values with spaces: ${q}a b${q}; escapes \\${q} \\\\ \\n`,
    format(call) {
      const words = [toolNames[call.tool]];
      for (const [k, v] of n.pairs(call)) words.push(...(positional ? [] : [flag + k]), shellQuote(v, q));
      return prompt + words.join(' ');
    },
    parse(text) {
      let t = text.trim();
      const p = prompt.trim();
      if (p) {
        if (!t.startsWith(p)) return { error: `commands start with '${p}'; ${expected}` };
        t = t.slice(p.length);
      }
      const words = shellWords(t, expected, q);
      if (!Array.isArray(words)) return words;
      if (words.length === 0) return { error: `empty command; ${expected}` };
      const spec = n.spec(words[0]);
      if ('error' in spec) return spec;
      const pairs: Array<[string, unknown]> = [];
      if (positional) {
        const slots = [...spec.required, ...spec.optional];
        const got = words.length - 1;
        if (got < spec.required.length || got > slots.length) {
          return {
            error: `${words[0]} takes ${spec.required.length === slots.length ? slots.length : `${spec.required.length}–${slots.length}`} value(s), got ${got}; ${expected}`,
          };
        }
        for (let i = 1; i < words.length; i++) pairs.push([argNames[slots[i - 1]], words[i]]);
        return n.build(spec, pairs);
      }
      if ((words.length - 1) % 2 !== 0) return { error: `each ${flag}ARG needs one value; ${expected}` };
      for (let i = 1; i < words.length; i += 2) {
        if (!words[i].startsWith(flag) || words[i].length === flag.length)
          return { error: `expected ${flag}ARG, got '${words[i].slice(0, 40)}'; ${expected}` };
        pairs.push([words[i].slice(flag.length), words[i + 1]]);
      }
      return n.build(spec, pairs);
    },
  };
}

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&' };
const xmlUnescape = (s: string) => s.replace(/&(lt|gt|amp);/g, (_, e: string) => ENTITIES[e]);

/** The `tagged` syntax: a wrapper tag with a name attribute, or the tool name as the tag; one child tag per argument. */
export function makeTagged(rng: Rng, surfaces: ProcSurfaces): ProcToolInterface {
  const { toolNames, argNames } = drawNames(rng, new Set(), surfaces);
  const toolAsTag = rng.float() < 0.4;
  const names = new Set([...Object.values(toolNames), ...Object.values(argNames)]);
  const wrap = surfaces === 'v1' ? rng.pick(v1List(WRAP_TAGS, ['call'])) : drawName(rng, WRAP_TAGS, names);
  const attr =
    surfaces === 'v1'
      ? rng.pick(v1List(WRAP_ATTRS))
      : drawName(rng, WRAP_ATTRS, new Set([...names, wrap, ...(wrap === 'call' ? ['tool'] : [])]));
  const open = (name: string) => (toolAsTag ? `<${name}>` : `<${wrap} ${attr}="${name}">`);
  const close = (name: string) => (toolAsTag ? `</${name}>` : `</${wrap}>`);
  const example = `${open(toolNames.read)}<${argNames.path}>notes.txt</${argNames.path}>${close(toolNames.read)}`;
  const expected = `expected ${example} (escape < > & as &lt; &gt; &amp;)`;
  const n = new Names(toolNames, argNames, expected);
  const head = toolAsTag ? /^<([a-z_]+)>([\s\S]*)<\/([a-z_]+)>$/ : new RegExp(`^<${wrap} ${attr}="([a-z_]*)">([\\s\\S]*)</${wrap}>$`);
  return {
    id: 'Ptagged',
    name: 'procedural-tagged',
    expected,
    toolName: (tool: ToolName) => toolNames[tool],
    surface: { syntax: 'tagged', toolNames, argNames, detail: toolAsTag ? { wrapper: '(tool name)' } : { wrapper: wrap, attribute: attr } },
    describe: () =>
      `Tools: ${n.docs((s) => `${toolNames[s.name]}(${argDoc(s, argNames)})`)}\nCall: ${toolAsTag ? '<NAME><ARG>value</ARG></NAME>' : `<${wrap} ${attr}="NAME"><ARG>value</ARG></${wrap}>`}; escape < > & as &lt; &gt; &amp;`,
    format(call) {
      const name = toolNames[call.tool];
      return (
        open(name) +
        n
          .pairs(call)
          .map(([k, v]) => `<${k}>${xmlEscape(v)}</${k}>`)
          .join('') +
        close(name)
      );
    },
    parse(text) {
      const t = text.trim();
      const m = head.exec(t);
      if (!m) return { error: `not a tagged call; ${expected}` };
      if (toolAsTag && m[1] !== m[3]) return { error: `<${m[1].slice(0, 40)}> closed by </${m[3].slice(0, 40)}>; ${expected}` };
      const spec = n.spec(m[1]);
      if ('error' in spec) return spec;
      const inner = m[2];
      const pairs: Array<[string, unknown]> = [];
      let i = 0;
      while (i < inner.length) {
        if (/\s/.test(inner[i])) {
          i++;
          continue;
        }
        const o = /^<([a-z_]+)>/.exec(inner.slice(i, i + 40));
        if (!o) return { error: `expected an argument tag like <${argNames.path}>; ${expected}` };
        const start = i + o[0].length;
        const end = inner.indexOf(`</${o[1]}>`, start);
        if (end < 0) return { error: `missing </${o[1]}>; ${expected}` };
        const raw = inner.slice(start, end);
        if (raw.includes('<')) return { error: `unescaped '<' inside <${o[1]}> (write &lt;); ${expected}` };
        pairs.push([o[1], xmlUnescape(raw)]);
        i = end + o[1].length + 3;
      }
      return n.build(spec, pairs);
    },
  };
}

/** The `yaml` syntax: an op key line, then one `arg: "…"` line per argument. */
export function makeYaml(rng: Rng, surfaces: ProcSurfaces): ProcToolInterface {
  const nested = rng.float() < 0.5;
  const { opKey, argsKey } = opArgsKeys(rng, surfaces);
  const { toolNames, argNames } = drawNames(rng, new Set(nested ? [] : [opKey]), surfaces);
  const indent = nested ? '  ' : '';
  const lines = (name: string, pairs: Array<[string, string]>) => {
    const out = [`${opKey}: ${name}`];
    if (nested && pairs.length) out.push(`${argsKey}:`);
    for (const [k, v] of pairs) out.push(`${indent}${k}: ${JSON.stringify(v)}`);
    return out.join('\n');
  };
  const example = lines(toolNames.read, [[argNames.path, 'notes.txt']]);
  const expected = `expected lines like:\n${example}`;
  const n = new Names(toolNames, argNames, expected);
  return {
    id: 'Pyaml',
    name: 'procedural-yaml',
    expected,
    toolName: (tool: ToolName) => toolNames[tool],
    surface: { syntax: 'yaml', toolNames, argNames, detail: { opKey, argsKey: nested ? argsKey : '(flat)' } },
    describe: () => `Tools: ${n.docs((s) => `${toolNames[s.name]}(${argDoc(s, argNames)})`)}\nCall (values in double quotes):\n${example}`,
    format(call) {
      return lines(toolNames[call.tool], n.pairs(call));
    },
    parse(text) {
      const ls = text.trim().split('\n');
      const first = new RegExp(`^${opKey}: ([a-z_]+)$`).exec(ls[0].trimEnd());
      if (!first) return { error: `first line must be '${opKey}: NAME'; ${expected}` };
      const spec = n.spec(first[1]);
      if ('error' in spec) return spec;
      let rest = ls.slice(1);
      if (nested && rest.length) {
        if (rest[0].trimEnd() !== `${argsKey}:`) return { error: `second line must be '${argsKey}:'; ${expected}` };
        rest = rest.slice(1);
        if (rest.length === 0) return { error: `'${argsKey}:' without arguments; ${expected}` };
      }
      const pairs: Array<[string, unknown]> = [];
      for (const line of rest) {
        if (nested && !line.startsWith(indent)) return { error: `indent arguments by two spaces; ${expected}` };
        const km = /^([a-z_]+): /.exec(line.slice(indent.length));
        if (!km) return { error: `expected 'ARG: "value"'; ${expected}` };
        const s = scanJsonString(line, indent.length + km[0].length);
        if (!s || line.slice(s.end).trim() !== '') return { error: `value of '${km[1]}' must be one double-quoted string; ${expected}` };
        pairs.push([km[1], s.value]);
      }
      return n.build(spec, pairs);
    },
  };
}

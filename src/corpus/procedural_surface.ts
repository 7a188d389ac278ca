/**
 * The vocabulary of procedural tool interfaces (procedural_tools.ts): the syntaxes, the word
 * lists, made-up names, the name draws (v1 and v2) and the shared name resolution and argument
 * validation (`Names`).
 */
import type { ToolCall, ToolName } from '../sandbox/types';
import { TOOL_SPECS, checkArgs, toolSpec, type ToolSpec } from '../harness/tools';
import type { ParseError, ToolInterface } from '../harness/realizations/tool_interface';
import type { Rng } from '../util/rng';

/** The call syntaxes a procedural tool interface can draw. */
export const PROC_SYNTAXES = ['json', 'func', 'shell', 'tagged', 'yaml'] as const;
export type ProcSyntax = (typeof PROC_SYNTAXES)[number];

/**
 * Per canonical tool: candidate surface names ([a-z_]+). T1's command names are among them: the
 * exclusion is of T1's *format* (positional, unflagged), which no procedural syntax has — banning
 * the words themselves would teach the model never to emit them.
 */
export const TOOL_WORDS: Readonly<Record<ToolName, readonly string[]>> = {
  list: ['list', 'ls', 'ls_dir', 'dir', 'list_files', 'show_dir', 'browse', 'listdir', 'entries'],
  read: ['read', 'cat', 'view', 'open', 'show', 'read_file', 'cat_file', 'load', 'peek'],
  write: ['write', 'put', 'save', 'create', 'put_file', 'write_file', 'store', 'overwrite'],
  append: ['append', 'add', 'add_to', 'extend', 'append_file', 'attach', 'add_lines'],
  move: ['move', 'mv', 'rename', 'relocate', 'mv_file', 'shift', 'transfer'],
  delete: ['delete', 'rm', 'remove', 'erase', 'unlink', 'del', 'trash'],
  search: ['search', 'grep', 'find', 'lookup', 'grep_text', 'scan', 'locate'],
  mkdir: ['mkdir', 'make_dir', 'new_folder', 'create_dir', 'md', 'add_dir', 'new_dir'],
  finish: ['finish', 'done', 'submit', 'complete', 'end', 'answer', 'conclude'],
};

/** Per canonical argument: candidate surface names ([a-z_]+). */
export const ARG_WORDS: Readonly<Record<string, readonly string[]>> = {
  path: ['path', 'file', 'filepath', 'target', 'location', 'filename', 'where'],
  content: ['content', 'text', 'body', 'data', 'contents', 'value'],
  from: ['from', 'src', 'source', 'old', 'origin'],
  to: ['to', 'dst', 'dest', 'destination', 'new_path'],
  query: ['query', 'pattern', 'needle', 'term', 'q', 'match'],
  answer: ['answer', 'result', 'reply', 'response', 'final', 'output'],
};

/**
 * Which draws: 'v2' (pretraining) — made-up names and T0/T1/T2's words as above; 'v1' — the word
 * lists and draw order before them, which tokenizer-v2's corpus was rendered with (the shipped
 * tokenizer stays reproducible: src/corpus/tokenizer_v2.ts).
 */
export type ProcSurfaces = 'v1' | 'v2';
/** Words only the v2 draws use, per list. */
const V2_ONLY: ReadonlySet<string> = new Set(['ls', 'cat', 'put', 'add', 'mv', 'rm', 'grep', 'mkdir', 'done', 'tool', 'args']);
/** A word list as the v1 draws saw it: without the v2-only words and `also`. */
export const v1List = (words: readonly string[], also: readonly string[] = []) => words.filter((w) => !V2_ONLY.has(w) && !also.includes(w));

/** What one procedural interface drew (for display and the surface report). */
interface ProcToolSurface {
  /** One of PROC_SYNTAXES, or 'envelope' (procedural_envelope.ts: T0's envelope with drawn names). */
  syntax: ProcSyntax | 'envelope';
  toolNames: Record<ToolName, string>;
  argNames: Record<string, string>;
  /** Syntax-specific choices, e.g. { opKey: 'op', argsKey: 'params', nested: 'true' }. */
  detail: Record<string, string>;
}

/** A procedural tool interface and what it drew. */
export interface ProcToolInterface extends ToolInterface {
  readonly surface: ProcToolSurface;
}

/**
 * Names no procedural draw may produce: T0's keys, T1's command names, T2's wrapper and
 * attribute (exclusion of the evaluated realizations; module doc).
 */
const RESERVED_NAMES: ReadonlySet<string> = new Set([
  'tool',
  'args',
  'call',
  'ls',
  'cat',
  'put',
  'add',
  'mv',
  'rm',
  'grep',
  'mkdir',
  'done',
]);

/** Probability that a drawn name is a made-up word instead of one from the word lists. */
export const NOVEL_NAME_P = 0.5;

const ONSETS = ['b', 'd', 'f', 'g', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'z', 'br', 'dr', 'gl', 'kr', 'pl', 'st', 'tr', 'sk'];
const NUCLEI = ['a', 'e', 'i', 'o', 'u', 'ai', 'ou', 'ee'];

/**
 * A made-up identifier ([a-z_]+, 2–3 syllables, sometimes two words joined by '_'), never one of
 * `taken` nor a reserved name. Why: with names drawn only from short word lists, a model can
 * memorize every list and pick from it instead of reading the names off the prompt; made-up
 * names make copying from the tool docs the only way to a low loss, which is what transfers to
 * an unseen harness.
 */
export function novelName(rng: Rng, taken: ReadonlySet<string>): string {
  const word = () => {
    let w = '';
    const n = 2 + rng.int(2);
    for (let i = 0; i < n; i++) w += rng.pick(ONSETS) + rng.pick(NUCLEI);
    return w;
  };
  for (;;) {
    const w = rng.float() < 0.2 ? `${word()}_${word()}` : word();
    if (!taken.has(w) && !RESERVED_NAMES.has(w)) return w;
  }
}

/** One name: from `words` (minus `taken`), or with probability NOVEL_NAME_P a made-up one. */
export function drawName(rng: Rng, words: readonly string[], taken: ReadonlySet<string>): string {
  const free = words.filter((w) => !taken.has(w));
  return free.length === 0 || rng.float() < NOVEL_NAME_P ? novelName(rng, taken) : rng.pick(free);
}

/** Tool and argument names of one interface, distinct and none in `reserved` (v1: drawNamesV1). */
export function drawNames(
  rng: Rng,
  reserved: ReadonlySet<string>,
  surfaces: ProcSurfaces,
): { toolNames: Record<ToolName, string>; argNames: Record<string, string> } {
  if (surfaces === 'v1') return drawNamesV1(rng, reserved);
  // Tool and argument names are all distinct (a tagged call may use the tool name as its tag).
  const used = new Set<string>(reserved);
  const toolNames = {} as Record<ToolName, string>;
  for (const spec of TOOL_SPECS) {
    const w = drawName(rng, TOOL_WORDS[spec.name], used);
    used.add(w);
    toolNames[spec.name] = w;
  }
  const argNames: Record<string, string> = {};
  for (const arg of Object.keys(ARG_WORDS)) {
    const w = drawName(rng, ARG_WORDS[arg], used);
    used.add(w);
    argNames[arg] = w;
  }
  return { toolNames, argNames };
}

/** `a,b,c?`: a tool's surface argument names, optional ones marked. */
export function argDoc(spec: ToolSpec, argNames: Record<string, string>): string {
  return [...spec.required.map((a) => argNames[a]), ...spec.optional.map((a) => argNames[a] + '?')].join(',');
}

/** Shared name resolution and argument validation of every syntax (also procedural_envelope.ts's). */
export class Names {
  readonly toolByName: Map<string, ToolSpec>;
  readonly argByName: Map<string, string>;
  constructor(
    readonly toolNames: Record<ToolName, string>,
    readonly argNames: Record<string, string>,
    readonly expected: string,
  ) {
    this.toolByName = new Map(TOOL_SPECS.map((s) => [toolNames[s.name], s]));
    this.argByName = new Map(Object.entries(argNames).map(([c, s]) => [s, c]));
  }
  spec(name: string): ToolSpec | ParseError {
    const s = this.toolByName.get(name);
    return s ?? { error: `unknown tool '${name.slice(0, 40)}' (tools: ${[...this.toolByName.keys()].join(', ')}); ${this.expected}` };
  }
  /** Surface args (name → value) to a canonical call, or an error naming the bad argument. */
  build(spec: ToolSpec, surface: ReadonlyArray<[string, unknown]>): ToolCall | ParseError {
    const args: Record<string, string> = {};
    const allowed = [...spec.required, ...spec.optional];
    for (const [k, v] of surface) {
      const canon = this.argByName.get(k);
      if (canon === undefined || !allowed.includes(canon)) {
        return {
          error: `${this.toolNames[spec.name]} has no argument '${k.slice(0, 40)}' (args: ${argDoc(spec, this.argNames)}); ${this.expected}`,
        };
      }
      if (Object.hasOwn(args, canon)) return { error: `argument '${k}' given twice; ${this.expected}` };
      if (typeof v !== 'string') return { error: `argument '${k}' must be a string; ${this.expected}` };
      args[canon] = v;
    }
    for (const a of spec.required) {
      if (!Object.hasOwn(args, a))
        return {
          error: `${this.toolNames[spec.name]}: missing argument '${this.argNames[a]}' (args: ${argDoc(spec, this.argNames)}); ${this.expected}`,
        };
    }
    const out: Record<string, string> = {};
    for (const a of allowed) if (Object.hasOwn(args, a)) out[a] = args[a];
    return { tool: spec.name, args: out };
  }
  /** The call's (surface name, value) pairs in positional order. */
  pairs(call: ToolCall): Array<[string, string]> {
    const bad = checkArgs(call);
    if (bad) throw new Error(`format: non-canonical call: ${bad}`);
    const spec = toolSpec(call.tool)!;
    return [...spec.required, ...spec.optional].filter((a) => Object.hasOwn(call.args, a)).map((a) => [this.argNames[a], call.args[a]]);
  }
  docs(describe: (spec: ToolSpec) => string): string {
    return TOOL_SPECS.map(describe).join(' ');
  }
}

/** The v1 draws (ProcSurfaces): list words only; argument names distinct among themselves. */
function drawNamesV1(rng: Rng, reserved: ReadonlySet<string>): { toolNames: Record<ToolName, string>; argNames: Record<string, string> } {
  const toolNames = {} as Record<ToolName, string>;
  for (const spec of TOOL_SPECS) toolNames[spec.name] = rng.pick(v1List(TOOL_WORDS[spec.name]));
  const argNames: Record<string, string> = {};
  const used = new Set<string>(reserved);
  for (const arg of Object.keys(ARG_WORDS)) {
    const w = rng.pick(ARG_WORDS[arg].filter((x) => !used.has(x)));
    used.add(w);
    argNames[arg] = w;
  }
  return { toolNames, argNames };
}

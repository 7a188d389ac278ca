/**
 * The canonical tool set (src/sandbox/types.ts) as data for docs and argument checks: every
 * tool interface (T) renames and re-syntaxes these, but the calls that reach the sandbox are
 * always these names with these argument keys.
 */
import { TOOL_ARGS } from '../sandbox/sandbox';
import { TOOL_NAMES, type ToolCall, type ToolName } from '../sandbox/types';

export interface ToolSpec {
  name: ToolName;
  /** Argument keys in positional order. */
  required: readonly string[];
  optional: readonly string[];
  /** One short phrase (docs are compact: the policy has a 512-token context). */
  summary: string;
}

const SUMMARIES: Record<ToolName, string> = {
  list: 'list a directory',
  read: 'read a file',
  write: 'create or overwrite a file',
  append: 'append to a file',
  move: 'move or rename',
  delete: 'delete a file or directory',
  search: 'find text in names and lines',
  mkdir: 'make a directory',
  finish: 'end with your answer',
};

/** The canonical tools in TOOL_NAMES order; argument keys come from the sandbox's TOOL_ARGS. */
export const TOOL_SPECS: readonly ToolSpec[] = TOOL_NAMES.map((name) => ({
  name,
  required: TOOL_ARGS[name].required,
  optional: TOOL_ARGS[name].optional,
  summary: SUMMARIES[name],
}));

const SPEC_BY_NAME = new Map<string, ToolSpec>(TOOL_SPECS.map((s) => [s.name, s]));

export function toolSpec(name: string): ToolSpec | undefined {
  return SPEC_BY_NAME.get(name);
}

/**
 * Check a call's arguments against the spec: all required keys present, no unknown keys,
 * every value a string. Returns an error message naming the bad argument, or null when valid.
 */
export function checkArgs(call: { tool: string; args: Record<string, unknown> }): string | null {
  const spec = SPEC_BY_NAME.get(call.tool);
  if (!spec) return `unknown tool '${call.tool}'`;
  for (const k of spec.required) if (!Object.hasOwn(call.args, k)) return `${call.tool}: missing argument '${k}'`;
  for (const [k, v] of Object.entries(call.args)) {
    if (!spec.required.includes(k) && !spec.optional.includes(k)) return `${call.tool}: unknown argument '${k}'`;
    if (typeof v !== 'string') return `${call.tool}: argument '${k}' must be a string`;
  }
  return null;
}

/** A compact one-line human form of a canonical call, e.g. `read /a.txt` (summaries, tags). */
export function briefCall(call: ToolCall): string {
  const a = call.args;
  const clip = (s: string | undefined, n = 40) => (s === undefined ? '' : s.length > n ? s.slice(0, n) + '…' : s);
  switch (call.tool) {
    case 'move':
      return `move ${clip(a.from)} -> ${clip(a.to)}`;
    case 'search':
      return `search "${clip(a.query, 24)}"${a.path !== undefined ? ' in ' + clip(a.path) : ''}`;
    case 'finish':
      return `finish ${JSON.stringify(clip(a.answer ?? '', 40))}`;
    case 'write':
    case 'append':
      return `${call.tool} ${clip(a.path)} (${(a.content ?? '').length} chars)`;
    default:
      return a.path === undefined ? call.tool : `${call.tool} ${clip(a.path)}`;
  }
}

/**
 * Lexically normalize a workspace path for bookkeeping (workflow and tags), mirroring the
 * sandbox's rules: relative paths are from '/', '.' and '' parts drop, '..' pops (and at the
 * root stays at the root here; the sandbox itself reports that as an error). Not a security
 * boundary: the sandbox confines paths.
 */
export function normPath(p: string): string {
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return '/' + out.join('/');
}

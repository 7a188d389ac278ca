/**
 * The in-memory tool sandbox (docs/ARCHITECTURE.md "Sandbox, tasks and behaviour tags"): a workspace of directories and text files behind
 * the one canonical tool set (list, read, write, append, move, delete, search, mkdir, finish).
 *
 * Storage is a plain `Map<path, content>` plus a `Set<dir>`, not a virtual-fs library: the
 * state is exactly the JSON-safe `SandboxState` contract (no inodes, timestamps, permissions
 * or Buffers), so it is deterministic, structured-clonable and round-trips through
 * `fromState(state())` byte for byte; it runs unchanged in Node, a worker and the page.
 *
 * Semantics (every harness sees the same ones; they are part of the task contract):
 * - Paths: absolute or relative to '/', normalized by `normalizePath` ('.', '//' and trailing
 *   '/' dropped, '..' resolved). '..' past the root is error `outside_root`, never an escape.
 * - `write`/`append`/`move`/`mkdir` create missing parent directories (like `mkdir -p`), so a
 *   result can be written to an exact path in one call. A parent component that is a file
 *   fails with `not_a_directory`; nothing is changed by a failed call.
 * - `list` shows the immediate children of a directory as absolute paths, directories with a
 *   trailing '/', sorted by UTF-16 code units; every listed file is readable by that path.
 * - `move` onto an existing directory moves *into* it (`mv a.txt /dir` → `/dir/a.txt`); an
 *   existing destination file is never overwritten (`exists`).
 * - `delete` removes a file or a whole directory tree (never '/').
 * - `search` is a case-insensitive substring search over file names and file lines under a
 *   path: a name hit prints `/path`, a line hit prints `/path:LINE: text`.
 * - `finish` returns ok with the answer as output; ending the episode is the harness's job.
 * - Outputs longer than `maxOutputChars` are cut and end with the note
 *   `\n[truncated: N more chars not shown]`; `truncated.droppedChars` = N, and the output,
 *   note included, never exceeds the cap.
 * `exec` never throws on any input (unknown tools, missing or non-string args, bad paths): it
 * returns a ToolResult with an error code instead.
 */
import type { SandboxLimits, SandboxState, ToolCall, ToolErrorCode, ToolName, ToolResult } from './types';
import { TOOL_NAMES } from './types';

const DEFAULT_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  maxFileChars: 8192,
  maxFiles: 256,
  maxDirs: 256,
  maxOutputChars: 2000,
  maxPathChars: 256,
});

/** Required and optional canonical arguments per tool (all strings). */
export const TOOL_ARGS: Readonly<Record<ToolName, { required: readonly string[]; optional: readonly string[] }>> = {
  list: { required: [], optional: ['path'] },
  read: { required: ['path'], optional: [] },
  write: { required: ['path', 'content'], optional: [] },
  append: { required: ['path', 'content'], optional: [] },
  move: { required: ['from', 'to'], optional: [] },
  delete: { required: ['path'], optional: [] },
  search: { required: ['query'], optional: ['path'] },
  mkdir: { required: ['path'], optional: [] },
  finish: { required: [], optional: ['answer'] },
};

/** Longest search query accepted (characters). */
const MAX_QUERY_CHARS = 200;
/** A search line hit shows at most this many characters of the line. */
const SEARCH_LINE_CHARS = 160;

/** A tool failure with its canonical error code; `exec` turns it into a ToolResult. */
class ToolError extends Error {
  constructor(
    readonly code: ToolErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ToolError';
  }
}

// Control characters (C0, DEL) and backslashes are rejected: they render ambiguously in
// observations and a backslash would read as a separator to some policies.
const BAD_PATH_CHARS = /[\u0000-\u001f\u007f\\]/;

// Names must read as they are stored: a lone surrogate has no UTF-8 form (the
// tokenizer shows it as U+FFFD, so two different names would look alike), and bidirectional
// controls (U+061C, U+200E–U+200F, U+202A–U+202E, U+2066–U+2069) reorder how the rest of the
// name — or of the observation line holding it — is displayed. Rejected, not normalised: a
// silently rewritten name would break the policy's next reference to it. C1 controls likewise.
const UNREADABLE_PATH_CHAR = /\p{Cs}|[\u0080-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

/**
 * Normalize a workspace path to its absolute form: '/a/b.txt'. Relative paths are taken from
 * '/'; surrounding whitespace is trimmed; '', '.' and '/' are the root; empty and '.'
 * components are dropped; '..' removes one component.
 * @param maxChars longest accepted input (characters).
 * @throws ToolError `outside_root` when '..' would climb above '/'; `invalid_path` for a
 *   non-string, an over-long path, control characters (C0, DEL, C1), a backslash, a lone
 *   surrogate, a bidirectional control (U+061C, U+200E/F, U+202A–E, U+2066–9), or a component
 *   with leading/trailing whitespace.
 */
export function normalizePath(path: string, maxChars: number = DEFAULT_LIMITS.maxPathChars): string {
  if (typeof path !== 'string') throw new ToolError('invalid_path', `path must be a string, got ${typeof path}`);
  const p = path.trim();
  if (p.length > maxChars) throw new ToolError('invalid_path', `path is ${p.length} chars, longer than the limit ${maxChars}`);
  if (BAD_PATH_CHARS.test(p)) throw new ToolError('invalid_path', `path ${JSON.stringify(p)} contains a control character or backslash`);
  const odd = UNREADABLE_PATH_CHAR.exec(p);
  if (odd) {
    const cp = `U+${odd[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
    const what = odd[0].length === 1 && /\p{Cs}/u.test(odd[0]) ? 'a lone surrogate' : 'a bidirectional or C1 control character';
    throw new ToolError('invalid_path', `path ${JSON.stringify(p)} contains ${cp}, ${what}: names must read as they are stored`);
  }
  const parts: string[] = [];
  for (const c of p.split('/')) {
    if (c === '' || c === '.') continue;
    if (c === '..') {
      if (parts.length === 0) throw new ToolError('outside_root', `path ${JSON.stringify(p)} climbs above the workspace root`);
      parts.pop();
      continue;
    }
    if (c.trim() !== c) throw new ToolError('invalid_path', `path component ${JSON.stringify(c)} has leading or trailing whitespace`);
    parts.push(c);
  }
  return '/' + parts.join('/');
}

/** Parent of a normalized path ('/a/b' → '/a', '/a' → '/'); null for '/'. */
function parentPath(p: string): string | null {
  if (p === '/') return null;
  const i = p.lastIndexOf('/');
  return i === 0 ? '/' : p.slice(0, i);
}

/** Last component of a normalized path ('/a/b.txt' → 'b.txt'; '/' → ''). */
function baseName(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

/** Ancestors of a normalized path, root first, the path itself excluded. */
function ancestors(p: string): string[] {
  const out: string[] = [];
  for (let q = parentPath(p); q !== null; q = parentPath(q)) out.push(q);
  return out.reverse();
}

/** Whether `p` is `dir` or lies below it (both normalized). */
function isWithin(p: string, dir: string): boolean {
  return dir === '/' || p === dir || p.startsWith(dir + '/');
}

/** Code-unit order: deterministic across engines and locales (unlike localeCompare). */
function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Cap `text` at `max` characters, note included. Never splits a UTF-16 surrogate pair.
 * @returns the capped text and how many characters of `text` were dropped (0 when none).
 */
function capOutput(text: string, max: number): { output: string; droppedChars: number } {
  if (text.length <= max) return { output: text, droppedChars: 0 };
  let dropped = text.length - max;
  // The note's length depends on the digits of `dropped`; iterate to the fixed point (≤ 3 rounds).
  for (let round = 0; round < 8; round++) {
    const note = `\n[truncated: ${dropped} more chars not shown]`;
    let keep = Math.max(0, max - note.length);
    const c = text.charCodeAt(keep - 1);
    if (keep > 0 && c >= 0xd800 && c <= 0xdbff) keep--;
    const d = text.length - keep;
    if (d === dropped) return { output: text.slice(0, keep) + note, droppedChars: d };
    dropped = d;
  }
  throw new Error('capOutput: did not converge'); // unreachable: dropped only grows, digits are bounded
}

/** Build a state from file contents alone: every parent directory is added. */
export function stateFromFiles(files: Record<string, string>, extraDirs: readonly string[] = []): SandboxState {
  const dirs = new Set<string>(['/']);
  const out: Record<string, string> = {};
  for (const [raw, content] of Object.entries(files)) {
    const p = normalizePath(raw);
    out[p] = content;
    for (const a of ancestors(p)) dirs.add(a);
  }
  for (const raw of extraDirs) {
    const d = normalizePath(raw);
    dirs.add(d);
    for (const a of ancestors(d)) dirs.add(a);
  }
  const sorted: Record<string, string> = {};
  for (const k of Object.keys(out).sort(cmp)) sorted[k] = out[k];
  return { version: 1, files: sorted, dirs: [...dirs].sort(cmp) };
}

export class Sandbox {
  readonly limits: Readonly<SandboxLimits>;
  private files = new Map<string, string>();
  private dirs = new Set<string>(['/']);

  private constructor(limits: Partial<SandboxLimits> = {}) {
    const l = { ...DEFAULT_LIMITS, ...limits };
    for (const [k, v] of Object.entries(l)) {
      if (!Number.isInteger(v) || v < 1) throw new Error(`Sandbox: limit ${k} must be a positive integer, got ${v}`);
    }
    if (l.maxOutputChars < 64)
      throw new Error(`Sandbox: limit maxOutputChars must be ≥ 64 (room for the truncation note), got ${l.maxOutputChars}`);
    this.limits = Object.freeze(l);
  }

  /** An empty workspace: just '/'. @throws Error on a non-positive or non-integer limit. */
  static empty(limits?: Partial<SandboxLimits>): Sandbox {
    return new Sandbox(limits);
  }

  /**
   * Rebuild a sandbox from `state()` (checkpoints, replay, task initial states).
   * @throws Error naming the field or path when the state is malformed: wrong version, a path
   *   that is not normalized, a file or directory whose parent directory is missing, a path
   *   that is both a file and a directory, a non-string content, or a limit exceeded.
   */
  static fromState(s: SandboxState, limits?: Partial<SandboxLimits>): Sandbox {
    if (!s || typeof s !== 'object') throw new Error('Sandbox.fromState: state must be an object');
    if (s.version !== 1) throw new Error(`Sandbox.fromState: state.version must be 1, got ${JSON.stringify(s.version)}`);
    if (!s.files || typeof s.files !== 'object') throw new Error('Sandbox.fromState: state.files must be an object');
    if (!Array.isArray(s.dirs)) throw new Error('Sandbox.fromState: state.dirs must be an array');
    const sb = new Sandbox(limits);
    const L = sb.limits;
    const norm = (p: unknown, field: string): string => {
      let n: string;
      try {
        n = normalizePath(p as string, L.maxPathChars);
      } catch (e) {
        throw new Error(`Sandbox.fromState: ${field} ${JSON.stringify(p)}: ${(e as Error).message}`);
      }
      if (n !== p) throw new Error(`Sandbox.fromState: ${field} ${JSON.stringify(p)} is not normalized (expected ${JSON.stringify(n)})`);
      return n;
    };
    for (const d of s.dirs) sb.dirs.add(norm(d, 'state.dirs entry'));
    if (!s.dirs.includes('/')) throw new Error("Sandbox.fromState: state.dirs must contain '/'");
    for (const [p, content] of Object.entries(s.files)) {
      norm(p, 'state.files key');
      if (typeof content !== 'string') throw new Error(`Sandbox.fromState: state.files[${JSON.stringify(p)}] must be a string`);
      if (sb.dirs.has(p)) throw new Error(`Sandbox.fromState: ${p} is both a file and a directory`);
      if (content.length > L.maxFileChars)
        throw new Error(
          `Sandbox.fromState: state.files[${JSON.stringify(p)}] has ${content.length} chars > maxFileChars ${L.maxFileChars}`,
        );
      sb.files.set(p, content);
    }
    for (const p of [...sb.dirs, ...sb.files.keys()]) {
      const parent = parentPath(p);
      if (parent !== null && !sb.dirs.has(parent))
        throw new Error(`Sandbox.fromState: parent directory ${parent} of ${p} is missing from state.dirs`);
    }
    if (sb.files.size > L.maxFiles) throw new Error(`Sandbox.fromState: ${sb.files.size} files > maxFiles ${L.maxFiles}`);
    if (sb.dirs.size > L.maxDirs) throw new Error(`Sandbox.fromState: ${sb.dirs.size} dirs > maxDirs ${L.maxDirs}`);
    return sb;
  }

  /** The whole workspace, JSON-safe, keys and dirs sorted (deterministic serialization). */
  state(): SandboxState {
    const files: Record<string, string> = {};
    for (const k of [...this.files.keys()].sort(cmp)) files[k] = this.files.get(k)!;
    return { version: 1, files, dirs: [...this.dirs].sort(cmp) };
  }

  /** An independent copy with the same limits. */
  clone(): Sandbox {
    return Sandbox.fromState(this.state(), this.limits);
  }

  /** Content of a file, or undefined (for verifiers and tests; not a tool). */
  fileAt(path: string): string | undefined {
    return this.files.get(path);
  }

  /**
   * Run one canonical call. Never throws: every failure is a ToolResult with `ok: false`,
   * `output: ''` and an error code; a failed call leaves the workspace unchanged.
   */
  exec(call: ToolCall): ToolResult {
    let text: string;
    try {
      text = this.dispatch(call);
    } catch (e) {
      if (!(e instanceof ToolError)) throw e; // a bug in this file, not a policy error
      const max = this.limits.maxOutputChars;
      const message = e.message.length > max ? e.message.slice(0, max - 1) + '…' : e.message;
      return { ok: false, output: '', error: { code: e.code, message } };
    }
    const { output, droppedChars } = capOutput(text, this.limits.maxOutputChars);
    return droppedChars > 0 ? { ok: true, output, truncated: { droppedChars } } : { ok: true, output };
  }

  private dispatch(call: ToolCall): string {
    if (!call || typeof call !== 'object') throw new ToolError('bad_args', 'a tool call must be an object {tool, args}');
    const tool = call.tool;
    if (typeof tool !== 'string' || !(TOOL_NAMES as readonly string[]).includes(tool)) {
      throw new ToolError('unknown_tool', `unknown tool ${JSON.stringify(String(tool)).slice(0, 80)}; tools: ${TOOL_NAMES.join(', ')}`);
    }
    const spec = TOOL_ARGS[tool];
    const args = call.args ?? {};
    if (typeof args !== 'object' || Array.isArray(args)) throw new ToolError('bad_args', `${tool}: args must be an object`);
    for (const k of Object.keys(args)) {
      if (!spec.required.includes(k) && !spec.optional.includes(k)) {
        const allowed = [...spec.required, ...spec.optional];
        throw new ToolError(
          'bad_args',
          `${tool}: unknown argument ${JSON.stringify(k).slice(0, 80)}; expected ${allowed.length ? allowed.join(', ') : 'none'}`,
        );
      }
      if (typeof args[k] !== 'string') throw new ToolError('bad_args', `${tool}: argument ${k} must be a string`);
    }
    for (const k of spec.required) {
      if (!(k in args)) throw new ToolError('bad_args', `${tool}: missing argument ${k}`);
    }
    const path = (k: string, dflt?: string) => normalizePath(k in args ? args[k] : (dflt as string), this.limits.maxPathChars);
    switch (tool) {
      case 'list':
        return this.list(path('path', '/'));
      case 'read':
        return this.read(path('path'));
      case 'write':
        return this.write(path('path'), args.content, false);
      case 'append':
        return this.write(path('path'), args.content, true);
      case 'move':
        return this.move(path('from'), path('to'));
      case 'delete':
        return this.remove(path('path'));
      case 'search':
        return this.search(args.query, path('path', '/'));
      case 'mkdir':
        return this.mkdir(path('path'));
      case 'finish':
        return args.answer ?? '';
    }
  }

  /** Throws when a proper ancestor of `p` is a file; returns whether all ancestors exist. */
  private parentsExist(tool: string, p: string): boolean {
    for (const a of ancestors(p)) {
      if (this.files.has(a)) throw new ToolError('not_a_directory', `${tool}: ${a} is a file, not a directory (in ${p})`);
      if (!this.dirs.has(a)) return false;
    }
    return true;
  }

  private missing(tool: string, p: string): ToolError {
    this.parentsExist(tool, p); // a file in the way is the more precise error
    return new ToolError('not_found', `${tool}: ${p}: no such file or directory`);
  }

  /** Directories that `mkdir -p p` would create (root first); throws through a file. */
  private dirsToCreate(tool: string, p: string, includeSelf: boolean): string[] {
    this.parentsExist(tool, p);
    const chain = includeSelf ? [...ancestors(p), p] : ancestors(p);
    const fresh = chain.filter((d) => !this.dirs.has(d));
    if (this.dirs.size + fresh.length > this.limits.maxDirs) {
      throw new ToolError('limit', `${tool}: the workspace already holds ${this.dirs.size} directories (limit ${this.limits.maxDirs})`);
    }
    return fresh;
  }

  private list(p: string): string {
    if (this.files.has(p)) throw new ToolError('not_a_directory', `list: ${p} is a file; use read`);
    if (!this.dirs.has(p)) throw this.missing('list', p);
    const entries: string[] = [];
    for (const d of this.dirs) if (d !== '/' && parentPath(d) === p) entries.push(d + '/');
    for (const f of this.files.keys()) if (parentPath(f) === p) entries.push(f);
    entries.sort(cmp);
    return entries.length ? entries.join('\n') : '(empty directory)';
  }

  private read(p: string): string {
    const c = this.files.get(p);
    if (c !== undefined) return c;
    if (this.dirs.has(p)) throw new ToolError('is_a_directory', `read: ${p} is a directory; use list`);
    throw this.missing('read', p);
  }

  private write(p: string, content: string, append: boolean): string {
    const tool = append ? 'append' : 'write';
    if (this.dirs.has(p)) throw new ToolError('is_a_directory', `${tool}: ${p} is a directory`);
    const fresh = this.dirsToCreate(tool, p, false);
    const old = this.files.get(p);
    const next = append && old !== undefined ? old + content : content;
    if (next.length > this.limits.maxFileChars) {
      throw new ToolError('too_large', `${tool}: ${p} would hold ${next.length} chars (limit ${this.limits.maxFileChars})`);
    }
    if (old === undefined && this.files.size >= this.limits.maxFiles) {
      throw new ToolError('limit', `${tool}: the workspace already holds ${this.files.size} files (limit ${this.limits.maxFiles})`);
    }
    for (const d of fresh) this.dirs.add(d);
    this.files.set(p, next);
    return append ? `appended ${content.length} chars to ${p} (now ${next.length})` : `wrote ${content.length} chars to ${p}`;
  }

  private mkdir(p: string): string {
    if (this.files.has(p)) throw new ToolError('exists', `mkdir: ${p} is a file`);
    if (this.dirs.has(p)) return `${p} already exists`;
    for (const d of this.dirsToCreate('mkdir', p, true)) this.dirs.add(d);
    return `created ${p}/`;
  }

  private remove(p: string): string {
    if (p === '/') throw new ToolError('invalid_path', 'delete: cannot delete the workspace root');
    if (this.files.has(p)) {
      this.files.delete(p);
      return `deleted ${p}`;
    }
    if (!this.dirs.has(p)) throw this.missing('delete', p);
    let n = 0;
    for (const f of [...this.files.keys()]) if (isWithin(f, p)) this.files.delete(f), n++;
    for (const d of [...this.dirs]) if (isWithin(d, p)) this.dirs.delete(d);
    return `deleted ${p}/ (${n} file${n === 1 ? '' : 's'})`;
  }

  private move(from: string, to: string): string {
    if (from === '/') throw new ToolError('invalid_path', 'move: cannot move the workspace root');
    const isFile = this.files.has(from);
    if (!isFile && !this.dirs.has(from)) throw this.missing('move', from);
    // `mv x dir` semantics: an existing directory as destination means "into it".
    const dest = this.dirs.has(to) ? (to === '/' ? '' : to) + '/' + baseName(from) : to;
    if (dest === from) throw new ToolError('invalid_path', `move: ${from} is already at ${dest}`);
    if (!isFile && isWithin(dest, from)) throw new ToolError('invalid_path', `move: cannot move ${from} into itself (${dest})`);
    if (this.files.has(dest) || this.dirs.has(dest)) throw new ToolError('exists', `move: ${dest} already exists`);
    const fresh = this.dirsToCreate('move', dest, false);
    for (const d of fresh) this.dirs.add(d);
    if (isFile) {
      this.files.set(dest, this.files.get(from)!);
      this.files.delete(from);
      return `moved ${from} to ${dest}`;
    }
    const re = (q: string) => dest + q.slice(from.length);
    for (const d of [...this.dirs].sort(cmp)) if (isWithin(d, from)) this.dirs.delete(d), this.dirs.add(re(d));
    for (const f of [...this.files.keys()].sort(cmp)) {
      if (isWithin(f, from)) {
        const c = this.files.get(f)!;
        this.files.delete(f);
        this.files.set(re(f), c);
      }
    }
    return `moved ${from}/ to ${dest}/`;
  }

  private search(query: string, under: string): string {
    const q = query.trim().toLowerCase();
    if (q === '') throw new ToolError('bad_args', 'search: query must not be empty');
    if (q.length > MAX_QUERY_CHARS) throw new ToolError('bad_args', `search: query is ${q.length} chars (limit ${MAX_QUERY_CHARS})`);
    if (!this.files.has(under) && !this.dirs.has(under)) throw this.missing('search', under);
    const hits: string[] = [];
    const paths = [...this.files.keys()].filter((f) => isWithin(f, under)).sort(cmp);
    for (const d of [...this.dirs].sort(cmp)) {
      if (d !== '/' && isWithin(d, under) && baseName(d).toLowerCase().includes(q)) hits.push(d + '/');
    }
    for (const f of paths) {
      if (baseName(f).toLowerCase().includes(q)) hits.push(f);
      const lines = this.files.get(f)!.split('\n');
      for (let i = 0; i < lines.length; i++) {
        if (lines[i].toLowerCase().includes(q)) {
          const line = lines[i].length > SEARCH_LINE_CHARS ? lines[i].slice(0, SEARCH_LINE_CHARS) + '…' : lines[i];
          hits.push(`${f}:${i + 1}: ${line}`);
        }
      }
    }
    return hits.length ? hits.join('\n') : `no matches for ${JSON.stringify(query.trim())}`;
  }
}

/**
 * The contract between sandboxes, task suites and harnesses (docs/ARCHITECTURE.md "Sandbox, tasks and behaviour tags").
 *
 * One canonical tool set lives under every harness. Harnesses rename tools and arguments and
 * change the call syntax (T), but what reaches the sandbox is always a `ToolCall` below, and
 * what comes back is a `ToolResult` that O renders. Pure data: structured-clonable, JSON-safe.
 */

/** The canonical tools. Mail, calendar, notes and the table store are reached through them. */
export const TOOL_NAMES = ['list', 'read', 'write', 'append', 'move', 'delete', 'search', 'mkdir', 'finish'] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

/**
 * Canonical arguments, all strings:
 * list {path}, read {path}, write {path, content}, append {path, content}, move {from, to},
 * delete {path}, search {query, path?}, mkdir {path}, finish {answer?}.
 */
export interface ToolCall {
  tool: ToolName;
  args: Record<string, string>;
}

export type ToolErrorCode =
  | 'not_found'
  | 'not_a_directory'
  | 'is_a_directory'
  | 'exists'
  | 'outside_root'
  | 'invalid_path'
  | 'too_large'
  | 'limit'
  | 'bad_args'
  | 'unknown_tool';

export interface ToolResult {
  ok: boolean;
  /** Text the tool produced (already capped; see `truncated`). Empty on error. */
  output: string;
  error?: { code: ToolErrorCode; message: string };
  /** Present when output was cut: how many characters were dropped. */
  truncated?: { droppedChars: number };
}

/** A whole sandbox state, JSON-safe (checkpoints, replay, verifiers). */
export interface SandboxState {
  version: 1;
  /** Absolute normalized path ('/a/b.txt') → file content. Directories listed separately. */
  files: Record<string, string>;
  /** Absolute normalized directory paths, '/' included. */
  dirs: string[];
}

/** One step of an episode as the verifier sees it (never the policy's internals). */
export interface TranscriptStep {
  /** The parsed canonical call, or null when the action failed to parse. */
  call: ToolCall | null;
  result: ToolResult | null;
}

export interface Transcript {
  steps: TranscriptStep[];
  /** The `finish` answer, or null when the episode never finished. */
  answer: string | null;
}

/**
 * Hard limits of one sandbox (tools have output caps: docs/ARCHITECTURE.md "Sandbox, tasks and behaviour tags"). Units: characters
 * (UTF-16 code units, i.e. `string.length`) and counts.
 */
export interface SandboxLimits {
  /** Largest file content a write/append may produce. Default 8192. */
  maxFileChars: number;
  /** Most files the workspace may hold (directories not counted). Default 256. */
  maxFiles: number;
  /** Most directories the workspace may hold, '/' included. Default 256. */
  maxDirs: number;
  /** Cap on a ToolResult's `output`, truncation note included. Default 2000, minimum 64. */
  maxOutputChars: number;
  /** Longest accepted path string (before normalization). Default 256. */
  maxPathChars: number;
}

/**
 * The words procedural envelope names are composed of (procedural_envelope.ts), and the names no
 * draw may produce. Real words only: the names must carry their meaning, so a tool is found by
 * what its name says, not by its position in a list.
 */
import type { ToolName } from '../sandbox/types';
import { CODING_CLI_TOOLS } from '../harness/blackbox/coding_cli';
import { ASSISTANT_TOOLS } from '../harness/blackbox/assistant';
import { TOOL_SPECS } from '../harness/tools';
import { ARG_WORDS, TOOL_WORDS } from './procedural_surface';

/**
 * Core words of tool names (composed with ENVELOPE_TOOL_NOUNS and the affixes below): the
 * procedural word lists plus more synonyms — real words only, no made-up ones.
 * Why: the black-box names are real words (Read, Edit, exec), chosen by meaning from a list; with
 * made-up names (the procedural kind's NOVEL_NAME_P) the mini base learnt to emit random
 * syllables instead of copying (a scratch run: greedy bb actions like {"tool":"Tipleegai…"}).
 * The tool list is shuffled per draw, so a name is found by its meaning, not its position.
 */
export const ENVELOPE_TOOL_WORDS: Readonly<Record<ToolName, readonly string[]>> = {
  list: [...TOOL_WORDS.list, 'list_dir', 'get_files', 'catalog', 'dir_list'],
  read: [...TOOL_WORDS.read, 'fetch', 'get_file', 'view_file', 'open_file', 'print', 'read_file', 'read_text'],
  write: [...TOOL_WORDS.write, 'save_file', 'set_file', 'write_text', 'create_file'],
  append: [...TOOL_WORDS.append, 'append_text', 'add_text', 'append_lines'],
  move: [...TOOL_WORDS.move, 'move_file', 'rename_file', 'move_path'],
  delete: [...TOOL_WORDS.delete, 'delete_file', 'remove_file', 'drop'],
  search: [...TOOL_WORDS.search, 'search_text', 'find_text', 'search_files', 'grep_files'],
  mkdir: [...TOOL_WORDS.mkdir, 'create_folder', 'make_folder', 'new_directory'],
  finish: [...TOOL_WORDS.finish, 'final_answer', 'respond', 'finalize', 'stop'],
};
/** Core words of argument names: the procedural word lists plus more synonyms (real words only). */
export const ENVELOPE_ARG_WORDS: Readonly<Record<string, readonly string[]>> = {
  path: [...ARG_WORDS.path, 'file_name', 'target_path', 'dir', 'file_ref'],
  content: [...ARG_WORDS.content, 'new_content', 'file_text', 'payload'],
  from: [...ARG_WORDS.from, 'src_path', 'old_path', 'from_path'],
  to: [...ARG_WORDS.to, 'dest_path', 'to_path', 'target_dir'],
  query: [...ARG_WORDS.query, 'search_text', 'text_query', 'needle_text'],
  answer: [...ARG_WORDS.answer, 'final_text', 'reply_text', 'message'],
};

/** A name's comparison form: lower case without '_' and '-' (TodoWrite ~ todo_write, oldText ~ old_text). */
export function normName(name: string): string {
  return name.toLowerCase().replace(/[_-]/g, '');
}

/**
 * Names no envelope draw may produce (in `normName` form): every tool and argument name of the
 * black-box harnesses (held out: the pretraining mix never shows a black-box call) and of T0
 * (a T0 call must not run here, so the names must be read off the prompt).
 */
export const ENVELOPE_BANNED: ReadonlySet<string> = new Set(
  [...CODING_CLI_TOOLS, ...ASSISTANT_TOOLS, ...TOOL_SPECS].flatMap((t) => [t.name, ...t.required, ...t.optional]).map(normName),
);

/**
 * Qualifiers composed around a meaning-carrying word (module doc): a noun (`doc_view`,
 * `text_fetch`), a prefix (`fs_read_file`, `my_save`) or a suffix (`fetch_v2`, `move_op`).
 * Why: with list words only, the mini base learnt the lists and wrote their names under the
 * black-box harnesses instead of the listed ones (docs/PRETRAIN.md); a composed name
 * cannot be predicted from the lists, so it must be copied off the prompt, while its core word
 * keeps the meaning by which the right tool is found.
 */
/** Nouns composed before or after a tool's core word. */
export const ENVELOPE_TOOL_NOUNS: readonly string[] = [
  'doc',
  'text',
  'fs',
  'item',
  'entry',
  'note',
  'blob',
  'page',
  'disk',
  'node',
  'data',
  'obj',
  'record',
  'dir',
];
/** Tool-name prefixes. */
export const ENVELOPE_PREFIXES: readonly string[] = [
  'x',
  'my',
  'ws',
  'sys',
  'agent',
  'tool',
  'do',
  'run',
  'api',
  'io',
  'local',
  'vm',
  'sh',
  'core',
];
/** Tool-name suffixes. */
export const ENVELOPE_SUFFIXES: readonly string[] = [
  'v2',
  'op',
  'cmd',
  'tool',
  'now',
  'fn',
  'act',
  'call',
  'one',
  'ex',
  'safe',
  'all',
  'go',
  'it',
];
/** Argument-name prefixes (argument qualifiers are short: arguments are written in every call). */
export const ENVELOPE_ARG_PREFIXES: readonly string[] = ['doc', 'item', 'fs', 'in', 'the', 'my', 'raw', 'full', 'x', 'abs', 'main'];
/** Argument-name suffixes. */
export const ENVELOPE_ARG_SUFFIXES: readonly string[] = ['ref', 'str', 'val', 'arg', 'id', 'spec', 'v', 'in', 'txt', 'loc'];

/**
 * Procedural tool interfaces in the policy's native call envelope (docs/PRETRAIN.md "Procedural
 * envelope harnesses"): T0's `{"tool":NAME,"args":{ARG:"value"}}` with drawn names composed
 * around a real word, and often no finish tool (a plain-text message is the final reply). They
 * teach the base to read tool names off the prompt and to end with a reply, as the black-box
 * harnesses require.
 *
 * Invariants (tests/unit/pretrain_procedural_envelope.test.ts): no drawn name equals
 * (`normName`) a T0 or black-box tool or argument name; `parse(format(call))` deep-equals `call`,
 * except that a reply-ending `finish` without an answer round-trips as 'Done.'.
 */
import type { ToolCall, ToolName } from '../sandbox/types';
import { CODING_CLI_TOOLS } from '../harness/blackbox/coding_cli';
import { ASSISTANT_TOOLS } from '../harness/blackbox/assistant';
import { isCallAttempt } from '../harness/blackbox/envelope';
import { describeEnvelope, readEnvelope, writeEnvelope } from '../harness/realizations/tool_interface';
import { TOOL_SPECS, type ToolSpec } from '../harness/tools';
import type { Rng } from '../util/rng';
import { ARG_WORDS, argDoc, Names, TOOL_WORDS, type ProcToolInterface } from './procedural_surface';

/** Share of envelope interfaces that end with a plain-text reply instead of a finish call. */
export const ENVELOPE_REPLY_P = 0.7;

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

const TOOL_CASES = ['lower', 'capital', 'upper', 'camel', 'pascal'] as const;
const ARG_CASES = ['snake', 'camel'] as const;
type NameCase = (typeof TOOL_CASES)[number] | (typeof ARG_CASES)[number];

/** `word` ([a-z_]+) in casing `c`; 'upper' only for words of ≤ 4 letters (LS-like), else 'pascal'. */
function cased(word: string, c: NameCase): string {
  const parts = word.split('_').filter((p) => p !== '');
  const cap = (p: string) => p[0].toUpperCase() + p.slice(1);
  switch (c) {
    case 'lower':
    case 'snake':
      return word;
    case 'capital':
      return cap(word);
    case 'upper':
      return word.replace(/_/g, '').length <= 4 ? word.toUpperCase() : parts.map(cap).join('');
    case 'camel':
      return parts[0] + parts.slice(1).map(cap).join('');
    case 'pascal':
      return parts.map(cap).join('');
  }
}

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

/** Probabilities of each qualifier on a tool name (independent), and of one on an argument name. */
const P_NOUN = 0.45;
const P_PREFIX = 0.35;
const P_SUFFIX = 0.35;
const P_ARG_QUALIFIER = 0.75;
/** Redraws before a name slot is declared unfillable (a word-list bug); far above what any slot needs. */
const MAX_REDRAWS = 200;

/** A tool name in `_`-joined parts: a core word of `words`, maybe a noun before or after it, a prefix, a suffix. */
function composeToolName(rng: Rng, words: readonly string[]): string {
  const parts = [rng.pick(words)];
  if (rng.float() < P_NOUN) {
    const noun = rng.pick(ENVELOPE_TOOL_NOUNS);
    if (rng.float() < 0.5) parts.unshift(noun);
    else parts.push(noun);
  }
  if (rng.float() < P_PREFIX) parts.unshift(rng.pick(ENVELOPE_PREFIXES));
  if (rng.float() < P_SUFFIX) parts.push(rng.pick(ENVELOPE_SUFFIXES));
  return parts.join('_');
}

/** An argument name: a core word of `words`, with probability P_ARG_QUALIFIER a prefix or a suffix. */
function composeArgName(rng: Rng, words: readonly string[]): string {
  const core = rng.pick(words);
  if (rng.float() >= P_ARG_QUALIFIER) return core;
  return rng.float() < 0.5 ? `${rng.pick(ENVELOPE_ARG_PREFIXES)}_${core}` : `${core}_${rng.pick(ENVELOPE_ARG_SUFFIXES)}`;
}

/**
 * One composed name over `words` (`compose`), never banned nor taken (`normName` forms), in casing `c`.
 * @throws Error when MAX_REDRAWS draws all collide (a word-list bug)
 */
function drawEnvelopeName(
  rng: Rng,
  words: readonly string[],
  taken: Set<string>,
  c: NameCase,
  compose: (rng: Rng, words: readonly string[]) => string,
): string {
  for (let i = 0; i < MAX_REDRAWS; i++) {
    const w = compose(rng, words);
    const norm = normName(w);
    if (taken.has(norm) || ENVELOPE_BANNED.has(norm)) continue;
    taken.add(norm);
    return cased(w, c);
  }
  throw new Error(`proceduralEnvelopeInterface: no free name over ${words.join(', ')}`);
}

/**
 * A procedural interface in T0's envelope with drawn names (module doc), drawn from `rng`.
 * Surface detail: { toolCase, argCase, reply: 'true' | 'false', order: canonical tool names in docs order }.
 */
export function proceduralEnvelopeInterface(rng: Rng): ProcToolInterface {
  const toolCase = rng.pick(TOOL_CASES);
  const argCase = rng.pick(ARG_CASES);
  const reply = rng.float() < ENVELOPE_REPLY_P;
  const taken = new Set<string>();
  const toolNames = {} as Record<ToolName, string>;
  for (const s of TOOL_SPECS) toolNames[s.name] = drawEnvelopeName(rng, ENVELOPE_TOOL_WORDS[s.name], taken, toolCase, composeToolName);
  const argNames: Record<string, string> = {};
  for (const a of Object.keys(ENVELOPE_ARG_WORDS))
    argNames[a] = drawEnvelopeName(rng, ENVELOPE_ARG_WORDS[a], taken, argCase, composeArgName);
  const order = rng.shuffle(TOOL_SPECS.map((s) => s.name));
  const example = writeEnvelope(toolNames.read, { [argNames.path]: '/notes.txt' });
  const expected = `expected one JSON object like ${example}`;
  const n = new Names(toolNames, argNames, expected);
  /** The tools the docs list, in the drawn order; a reply-ending draw has no finish tool. */
  const shown = (tools: readonly ToolSpec[]) =>
    [...tools].filter((s) => !reply || s.name !== 'finish').sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
  return {
    id: 'Penvelope-call',
    name: 'procedural-envelope',
    expected,
    toolName: (tool: ToolName) => toolNames[tool],
    surface: { syntax: 'envelope', toolNames, argNames, detail: { toolCase, argCase, reply: String(reply), order: order.join(',') } },
    describe: (tools = TOOL_SPECS) =>
      describeEnvelope(
        shown(tools).map((s) => ({
          name: toolNames[s.name],
          required: s.required.map((a) => argNames[a]),
          optional: s.optional.map((a) => argNames[a]),
        })),
      ),
    format(call: ToolCall) {
      const pairs = n.pairs(call);
      if (reply && call.tool === 'finish') {
        const answer = call.args.answer ?? 'Done.';
        if (isCallAttempt(answer))
          throw new Error(`format: a reply starting with '{' reads as a call attempt: ${JSON.stringify(answer.slice(0, 40))}`);
        return answer;
      }
      return writeEnvelope(toolNames[call.tool], Object.fromEntries(pairs));
    },
    parse(text: string) {
      if (reply && !isCallAttempt(text)) return { tool: 'finish', args: { answer: text.trim() } };
      const env = readEnvelope(text, expected);
      if ('error' in env) return env;
      const spec = n.spec(env.tool);
      if ('error' in spec) return spec;
      if (reply && spec.name === 'finish')
        return {
          error: `unknown tool '${env.tool}': reply in plain text to finish (tools: ${shown(TOOL_SPECS)
            .map((s) => `${toolNames[s.name]}{${argDoc(s, argNames)}}`)
            .join(' ')})`,
        };
      return n.build(spec, Object.entries(env.args));
    },
  };
}

/**
 * Procedural tool interfaces in the policy's native call envelope (docs/PRETRAIN.md "Procedural
 * envelope harnesses"): T0's `{"tool":NAME,"args":{ARG:"value"}}`, byte for byte in form, with
 * drawn tool and argument names, and — with probability ENVELOPE_REPLY_P — no finish tool: a
 * message that does not start with `{` is the final reply and its text the answer.
 *
 * Why: the black-box harnesses (src/harness/blackbox/) talk to the policy through this envelope
 * with their own names (Claude Code's Read/Edit/LS…, OpenClaw's read/exec…) and end an episode
 * with a plain-text reply. A base that has only seen T0's names and a finish call answers them
 * with `read` and `finish`. Demonstrations under these interfaces make the names something to
 * read off the prompt's tool list, in the same `Tools: name{arg,opt?}` docs the black-box
 * prompts use, and show a reply as an ending.
 *
 * Held out by construction (tested in tests/unit/pretrain_procedural_envelope.test.ts): no drawn
 * name equals, case- and separator-insensitively (`normName`), a tool or argument name of either
 * black-box harness or of T0 — so a black-box call is never a demonstrated call, and no T0 call
 * runs under these interfaces. Names take one casing per interface (view, View, VIEW, viewFile,
 * ViewFile for tools; snake_case or camelCase for arguments), since the black-box names are cased.
 * Invariant: `parse(format(call))` deep-equals `call`, except that a reply-ending `finish`
 * without an answer is written 'Done.' (as the black-box expert writes it) and read back with
 * that answer.
 */
import type { ToolCall, ToolName } from '../sandbox/types';
import { CODING_CLI_TOOLS } from '../harness/blackbox/coding_cli';
import { ASSISTANT_TOOLS } from '../harness/blackbox/assistant';
import { isCallAttempt } from '../harness/blackbox/envelope';
import { describeEnvelope, readEnvelope, writeEnvelope } from '../harness/realizations/tool_interface';
import { TOOL_SPECS, type ToolSpec } from '../harness/tools';
import type { Rng } from '../util/rng';
import { ARG_WORDS, argDoc, Names, NOVEL_NAME_P, novelName, TOOL_WORDS, type ProcToolInterface } from './procedural_tools';

/** Share of envelope interfaces that end with a plain-text reply instead of a finish call. */
export const ENVELOPE_REPLY_P = 0.7;

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

/** One name from `words` (or, with NOVEL_NAME_P, made up), never banned nor taken (`normName` forms). */
function drawEnvelopeName(rng: Rng, words: readonly string[], taken: Set<string>, c: NameCase): string {
  const ok = (w: string) => !taken.has(normName(w)) && !ENVELOPE_BANNED.has(normName(w));
  const free = words.filter(ok);
  let w = free.length === 0 || rng.float() < NOVEL_NAME_P ? '' : rng.pick(free);
  while (w === '' || !ok(w)) w = novelName(rng, new Set());
  taken.add(normName(w));
  return cased(w, c);
}

/**
 * A procedural interface in T0's envelope with drawn names (module doc), drawn from `rng`.
 * Surface detail: { toolCase, argCase, reply: 'true' | 'false' }.
 */
export function proceduralEnvelopeInterface(rng: Rng): ProcToolInterface {
  const toolCase = rng.pick(TOOL_CASES);
  const argCase = rng.pick(ARG_CASES);
  const reply = rng.float() < ENVELOPE_REPLY_P;
  const taken = new Set<string>();
  const toolNames = {} as Record<ToolName, string>;
  for (const s of TOOL_SPECS) toolNames[s.name] = drawEnvelopeName(rng, TOOL_WORDS[s.name], taken, toolCase);
  const argNames: Record<string, string> = {};
  for (const a of Object.keys(ARG_WORDS)) argNames[a] = drawEnvelopeName(rng, ARG_WORDS[a], taken, argCase);
  const example = writeEnvelope(toolNames.read, { [argNames.path]: '/notes.txt' });
  const expected = `expected one JSON object like ${example}`;
  const n = new Names(toolNames, argNames, expected);
  const shown = (tools: readonly ToolSpec[]) => (reply ? tools.filter((s) => s.name !== 'finish') : tools);
  return {
    id: 'Penvelope-call',
    name: 'procedural-envelope',
    expected,
    toolName: (tool: ToolName) => toolNames[tool],
    surface: { syntax: 'envelope', toolNames, argNames, detail: { toolCase, argCase, reply: String(reply) } },
    describe: (tools = TOOL_SPECS) =>
      describeEnvelope(shown(tools).map((s) => ({ name: toolNames[s.name], required: s.required.map((a) => argNames[a]), optional: s.optional.map((a) => argNames[a]) }))),
    format(call: ToolCall) {
      const pairs = n.pairs(call);
      if (reply && call.tool === 'finish') {
        const answer = call.args.answer ?? 'Done.';
        if (isCallAttempt(answer)) throw new Error(`format: a reply starting with '{' reads as a call attempt: ${JSON.stringify(answer.slice(0, 40))}`);
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

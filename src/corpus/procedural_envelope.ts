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
import { isCallAttempt } from '../harness/blackbox/envelope';
import { describeEnvelope, readEnvelope, writeEnvelope } from '../harness/realizations/tool_interface';
import { TOOL_SPECS, type ToolSpec } from '../harness/tools';
import type { Rng } from '../util/rng';
import { argDoc, Names, type ProcToolInterface } from './procedural_surface';
import {
  ENVELOPE_ARG_PREFIXES,
  ENVELOPE_ARG_SUFFIXES,
  ENVELOPE_ARG_WORDS,
  ENVELOPE_BANNED,
  ENVELOPE_PREFIXES,
  ENVELOPE_SUFFIXES,
  ENVELOPE_TOOL_NOUNS,
  ENVELOPE_TOOL_WORDS,
  normName,
} from './envelope_words';

/** Share of envelope interfaces that end with a plain-text reply instead of a finish call. */
const ENVELOPE_REPLY_P = 0.7;

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

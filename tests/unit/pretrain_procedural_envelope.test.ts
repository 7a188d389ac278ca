/**
 * Procedural envelope harnesses (src/corpus/procedural_envelope.ts): T0's call envelope with
 * drawn names. They round-trip arbitrary strings, never draw a black-box harness's or T0's tool
 * or argument name (case- and separator-insensitively), accept no black-box or T0 call, describe
 * their tools the way the black-box prompts do, end with a plain-text reply in about
 * 70 % of draws, are deterministic in the seed, and the expert passes under them.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { toolCallOf } from './lib/tool_call_arbitrary';
import { CODING_CLI_TOOLS } from '../../src/harness/blackbox/coding_cli';
import { ASSISTANT_TOOLS } from '../../src/harness/blackbox/assistant';
import { formatCall, isCallAttempt } from '../../src/harness/blackbox/envelope';
import { isParseError, readEnvelope, TOOL_INTERFACES } from '../../src/harness/realizations/tool_interface';
import { TOOL_SPECS } from '../../src/harness/tools';
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
} from '../../src/corpus/envelope_words';
import { proceduralEnvelopeInterface } from '../../src/corpus/procedural_envelope';
import { createProceduralHarness, runProceduralExpert } from '../../src/corpus/procedural_harness';
import { demoTasks } from '../../src/pretrain/sft';
import type { ToolCall, ToolName } from '../../src/sandbox/types';
import { Rng } from '../../src/util/rng';

/** The tool interfaces T0 (json), T1 (shell), T2 (tagged), in id order. */
const [T0] = TOOL_INTERFACES;

const DRAWS = Array.from({ length: 400 }, (_, i) => proceduralEnvelopeInterface(Rng.derive(5, 'envelope-test', i)));

const value = fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('', ' ', '{', ' {"tool":"x"}', 'Done.', 'a\nb', '"', '\\', 'é💥'));
const canonicalCall = toolCallOf(value);

const TOOL_QUALIFIERS = [...ENVELOPE_TOOL_NOUNS, ...ENVELOPE_PREFIXES, ...ENVELOPE_SUFFIXES].map(normName);
const ARG_QUALIFIERS = [...ENVELOPE_ARG_PREFIXES, ...ENVELOPE_ARG_SUFFIXES].map(normName);

/** Whether `s` (normName form) is a run of at most `k` words of `qualifiers`. */
function qualifierRun(s: string, qualifiers: readonly string[], k: number): boolean {
  if (s === '') return true;
  return k > 0 && qualifiers.some((q) => s.startsWith(q) && qualifierRun(s.slice(q.length), qualifiers, k - 1));
}

/**
 * Whether `name` (any casing) is a word of `words` with at most 3 qualifiers around it, split
 * before and after (the compositional form), checked over every occurrence of every word.
 */
function composedOf(name: string, words: readonly string[], qualifiers: readonly string[]): boolean {
  const n = normName(name);
  return words.map(normName).some((w) => {
    for (let i = n.indexOf(w); i >= 0; i = n.indexOf(w, i + 1))
      for (let k = 0; k <= 3; k++)
        if (qualifierRun(n.slice(0, i), qualifiers, k) && qualifierRun(n.slice(i + w.length), qualifiers, 3 - k)) return true;
    return false;
  });
}

/** Every name of a black-box harness, as written in its definition. */
const BLACKBOX_NAMES = [...CODING_CLI_TOOLS, ...ASSISTANT_TOOLS].flatMap((t) => [t.name, ...t.required, ...t.optional]);

describe('procedural envelope harnesses', () => {
  it('parse(format(call)) is the call; a reply-ending finish reads back as the trimmed reply (Done. when no answer)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: DRAWS.length - 1 }), canonicalCall, (i, call) => {
        const P = DRAWS[i];
        const reply = P.surface.detail.reply === 'true';
        if (reply && call.tool === 'finish') {
          const answer = call.args.answer ?? 'Done.';
          if (isCallAttempt(answer)) {
            expect(() => P.format(call)).toThrow(/reads as a call attempt/);
            return;
          }
          const text = P.format(call);
          expect(isCallAttempt(text)).toBe(false);
          expect(P.parse(text)).toEqual({ tool: 'finish', args: { answer: answer.trim() } });
        } else {
          const text = P.format(call);
          expect(readEnvelope(text, '')).not.toHaveProperty('error'); // T0's envelope, in form
          expect(P.parse(`  ${text}\n`)).toEqual(call);
        }
      }),
      { numRuns: 600 },
    );
  });

  it('never draws a black-box or T0 name, case- and separator-insensitively; names are distinct within a draw', () => {
    // The banned set is built from the harness definitions; check it holds the names the prompts show.
    for (const n of [
      ...BLACKBOX_NAMES,
      'Read',
      'LS',
      'TodoWrite',
      'todo_write',
      'FILE_PATH',
      'oldText',
      'old_text',
      'exec',
      'finish',
      'answer',
    ])
      expect(ENVELOPE_BANNED.has(normName(n)), n).toBe(true);
    const lowerBlackbox = new Set(BLACKBOX_NAMES.map((n) => n.toLowerCase()));
    for (const P of DRAWS) {
      const names = [...Object.values(P.surface.toolNames), ...Object.values(P.surface.argNames)];
      for (const n of names) {
        expect(ENVELOPE_BANNED.has(normName(n)), n).toBe(false);
        expect(lowerBlackbox.has(n.toLowerCase()), n).toBe(false);
      }
      expect(new Set(names.map(normName)).size).toBe(names.length);
      // meaning kept: each name is a word of its list, with qualifiers from the composition lists around it
      for (const [tool, n] of Object.entries(P.surface.toolNames))
        expect(composedOf(n, ENVELOPE_TOOL_WORDS[tool as ToolName], TOOL_QUALIFIERS), n).toBe(true);
      for (const [arg, n] of Object.entries(P.surface.argNames))
        expect(composedOf(n, ENVELOPE_ARG_WORDS[arg], ARG_QUALIFIERS), n).toBe(true);
    }
    // the docs list the tools in a drawn order
    expect(new Set(DRAWS.map((P) => P.surface.detail.order)).size).toBeGreaterThan(DRAWS.length / 2);
  });

  it('names are not predictable from the word lists: most are composed, and each canonical tool takes many names', () => {
    const toolNames = DRAWS.flatMap((P) => Object.entries(P.surface.toolNames));
    const argNames = DRAWS.flatMap((P) => Object.entries(P.surface.argNames));
    const listed = (n: string, words: readonly string[]) => words.map(normName).includes(normName(n));
    const plainTools = toolNames.filter(([t, n]) => listed(n, ENVELOPE_TOOL_WORDS[t as ToolName])).length / toolNames.length;
    const plainArgs = argNames.filter(([a, n]) => listed(n, ENVELOPE_ARG_WORDS[a])).length / argNames.length;
    // P(no qualifier) = 0.55 · 0.65 · 0.65 ≈ 0.23 for tools, 0.25 for arguments
    expect(plainTools).toBeGreaterThan(0.12);
    expect(plainTools).toBeLessThan(0.35);
    expect(plainArgs).toBeGreaterThan(0.12);
    expect(plainArgs).toBeLessThan(0.38);
    for (const s of TOOL_SPECS) {
      const distinct = new Set(DRAWS.map((P) => normName(P.surface.toolNames[s.name])));
      expect(distinct.size, s.name).toBeGreaterThan(DRAWS.length / 2);
    }
    for (const a of Object.keys(ENVELOPE_ARG_WORDS))
      expect(new Set(DRAWS.map((P) => normName(P.surface.argNames[a]))).size, a).toBeGreaterThan(60);
  });

  it('accepts no black-box call and no T0 call', () => {
    const bbCalls = [
      ...CODING_CLI_TOOLS.map((t) =>
        formatCall(CODING_CLI_TOOLS, { name: t.name, args: Object.fromEntries(t.required.map((a) => [a, 'x'])) }),
      ),
      ...ASSISTANT_TOOLS.map((t) =>
        formatCall(ASSISTANT_TOOLS, { name: t.name, args: Object.fromEntries(t.required.map((a) => [a, 'x'])) }),
      ),
    ];
    const t0Calls = TOOL_SPECS.map((s) =>
      T0.format({ tool: s.name, args: Object.fromEntries(s.required.map((a) => [a, 'x'])) } as ToolCall),
    );
    for (const P of DRAWS.slice(0, 80))
      for (const text of [...bbCalls, ...t0Calls])
        expect(isParseError(P.parse(text)), `${P.surface.toolNames.read} accepted ${text}`).toBe(true);
  });

  it("docs in the black-box prompts' form; reply draws list no finish tool; casings and both endings are drawn", () => {
    const replies = DRAWS.filter((P) => P.surface.detail.reply === 'true');
    // 70 % of draws end with a plain-text reply.
    expect(replies.length / DRAWS.length).toBeGreaterThan(0.7 - 0.08);
    expect(replies.length / DRAWS.length).toBeLessThan(0.7 + 0.08);
    expect(new Set(DRAWS.map((P) => P.surface.detail.toolCase))).toEqual(new Set(['lower', 'capital', 'upper', 'camel', 'pascal']));
    expect(new Set(DRAWS.map((P) => P.surface.detail.argCase))).toEqual(new Set(['snake', 'camel']));
    for (const P of DRAWS.slice(0, 40)) {
      const docs = P.describe(TOOL_SPECS);
      expect(docs).toMatch(/^Tools: .*\nCall: \{"tool":NAME,"args":\{ARG:"value"\}\}$/);
      expect(docs.includes(`${P.surface.toolNames.read}{${P.surface.argNames.path}`)).toBe(true);
      const listsFinish = docs.includes(` ${P.surface.toolNames.finish}{`);
      expect(listsFinish).toBe(P.surface.detail.reply !== 'true');
    }
  });

  it('a harness draw is deterministic in its seed, and its prompt says how to end', () => {
    const task = demoTasks(1, 3, 1)[0];
    const open = (seed: number) => {
      const h = createProceduralHarness(seed, { syntax: 'envelope' });
      h.reset(task);
      return {
        h,
        text: h
          .view()
          .map((m) => m.text)
          .join('\n'),
      };
    };
    expect(open(11).text).toBe(open(11).text);
    expect(open(11).text).not.toBe(open(12).text);
    for (let seed = 0; seed < 30; seed++) {
      const { h, text } = open(seed);
      expect(h.id).toBe(`proc-${seed}-envelope`);
      if (h.tool.surface.detail.reply === 'true') expect(text).toMatch(/plain text|normal message/);
      else expect(text).toContain(h.tool.surface.toolNames.finish);
    }
  });

  it('the expert passes under envelope harnesses; reply draws end with a plain-text message', () => {
    const tasks = demoTasks(24, 9, 1);
    let replies = 0;
    tasks.forEach((t, i) => {
      const ep = runProceduralExpert(t, 300 + i, { syntax: 'envelope' });
      expect(ep.pass, `${t.id}: ${ep.error}`).toBe(true);
      const last = ep.turns[ep.turns.length - 1].action;
      const h = createProceduralHarness(300 + i, { syntax: 'envelope' });
      if (h.tool.surface.detail.reply === 'true') {
        replies++;
        expect(isCallAttempt(last)).toBe(false);
      } else expect(isCallAttempt(last)).toBe(true);
    });
    expect(replies).toBeGreaterThan(0);
  });
});

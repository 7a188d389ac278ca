/**
 * Procedural harnesses (src/corpus/procedural_*.ts): every syntax round-trips arbitrary
 * strings, parse never throws, no procedural interface or prompt coincides with the evaluated
 * realizations (T0/T1/T2, S0/S1/S2) or the black-box syntaxes, draws are deterministic in the
 * seed, and the expert passes every task of a sample under procedural harnesses.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { nastyString, toolCallOf } from './lib/tool_call_arbitrary';
import { TOOL_INTERFACES, isParseError } from '../../src/harness/realizations/tool_interface';
import { SYSTEM_PROMPTS } from '../../src/harness/realizations/system';
import { TOOL_SPECS } from '../../src/harness/tools';
import { CODING_CLI_TOOLS, formatCliCall } from '../../src/harness/blackbox/coding_cli';
import { readMessage } from '../../src/harness/blackbox/envelope';
import { assistantCallText } from '../../src/harness/blackbox/assistant';
import { proceduralToolInterface } from '../../src/corpus/procedural_tools';
import { ARG_WORDS, novelName, PROC_SYNTAXES, TOOL_WORDS, type ProcSyntax } from '../../src/corpus/procedural_surface';
import { createProceduralHarness, runProceduralExpert } from '../../src/corpus/procedural_harness';
import { taskSet } from '../../src/tasks';
import type { ToolCall } from '../../src/sandbox/types';
import { Rng } from '../../src/util/rng';

/** The example call composed harnesses show in the prompt (composed.ts). */
const EXAMPLE_CALL: ToolCall = { tool: 'read', args: { path: 'notes.txt' } };

const nasty = nastyString(['(', ')', ',', ';', ':', '=', '-', '--path'], ['$ ', 'run']);

const canonicalCall = toolCallOf(nasty);

/** 12 draws of each syntax (different names, keys, prompts, flags). */
const DRAWN = PROC_SYNTAXES.flatMap((syntax) =>
  Array.from({ length: 12 }, (_, i) => proceduralToolInterface(Rng.derive(77, syntax, i), syntax)),
);
/** The first interface (seeded scan) of each draw that uses a word of T0/T1/T2: the exclusion must hold on them too. */
const EDGES: Array<[ProcSyntax, (P: ReturnType<typeof proceduralToolInterface>) => boolean]> = [
  ['json', (P) => P.surface.detail.opKey === 'tool' && P.surface.detail.nested === 'true'],
  ['json', (P) => P.surface.detail.opKey === 'tool' && P.surface.detail.nested === 'false'],
  ['json', (P) => P.surface.detail.argsKey === 'args' && P.surface.detail.nested === 'true'],
  ['yaml', (P) => P.surface.detail.opKey === 'tool'],
  ['yaml', (P) => P.surface.detail.argsKey === 'args'],
  ['tagged', (P) => JSON.stringify(P.surface.detail).includes('"call"')],
  ['tagged', (P) => JSON.stringify(P.surface.detail).includes('"tool"')],
  ['shell', (P) => P.surface.toolNames.read === 'cat' && P.surface.toolNames.finish === 'done'],
  ['shell', (P) => P.surface.toolNames.write === 'put' && P.surface.detail.prompt === '""'],
  ['shell', (P) => P.surface.toolNames.read === 'cat' && P.surface.detail.positional === 'true' && P.surface.detail.quote === '"'],
  ['shell', (P) => P.surface.detail.prompt === '""' && P.surface.detail.positional === 'true' && P.surface.detail.quote === '"'],
  ['func', (P) => P.surface.toolNames.list === 'ls' && P.surface.toolNames.finish === 'done'],
];
const EDGE_INTERFACES = EDGES.map(([syntax, want]) => {
  for (let i = 0; i < 20000; i++) {
    const P = proceduralToolInterface(Rng.derive(91, syntax, i), syntax);
    if (want(P)) return P;
  }
  throw new Error(`no ${syntax} interface with ${want} in 20000 draws`);
});
const INTERFACES = [...DRAWN, ...EDGE_INTERFACES];

describe('procedural tool interfaces', () => {
  it('draws every syntax and varies names within a syntax', () => {
    for (const s of PROC_SYNTAXES) {
      const forms = new Set(INTERFACES.filter((t) => t.surface.syntax === s).map((t) => t.format(EXAMPLE_CALL)));
      expect(forms.size, `${s} example renderings`).toBeGreaterThanOrEqual(4);
    }
  });

  it('parse(format(call)) deep-equals call for arbitrary strings, with surrounding whitespace', () => {
    fc.assert(
      fc.property(fc.constantFrom(...INTERFACES), canonicalCall, (T, call) => {
        const text = T.format(call);
        expect(T.parse(text)).toEqual(call);
        expect(T.parse(`\n  ${text}  \n`)).toEqual(call);
      }),
      { numRuns: 3000, seed: 11 },
    );
  });

  it('parse never throws; failures name the expected format', () => {
    fc.assert(
      fc.property(fc.constantFrom(...INTERFACES), fc.oneof(nasty, fc.string({ maxLength: 120 })), (T, text) => {
        const r = T.parse(text);
        if (isParseError(r)) expect(r.error).toContain('expected');
        else expect(TOOL_SPECS.map((s) => s.name)).toContain(r.tool);
      }),
      { numRuns: 2000, seed: 5 },
    );
  });

  it('excludes T0/T1/T2 and the black-box syntaxes: different text, and neither side accepts the other', () => {
    fc.assert(
      fc.property(fc.constantFrom(...INTERFACES), canonicalCall, (P, call) => {
        const mine = P.format(call);
        for (const T of TOOL_INTERFACES) {
          const theirs = T.format(call);
          expect(mine).not.toBe(theirs);
          expect(isParseError(P.parse(theirs)), `${P.surface.syntax} accepted ${T.id}: ${theirs}`).toBe(true);
          expect(isParseError(T.parse(mine)), `${T.id} accepted ${P.surface.syntax}: ${mine}`).toBe(true);
        }
        // The coding CLI reads no call in it (a failed attempt or a reply).
        expect('call' in readMessage(mine, CODING_CLI_TOOLS, '')).toBe(false);
        // Black-box calls are T0 envelopes (checked above through T0); append has no form there
        // and finish is a plain-text reply, which is no call syntax at all.
        if (call.tool !== 'append' && call.tool !== 'finish') {
          const theirs = assistantCallText(call);
          expect(mine).not.toBe(theirs);
          expect(isParseError(P.parse(theirs))).toBe(true);
        }
      }),
      { numRuns: 1500, seed: 23 },
    );
    // The coding-cli's calls are not procedural calls either.
    for (const P of INTERFACES) expect(isParseError(P.parse(formatCliCall({ name: 'Read', args: { file_path: 'a.txt' } })))).toBe(true);
  });

  it("shell draws flags and positional arguments, both quote chars; a prompt-less positional one never uses T1's command names", () => {
    const t1 = ['ls', 'cat', 'put', 'add', 'mv', 'rm', 'grep', 'mkdir', 'done'];
    const seen = new Set<string>();
    for (let i = 0; i < 3000; i++) {
      const P = proceduralToolInterface(Rng.derive(131, i), 'shell');
      const d = P.surface.detail;
      seen.add(`${d.positional}${d.quote}`);
      if (d.prompt === '""' && d.positional === 'true') for (const w of t1) expect(Object.values(P.surface.toolNames)).not.toContain(w);
    }
    expect(seen).toEqual(new Set(["true'", 'true"', "false'", 'false"']));
    const v1 = proceduralToolInterface(Rng.derive(131, 'v1'), 'shell', 'v1');
    expect([v1.surface.detail.positional, v1.surface.detail.quote]).toEqual(['false', "'"]);
  });

  it('made-up names: [a-z_]+, never reserved or taken, about half of all drawn names, all distinct within an interface', () => {
    const reserved = ['tool', 'args', 'call', 'ls', 'cat', 'put', 'add', 'mv', 'rm', 'grep', 'mkdir', 'done'];
    const r = new Rng(3);
    for (let i = 0; i < 2000; i++) {
      const taken = new Set(['bala', 'tora']);
      const w = novelName(r, taken);
      expect(w).toMatch(/^[a-z]+(_[a-z]+)?$/);
      expect(reserved).not.toContain(w);
      expect(taken.has(w)).toBe(false);
    }
    const listed = new Set([...Object.values(TOOL_WORDS).flat(), ...Object.values(ARG_WORDS).flat()]);
    let novel = 0;
    let all = 0;
    for (const P of DRAWN) {
      const names = [...Object.values(P.surface.toolNames), ...Object.values(P.surface.argNames)];
      expect(new Set(names).size).toBe(names.length);
      all += names.length;
      novel += names.filter((n) => !listed.has(n)).length;
    }
    expect(novel / all).toBeGreaterThan(0.4);
    expect(novel / all).toBeLessThan(0.6);
  });

  it('a non-canonical call is refused by format with the bad argument named', () => {
    const P = INTERFACES[0];
    expect(() => P.format({ tool: 'read', args: { path: 'a', file: 'x' } } as ToolCall)).toThrow(/unknown argument 'file'/);
  });
});

describe('procedural workflow keywords', () => {
  it("v2: several continuations after 'Plan' and 'Todo' (none to learn by heart), never W1's 'Plan:' nor W2's 'Todo:'; v1 has none of them", () => {
    const words = (surfaces: 'v1' | 'v2') =>
      Array.from({ length: 3000 }, (_, i) => createProceduralHarness(i, { surfaces }).surface.W.detail.keyword).filter(
        (w): w is string => typeof w === 'string',
      );
    const v2 = words('v2');
    const continuations = (prefix: string) =>
      new Set(v2.filter((w) => w.startsWith(prefix)).map((w) => w.slice(prefix.length, prefix.length + 2)));
    expect(continuations('Plan').size).toBeGreaterThanOrEqual(4);
    expect(continuations('Todo').size).toBeGreaterThanOrEqual(3);
    expect(v2.some((w) => w === 'Plan:' || w === 'Todo:')).toBe(false);
    expect(words('v1').some((w) => /^(Plan|Todo|To-do)/.test(w))).toBe(false);
  });
});

describe('procedural harnesses', () => {
  const task = taskSet('workspace', 'train', 1, 3)[0];
  const harnesses = Array.from({ length: 60 }, (_, i) => createProceduralHarness(i));

  it('cover every O style, C kind and W kind, and are deterministic in the seed', () => {
    expect(new Set(harnesses.map((h) => h.surface.O.style))).toEqual(new Set(['raw', 'envelope', 'numbered', 'wrapped']));
    expect(new Set(harnesses.map((h) => h.surface.C.kind))).toEqual(new Set(['full', 'last-k', 'summary']));
    expect(new Set(harnesses.map((h) => h.surface.W.kind))).toEqual(new Set(['free', 'plan-first', 'todo-verify']));
    expect(new Set(harnesses.map((h) => h.surface.T.syntax))).toEqual(new Set(PROC_SYNTAXES));
    const a = createProceduralHarness(17);
    const b = createProceduralHarness(17);
    expect(a.surface).toEqual(b.surface);
    expect(a.reset(task)).toEqual(b.reset(task));
    expect(createProceduralHarness(18).reset(task)).not.toEqual(a.reset(task));
  });

  it('prompts share no line with S0/S1/S2 and never equal them for the same parts', () => {
    const evaluatedLines = new Set<string>();
    for (const T of TOOL_INTERFACES) {
      for (const S of SYSTEM_PROMPTS) {
        const p = S.render(task, { toolDocs: T.describe(), example: T.format(EXAMPLE_CALL), workflow: '' });
        for (const l of [...p.system.split('\n'), p.user]) if (l.length > 12 && !l.includes(task.instruction)) evaluatedLines.add(l);
      }
    }
    for (const h of harnesses) {
      const [sys, user] = h.openingMessages(task);
      for (const l of [...sys.text.split('\n'), user.text])
        expect(evaluatedLines.has(l), `procedural line equals an evaluated one: ${l}`).toBe(false);
      for (const S of SYSTEM_PROMPTS) {
        const p = S.render(task, { toolDocs: h.tool.describe(), example: h.tool.format(EXAMPLE_CALL), workflow: h.workflow.instructions });
        expect(sys.text).not.toBe(p.system);
      }
    }
  });

  it('the expert passes 100% of a sample of train tasks (both suites, all tiers) under procedural harnesses', () => {
    const tasks = [...taskSet('workspace', 'train', 24, 9), ...taskSet('errands', 'train', 24, 9)];
    const failures: string[] = [];
    tasks.forEach((t, i) => {
      const ep = runProceduralExpert(t, 500 + i);
      if (!ep.pass)
        failures.push(`${t.id} under ${ep.harness}: ${ep.error ?? JSON.stringify(ep.verification.checks.filter((c) => !c.pass))}`);
      expect(ep.tags.parseErrors).toBe(0);
      expect(ep.tags.workflowViolations).toBe(0);
    });
    expect(failures).toEqual([]);
    // Every syntax, forced, on a few tasks.
    for (const syntax of PROC_SYNTAXES) {
      for (const [i, t] of tasks.slice(0, 4).entries()) {
        const ep = runProceduralExpert(t, 900 + i, { syntax });
        expect(ep.pass, `${syntax}: ${ep.error}`).toBe(true);
      }
    }
  });

  it('malformed actions become parse-error observations, never exceptions', () => {
    const h = createProceduralHarness(4);
    h.reset(task);
    const r = h.step('{"tool":"read","args":{"path":"a"}}');
    expect(['parse_error', 'rejected']).toContain(r.kind);
    expect(r.observation.length).toBeGreaterThan(0);
  });
});

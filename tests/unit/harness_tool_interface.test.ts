/**
 * T (tool interface) properties: parse(format(call)) deep-equals call for every canonical call
 * with arbitrary string args; parse never throws and names the expected format on failure.
 * Also the black-box syntaxes (coding-cli calls, shell words) round-trip.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { nastyString, toolCallOf } from './lib/tool_call_arbitrary';
import { TOOL_INTERFACES, isParseError } from '../../src/harness/realizations/tool_interface';
import { TOOL_SPECS } from '../../src/harness/tools';
import { CODING_CLI_TOOLS, formatCliCall } from '../../src/harness/blackbox/coding_cli';
import { readMessage } from '../../src/harness/blackbox/envelope';
import { createHarness } from '../../src/harness/registry';
import { stateFromFiles } from '../../src/sandbox/sandbox';
import { operands, shellCommand, shellSplit } from '../../src/harness/blackbox/shell_words';
import type { ToolCall } from '../../src/sandbox/types';

/** The tool interfaces T0 (json), T1 (shell), T2 (tagged), in id order. */
const [T0, T1, T2] = TOOL_INTERFACES;

/** Strings biased towards what breaks syntaxes: quotes, escapes, tags, newlines, unicode, control chars. */
const nasty = nastyString(['</call>'], ['</call>']);

const canonicalCall = toolCallOf(nasty);

/** A message as the coding-CLI harness reads it: a call in its names, a structured error, or a reply. */
const readCli = (text: string) => readMessage(text, CODING_CLI_TOOLS, '');

describe('tool interfaces T0/T1/T2', () => {
  for (const T of TOOL_INTERFACES) {
    it(`${T.id} parse(format(call)) deep-equals call for canonical calls`, () => {
      fc.assert(
        fc.property(canonicalCall, (call) => {
          const text = T.format(call);
          expect(T.parse(text)).toEqual(call);
          // Surrounding whitespace is tolerated.
          expect(T.parse(`  ${text}\n`)).toEqual(call);
        }),
        { numRuns: 1500, seed: 17 },
      );
    });

    it(`${T.id} parse never throws and explains the expected format`, () => {
      fc.assert(
        fc.property(fc.oneof(nasty, fc.string({ maxLength: 200 })), (text) => {
          const r = T.parse(text);
          if (isParseError(r)) expect(r.error).toContain('expected');
          else expect(TOOL_SPECS.map((s) => s.name)).toContain(r.tool);
        }),
        { numRuns: 1500, seed: 3 },
      );
    });

    it(`${T.id} rejects cut-off calls`, () => {
      const text = T.format({ tool: 'write', args: { path: 'a.txt', content: 'hello world, a long line' } });
      for (const cut of [1, 5, text.length - 1, Math.floor(text.length / 2)]) {
        expect(isParseError(T.parse(text.slice(0, cut)))).toBe(true);
      }
    });

    it(`${T.id} format refuses non-canonical calls, naming the problem`, () => {
      expect(() => T.format({ tool: 'read', args: {} })).toThrow(/missing argument 'path'/);
      expect(() => T.format({ tool: 'read', args: { path: 'a', bogus: 'x' } })).toThrow(/unknown argument 'bogus'/);
    });
  }

  it('concrete syntaxes', () => {
    const c: ToolCall = { tool: 'write', args: { path: 'a b.txt', content: 'x "y"\n' } };
    expect(T0.format(c)).toBe('{"tool":"write","args":{"path":"a b.txt","content":"x \\"y\\"\\n"}}');
    expect(T1.format(c)).toBe('put "a b.txt" "x \\"y\\"\\n"');
    expect(T2.format(c)).toBe('<call tool="write"><file>a b.txt</file><text>x "y"\n</text></call>');
    expect(T1.parse('ls')).toEqual({ tool: 'list', args: {} });
    expect(T1.parse('grep foo /docs')).toEqual({ tool: 'search', args: { query: 'foo', path: '/docs' } });
    expect(T2.parse('<call tool="move"> <dst>b</dst>\n<src>a</src> </call>')).toEqual({ tool: 'move', args: { from: 'a', to: 'b' } });
  });

  it('specific parse errors name the problem', () => {
    const err = (T: typeof T0, s: string) => {
      const r = T.parse(s);
      if (!isParseError(r)) throw new Error(`expected a parse error for ${s}`);
      return r.error;
    };
    expect(err(T0, '{"tool":"rm","args":{}}')).toMatch(/unknown tool 'rm'/);
    expect(err(T0, '{"tool":"read","args":{"path":1}}')).toMatch(/'path' must be a string/);
    expect(err(T0, '{"tool":"read","args":{"__proto__":"x","path":"a"}}')).toMatch(/unknown argument '__proto__'/);
    expect(err(T1, 'cat a b')).toMatch(/cat takes 1 argument/);
    expect(err(T1, 'put a "unterminated')).toMatch(/unterminated quote/);
    expect(err(T1, 'cat a\ncat b')).toMatch(/one command per message/);
    expect(err(T2, '<call tool="read"><path>a</path></call>')).toMatch(/no argument <path>/);
    expect(err(T2, '<call tool="write"><file>a</file><text>1 < 2</text></call>')).toMatch(/unescaped '<'/);
    expect(err(T2, '<call tool="read"><file>a</file>')).toMatch(/missing <\/call>/);
  });
});

describe('black-box syntaxes', () => {
  it('shellSplit inverts shellCommand: every word quoted reads back exactly', () => {
    fc.assert(
      fc.property(fc.array(nasty, { maxLength: 4 }), (words) => {
        const dashdash = words.some((w) => w.startsWith('-')) ? ['--'] : [];
        expect(shellSplit(shellCommand('mv', [], words))).toEqual(['mv', ...dashdash, ...words]);
        const line = shellCommand('mv', ['-f'], words);
        const split = shellSplit(line);
        if (!Array.isArray(split)) throw new Error(split.error);
        expect(operands(split.slice(1))).toEqual(words);
      }),
      { numRuns: 800, seed: 5 },
    );
  });

  it('coding-cli calls round-trip and parse never throws', () => {
    const call = fc.record({
      file_path: nasty,
      old_string: nasty,
      new_string: nasty,
      replace_all: fc.option(fc.constantFrom('true', 'false'), { nil: undefined }),
    });
    fc.assert(
      fc.property(call, (a) => {
        const args: Record<string, string> = { file_path: a.file_path, old_string: a.old_string, new_string: a.new_string };
        if (a.replace_all !== undefined) args.replace_all = a.replace_all;
        expect(readCli(formatCliCall({ name: 'Edit', args }))).toEqual({ call: { name: 'Edit', args } });
      }),
      { numRuns: 800, seed: 9 },
    );
    fc.assert(
      fc.property(fc.oneof(nasty, fc.string({ maxLength: 120 })), (s) => {
        const r = readCli(s);
        expect(typeof r).toBe('object');
      }),
      { numRuns: 800, seed: 10 },
    );
    // The envelope is T0's; the real schema's number type is read into the string form.
    expect(readCli('{"tool":"Read","args":{"file_path":"/a","limit":5}}')).toEqual({
      call: { name: 'Read', args: { file_path: '/a', limit: '5' } },
    });
    expect(readCli(' {"tool": "Read", "args": {"file_path": "/a"}}\n')).toEqual({ call: { name: 'Read', args: { file_path: '/a' } } });
    // A failed attempt is shown in Claude Code's words.
    const h = createHarness('bb-coding-cli');
    h.reset({
      id: 'workspace/fixture/t1/7',
      suite: 'workspace',
      family: 'fixture',
      tier: 1,
      seed: 7,
      instruction: 'Read /a.',
      initial: stateFromFiles({ '/a': 'x\n' }),
      needsStateTracking: false,
      hasRecoverableError: false,
    });
    const bad = h.step('{"tool":"Read","args":{"path":"/a"}}');
    expect(bad.kind).toBe('parse_error');
    expect(bad.observation).toMatch(
      /^<tool_use_error>InputValidationError: Read failed due to the following issue:\nAn unexpected parameter `path` was provided/,
    );
    expect(h.done).toBe(false);
    // The old invented syntax is no call at all: a final reply.
    expect(readCli('Read(file_path="/a")')).toEqual({ reply: 'Read(file_path="/a")' });
  });
});

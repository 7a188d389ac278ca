/**
 * Fuzz property test with a fixed budget: per tool interface (T0, T1, T2) and per black-box
 * harness, ~2000 random and adversarial action strings (cut-off calls, unbalanced tags, broken
 * JSON, huge contents, traversal paths, control characters, unicode, workflow messages). The
 * runtime must never throw, never let the workspace hold a path outside '/', never change the
 * sandbox on a parse error / rejection / cut-off, and never break a budget (turns, context
 * tokens, observation size).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { stateFromFiles } from '../../src/sandbox/sandbox';
import type { ToolCall } from '../../src/sandbox/types';
import type { Task } from '../../src/tasks/types';
import { createHarness, componentsOf } from '../../src/harness/registry';
import { TOOL_SPECS } from '../../src/harness/tools';
import { formatCliCall } from '../../src/harness/blackbox/coding_cli';
import { approxTokens } from '../../src/harness/render';

const task: Task = {
  id: 'workspace/fuzz/t1/1',
  suite: 'workspace',
  family: 'fuzz',
  tier: 1,
  seed: 1,
  instruction: 'Tidy the workspace.',
  initial: stateFromFiles({ '/a.txt': 'alpha\nbeta\n', '/d/b.csv': 'x,y\n1,2\n', '/d/e/c.md': '# c\n' }, ['/empty']),
  needsStateTracking: true,
  hasRecoverableError: false,
};

const BUDGET = { maxTurns: 24, maxContextTokens: 1200, maxActionTokens: 6000 };
const MAX_OBS_CHARS = 2600;

const paths = fc.oneof(
  fc.constantFrom(
    '../../etc/passwd',
    '/../x',
    'a/../../b',
    '/d/../../..',
    '/a.txt/x',
    '//d//b.csv',
    '.',
    '/',
    '',
    ' /a.txt',
    '/d/\u0000x',
    'C:\\win',
    '/d/e/../../a.txt',
    '/ünï/😀.txt',
    '/' + 'p'.repeat(400),
    '/d/e',
    '/empty',
  ),
  fc.string({ maxLength: 12 }).map((s) => '/d/' + s),
);
const text = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom(
    'x'.repeat(20_000),
    'y'.repeat(7000),
    '\u0000\u0001\u001b[31m',
    '<|end|><|assistant|>',
    '</call>',
    '"\\',
    '\r\n',
    'line\n'.repeat(300),
  ),
);
const callArb: fc.Arbitrary<ToolCall> = fc.constantFrom(...TOOL_SPECS).chain((spec) =>
  fc.tuple(...[...spec.required, ...spec.optional].map((k) => (k === 'path' || k === 'from' || k === 'to' ? paths : text))).map((vals) => {
    const args: Record<string, string> = {};
    [...spec.required, ...spec.optional].forEach((k, i) => (args[k] = vals[i]));
    return { tool: spec.name, args } as ToolCall;
  }),
);
const junk = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.constantFrom(
    '{"tool":"read","args":{"path":"a.txt"}',
    '{"tool":',
    '<call tool="read"><file>a</file>',
    '<call tool="read"><file><file>a</file></file></call>',
    'cat "a',
    'put a "b\\q"',
    '',
    '   ',
    'Plan:',
    'Plan: do it',
    'Todo:\n- [ ] a',
    'Todo:\n- [x] a',
    '@read',
    '@write /x',
    '@exec rm -r /',
    '@exec cat ../../etc/passwd',
    'Bash(command="rm -r /")',
    'Edit(file_path="/a.txt", old_string="alpha", new_string="z")',
    'Read(file_path="../../etc/passwd")',
    'Glob(pattern="**")',
    '{"tool":"Bash","args":{"command":"rm -r /"}}',
    '{"tool":"Read","args":{"file_path":"../../etc/passwd","offset":-3,"limit":1e308}}',
    '{"tool":"Edit","args":{"file_path":"/a.txt","old_string":"alpha","new_string":"z","replace_all":true}}',
    '{"tool":"TodoWrite","args":{"todos":[{"content":"a","status":"done"}]}}',
    '{"tool":"TodoWrite","args":{"todos":[]}}',
    '{"tool":"Glob","args":{"pattern":"**","path":"../.."}}',
    '{"tool":"exec","args":{"command":"cat ../../etc/passwd","workdir":"/../.."}}',
    '{"tool":"edit","args":{"path":"/a.txt","oldText":"","newText":"z"}}',
    '{"tool":"read","args":{"path":"/a.txt","offset":"0","limit":"0"}}',
    '{"tool":"finish","args":{"answer":"x"}}',
    '{"tool":"__proto__","args":{"__proto__":{}}}',
    '\u0000'.repeat(50),
    '💥'.repeat(100),
  ),
);

/** Actions in harness `id`'s syntax: valid calls, their cut-off prefixes, and junk. */
function actionArb(id: string): fc.Arbitrary<{ action: string; cutOff: boolean }> {
  let format: (c: ToolCall) => string;
  if (id === 'bb-coding-cli') {
    format = (c) => {
      const a = c.args;
      switch (c.tool) {
        case 'read':
          return formatCliCall({ name: 'Read', args: { file_path: a.path } });
        case 'write':
        case 'append':
          return formatCliCall({ name: 'Write', args: { file_path: a.path, content: a.content } });
        case 'search':
          return formatCliCall({ name: 'Grep', args: { pattern: a.query } });
        case 'finish':
          return 'ok'; // the final reply: a message without a call
        default:
          return formatCliCall({
            name: 'Bash',
            args: {
              command: `${c.tool === 'list' ? 'ls' : c.tool === 'delete' ? 'rm -r' : c.tool === 'move' ? 'mv' : 'mkdir -p'} ${Object.values(a).join(' ')}`,
            },
          });
      }
    };
  } else if (id === 'bb-assistant') {
    const call = (tool: string, args: Record<string, string>) => JSON.stringify({ tool, args });
    format = (c) =>
      c.tool === 'write' || c.tool === 'append'
        ? call('write', { path: c.args.path, content: c.args.content })
        : c.tool === 'read'
          ? call('read', { path: c.args.path })
          : c.tool === 'finish'
            ? 'ok'
            : call('exec', { command: `ls ${c.args.path ?? ''}` });
  } else {
    const T = componentsOf(id).T;
    format = (c) => T.format(c);
  }
  const valid = callArb.filter((c) => c.tool !== 'finish').map((c) => format(c));
  // Under the black-box harnesses any message not starting with '{' is the final reply, so
  // most junk goes through the call channel there (or the episodes would mostly end at once).
  const bb = id.startsWith('bb-');
  const junkArb = bb
    ? fc.oneof({ weight: 9, arbitrary: junk.map((j) => (j.startsWith('{') ? j : '{' + j)) }, { weight: 1, arbitrary: junk })
    : junk;
  return fc.oneof(
    { weight: 4, arbitrary: valid.map((action) => ({ action, cutOff: false })) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(valid, fc.nat())
        .map(([a, n]) => ({ action: a.slice(0, Math.max(bb ? 1 : 0, n % (a.length + 1))), cutOff: n % 6 === 0 })),
    },
    { weight: 3, arbitrary: junkArb.map((action) => ({ action, cutOff: false })) },
    { weight: 1, arbitrary: callArb.map((c) => ({ action: format(c), cutOff: false })) },
  );
}

const HARNESSES = ['S0-T0-O0-C0-W0', 'S1-T1-O2-C1-W2', 'S2-T2-O1-C2-W1', 'bb-coding-cli', 'bb-assistant'];

describe('fuzz: the runtime survives adversarial actions within its budgets', () => {
  for (const id of HARNESSES) {
    it(`${id}: ≥1500 actions, no throw, no escape, no budget break`, () => {
      let steps = 0;
      const ends = new Map<string, number>();
      fc.assert(
        fc.property(fc.array(actionArb(id), { minLength: 10, maxLength: 30 }), (actions) => {
          const h = createHarness(id, { budget: BUDGET });
          h.reset(task);
          for (const { action, cutOff } of actions) {
            if (h.done) break;
            const before = JSON.stringify(h.sandboxState());
            const r = h.step(action, { cutOff });
            steps++;
            if (r.kind === 'parse_error' || r.kind === 'rejected' || r.kind === 'cutoff' || r.kind === 'message') {
              expect(JSON.stringify(h.sandboxState())).toBe(before);
            }
            if (r.kind === 'cutoff') expect(r.truncated).toBe(true);
            // The runtime's last-resort catch must never fire (it would hide a realization bug).
            expect(r.observation).not.toMatch(/^internal harness error/);
            expect(r.observation.length).toBeLessThanOrEqual(MAX_OBS_CHARS);
            const s = h.sandboxState();
            for (const p of [...Object.keys(s.files), ...s.dirs]) {
              expect(p.startsWith('/')).toBe(true);
              expect(
                p
                  .split('/')
                  .slice(1)
                  .some((c) => c === '..' || c === '.' || (c === '' && p !== '/')),
              ).toBe(false);
            }
          }
          const turns = h.turns();
          expect(turns.length).toBeLessThanOrEqual(BUDGET.maxTurns);
          for (const t of turns) expect(approxTokens(t.context)).toBeLessThanOrEqual(BUDGET.maxContextTokens);
          if (!h.done) expect(approxTokens(h.contextText())).toBeLessThanOrEqual(BUDGET.maxContextTokens);
          const tags = h.tags();
          const end = tags.terminated ? 'terminated' : (tags.truncationReason ?? 'open');
          ends.set(end, (ends.get(end) ?? 0) + 1);
          expect(tags.terminated && tags.truncated).toBe(false);
          expect(tags.parseErrors + tags.workflowViolations + tags.toolCalls).toBeLessThanOrEqual(tags.turns);
        }),
        { numRuns: 170, seed: 42 },
      );
      expect(steps).toBeGreaterThan(1500);
      // The budget paths were exercised, not just the happy path.
      expect(ends.get('action') ?? 0).toBeGreaterThan(0);
      expect((ends.get('context') ?? 0) + (ends.get('turns') ?? 0)).toBeGreaterThan(0);
    });
  }
});

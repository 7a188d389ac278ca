/**
 * The black-box harnesses' call channel (src/harness/blackbox/envelope.ts): a policy fluent in
 * T0 reaches their tools by reading names off the prompt. A T0-formatted call with a black-box
 * tool's own names parses and runs; T0's own names are unknown tools there (an error
 * observation in the harness's words, nothing run), except where the real harness shares them
 * (OpenClaw's read/write take T0's path/content).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { stateFromFiles } from '../../src/sandbox/sandbox';
import type { ToolCall } from '../../src/sandbox/types';
import type { Task } from '../../src/tasks/types';
import { createHarness } from '../../src/harness/registry';
import { TOOL_INTERFACES } from '../../src/harness/realizations/tool_interface';
import { TOOL_SPECS } from '../../src/harness/tools';
import { CODING_CLI_TOOLS, formatCliCall } from '../../src/harness/blackbox/coding_cli';
import { ASSISTANT_TOOLS } from '../../src/harness/blackbox/assistant';
import { formatCall, readMessage, type BlackboxTool } from '../../src/harness/blackbox/envelope';
import { runExpertEpisode } from '../../src/harness/expert';
import { appendEdit } from '../../src/harness/text_edits';
import { SUITE_NAMES, taskSet } from '../../src/tasks';

/** The tool interfaces T0 (json), T1 (shell), T2 (tagged), in id order. */
const [T0] = TOOL_INTERFACES;

const task: Task = {
  id: 'workspace/channel/t1/3',
  suite: 'workspace',
  family: 'channel',
  tier: 1,
  seed: 3,
  instruction: 'Copy the number in /in/n.txt to /out/n.txt.',
  initial: stateFromFiles({ '/in/n.txt': '42\n', '/docs/a.md': 'alpha\nbeta\n' }),
  needsStateTracking: false,
  hasRecoverableError: false,
};

/** One call of every T0 tool, with values that would run on the fixture. */
const T0_CALLS: ToolCall[] = [
  { tool: 'read', args: { path: '/in/n.txt' } },
  { tool: 'write', args: { path: '/out/n.txt', content: '42\n' } },
  { tool: 'list', args: {} },
  { tool: 'append', args: { path: '/in/n.txt', content: '1' } },
  { tool: 'move', args: { from: '/in/n.txt', to: '/out/n.txt' } },
  { tool: 'delete', args: { path: '/in/n.txt' } },
  { tool: 'search', args: { query: '42' } },
  { tool: 'mkdir', args: { path: '/x' } },
  { tool: 'finish', args: { answer: '42' } },
];

/** One valid call per tool of a black-box harness, with values its tools accept on the fixture. */
const VALID: Record<string, Array<[string, Record<string, string>]>> = {
  'bb-coding-cli': [
    ['Read', { file_path: '/docs/a.md', offset: '1', limit: '5' }],
    ['Edit', { file_path: '/docs/a.md', old_string: 'beta', new_string: 'gamma', replace_all: 'false' }],
    ['Write', { file_path: '/out/n.txt', content: '42\n' }],
    ['LS', { path: '/in' }],
    ['Glob', { pattern: '*.md', path: '/docs' }],
    ['Grep', { pattern: 'alpha', path: '/docs' }],
    ['Bash', { command: 'mkdir -p /tmp', description: 'make a dir' }],
    ['TodoWrite', { todos: '- [ ] copy\n- [x] look' }],
  ],
  'bb-assistant': [
    ['read', { path: '/docs/a.md', offset: '1', limit: '5' }],
    ['edit', { path: '/docs/a.md', oldText: 'beta', newText: 'gamma' }],
    ['write', { path: '/out/n.txt', content: '42\n' }],
    ['exec', { command: 'ls', workdir: '/in' }],
  ],
};
const TOOLS: Record<string, readonly BlackboxTool[]> = { 'bb-coding-cli': CODING_CLI_TOOLS, 'bb-assistant': ASSISTANT_TOOLS };

/** The text T0 writes for a call, with any tool name and argument names. */
const t0Text = (tool: string, args: Record<string, string>) => JSON.stringify({ tool, args });

describe('black-box call channel', () => {
  for (const id of ['bb-coding-cli', 'bb-assistant']) {
    it(`${id}: a T0-formatted call with its own tool and argument names parses and runs`, () => {
      const h = createHarness(id);
      h.reset(task);
      // Every tool of the harness is covered by the fixture calls.
      expect(VALID[id].map(([n]) => n).sort()).toEqual(TOOLS[id].map((t) => t.name).sort());
      for (const [name, args] of VALID[id]) {
        const text = t0Text(name, args);
        expect(readMessage(text, TOOLS[id], '')).toEqual({ call: { name, args } });
        const r = h.step(text);
        expect(r.kind, `${text} → ${r.observation}`).toBe('tool');
        expect(r.observation, text).not.toMatch(/error/i);
      }
      expect(h.sandboxState().files['/out/n.txt']).toBe('42\n');
      expect(h.sandboxState().files['/docs/a.md']).toBe('alpha\ngamma\n');
    });

    it(`${id}: its calls are T0's envelope byte for byte in form (same shape, keys, delimiters)`, () => {
      fc.assert(
        fc.property(fc.constantFrom(...TOOLS[id]), fc.array(fc.string({ maxLength: 12 }), { minLength: 4, maxLength: 4 }), (def, vals) => {
          const args: Record<string, string> = {};
          [...def.required, ...def.optional].forEach((k, i) => (args[k] = vals[i]));
          const text = formatCall(TOOLS[id], { name: def.name, args });
          expect(text).toBe(t0Text(def.name, args));
          expect(readMessage(text, TOOLS[id], '')).toEqual({ call: { name: def.name, args } });
        }),
        { numRuns: 300, seed: 17 },
      );
    });
  }

  it("bb-coding-cli: plain T0 calls with the space's own tool names are unknown tools, not silent successes", () => {
    const h = createHarness('bb-coding-cli');
    h.reset(task);
    const before = structuredClone(h.sandboxState());
    expect(T0_CALLS.map((c) => c.tool).sort()).toEqual(TOOL_SPECS.map((s) => s.name).sort());
    for (const c of T0_CALLS) {
      const r = h.step(T0.format(c));
      expect(r.kind, c.tool).toBe('parse_error');
      expect(r.observation).toBe(`<tool_use_error>Error: No such tool available: ${c.tool}</tool_use_error>`);
    }
    expect(h.done).toBe(false);
    expect(h.transcript().answer).toBeNull();
    expect(h.transcript().steps.every((s) => s.call === null && s.result === null)).toBe(true);
    expect(h.sandboxState()).toEqual(before);
  });

  it("bb-assistant: T0's names OpenClaw lacks are unknown tools; read/write are OpenClaw's own names too", () => {
    const h = createHarness('bb-assistant');
    h.reset(task);
    const unknown = T0_CALLS.filter((c) => c.tool !== 'read' && c.tool !== 'write');
    expect(unknown).toHaveLength(7);
    const before = structuredClone(h.sandboxState());
    for (const c of unknown) {
      const r = h.step(T0.format(c));
      expect(r.kind, c.tool).toBe('parse_error');
      expect(r.observation).toBe(`[error] Tool ${c.tool} not found`);
    }
    expect(h.done).toBe(false);
    expect(h.sandboxState()).toEqual(before);
    // pi-coding-agent's read{path} and write{path, content} coincide with T0's: these run, as in OpenClaw.
    expect(h.step(T0.format({ tool: 'read', args: { path: '/in/n.txt' } })).observation).toBe('[read] ok\n42\n');
    expect(h.step(T0.format({ tool: 'write', args: { path: '/out/n.txt', content: '42\n' } })).kind).toBe('tool');
    expect(h.sandboxState().files['/out/n.txt']).toBe('42\n');
  });

  it("the same write is T0's bytes with Claude Code's names in place of the canonical ones", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), fc.string({ maxLength: 30 }), (p, c) => {
        const t0 = T0.format({ tool: 'write', args: { path: p, content: c } });
        // JSON escapes every quote inside a value, so '"path":' can only be the key.
        expect(formatCliCall({ name: 'Write', args: { file_path: p, content: c } })).toBe(
          t0.replace('"tool":"write"', '"tool":"Write"').replace('"path":', '"file_path":'),
        );
      }),
      { numRuns: 300, seed: 19 },
    );
  });

  it('the expert speaks the channel: every black-box expert action is an envelope call except the last, the final reply', () => {
    const tasks = SUITE_NAMES.flatMap((s) => taskSet(s, 'train', 3, 5));
    for (const id of ['bb-coding-cli', 'bb-assistant']) {
      for (const t of tasks) {
        const ep = runExpertEpisode(t, id);
        expect(ep.pass, `${id} ${t.id}: ${ep.error ?? ''}`).toBe(true);
        const actions = ep.turns.map((r) => r.action);
        for (const a of actions.slice(0, -1)) expect(a.startsWith('{"tool":"'), `${id}: ${a.slice(0, 60)}`).toBe(true);
        expect(actions[actions.length - 1]).toBe(ep.transcript.answer);
      }
    }
  });

  it("the expert's append edit anchors on the shortest unique tail at a word boundary", () => {
    expect(appendEdit('a,b,Standup\n', 'x\n')).toEqual({ oldString: 'Standup\n', newString: 'Standup\nx\n' });
    // 'b\n' also ends the first line, so the anchor widens to a unique tail.
    expect(appendEdit('a b\nc b\n', 'x')).toEqual({ oldString: 'c b\n', newString: 'c b\nx' });
    expect(appendEdit('same\nsame\n', 'x')).toBeNull();
    expect(appendEdit('', 'x')).toBeNull();
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), fc.string({ minLength: 1, maxLength: 10 }), (old, added) => {
        const e = appendEdit(old, added);
        if (e === null) return;
        expect(old.endsWith(e.oldString) && old.indexOf(e.oldString) === old.length - e.oldString.length).toBe(true);
        expect(old.slice(0, old.length - e.oldString.length) + e.newString).toBe(old + added);
      }),
      { numRuns: 500, seed: 29 },
    );
  });
});

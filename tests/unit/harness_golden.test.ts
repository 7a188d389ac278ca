/**
 * Golden renders, one file per realization (S0–S2, T0–T2, O0–O2, C0–C2, W0–W2) and per black-box
 * harness, under tests/unit/__golden__/. A change to what the policy sees shows up as a diff of
 * these files. Regenerate after an intended change with:
 *   UPDATE_GOLDEN=1 npx vitest run tests/unit/harness_golden.test.ts
 * The fixture task is built here (not by a suite generator) so the goldens only move when the
 * harness does.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stateFromFiles } from '../../src/sandbox/sandbox';
import type { ToolCall, ToolResult } from '../../src/sandbox/types';
import type { Task } from '../../src/tasks/types';
import { createHarness } from '../../src/harness/registry';
import { TOOL_INTERFACES, isParseError } from '../../src/harness/realizations/tool_interface';
import { OBSERVATION_FORMATS } from '../../src/harness/realizations/observation';
import { CONTEXT_POLICIES, type History } from '../../src/harness/realizations/context';
import { approxTokens, renderPrompt } from '../../src/harness/render';
import type { Harness } from '../../src/harness/types';

const DIR = join(dirname(fileURLToPath(import.meta.url)), '__golden__');
const UPDATE = process.env.UPDATE_GOLDEN === '1';

function golden(name: string, text: string): void {
  const path = join(DIR, `${name}.txt`);
  if (UPDATE) {
    mkdirSync(DIR, { recursive: true });
    writeFileSync(path, text);
    return;
  }
  if (!existsSync(path)) throw new Error(`golden file ${path} is missing; run with UPDATE_GOLDEN=1 to create it`);
  expect(text).toBe(readFileSync(path, 'utf8'));
}

const task: Task = {
  id: 'workspace/golden/t2/11',
  suite: 'workspace',
  family: 'golden',
  tier: 2,
  seed: 11,
  instruction: 'Add the qty column of /data/q.csv and write the total to /out/total.txt.',
  initial: stateFromFiles({ '/data/q.csv': 'item,qty\nlamp,3\nmug,4\n', '/notes.txt': 'remember: totals go in /out\n' }),
  needsStateTracking: false,
  hasRecoverableError: false,
};

/** Run scripted actions and show each action with its observation. */
function transcript(h: Harness, actions: string[]): string {
  h.reset(task);
  const lines: string[] = [];
  for (const a of actions) {
    const r = h.step(a);
    lines.push(`>>> ${a}`, `<<< [${r.kind}${r.done ? (r.terminated ? ', terminated' : ', truncated') : ''}] ${r.observation}`);
  }
  return lines.join('\n') + '\n';
}

describe('golden renders', () => {
  it('S: opening context per system prompt', () => {
    for (const s of ['S0', 'S1', 'S2']) {
      const h = createHarness(`${s}-T0-O0-C0-W0`);
      h.reset(task);
      const ctx = h.contextText();
      golden(s, ctx);
      expect(ctx.length).toBeLessThan(s === 'S1' ? 1100 : 700); // compact for a 512-token policy
    }
  });

  it('T: docs, formatted calls and a parse error per tool interface', () => {
    const calls: ToolCall[] = [
      { tool: 'read', args: { path: '/data/q.csv' } },
      { tool: 'write', args: { path: '/out/total.txt', content: 'total: 7\n"quoted" <tag> & \\ done' } },
      { tool: 'search', args: { query: 'qty' } },
      { tool: 'finish', args: { answer: '7' } },
    ];
    for (const T of TOOL_INTERFACES) {
      const bad = T.parse('read the file please');
      const out = [
        `# describe`,
        T.describe(),
        `# format`,
        ...calls.map((c) => T.format(c)),
        `# parse error`,
        isParseError(bad) ? bad.error : 'UNEXPECTED',
      ].join('\n');
      golden(T.id, out + '\n');
    }
  });

  it('O: results and notices per observation format', () => {
    const long = Array.from({ length: 40 }, (_, i) => `row ${i + 1},${'v'.repeat(i % 7)}`).join('\n');
    const results: [string, ToolResult][] = [
      ['ok', { ok: true, output: 'item,qty\nlamp,3\nmug,4\n' }],
      ['empty', { ok: true, output: '' }],
      ['long', { ok: true, output: long + '\n' + 'w'.repeat(900) }],
      ['error', { ok: false, output: '', error: { code: 'not_found', message: 'read: /x.txt: no such file or directory' } }],
      ['sandbox-truncated', { ok: true, output: 'abc\n[truncated: 120 more chars not shown]', truncated: { droppedChars: 120 } }],
    ];
    for (const O of OBSERVATION_FORMATS) {
      const parts = results.map(([name, r]) => `## ${name}\n${O.render(r)}`);
      parts.push(
        `## parse_error\n${O.notice('parse_error', 'not a JSON object; expected …')}`,
        `## rejected\n${O.notice('rejected', 'plan first')}`,
        `## note\n${O.notice('note', 'plan recorded; now act')}`,
      );
      const text = parts.join('\n') + '\n';
      golden(O.id, text);
    }
  });

  it('C: views of one long history per context policy', () => {
    const m = (role: 'system' | 'user' | 'assistant' | 'tool', text: string, policy = false) => ({ role, text, policy });
    const h: History = {
      prefix: [m('system', 'You operate a file workspace.'), m('user', task.instruction)],
      turns: Array.from({ length: 7 }, (_, i) => ({
        action: m('assistant', `{"tool":"read","args":{"path":"/f${i + 1}.txt"}}`, true),
        observation: m('tool', `content of file ${i + 1}: ${'lorem ipsum '.repeat(8)}`),
        brief: `read /f${i + 1}.txt: ok, 1 lines`,
      })),
    };
    // The rendered view: the prompt less the open assistant marker it ends with.
    const OPEN = '<|assistant|>\n';
    for (const C of CONTEXT_POLICIES) {
      const prompt = renderPrompt(C.view(h, approxTokens));
      expect(prompt.endsWith(OPEN)).toBe(true);
      golden(C.id, prompt.slice(0, -OPEN.length));
    }
  });

  it('W: one scripted episode per workflow', () => {
    const actions = [
      '{"tool":"read","args":{"path":"/data/q.csv"}}',
      'Plan: read the csv, add the qty, write the total',
      'Todo:\n- [ ] read\n- [ ] write',
      '{"tool":"write","args":{"path":"/out/total.txt","content":"7\\n"}}',
      '{"tool":"finish","args":{"answer":"7"}}',
      '{"tool":"read","args":{"path":"/out/total.txt"}}',
      'Todo:\n- [x] read\n- [x] write',
      '{"tool":"finish","args":{"answer":"7"}}',
    ];
    for (const w of ['W0', 'W1', 'W2']) golden(w, transcript(createHarness(`S0-T0-O0-C0-${w}`), actions));
  });

  it('black-box: opening context and a scripted episode', () => {
    const cli = createHarness('bb-coding-cli');
    const call = (tool: string, args: Record<string, string>) => JSON.stringify({ tool, args });
    const cliEp = transcript(cli, [
      call('TodoWrite', { todos: '- [ ] sum qty\n- [ ] write total' }),
      call('Edit', { file_path: '/data/q.csv', old_string: 'lamp', new_string: 'LAMP' }),
      call('Read', { file_path: '/data/q.csv' }),
      call('Bash', { command: 'mkdir -p /out' }),
      call('Write', { file_path: '/out/total.txt', content: '7\n' }),
      call('Grep', { pattern: 'qty' }),
      call('Glob', { pattern: '**/*.txt' }),
      call('LS', { path: '/out' }),
      call('read', { path: '/notes.txt' }),
      call('Read', { path: '/notes.txt' }),
      '{"tool":"Read","args":{"file_path":"/notes.txt"}',
      '7',
    ]);
    golden('bb-coding-cli', `${(cli.reset(task), cli.contextText())}\n=== episode\n${cliEp}`);
    const as = createHarness('bb-assistant');
    const asEp = transcript(as, [
      call('exec', { command: 'ls /data' }),
      call('read', { path: '/data/q.csv' }),
      call('write', { path: '/out/total.txt', content: '7\n' }),
      call('edit', { path: '/out/total.txt', oldText: '7', newText: '7 (lamp 3 + mug 4)' }),
      call('exec', { command: 'grep -r qty /' }),
      call('exec', { command: 'python x.py' }),
      call('list', { path: '/' }),
      call('read', { file_path: '/notes.txt' }),
      '7',
    ]);
    golden('bb-assistant', `${(as.reset(task), as.contextText())}\n=== episode\n${asEp}`);
  });
});

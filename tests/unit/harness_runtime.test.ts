/**
 * Episode semantics of the harness runtime: parse failures and workflow rejections run nothing,
 * budgets truncate (distinct from termination), contexts/actions are recorded per turn with the
 * policy flag, C1/C2 rewrite history, the black-box harnesses' own rules, and behaviour tags.
 */
import { describe, expect, it } from 'vitest';
import { stateFromFiles } from '../../src/sandbox/sandbox';
import type { Task } from '../../src/tasks/types';
import { createHarness, allHarnessIds, allComposedIds } from '../../src/harness/registry';
import { renderPrompt } from '../../src/harness/render';
import { makeC1, makeC2, type History } from '../../src/harness/realizations/context';
import { computeTags } from '../../src/harness/tags';
import type { CodingCliHarness } from '../../src/harness/blackbox/coding_cli';
import type { Message, TurnRecord } from '../../src/harness/types';

/** The chat markers the contexts are rendered with (render.ts). */
const ROLE_MARKERS = { assistant: '<|assistant|>' };
const END_MARKER = '<|end|>';

function fixtureTask(): Task {
  return {
    id: 'workspace/fixture/t1/7',
    suite: 'workspace',
    family: 'fixture',
    tier: 1,
    seed: 7,
    instruction: 'Copy the number in /in/n.txt to /out/n.txt.',
    initial: stateFromFiles({ '/in/n.txt': '42\n', '/docs/readme.md': '# readme\nline 2\nline 3\n' }),
    needsStateTracking: false,
    hasRecoverableError: false,
  };
}

describe('registry', () => {
  it('has 243 composed ids and 2 black-box ids, each constructible', () => {
    expect(allComposedIds()).toHaveLength(243);
    expect(new Set(allHarnessIds()).size).toBe(245);
    for (const id of allHarnessIds()) expect(createHarness(id).id).toBe(id);
  });
  it('names an unknown id', () => {
    expect(() => createHarness('S0-T3-O0-C0-W0')).toThrow(/unknown harness id 'S0-T3-O0-C0-W0'.*T3/);
    expect(() => createHarness('bb-nope')).toThrow(/unknown harness id 'bb-nope'/);
  });
  it('rejects bad budgets naming the field', () => {
    expect(() => createHarness('S0-T0-O0-C0-W0', { budget: { maxTurns: 0 } })).toThrow(/budget.maxTurns/);
  });
});

describe('composed episode', () => {
  it('parse failure: error observation with the expected format, sandbox unchanged, transcript step with null call', () => {
    const h = createHarness('S0-T1-O0-C0-W0');
    const task = fixtureTask();
    h.reset(task);
    const before = JSON.stringify(h.sandboxState());
    const r = h.step('{"tool":"write","args":{"path":"/x","content":"1"}}');
    expect(r.kind).toBe('parse_error');
    expect(r.observation).toMatch(/parse error: .*expected one command like: cat notes.txt/);
    expect(JSON.stringify(h.sandboxState())).toBe(before);
    expect(h.transcript().steps).toEqual([{ call: null, result: null }]);
    expect(h.tags().parseErrors).toBe(1);
  });

  it('runs T-formatted calls, renders with O, terminates on finish', () => {
    const h = createHarness('S0-T2-O2-C0-W0');
    h.reset(fixtureTask());
    const r1 = h.step('<call tool="read"><file>/in/n.txt</file></call>');
    expect(r1.kind).toBe('tool');
    expect(r1.observation).toBe('1| 42\n2| ');
    h.step('<call tool="write"><file>/out/n.txt</file><text>42\n</text></call>');
    const r3 = h.step('<call tool="finish"><result>42</result></call>');
    expect(r3).toMatchObject({ done: true, terminated: true, truncated: false });
    expect(h.sandboxState().files['/out/n.txt']).toBe('42\n');
    expect(h.transcript().answer).toBe('42');
    expect(h.step('anything').kind).toBe('after_done');
  });

  it('records per turn the exact context and action, with policy flags on actions only', () => {
    const h = createHarness('S0-T0-O1-C0-W0');
    h.reset(fixtureTask());
    const ctx0 = h.contextText();
    expect(ctx0.endsWith(`${ROLE_MARKERS.assistant}\n`)).toBe(true);
    const a1 = '{"tool":"read","args":{"path":"/in/n.txt"}}';
    h.step(a1);
    const ctx1 = h.contextText();
    h.step('{"tool":"finish","args":{}}');
    const t = h.turns();
    expect(t.map((x) => x.context)).toEqual([ctx0, ctx1]);
    expect(t[0].action).toBe(a1);
    expect(ctx1.startsWith(ctx0)).toBe(true); // C0 keeps the prefix
    expect(ctx1).toContain(`${a1}${END_MARKER}`);
    const view = h.view();
    expect(view.filter((m) => m.policy).map((m) => m.text)).toEqual([a1, '{"tool":"finish","args":{}}']);
    expect(view.filter((m) => m.role === 'assistant').every((m) => m.policy)).toBe(true);
    expect(view.filter((m) => m.role === 'tool').every((m) => !m.policy)).toBe(true);
    expect(view[2].text).toBe(a1);
    expect(JSON.parse(view[3].text)).toEqual({ status: 'ok', output: '42\n' });
  });

  it('W1: a tool call before the plan is rejected (violation, nothing runs); the plan unlocks tools', () => {
    const h = createHarness('S0-T0-O0-C0-W1');
    h.reset(fixtureTask());
    const r = h.step('{"tool":"write","args":{"path":"/out/n.txt","content":"1"}}');
    expect(r.kind).toBe('rejected');
    expect(r.observation).toMatch(/plan first/);
    expect(h.sandboxState().files['/out/n.txt']).toBeUndefined();
    expect(h.step('Plan: read, then write').kind).toBe('message');
    expect(h.step('{"tool":"write","args":{"path":"/out/n.txt","content":"1"}}').kind).toBe('tool');
    const tags = h.tags();
    expect(tags.workflowViolations).toBe(1);
    expect(tags.recovered).toBe(true);
  });

  it('W2: a written file moved into an existing folder is to be re-read at folder/name, not at the folder', () => {
    const h = createHarness('S0-T0-O0-C0-W2');
    h.reset(fixtureTask());
    h.step('Todo:\n- [ ] copy');
    h.step('{"tool":"write","args":{"path":"/out/n.txt","content":"42"}}');
    expect(h.step('{"tool":"move","args":{"from":"/out/n.txt","to":"/docs"}}').kind).toBe('tool');
    expect(h.sandboxState().files['/docs/n.txt']).toBe('42');
    expect(h.workflowStatus().unverified).toEqual(['/docs/n.txt']);
  });

  it('W2: finish is refused until written files are re-read and the todo list is checked off', () => {
    const h = createHarness('S0-T1-O0-C0-W2');
    h.reset(fixtureTask());
    expect(h.step('cat /in/n.txt').kind).toBe('rejected');
    expect(h.step('Todo:\n- [ ] copy\n- [ ] check').kind).toBe('message');
    h.step('put /out/n.txt "42\\n"');
    expect(h.workflowStatus().unverified).toEqual(['/out/n.txt']);
    let r = h.step('done 42');
    expect(r.kind).toBe('rejected');
    expect(r.observation).toMatch(/re-read \/out\/n.txt/);
    h.step('cat out/n.txt');
    r = h.step('done 42');
    expect(r.observation).toMatch(/check off your todo list/);
    h.step('Todo:\n- [x] copy\n- [x] check');
    r = h.step('done 42');
    expect(r.terminated).toBe(true);
    expect(h.tags().workflowViolations).toBe(3);
  });

  it('turn budget truncates (not terminates); a cut-off action truncates without a parse error', () => {
    const h = createHarness('S0-T0-O0-C0-W0', { budget: { maxTurns: 2 } });
    h.reset(fixtureTask());
    h.step('{"tool":"list","args":{}}');
    const r = h.step('{"tool":"list","args":{}}');
    expect(r).toMatchObject({ done: true, terminated: false, truncated: true, truncationReason: 'turns' });

    const g = createHarness('S0-T0-O0-C0-W0', { budget: { maxActionTokens: 8 } });
    g.reset(fixtureTask());
    const c = g.step('{"tool":"write","args":{"path":"/a","content":"a very long content string"}}');
    expect(c).toMatchObject({ kind: 'cutoff', done: true, truncated: true, truncationReason: 'action' });
    expect(g.tags().parseErrors).toBe(0);
    const k = createHarness('S0-T0-O0-C0-W0');
    k.reset(fixtureTask());
    expect(k.step('{"tool":"rea', { cutOff: true }).kind).toBe('cutoff');
  });

  it('context budget truncates before showing an over-budget context', () => {
    const h = createHarness('S0-T0-O0-C0-W0', { budget: { maxContextTokens: 170 } });
    h.reset(fixtureTask());
    let r;
    for (let i = 0; i < 10 && !h.done; i++) r = h.step('{"tool":"read","args":{"path":"/docs/readme.md"}}');
    expect(r).toMatchObject({ done: true, truncated: true, truncationReason: 'context' });
    for (const t of h.turns()) expect(Math.ceil(t.context.length / 4)).toBeLessThanOrEqual(170);
  });
});

function history(n: number): History {
  const m = (role: Message['role'], text: string, policy = false): Message => ({ role, text, policy });
  return {
    prefix: [m('system', 'SYS'), m('user', 'TASK')],
    turns: Array.from({ length: n }, (_, i) => ({
      action: m('assistant', `act${i + 1}`, true),
      observation: m('tool', `obs${i + 1} ${'x'.repeat(40)}`),
      brief: `step ${i + 1}`,
    })),
  };
}

describe('context policies', () => {
  const len = (s: string) => Math.ceil(s.length / 4);
  it('C1 keeps the last k observations verbatim and every action', () => {
    const v = makeC1(2).view(history(4), len);
    expect(v.map((x) => x.text.slice(0, 5))).toEqual(['SYS', 'TASK', 'act1', '[olde', 'act2', '[olde', 'act3', 'obs3 ', 'act4', 'obs4 ']);
  });
  it('C2 compacts past turns into a summary only once over budget', () => {
    const c2 = makeC2({ budgetTokens: 60, keepTurns: 1 });
    expect(c2.view(history(2), len)).toHaveLength(6);
    const v = c2.view(history(5), len);
    expect(v.map((x) => x.role)).toEqual(['system', 'user', 'user', 'assistant', 'tool']);
    expect(v[2].text).toBe('[summary of turns 1-4]\n1. step 1\n2. step 2\n3. step 3\n4. step 4');
    expect(v[2].policy).toBe(false);
    expect(v[3].text).toBe('act5');
  });
});

describe('black-box harnesses', () => {
  /** A call through the native channel: T0's envelope with a black-box tool's own names. */
  const call = (tool: string, args: Record<string, unknown>) => JSON.stringify({ tool, args });

  it('coding-cli: Edit needs a prior Read; Read is line-numbered; Edit replaces a unique string', () => {
    const h = createHarness('bb-coding-cli');
    h.reset(fixtureTask());
    let r = h.step(call('Edit', { file_path: '/docs/readme.md', old_string: 'line 2', new_string: 'LINE TWO' }));
    expect(r.kind).toBe('rejected');
    expect(r.observation).toMatch(/has not been read yet/);
    r = h.step(call('Read', { file_path: '/docs/readme.md' }));
    expect(r.observation).toBe('1→# readme\n2→line 2\n3→line 3\n4→');
    // The real schema's number type is accepted as well as T0's string form.
    r = h.step(call('Read', { file_path: '/docs/readme.md', offset: 2, limit: '1' }));
    expect(r.observation).toBe('2→line 2\n… 2 more lines (Read with offset=3)');
    r = h.step(call('Edit', { file_path: '/docs/readme.md', old_string: 'line', new_string: 'row' }));
    expect(r).toMatchObject({ kind: 'tool' });
    expect(r.observation).toMatch(/Found 2 matches/);
    r = h.step(call('Edit', { file_path: '/docs/readme.md', old_string: 'line 2', new_string: 'LINE TWO' }));
    expect(h.sandboxState().files['/docs/readme.md']).toBe('# readme\nLINE TWO\nline 3\n');
    r = h.step(call('Write', { file_path: '/in/n.txt', content: '7' }));
    expect(r.kind).toBe('rejected');
    r = h.step(call('Bash', { command: 'mv /in/n.txt /out/m.txt' }));
    expect(h.sandboxState().files['/out/m.txt']).toBe('42\n');
    r = h.step(call('Glob', { pattern: '**/*.md' }));
    expect(r.observation).toBe('/docs/readme.md');
    r = h.step(call('Glob', { pattern: '*.txt', path: '/out' }));
    expect(r.observation).toBe('/out/m.txt');
    r = h.step(call('LS', { path: '/out' }));
    expect(r.kind).toBe('tool');
    expect(r.observation).toContain('m.txt');
    r = h.step(
      call('TodoWrite', {
        todos: [
          { content: 'copy', status: 'completed' },
          { content: 'check', status: 'pending' },
        ],
      }),
    );
    expect(r.observation).toBe('Todos updated: 1 open, 1 done');
    const tags = h.tags();
    expect(tags.workflowViolations).toBe(2);
    expect(tags.toolErrors).toBe(1);
    // A message without a call is the final reply: it ends the episode with its text as the answer.
    r = h.step('The number was 42.');
    expect(r).toMatchObject({ kind: 'tool', terminated: true });
    expect(h.transcript().answer).toBe('The number was 42.');
  });

  it('coding-cli: failed call attempts are error observations in its own words, and run nothing', () => {
    const h = createHarness('bb-coding-cli');
    h.reset(fixtureTask());
    const cases: Array<[string, RegExp]> = [
      [call('Read', { path: '/in/n.txt' }), /InputValidationError: Read failed[\s\S]*unexpected parameter `path`/],
      [call('Write', { file_path: '/a.txt' }), /required parameter `content` is missing/],
      [call('Read', { file_path: '/in/n.txt', limit: [5] }), /`limit` type is expected as `number`/],
      ['{"tool":"Read","args":{"file_path":"/in/n.txt"}', /Invalid tool call: invalid JSON/],
    ];
    for (const [text, want] of cases) {
      const r = h.step(text);
      expect(r.kind, text).toBe('parse_error');
      expect(r.observation, text).toMatch(/^<tool_use_error>[\s\S]*<\/tool_use_error>$/);
      expect(r.observation, text).toMatch(want);
    }
    expect(h.done).toBe(false);
    expect(h.transcript().steps.every((s) => s.call === null)).toBe(true);
  });

  it('coding-cli compacts automatically near its budget and keeps going', () => {
    const h = createHarness('bb-coding-cli', { compactAtTokens: 250 }) as CodingCliHarness;
    h.reset(fixtureTask());
    for (let i = 0; i < 8; i++) h.step(call('Read', { file_path: '/docs/readme.md' }));
    expect(h.compactions).toBeGreaterThan(0);
    const v = h.view();
    expect(v.some((m) => m.text.startsWith('[conversation compacted'))).toBe(true);
    expect(Math.ceil(renderPrompt(v).length / 4)).toBeLessThan(300);
  });

  it('assistant: OpenClaw tool calls, pruning of old results, a plain reply ends the session', () => {
    const h = createHarness('bb-assistant');
    h.reset(fixtureTask());
    expect(h.step(call('write', { path: '/out/long.txt', content: 'y'.repeat(400) })).kind).toBe('tool');
    for (let i = 0; i < 3; i++) h.step(call('read', { path: '/out/long.txt' }));
    const tools = h.view().filter((m) => m.role === 'tool');
    expect(tools[1].text).toMatch(/…\[pruned \d+ chars\]…/);
    expect(tools[3].text.length).toBeGreaterThan(400);
    let r = h.step(call('edit', { path: '/docs/readme.md', oldText: 'line 3', newText: 'line three' }));
    expect(r.observation).toBe('[edit] ok\nSuccessfully replaced text in /docs/readme.md.');
    expect(h.sandboxState().files['/docs/readme.md']).toBe('# readme\nline 2\nline three\n');
    r = h.step(call('edit', { path: '/docs/readme.md', oldText: 'line', newText: 'x' }));
    expect(r).toMatchObject({ kind: 'tool' });
    expect(r.observation).toMatch(/^\[edit\] error: Found 2 occurrences/);
    r = h.step(call('read', { path: '/docs/readme.md', offset: 2, limit: 1 }));
    expect(r.observation).toBe('[read] ok\nline 2\n[Showing lines 2-2 of 4. Use offset=3 to continue]');
    r = h.step(call('exec', { command: 'cat n.txt', workdir: '/in' }));
    expect(r.observation).toBe('[exec] ok\n42\n');
    r = h.step(call('read', { file_path: '/in/n.txt' }));
    expect(r).toMatchObject({
      kind: 'parse_error',
      observation: `[error] Validation failed for tool "read": must NOT have additional property 'file_path'`,
    });
    r = h.step('done\nall good');
    expect(r.terminated).toBe(true);
    expect(h.transcript().answer).toBe('done\nall good');
    expect(createHarness('bb-assistant').reset(fixtureTask())[0].text).toMatch(/# AGENTS\.md[\s\S]*# skills\/files\.md/);
  });
});

describe('behaviour tags', () => {
  const rec = (
    turn: number,
    kind: TurnRecord['kind'],
    tool?: string,
    args: Record<string, string> = {},
    ok = true,
    code?: string,
  ): TurnRecord => ({
    turn,
    context: '',
    action: '',
    observation: '',
    kind,
    calls: tool ? [{ tool: tool as never, args }] : [],
    results: tool ? [ok ? { ok, output: '' } : { ok, output: '', error: { code: (code ?? 'not_found') as never, message: 'x' } }] : [],
    toolError: !!tool && !ok,
  });
  it('counts errors, recovery and stale-path / repeated-failure state-tracking events', () => {
    const t = computeTags(
      [
        rec(1, 'tool', 'move', { from: '/a.txt', to: '/b.txt' }),
        rec(2, 'tool', 'read', { path: 'a.txt' }, false),
        rec(3, 'tool', 'read', { path: 'a.txt' }, false),
        rec(4, 'parse_error'),
        rec(5, 'tool', 'read', { path: '/b.txt' }),
      ],
      { terminated: false, truncation: 'turns' },
    );
    expect(t).toMatchObject({ parseErrors: 1, toolErrors: 2, recovered: true, truncated: true, truncationReason: 'turns' });
    expect(t.stateTrackingEvents).toHaveLength(3); // read a.txt twice after moving it; once a repeat of a not_found
    const u = computeTags([rec(1, 'tool', 'read', { path: '/x' }, false)], { terminated: true, truncation: null });
    expect(u.recovered).toBe(false);
    expect(computeTags([rec(1, 'tool', 'list')], { terminated: true, truncation: null }).recovered).toBeNull();
    const w = computeTags([rec(1, 'tool', 'finish')], { terminated: true, truncation: null, pass: false, needsStateTracking: true });
    expect(w.stateTrackingErrors).toBe(1);
  });
});

describe('episode loop and CLI helpers', () => {
  it('runEpisode drives a text policy to the end and tags the episode', async () => {
    const { runEpisode } = await import('./lib/run_episode');
    const script = ['cat /in/n.txt', 'oops "', 'put /out/n.txt 42', 'done 42'];
    const seen: string[] = [];
    const out = runEpisode(createHarness('S0-T1-O0-C1-W0'), fixtureTask(), (ctx, turn) => {
      seen.push(ctx);
      return script[turn - 1];
    });
    expect(out.turns.map((t) => t.kind)).toEqual(['tool', 'parse_error', 'tool', 'tool']);
    expect(out.turns.map((t) => t.context)).toEqual(seen);
    expect(out.final.files['/out/n.txt']).toBe('42');
    expect(out.tags).toMatchObject({ parseErrors: 1, recovered: true, terminated: true, truncated: false });
    expect(out.verification).toBeUndefined();
  });

  it('render helpers name an unknown family, task or harness', async () => {
    const { registerRender } = await import('../../src/cli/commands/render');
    const { runCli } = await import('./lib/cli_in_process');
    const render = (harness: string) =>
      runCli([registerRender], 'render', '--suite', 'errands', '--task', 'recall/t2/77', '--harness', harness, '--json');
    const { resolveTask } = await import('../../src/tasks/task_ref');
    expect(() => resolveTask('workspace', 'nofam/t1/3', undefined, 1)).toThrow(/unknown family 'nofam'/);
    expect(() => resolveTask('workspace', 'abc', undefined, 1)).toThrow(/--task 'abc'/);
    expect(() => resolveTask('workspace', 'errands/recall/t1/3', undefined, 1)).toThrow(/belongs to suite 'errands'/);
    const t = resolveTask('errands', 'recall/t2/77', undefined, 1);
    expect(t.id).toBe('errands/recall/t2/77');
    expect((await render('S0-T0-O0-C0-W7')).error?.message).toMatch(/unknown harness id 'S0-T0-O0-C0-W7'/);
    expect(JSON.parse((await render('bb-assistant')).stdout).contexts[0].context).toContain(t.instruction);
  });
});

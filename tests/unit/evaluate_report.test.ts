/**
 * `hlab evaluate` without a GPU (src/report/evaluate_report.ts, src/cli/commands/evaluate.ts):
 * harness sets resolve to the design's ids, tasks are a seeded tier-limited draw, and the report
 * has the JSON shape with fractions in [0, 1] computed per set and per harness.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { BASE_HARNESS } from '../../src/design/space';
import { selectTrainingOA } from '../../src/design/selection';
import { evalReport, evalTaskIds, resolveEvalHarnesses } from '../../src/report/evaluate_report';

import { registerEvaluate } from '../../src/cli/commands/evaluate';
import { runCli } from './lib/cli_in_process';
import { encodeBaseCheckpoint } from '../../src/model/checkpoint';
import { paramCount } from '../../src/model/layout';
import { UsageError } from '../../src/cli/cli_util';
import { taskFromId } from '../../src/tasks';

/** The browser `hlab evaluate` would start: it records the page request and answers with `reply`. */
const page = vi.hoisted(() => ({ requests: [] as unknown[], reply: '{}' }));
vi.mock('../../src/cli/browser', () => ({
  withBrowser: async <T>(body: (s: { call: (name: string, arg: unknown) => Promise<string> }) => Promise<T>) =>
    body({ call: async (_name, arg) => (page.requests.push(arg), page.reply) }),
}));

/** `hlab evaluate <args>`: the page request it sent (null when it stopped before a browser), its stdout and error. */
async function evaluate(...args: string[]) {
  page.requests = [];
  const r = await runCli([registerEvaluate], 'evaluate', ...args);
  return { ...r, request: (page.requests[0] ?? null) as Record<string, unknown> | null };
}

/** The console text `hlab evaluate` prints for report `r`. */
async function formatEvalReport(r: unknown): Promise<string> {
  page.reply = JSON.stringify(r);
  const { stdout, error } = await evaluate('--max-tier', '1');
  if (error) throw error;
  return stdout;
}

/** One episode as evalReport reads it. */
type EvalEpisodeLike = Parameters<typeof evalReport>[1][number];

describe('resolveEvalHarnesses', () => {
  it('maps set names to the design ids, keeps ids once, and rejects unknown entries', () => {
    const d = selectTrainingOA();
    const p = resolveEvalHarnesses('base,training');
    expect(p.sets.base).toEqual([BASE_HARNESS]);
    expect(p.sets.training).toEqual(d.training);
    expect(p.sets.inSpace).toBeUndefined();
    expect(p.ids).toEqual([...new Set([BASE_HARNESS, ...d.training])]);
    const all = resolveEvalHarnesses('all,bb-assistant');
    expect(all.sets.blackbox).toEqual(['bb-coding-cli', 'bb-assistant']);
    expect(all.ids.length).toBe(
      new Set([BASE_HARNESS, ...d.training, ...d.heldOut.map((h) => h.id), 'bb-coding-cli', 'bb-assistant']).size,
    );
    expect(resolveEvalHarnesses('S1-T1-O1-C1-W1').ids).toEqual(['S1-T1-O1-C1-W1']);
    expect(() => resolveEvalHarnesses('base,nope')).toThrow(/unknown harness id 'nope'/);
    expect(() => resolveEvalHarnesses(' , ')).toThrow(/expected set names/);
  });
});

describe('evalTaskIds', () => {
  it('draws n test tasks per suite of tier ≤ maxTier, deterministic in the seed', () => {
    const ids = evalTaskIds(['workspace', 'errands'], 1, 24, 0);
    expect(ids).toHaveLength(48);
    expect(new Set(ids).size).toBe(48);
    for (const id of ids) expect(taskFromId(id).tier).toBe(1);
    expect(ids.filter((i) => i.startsWith('workspace/'))).toHaveLength(24);
    expect(evalTaskIds(['workspace', 'errands'], 1, 24, 0)).toEqual(ids);
    expect(evalTaskIds(['workspace', 'errands'], 1, 24, 1)).not.toEqual(ids);
  });
});

describe('evalReport', () => {
  it('has the issue shape: pass@1 and score per set and per harness, parse errors per turn', () => {
    const plan = resolveEvalHarnesses('base,blackbox,S1-T1-O1-C1-W1');
    const tags = (parseErrors: number) => ({ parseErrors }) as EvalEpisodeLike['tags'];
    const t = (n: number) => Array.from({ length: n }, () => ({}));
    const eps: EvalEpisodeLike[] = [
      { taskId: 'workspace/csv-sum/t1/1000001', harnessId: BASE_HARNESS, pass: true, score: 1, turns: t(2), tags: tags(0) },
      { taskId: 'workspace/csv-sum/t1/1000002', harnessId: BASE_HARNESS, pass: false, score: 0.5, turns: t(2), tags: tags(2) },
      { taskId: 'workspace/csv-sum/t1/1000001', harnessId: 'bb-assistant', pass: false, score: 0.25, turns: t(4), tags: tags(1) },
      { taskId: 'workspace/csv-sum/t1/1000001', harnessId: 'bb-coding-cli', pass: true, score: 1, turns: t(1), tags: tags(0) },
      { taskId: 'workspace/csv-sum/t1/1000001', harnessId: 'S1-T1-O1-C1-W1', pass: true, score: 1, turns: t(1), tags: null },
    ];
    const r = evalReport(plan, eps, { source: 'x.ckpt' });
    expect(r.checkpoint).toEqual({ source: 'x.ckpt' });
    expect(r.passAt1).toEqual({ base: 0.5, training: null, inSpace: null, blackbox: { 'bb-coding-cli': 1, 'bb-assistant': 0 } });
    expect(r.score).toEqual({ base: 0.75, training: null, inSpace: null, blackbox: { 'bb-coding-cli': 1, 'bb-assistant': 0.25 } });
    expect(r.perHarness[BASE_HARNESS]).toEqual({ passAt1: 0.5, score: 0.75, episodes: 2, parseErrorRate: 0.5 });
    expect(r.perHarness['bb-assistant'].parseErrorRate).toBe(0.25);
    expect(r.perHarness['S1-T1-O1-C1-W1']).toEqual({ passAt1: 1, score: 1, episodes: 1, parseErrorRate: 0 });
    expect(r.episodes).toBe(5);
    expect(r.entropy).toEqual({
      base: null,
      training: null,
      inSpace: null,
      blackbox: { 'bb-coding-cli': null, 'bb-assistant': null },
      overall: null,
    });
    expect(r.inSpaceExcluded).toBeUndefined();
  });

  it('perFamily: per evaluated set (base, training, each black-box id) a suite/family table of pass@1, score and episodes; entropy per sampled token per set and overall', () => {
    const d = selectTrainingOA();
    const plan = resolveEvalHarnesses('base,training,blackbox');
    const ep = (taskId: string, harnessId: string, pass: boolean, score: number, ents: number[][]): EvalEpisodeLike => ({
      taskId,
      harnessId,
      pass,
      score,
      turns: ents.map((e) => ({ entropies: Float32Array.from(e) })),
      tags: null,
    });
    const eps = [
      ep('workspace/cleanup/t1/1000003', BASE_HARNESS, true, 1, [[0.5, 0.5], [1]]),
      ep('workspace/cleanup/t1/1000004', BASE_HARNESS, false, 0.5, [[2]]),
      ep('errands/recall/t1/1000005', BASE_HARNESS, false, 0, [[0]]),
      ep('errands/recall/t1/1000005', d.training[1], true, 0.75, [[3, 3, 3]]),
      ep('workspace/cleanup/t1/1000003', 'bb-assistant', false, 0, [[1]]),
    ];
    const r = evalReport(plan, eps, {});
    expect(Object.keys(r.perFamily)).toEqual(['base', 'training', 'bb-coding-cli', 'bb-assistant']);
    expect(r.perFamily.base).toEqual({
      'errands/recall': { passAt1: 0, score: 0, episodes: 1 },
      'workspace/cleanup': { passAt1: 0.5, score: 0.75, episodes: 2 },
    });
    // The base harness is also a training harness of the OA design: its episodes count there too.
    expect(d.training).toContain(BASE_HARNESS);
    expect(r.perFamily.training['errands/recall']).toEqual({ passAt1: 0.5, score: 0.375, episodes: 2 });
    expect(r.perFamily['bb-assistant']).toEqual({ 'workspace/cleanup': { passAt1: 0, score: 0, episodes: 1 } });
    expect(r.perFamily['bb-coding-cli']).toEqual({});
    // Per token, not per episode: base (0.5 + 0.5 + 1 + 2 + 0) / 5.
    expect(r.entropy.base).toBeCloseTo(0.8, 6);
    expect(r.entropy.blackbox).toEqual({ 'bb-coding-cli': null, 'bb-assistant': 1 });
    expect(r.entropy.overall).toBeCloseTo((4 + 9 + 1) / 9, 6);
    expect(r.entropy.inSpace).toBeNull();
  });
});

describe("hlab evaluate's inSpace set leaves out the checkpoint's pretraining mix", () => {
  it('removes the mix configurations, counts them, and reports the count', async () => {
    const d = selectTrainingOA();
    const held = d.heldOut.map((h) => h.id);
    const none = resolveEvalHarnesses('inSpace');
    expect(none.sets.inSpace).toEqual(held);
    expect(none.inSpaceExcluded).toEqual({ pretrainMix: 0, mix: 'no mix recorded' });
    const mix = { harnesses: [BASE_HARNESS, held[0], held[7], held[40]], label: "mix 'x' (4 harnesses)" };
    const p = resolveEvalHarnesses('base,inSpace', mix);
    expect(p.sets.inSpace).toEqual(held.filter((_, i) => i !== 0 && i !== 7 && i !== 40));
    expect(p.ids).not.toContain(held[7]);
    expect(p.inSpaceExcluded).toEqual({ pretrainMix: 3, mix: "mix 'x' (4 harnesses)" });
    expect(resolveEvalHarnesses('base', mix).inSpaceExcluded).toBeUndefined();
    const r = evalReport(p, [], {});
    expect(r.inSpaceExcluded).toEqual({ pretrainMix: 3, mix: "mix 'x' (4 harnesses)" });
    expect(await formatEvalReport(r)).toContain(
      "inSpace leaves out 3 held-out configurations of the checkpoint's pretraining mix (mix 'x' (4 harnesses))",
    );
  });

  it('the console shows the per-family table and the entropy', async () => {
    const plan = resolveEvalHarnesses('base,bb-assistant');
    const r = evalReport(
      plan,
      [{ taskId: 'errands/recall/t1/1000005', harnessId: BASE_HARNESS, pass: true, score: 1, turns: [{ entropies: [0.25] }], tags: null }],
      {
        source: 's',
      },
    );
    const text = await formatEvalReport(r);
    expect(text).toMatch(/per family: pass@1 \(episodes\)\n\s+family\s+base\n\s+errands\/recall\s+1\.00 \(1\)/);
    expect(text).toContain('entropy/token 0.250 nats');
  });
});

describe('hlab evaluate options', () => {
  it('builds the page request and refuses bad options before a browser starts', async () => {
    const { request, error } = await evaluate('--max-tier', '1', '--json');
    expect(error).toBeUndefined();
    expect(request).toMatchObject({
      init: 'base',
      preset: 'mini',
      harnesses: 'base,training',
      suites: ['workspace', 'errands'],
      maxTier: 1,
      tasks: 24,
      samples: 2,
      temperature: 1,
      allowBudgetMismatch: false,
    });
    expect(request!.maxNewTokens).toBeUndefined();
    const refused = async (args: string[], why: RegExp) => {
      const r = await evaluate('--max-tier', '1', ...args);
      expect(r.request, args.join(' ')).toBeNull();
      expect(r.error, args.join(' ')).toBeInstanceOf(UsageError);
      expect(r.error!.message).toMatch(why);
    };
    await refused(['--suites', 'workspace,chores'], /chores/);
    await refused(['--temperature', 'hot'], /--temperature/);
    await refused(['--init', '/no/such.ckpt'], /no such file/);
    await refused(['--harnesses', 'trainin'], /trainin/);
  });

  it('checks the checkpoint budget before a browser starts: a mismatch is one UsageError line naming the flags; the shipped base is found by preset', async () => {
    const cfg = { C: 8, L: 1, NH: 2, maxT: 64, vocabSize: 32 };
    const { bytes } = await encodeBaseCheckpoint(
      cfg,
      new Float32Array(paramCount(cfg)),
      { name: 't', vocabSize: 32, formatVersion: 2 },
      { budgetMaxT: 64, actionReserve: 16 },
    );
    const dir = mkdtempSync(join(tmpdir(), 'hlab-eval-'));
    const file = join(dir, 'm.ckpt');
    writeFileSync(file, bytes);
    writeFileSync(join(dir, 'bad.ckpt'), Buffer.from('AAAA', 'base64'));
    const run = (...args: string[]) => evaluate('--max-tier', '1', '--json', ...args);
    const sent = await run('--init', file);
    expect(sent.error).toBeUndefined();
    expect(sent.request!.init).toEqual({ base64: Buffer.from(bytes).toString('base64'), name: 'm.ckpt' });
    const mismatch = await run('--init', file, '--max-new-tokens', '8');
    expect(mismatch.request).toBeNull();
    expect(mismatch.error).toBeInstanceOf(UsageError);
    expect(mismatch.error!.message).toMatch(
      /^the base checkpoint .*contexts of ≤ 48 tokens.*to 56 tokens \(min\(maxT, --context-tokens\) 64 − --max-new-tokens 8\); choose --context-tokens and --max-new-tokens .* = 48, or pass --allow-budget-mismatch$/,
    );
    expect((await run('--init', file, '--max-new-tokens', '8', '--allow-budget-mismatch')).error).toBeUndefined();
    expect((await run('--init', join(dir, 'bad.ckpt'))).error?.message).toMatch(/^--init bad\.ckpt: /);
    expect((await run('--preset', 'nosuch')).error?.message).toMatch(/no shipped base for --preset nosuch/);
    expect((await run()).error).toBeUndefined();
  });
});

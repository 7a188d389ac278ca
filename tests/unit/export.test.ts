import { turnCap } from '../../src/harness/turn_budget';
import { taskFromId } from '../../src/tasks';
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// hyparquet is hyparquet-writer's own reader (its one dependency): read back what we wrote.
import { parquetReadObjects } from 'hyparquet';
import { buildExport, buildSpecExport, type ExportRow } from '../../src/export/dataset';
import { writeExport } from '../../src/export/writers';
import { selectTraining } from '../../src/design';
import { taskAssignments, trainPool, testTasks, inSpaceEvalSet } from '../../src/experiment/plan';
import { smokeSpec } from './lib/smoke_spec';
import { hlabChild } from './lib/cli_child';

const OPTS = { tasks: 3, evalTasks: 2, K: 4, heldoutPerDistance: 1, maxTurns: 12, seed: 5 } as const;

async function readParquet(path: string): Promise<Record<string, any>[]> {
  const buf = readFileSync(path);
  return parquetReadObjects({ file: buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) });
}

/** An export row's episode keys (what `hlab serve` takes). */
const episodeKeys = (r: ExportRow) => ({ suite: r.suite, task: r.task, harness: r.harness, max_turns: r.maxTurns });
const chat = (r: ExportRow) => r.messages.map((m) => ({ role: m.role, content: m.content }));

/** The verl row of an export row, column by column as docs/SCALE-OUT.md lists them. */
const verlOf = (r: ExportRow) => ({
  data_source: `hlab/${r.suite}`,
  prompt: chat(r),
  ability: 'agent',
  agent_name: 'hlab_agent',
  reward_model: { style: 'hlab_serve', ground_truth: r.task },
  extra_info: {
    index: r.index,
    split: r.split,
    suite: r.suite,
    task: r.task,
    family: r.family,
    tier: r.tier,
    harness: r.harness,
    blackbox: r.blackbox,
    levels: r.levels,
    role: r.role,
    distance: r.distance,
    slot: r.slot,
    max_turns: r.maxTurns,
    instruction: r.instruction,
    raw_prompt_text: r.prompt,
    tool_docs: r.toolDocs,
    tools_json: JSON.stringify(r.tools),
    tools_kwargs: { hlab: { create_kwargs: episodeKeys(r) } },
    interaction_kwargs: { name: 'hlab', ...episodeKeys(r) },
  },
});

/** The slime line of an export row (docs/SCALE-OUT.md). */
const slimeOf = (r: ExportRow) => ({
  prompt: chat(r),
  label: r.task,
  metadata: {
    index: r.index,
    split: r.split,
    ...episodeKeys(r),
    family: r.family,
    tier: r.tier,
    blackbox: r.blackbox,
    levels: r.levels,
    role: r.role,
    distance: r.distance,
    slot: r.slot,
    instruction: r.instruction,
    raw_prompt_text: r.prompt,
    tool_docs: r.toolDocs,
  },
  tools: r.tools,
});

describe('hlab export datasets', () => {
  const ds = buildExport(OPTS);
  const oa = selectTraining(undefined, { method: 'oa' });

  it('one train row per (task, harness) of the schedule: K per task, anchor first, nearest next', () => {
    expect(ds.train).toHaveLength(2 * 3 * 4); // 2 suites × 3 tasks × K
    expect(ds.schedule.assignments).toHaveLength(6);
    for (const [i, a] of ds.schedule.assignments.entries()) {
      const rows = ds.train.slice(4 * i, 4 * i + 4);
      expect(rows.map((r) => r.harness)).toEqual(a.harnesses);
      expect(rows.map((r) => r.task)).toEqual(Array(4).fill(String(a.task)));
      expect(rows.map((r) => r.role)).toEqual(['anchor', 'neighbor', 'neighbor', 'neighbor']);
      expect(rows.map((r) => r.distance)).toEqual(a.distances);
      expect([...a.distances].sort((x, y) => x - y)).toEqual(a.distances); // locality: non-decreasing
      for (const h of a.harnesses) expect(oa.training).toContain(h);
    }
    expect(new Set(ds.train.map((r) => r.suite))).toEqual(new Set(['workspace', 'errands']));
    expect(ds.train.every((r) => r.maxTurns === turnCap(12, r.harness, taskFromId(r.task)) && r.split === 'train')).toBe(true);
    // W1/W2 rows get their workflow's turns on top of the 12 tool-call turns (the cap hlab run applies).
    expect(ds.train.some((r) => r.maxTurns > 12)).toBe(true);
  });

  it('evaluation rows: test tasks × held-out configurations (with distances) and × black-box harnesses', () => {
    const perDistance = new Map<number, number>();
    for (const h of oa.heldOut) perDistance.set(h.distance, 1);
    expect(ds.heldout).toHaveLength(4 * perDistance.size); // 4 test tasks × 1 per distance
    const heldOutIds = new Map(oa.heldOut.map((h) => [h.id, h.distance]));
    for (const r of ds.heldout) {
      expect(heldOutIds.get(r.harness)).toBe(r.distance);
      expect(oa.training).not.toContain(r.harness);
      expect(Number(r.task.split('/')[3])).toBeGreaterThanOrEqual(1_000_000); // test split
    }
    expect(ds.blackbox.map((r) => r.harness)).toEqual(Array(4).fill(['bb-coding-cli', 'bb-assistant']).flat());
    expect(ds.blackbox.every((r) => r.blackbox && r.levels.S === null && r.distance === null)).toBe(true);
  });

  it('rows carry levels, the opening context and the tool docs the harness shows', () => {
    const r = ds.train[0];
    // The levels are the harness id's, as integers; a black-box harness has none.
    expect(Object.values(r.levels).every(Number.isInteger)).toBe(true);
    expect(r.harness).toBe(['S', 'T', 'O', 'C', 'W'].map((k) => `${k}${r.levels[k as 'S']}`).join('-'));
    expect(ds.blackbox[0].levels).toEqual({ S: null, T: null, O: null, C: null, W: null });
    expect(r.prompt.startsWith('<|system|>')).toBe(true);
    expect(r.messages[0].content).toContain(r.toolDocs);
    expect(r.tools.map((t) => t.function.name)).toEqual(['list', 'read', 'write', 'append', 'move', 'delete', 'search', 'mkdir', 'finish']);
    const bb = ds.blackbox[0];
    expect(bb.toolDocs).toBe(bb.messages.find((m) => m.role === 'system')!.content);
  });

  it('is deterministic in its seeds and changes with them', () => {
    expect(buildExport(OPTS).train.map((r) => [r.task, r.harness])).toEqual(ds.train.map((r) => [r.task, r.harness]));
    expect(buildExport({ ...OPTS, seed: 6 }).train.map((r) => r.task)).not.toEqual(ds.train.map((r) => r.task));
  });

  it('verl parquet: row counts and keys read back; slime jsonl likewise; design and schedule JSON beside them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hlab-export-'));
    try {
      const m = writeExport(ds, 'verl', join(dir, 'verl'));
      expect(m.rows).toEqual({ train: 24, heldout: ds.heldout.length, blackbox: 8 });
      const train = await readParquet(join(dir, 'verl', 'train.parquet'));
      expect(train).toHaveLength(24);
      expect(Object.keys(train[0]).sort()).toEqual(['ability', 'agent_name', 'data_source', 'extra_info', 'prompt', 'reward_model']);
      expect(train[0]).toEqual(verlOf(ds.train[0]));
      const x = train[5].extra_info;
      expect(x.tools_kwargs.hlab.create_kwargs).toEqual({
        suite: ds.train[5].suite,
        task: ds.train[5].task,
        harness: ds.train[5].harness,
        max_turns: turnCap(12, ds.train[5].harness, taskFromId(ds.train[5].task)),
      });
      expect(x.interaction_kwargs).toMatchObject({ name: 'hlab', task: ds.train[5].task });
      expect(train[0].prompt[0]).toEqual({ role: 'system', content: ds.train[0].messages[0].content });
      expect(await readParquet(join(dir, 'verl', 'heldout.parquet'))).toHaveLength(ds.heldout.length);
      const bb = await readParquet(join(dir, 'verl', 'blackbox.parquet'));
      expect(bb).toHaveLength(8);
      expect(bb[0].extra_info.levels).toEqual({ S: null, T: null, O: null, C: null, W: null });
      expect(bb[3]).toEqual(verlOf(ds.blackbox[3]));

      writeExport(ds, 'slime', join(dir, 'slime'));
      const lines = readFileSync(join(dir, 'slime', 'train.jsonl'), 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines).toHaveLength(24);
      expect(Object.keys(lines[0]).sort()).toEqual(['label', 'metadata', 'prompt', 'tools']);
      expect(lines[3]).toEqual(slimeOf(ds.train[3]));
      expect(lines[3].metadata).toMatchObject({
        suite: ds.train[3].suite,
        task: ds.train[3].task,
        harness: ds.train[3].harness,
        max_turns: turnCap(12, ds.train[3].harness, taskFromId(ds.train[3].task)),
      });
      expect(
        readFileSync(join(dir, 'slime', 'blackbox.jsonl'), 'utf8')
          .trimEnd()
          .split('\n'),
      ).toHaveLength(8);
      const design = JSON.parse(readFileSync(join(dir, 'slime', 'design.json'), 'utf8'));
      expect(design.table).toHaveLength(18);
      expect(design.table[0].levels).toHaveLength(5);
      const schedule = JSON.parse(readFileSync(join(dir, 'slime', 'schedule.json'), 'utf8'));
      expect(schedule.assignments).toHaveLength(6);
      expect(schedule.K).toBe(4);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('with a spec, the rows are what the experiment plan schedules for the method', () => {
    const spec = smokeSpec();
    const method = spec.methods[0];
    const seed = spec.seeds[0];
    const sds = buildSpecExport(spec, method, seed);
    const plan = taskAssignments(spec, method, trainPool(spec, seed), seed);
    expect(sds.train.map((r) => [r.task, r.harness])).toEqual(plan.flatMap((a) => a.harnesses.map((h) => [String(a.task), h])));
    const inSpace = inSpaceEvalSet(spec).ids;
    expect(sds.heldout).toHaveLength(testTasks(spec, seed).length * inSpace.length);
    expect(sds.blackbox).toHaveLength(testTasks(spec, seed).length * spec.evaluation.blackbox.length);
    expect(sds.train.every((r) => r.maxTurns === turnCap(spec.rollout.maxTurns, r.harness, taskFromId(r.task)))).toBe(true);
  });
});

describe('hlab export CLI', () => {
  /** `hlab export <args>` in a child process. */
  const hlab = (...args: string[]) => hlabChild('export', ...args);

  it('writes the files and prints the manifest; bad values exit 2 with one line naming the flag', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hlab-export-cli-'));
    try {
      const ok = await hlab(
        '--format',
        'slime',
        '--out',
        dir,
        '--tasks',
        '2',
        '--suites',
        'errands',
        '--K',
        '3',
        '--eval-tasks',
        '1',
        '--json',
      );
      expect(ok.code).toBe(0);
      const m = JSON.parse(ok.stdout);
      expect(m.rows).toMatchObject({ train: 6, blackbox: 2 });
      expect(readFileSync(join(dir, 'train.jsonl'), 'utf8').trimEnd().split('\n')).toHaveLength(6);
      for (const [args, flag] of [
        [['--format', 'hf', '--out', dir], '--format'],
        [['--format', 'verl', '--out', dir, '--K', '19'], '--K'],
        [['--format', 'verl', '--out', dir, '--suites', 'workspace,mars'], '--suites'],
        [['--format', 'verl', '--out', dir, '--preset', 'quick', '--tasks', '3'], '--tasks'],
      ] as [string[], string][]) {
        const r = await hlab(...args);
        expect({ args, code: r.code }).toEqual({ args, code: 2 });
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        expect(r.stderr).toContain(flag);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

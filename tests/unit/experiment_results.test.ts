import { describe, it, expect } from 'vitest';
import { experimentTime, markdownTable, resultsCsv, segmentsText, withUnfinishedRuns } from '../../src/report/results_markdown';
import { meanStd, formatPct, methodComparisons, resultsTable } from '../../src/report/results_table';
import type { EpisodeCell, RunResult, ExperimentResults } from '../../src/report/results_schema';

const behaviour = { parseErrors: 0.5, workflowViolations: 0.25, recoveryRate: 0.5, stateTrackingErrors: 0 };
function run(method: string, seed: number, after: number): RunResult {
  return {
    method,
    algorithm: 'grpo',
    seed,
    rlSteps: 12,
    optimizerSteps: 10,
    skippedOptimizerSteps: 1,
    rlStepsWithoutUpdate: 2,
    before: { base: 0.1, inSpace: 0.2, blackbox: { 'bb-assistant': 0.05 } },
    after: { base: after, inSpace: after / 2, blackbox: { 'bb-assistant': after / 4 } },
    trainHarnesses: { before: 0.1, after },
    behaviour: { before: behaviour, after: behaviour },
    perHarness: {},
    seconds: 3,
  };
}

describe('results', () => {
  it('meanStd uses the sample std and rejects empty lists', () => {
    expect(meanStd([1, 3])).toEqual({ mean: 2, std: Math.SQRT2, n: 2 });
    expect(meanStd([5]).std).toBe(0);
    expect(() => meanStd([])).toThrow(/empty/);
    expect(formatPct([0.4, 0.5])).toBe('45.0 ± 7.1');
    expect(formatPct([0.25])).toBe('25.0');
  });
  it('gives each starting checkpoint its own starting row (older files, whose methods could name their own)', () => {
    const other = (seed: number): RunResult => ({
      ...run('from scratch', seed, 0.2),
      startingCheckpoint: 'scratch',
      before: { base: 0, inSpace: 0, blackbox: { 'bb-assistant': 0.3 } },
    });
    const base = (m: string, seed: number): RunResult => ({ ...run(m, seed, 0.5), startingCheckpoint: 'base' });
    const res: ExperimentResults = {
      resultsVersion: 1,
      spec: 'blackbox',
      evalSet: 'x',
      machine: 'test',
      runs: [base('scaling', 0), other(0), base('scaling', 1), other(1)],
    };
    const table = resultsTable(res);
    const starts = table.rows.filter((r) => r.kind === 'start');
    expect(starts.map((r) => [r.label, r.seeds])).toEqual([
      ["starting checkpoint 'base'", 2],
      ["starting checkpoint 'scratch'", 2],
    ]);
    const md = markdownTable(res);
    expect(md).toContain("| starting checkpoint 'base' | 2 | 10.0 ± 0.0 [n/a] | 20.0 ± 0.0 [n/a] | 5.0 ± 0.0 [n/a] |");
    expect(md).toContain("| starting checkpoint 'scratch' | 2 | 0.0 ± 0.0 [n/a] | 0.0 ± 0.0 [n/a] | 30.0 ± 0.0 [n/a] |");
    // One starting checkpoint (or a file written before the field existed): one unnamed row.
    expect(
      resultsTable({ ...res, runs: [base('a', 0), base('b', 0)] })
        .rows.filter((r) => r.kind === 'start')
        .map((r) => r.label),
    ).toEqual(['starting checkpoint']);
  });
  it('markdown table has a row per method plus the starting checkpoint', () => {
    const res: ExperimentResults = {
      resultsVersion: 1,
      spec: 'quick',
      evalSet: 'all 225',
      machine: 'test',
      runs: [run('single', 0, 0.3), run('single', 1, 0.5), run('scaling', 0, 0.6)],
    };
    const md = markdownTable(res);
    expect(md).toContain('| method | seeds | base | in-space | bb-assistant | train harnesses |');
    expect(md).toContain('| single | 2 | 40.0 ± 14.1 [n/a] | 20.0 ± 7.1 [n/a] | 10.0 ± 3.5 [n/a] | 40.0 ± 14.1 [n/a] |');
    expect(md).toContain('| scaling | 1 | 60.0 [n/a] | 30.0 [n/a] | 15.0 [n/a] | 60.0 [n/a] |');
    expect(md).toContain('| starting checkpoint | 2 | 10.0 ± 0.0 [n/a] |');
    // Without per-episode outcomes the paired table and the scores say n/a, and why.
    expect(md).toContain('| single | n/a | n/a | n/a | n/a |');
    expect(md).toContain('no per-episode outcomes (RunResult.episodes)');
    const csv = resultsCsv(res).trim().split('\n');
    expect(csv).toHaveLength(4);
    expect(csv[0]).toContain('bb-assistant_before');
    // One step vocabulary: RL steps, optimizer steps applied and skipped, RL steps without an update.
    expect(csv[0]).toMatch(/^method,algorithm,seed,rl_steps,optimizer_steps,skipped_optimizer_steps,rl_steps_without_update,/);
    expect(csv[1]).toMatch(/^single,grpo,0,12,10,1,2,/);
  });
});

describe('results.csv behaviour columns', () => {
  it('name their unit: per-episode means of the after evaluation, and the recovery rate', () => {
    const r = run('single', 0, 0.5);
    r.behaviour = {
      before: { parseErrors: 9, workflowViolations: 9, recoveryRate: 0.9, stateTrackingErrors: 9 },
      after: { parseErrors: 1.75, workflowViolations: 0.125, recoveryRate: 0.375, stateTrackingErrors: 0.0625 },
    };
    const [head, row] = resultsCsv({ resultsVersion: 1, spec: 'quick', evalSet: 'x', machine: 'm', runs: [r] })
      .trim()
      .split('\n')
      .map((l) => l.split(','));
    const col = (name: string) => {
      expect(head, name).toContain(name);
      return Number(row[head.indexOf(name)]);
    };
    // Per episode, not the per-turn parse-error rate of `hlab evaluate`: the name says which.
    expect(col('parse_errors_per_episode_after')).toBe(1.75);
    expect(col('workflow_violations_per_episode_after')).toBe(0.125);
    expect(col('recovery_rate_after')).toBe(0.375);
    expect(col('state_tracking_errors_per_episode_after')).toBe(0.0625);
    expect(head).not.toContain('parse_errors_after');
  });
});

describe('results of an interrupted experiment', () => {
  it("keep the finished 'before' evaluation of the stopped run; missing values are '—'", () => {
    const res: ExperimentResults = { resultsVersion: 1, spec: 'quick', evalSet: 'x', machine: 'm', runs: [] };
    const before = {
      runIndex: 0,
      method: 'harness scaling (GRPO)',
      seed: 0,
      passAt1: { base: 0.25, inSpace: 0.5, blackbox: { 'bb-assistant': 0.125 } },
      training: 0.75,
    };
    const md = markdownTable(withUnfinishedRuns(res, [before, { ...before }]));
    const rows = md.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| method') && !l.startsWith('| ---'));
    expect(rows.slice(0, 2)).toEqual([
      '| starting checkpoint | 1 | 25.0 [n/a] | 50.0 [n/a] | 12.5 [n/a] | 75.0 [n/a] |',
      '| harness scaling (GRPO) | 1 | — [n/a] | — [n/a] | — [n/a] | — [n/a] |',
    ]);
    // A run that finished already is not repeated.
    const done = withUnfinishedRuns(
      {
        ...res,
        runs: [run('m', 0, 0)],
      },
      [before],
    );
    expect(done.runs).toHaveLength(1);
    expect(formatPct([NaN])).toBe('—');
  });
});

/** `n` tasks × 2 harnesses of one column; `passAfter(t)` / `passBefore(t)` per task index. */
function cellsOf(n: number, pass: (t: number, h: number) => boolean): EpisodeCell[] {
  const out: EpisodeCell[] = [];
  for (let t = 0; t < n; t++)
    for (const [h, id] of ['A', 'B'].entries())
      out.push({ taskId: `task${t}`, harnessId: id, sample: 0, pass: pass(t, h), score: pass(t, h) ? 1 : 0.25 });
  return out;
}

describe('resultsTable: one data model with intervals and paired differences', () => {
  const withEpisodes = (seed: number, before: EpisodeCell[], after: EpisodeCell[]): RunResult => {
    const rate = (xs: EpisodeCell[]) => xs.filter((x) => x.pass).length / xs.length;
    return {
      ...run('scaling', seed, rate(after)),
      before: { base: rate(before), inSpace: 0.2, blackbox: {} },
      after: { base: rate(after), inSpace: 0.1, blackbox: {} },
      episodes: { before: { base: before }, after: { base: after } },
    };
  };

  it('pools episodes over seeds: Wilson interval, counts, mean score; the paired gain has an interval over seeds', () => {
    // Seed 0: 12 tasks × 2 harnesses, 2/24 pass before, 20/24 after; seed 1 the same.
    const before = cellsOf(12, (t, h) => t === 0 && h <= 1);
    const after = cellsOf(12, (t, h) => !(t >= 10 && h === 0) && !(t === 11));
    const res: ExperimentResults = {
      resultsVersion: 1,
      spec: 'quick',
      evalSet: 'x',
      machine: 'm',
      runs: [withEpisodes(0, before, after), withEpisodes(1, before, after)],
    };
    const t = resultsTable(res);
    expect(t.hasEpisodes).toBe(true);
    expect(t.columns.map((c) => c.key)).toEqual(['base', 'inSpace', 'train']);
    const [start, method] = t.rows;
    expect(start.kind).toBe('start');
    // Two seeds of the same starting checkpoint: counted per seed (keys include the seed).
    expect(start.after[0].episodes).toBe(48);
    expect(start.after[0].passes).toBe(4);
    const afterBase = method.after[0];
    const passesAfter = after.filter((c) => c.pass).length;
    expect(afterBase.episodes).toBe(48);
    expect(afterBase.passes).toBe(2 * passesAfter);
    expect(afterBase.score).toBeCloseTo((2 * passesAfter + 0.25 * (48 - 2 * passesAfter)) / 48, 12);
    expect(afterBase.interval!.lo).toBeLessThan(afterBase.mean!);
    expect(afterBase.interval!.hi).toBeGreaterThan(afterBase.mean!);
    // No outcomes for in-space: n/a there.
    expect(method.after[1].episodes).toBeNull();
    expect(method.paired![1]).toBeNull();
    const p = method.paired![0]!;
    expect(p.pass.cells).toBe(48);
    expect(p.pass.seeds).toBe(2);
    expect(p.pass.configs).toBe(2);
    expect(p.pass.diff).toBeCloseTo((2 * passesAfter - 4) / 48, 12);
    // Two identical seeds: no spread between training runs, so the gain is decided.
    expect(p.pass.decided).toBe(true);
    const md = markdownTable(res);
    expect(md).toMatch(/\| scaling \| \+\d+\.\d \[\+\d+\.\d, \+\d+\.\d\] 2 seeds, decided \| n\/a \| n\/a \|/);
    expect(md).toContain(`[${(100 * afterBase.interval!.lo).toFixed(1)}, ${(100 * afterBase.interval!.hi).toFixed(1)}] n=48`);
    expect(md).not.toContain('no per-episode outcomes');
  });

  it('one seed gives no interval over training runs; unmatched cells are left out of the pairing; malformed outcomes throw', () => {
    const same = cellsOf(10, (t) => t % 2 === 0);
    const r = withEpisodes(0, same, same.slice(0, 16));
    const t = resultsTable({ spec: 's', evalSet: 'x', runs: [r] });
    const p = t.rows[1].paired![0]!;
    expect(p.pass.cells).toBe(16);
    expect(p.pass.diff).toBe(0);
    expect(p.pass.decided).toBe(false);
    expect(markdownTable({ resultsVersion: 1, spec: 's', evalSet: 'x', machine: 'm', runs: [r] })).toContain(
      '+0.0 (1 seed: no interval over training runs)',
    );
    const bad = { ...r, episodes: { before: { base: [{ ...same[0], score: 3 }] }, after: {} } };
    expect(() => resultsTable({ spec: 's', evalSet: 'x', runs: [bad] })).toThrow(
      /malformed episode in episodes.before.base of scaling seed 0/,
    );
  });
});

describe('segmentsText', () => {
  it('names every engine with its start and positions (a cross-engine resume must not name only the last)', () => {
    const text = segmentsText([
      {
        engine: 'webgpu',
        describe: 'WebGPU (SwiftShader)',
        start: 'base checkpoint public/base-mini.ckpt',
        from: { runIndex: 0, step: 0 },
        to: { runIndex: 0, step: 3 },
      },
      {
        engine: 'wasm',
        describe: 'CPU engine (WebAssembly SIMD)',
        start: 'the run checkpoint at run 1, step 3',
        from: { runIndex: 0, step: 3 },
        to: { runIndex: 1, step: 0 },
      },
    ]);
    expect(text.split('\n')).toEqual([
      'Segments (2; one per `hlab run` call):',
      '1. WebGPU (SwiftShader) — run 1, step 0 → run 1, step 3; from base checkpoint public/base-mini.ckpt',
      '2. CPU engine (WebAssembly SIMD) — run 1, step 3 → the end of run 1; from the run checkpoint at run 1, step 3',
    ]);
  });
});

describe('methodComparisons: methods against the first, on the same cells after RL', () => {
  const runOf = (method: string, seed: number, after: EpisodeCell[]): RunResult => ({
    ...run(method, seed, 0.5),
    episodes: { before: { base: after }, after: { base: after } },
  });
  it('pairs per seed, signs the difference method − reference, and says undecided when the two are equal', () => {
    // Reference passes tasks 0–3 of 12; the other method passes tasks 0–9, in both seeds.
    const ref = cellsOf(12, (t) => t < 4);
    const better = cellsOf(12, (t) => t < 10);
    const runs = [
      runOf('single', 0, ref),
      runOf('scaling', 0, better),
      runOf('single', 1, ref),
      runOf('scaling', 1, better),
      runOf('same', 0, ref),
      runOf('same', 1, ref),
    ];
    const columns = resultsTable({ spec: 's', evalSet: 'x', runs }).columns;
    const cmp = methodComparisons(runs, columns);
    expect(cmp.map((c) => [c.method, c.reference])).toEqual([
      ['scaling', 'single'],
      ['same', 'single'],
    ]);
    // Columns: base, in-space, bb-assistant (the training-harness column differs by method and is left out); no episodes there → null.
    expect(columns.map((c) => c.key)).toEqual(['base', 'inSpace', 'bb-assistant', 'train']);
    expect(cmp[0].paired).toHaveLength(3);
    expect(cmp[0].paired[1]).toBeNull();
    expect(cmp[0].paired[2]).toBeNull();
    const d = cmp[0].paired[0]!.pass;
    expect(d.cells).toBe(48);
    expect(d.perSeed.map((x) => x.seed)).toEqual([0, 1]);
    expect(d.diff).toBeCloseTo(12 / 24, 12);
    expect(d.decided).toBe(true);
    expect(cmp[1].paired[0]!.pass.diff).toBe(0);
    expect(cmp[1].paired[0]!.pass.decided).toBe(false);
    const md = markdownTable({ resultsVersion: 1, spec: 's', evalSet: 'x', machine: 'm', runs });
    expect(md).toContain('Between methods, after RL: each method − single');
    expect(md).toMatch(/\| scaling \| \+50\.0 \[\+\d+\.\d, \+\d+\.\d\] 2 seeds, decided \| n\/a \| n\/a \|$/m);
  });
  it('one method: nothing to compare, and results.md has no such table', () => {
    const runs = [
      runOf(
        'single',
        0,
        cellsOf(6, (t) => t < 3),
      ),
    ];
    expect(methodComparisons(runs, resultsTable({ spec: 's', evalSet: 'x', runs }).columns)).toEqual([]);
    expect(markdownTable({ resultsVersion: 1, spec: 's', evalSet: 'x', machine: 'm', runs })).not.toContain('Between methods');
  });
});

describe('the starting-checkpoint row', () => {
  it('is one evaluation per seed (no ± over methods), and has no training-harness value when methods train through different sets', () => {
    const a = { ...run('single', 0, 0.5), trainHarnesses: { before: 0.35, after: 0.5 } };
    const b = { ...run('scaling', 0, 0.4), trainHarnesses: { before: 0.14, after: 0.2 } };
    const t = resultsTable({ spec: 's', evalSet: 'x', runs: [a, b] });
    const start = t.rows[0];
    expect(start.kind).toBe('start');
    expect(start.after[0].text).toBe('10.0');
    const train = start.after[t.columns.findIndex((c) => c.key === 'train')];
    expect(train.text).toBe('—');
    expect(train.mean).toBeNull();
    // One method: its own training set's value before RL.
    const one = resultsTable({ spec: 's', evalSet: 'x', runs: [a] }).rows[0];
    expect(one.after[t.columns.findIndex((c) => c.key === 'train')].text).toBe('35.0');
  });
});

describe('experimentTime', () => {
  it("counts every segment of a resumed run, not the last call's page time alone", () => {
    // A chunk resumed three times (map-base-only-60 seed 3): its last call took 256 s, its runs 493 + 996 s.
    expect(experimentTime(256.4, [{ seconds: 493.2 }, { seconds: 996.1 }])).toBe(
      '1,489 s over every segment of its runs (256 s of them in the last call)',
    );
    // One call: page and runs agree within 2 %, so one number (the page's).
    expect(experimentTime(1100.3, [{ seconds: 147 }, { seconds: 951 }])).toBe('1,100 s in the page');
    // A run whose time was not recorded adds nothing; no runs at all says the page time.
    expect(experimentTime(40, [{ seconds: Number.NaN }, { seconds: 40.5 }])).toBe('40 s in the page');
    expect(experimentTime(12, [])).toBe('12 s in the page');
    expect(experimentTime(6617, [{ seconds: 3041 }, { seconds: 6665 }], "the chunks' last calls")).toBe(
      "9,706 s over every segment of its runs (6,617 s of them in the chunks' last calls)",
    );
  });
});

import { describe, it, expect } from 'vitest';
import { meanStd, formatPct, markdownTable, resultsCsv, withUnfinishedRuns, type RunResult, type ExperimentResults } from '../../src/experiment/results';

const behaviour = { parseErrors: 0.5, workflowViolations: 0.25, recoveryRate: 0.5, stateTrackingErrors: 0 };
function run(method: string, seed: number, after: number): RunResult {
  return {
    method, algorithm: 'grpo', seed, steps: 10, skippedSteps: 0,
    before: { base: 0.1, inSpace: 0.2, blackbox: { 'bb-assistant': 0.05 } },
    after: { base: after, inSpace: after / 2, blackbox: { 'bb-assistant': after / 4 } },
    trainHarnesses: { before: 0.1, after },
    behaviour: { before: behaviour, after: behaviour }, perHarness: {}, seconds: 3,
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
  it('markdown table has a row per method plus the starting checkpoint', () => {
    const res: ExperimentResults = {
      resultsVersion: 1, spec: 'quick', evalSet: 'all 225', machine: 'test',
      runs: [run('single', 0, 0.3), run('single', 1, 0.5), run('scaling', 0, 0.6)],
    };
    const md = markdownTable(res);
    expect(md).toContain('| method | seeds | base | in-space | bb-assistant | train harnesses |');
    expect(md).toContain('| single | 2 | 40.0 ± 14.1 | 20.0 ± 7.1 | 10.0 ± 3.5 | 40.0 ± 14.1 |');
    expect(md).toContain('| scaling | 1 | 60.0 | 30.0 | 15.0 | 60.0 |');
    expect(md).toContain('| starting checkpoint | 2 | 10.0 ± 0.0 |');
    const csv = resultsCsv(res).trim().split('\n');
    expect(csv).toHaveLength(4);
    expect(csv[0]).toContain('bb-assistant_before');
  });
});

describe('results of an interrupted experiment', () => {
  it("keep the finished 'before' evaluation of the stopped run; missing values are '—'", () => {
    const res: ExperimentResults = { resultsVersion: 1, spec: 'quick', evalSet: 'x', machine: 'm', runs: [] };
    const before = { runIndex: 0, method: 'harness scaling (GRPO)', seed: 0, passAt1: { base: 0.25, inSpace: 0.5, blackbox: { 'bb-assistant': 0.125 } }, training: 0.75 };
    const md = markdownTable(withUnfinishedRuns(res, [before, { ...before }]));
    const rows = md.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| method') && !l.startsWith('| ---'));
    expect(rows).toEqual(['| starting checkpoint | 1 | 25.0 | 50.0 | 12.5 | 75.0 |', '| harness scaling (GRPO) | 1 | — | — | — | — |']);
    // A run that finished already is not repeated.
    const done = withUnfinishedRuns({ ...res, runs: [{ method: 'm', algorithm: 'grpo', seed: 0, steps: 1, skippedSteps: 0, before: before.passAt1, after: before.passAt1, trainHarnesses: { before: 0, after: 0 }, behaviour: {} as never, perHarness: {}, seconds: 1 }] }, [before]);
    expect(done.runs).toHaveLength(1);
    expect(formatPct([NaN])).toBe('—');
  });
});

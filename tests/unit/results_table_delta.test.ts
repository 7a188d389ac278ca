// The results table's paired Δ (src/report/results_table.ts deltaText), in results.md and the
// app's Results view alike, says what the between-methods panel says: "not measurable", with its reason, when no episode passes before
// or after training (a black-box harness at 0 → 0), not "undecided (more seeds alone would not
// decide it)"; any other difference keeps its interval over seeds.
import { describe, expect, it } from 'vitest';
import { markdownTable } from '../../src/report/results_markdown';
import type { RunResult } from '../../src/report/results_schema';
import { deltaText, type ResultsCell } from '../../src/report/results_table';
import { comparePaired, comparisonText as pairedText } from '../../src/report/seed_stats';
import type { PairedCell } from '../../src/report/stats';

/** 3 seeds × 4 tasks × 2 harnesses of paired episodes; `pass(before?, seed, task)` decides each outcome. */
function cells(pass: (before: boolean, seed: number, task: number) => boolean): PairedCell[] {
  const out: PairedCell[] = [];
  for (let seed = 0; seed < 3; seed++)
    for (let task = 0; task < 4; task++)
      for (const harnessId of ['h0', 'h1'])
        out.push({
          run: seed,
          taskId: `t${task}`,
          harnessId,
          sample: 0,
          before: { pass: pass(true, seed, task), score: 0 },
          after: { pass: pass(false, seed, task), score: 0 },
        });
  return out;
}

/** A paper-table cell with `passes` of `episodes` pooled over 3 seeds. */
const cell = (passes: number, episodes = 24): ResultsCell => ({
  key: 'bb-assistant',
  text: '',
  mean: passes / episodes,
  std: 0,
  n: 3,
  episodes,
  passes,
  interval: { lo: 0, hi: 1 },
  score: 0,
});

describe('deltaText', () => {
  it('every episode fails before and after: not measurable, with the panel reason, not an undecided interval', () => {
    const c = comparePaired(cells(() => false));
    expect(pairedText(c)).toContain('more seeds alone would not decide it');
    const d = deltaText(c, cell(0), cell(0));
    expect(d.measurable).toBe(false);
    expect(d.text).toBe('not measurable: every episode fails under both, before and after training (a floor, not a null)');
  });

  it('an episode passing on either side keeps the interval over seeds', () => {
    const c = comparePaired(cells((before, seed, task) => !before && seed === 0 && task === 0));
    expect(deltaText(c, cell(0), cell(1))).toEqual({ text: pairedText(c), measurable: true });
    const all = comparePaired(cells(() => true));
    expect(deltaText(all, cell(24), cell(24))).toEqual({ text: pairedText(all), measurable: true });
  });

  it('no per-episode outcomes: n/a, as before', () => {
    const noEpisodes = { ...cell(0), episodes: null, passes: null, interval: null };
    expect(deltaText(null, noEpisodes, noEpisodes)).toEqual({ text: 'n/a', measurable: true });
  });
});

describe('results.md before → after', () => {
  /** A run whose base cells pass after training on one task and whose black-box cells fail throughout. */
  function run(seed: number, method = 'single'): RunResult {
    const side = (after: boolean) => ({
      base: [0, 1, 2, 3].map((t) => ({ taskId: `t${t}`, harnessId: 'base', sample: 0, pass: after && t <= seed, score: 0 })),
      'bb-assistant': [0, 1, 2, 3].map((t) => ({ taskId: `t${t}`, harnessId: 'bb-assistant', sample: 0, pass: false, score: 0 })),
    });
    const beh = { parseErrors: 0, workflowViolations: 0, recoveryRate: NaN, stateTrackingErrors: 0 };
    return {
      method,
      algorithm: 'grpo',
      seed,
      rlSteps: 1,
      optimizerSteps: 1,
      skippedOptimizerSteps: 0,
      rlStepsWithoutUpdate: 0,
      before: { base: 0, inSpace: NaN, blackbox: { 'bb-assistant': 0 } },
      after: { base: (seed + 1) / 4, inSpace: NaN, blackbox: { 'bb-assistant': 0 } },
      trainHarnesses: { before: NaN, after: NaN },
      behaviour: { before: beh, after: beh },
      perHarness: {},
      seconds: 1,
      episodes: { before: side(false), after: side(true) },
    };
  }

  it('says "not measurable" where every episode fails before and after, as the app does; other cells keep their interval', () => {
    const md = markdownTable({ resultsVersion: 1, spec: 's', evalSet: 'e', machine: 'm', runs: [run(0), run(1)] });
    const head = md.split('\n').findIndex((l) => l.startsWith('Before → after'));
    const row = md.split('\n')[head + 4];
    const cells = row.split(' | ');
    expect(cells[0]).toBe('| single');
    // Columns: base, in-space, bb-assistant, train harnesses.
    expect(cells[1]).toMatch(/^\+37\.5 \[.*\] 2 seeds/);
    expect(cells[3]).toBe('not measurable: every episode fails under both, before and after training (a floor, not a null)');
  });

  it('between methods too: "not measurable" where every paired episode fails under both methods', () => {
    const md = markdownTable({
      resultsVersion: 1,
      spec: 's',
      evalSet: 'e',
      machine: 'm',
      runs: [run(0), run(1), run(0, 'scaling'), run(1, 'scaling')],
    });
    const row = md
      .split('\n')
      .find((l) => l.startsWith('| scaling |') && l.includes('(a floor, not a null)') && !l.includes('before and after'));
    // Columns: base (identical runs: no difference, an interval), in-space (no episodes), bb-assistant.
    expect(row?.split(' | ').slice(1)).toEqual([
      '+0.0 [+0.0, +0.0] 2 seeds, undecided (more seeds alone would not decide it)',
      'n/a',
      'not measurable: every episode fails under both (a floor, not a null) |',
    ]);
  });
});

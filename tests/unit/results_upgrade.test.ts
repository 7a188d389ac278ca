// Older results files (the app's nested form, files without status, warnings or curves, the old
// step names, trajectory turns without contextOffset) come out of `upgradeResultsFile` in the
// current shape, which the one results-file schema parses; a current file passes unchanged
// (committed_results.test.ts checks that on every committed results.json).
import { describe, expect, it } from 'vitest';
import { ResultsFileSchema } from '../../src/report/results_schema';
import { upgradeResultsFile, upgradeRuns } from '../../src/report/results_upgrade';
import { trajectorySampleJson } from './lib/trajectory_sample_json';

const beh = { parseErrors: 0, workflowViolations: 0, recoveryRate: null, stateTrackingErrors: 0 };
const pass = { base: 0.5, inSpace: null, blackbox: {} };
/** A run as JSON in the current step vocabulary. */
const run = (seed: number) => ({
  method: 'm',
  algorithm: 'grpo',
  seed,
  rlSteps: 2,
  optimizerSteps: 2,
  skippedOptimizerSteps: 0,
  rlStepsWithoutUpdate: 0,
  before: pass,
  after: pass,
  trainHarnesses: { before: 0.5, after: 0.5 },
  behaviour: { before: beh, after: beh },
  perHarness: {},
  seconds: 1,
});
const results = { resultsVersion: 1, spec: 's', evalSet: 'all', machine: 'test', runs: [run(0)] };
const turn = { contextIds: [1], actionIds: [2], logprobs: [-0.5], kind: 'tool' };
const trajectory = trajectorySampleJson('m', 0.5, [turn]);

describe('upgradeResultsFile', () => {
  it('a current file comes back equal', () => {
    const current = {
      ...results,
      status: 'done',
      warnings: [],
      curves: [],
      command: 'hlab run',
      trajectories: [{ ...trajectory, turns: [{ ...turn, contextOffset: 0 }] }],
    };
    expect(upgradeResultsFile(current)).toEqual(current);
    expect(ResultsFileSchema.safeParse(upgradeResultsFile(current)).success).toBe(true);
  });

  it("the app's nested form (saves, JSON exports) comes out flat", () => {
    const nested = { status: 'interrupted', results, curves: [], warnings: ['w'], command: 'c' };
    const up = upgradeResultsFile(nested);
    expect(up).toEqual({ ...results, status: 'interrupted', curves: [], warnings: ['w'], command: 'c' });
    expect(ResultsFileSchema.parse(up).status).toBe('interrupted');
  });

  it('a file without status, warnings or curves: done, none, none', () => {
    const up = ResultsFileSchema.parse(upgradeResultsFile({ ...results }));
    expect([up.status, up.warnings, up.curves]).toEqual(['done', [], []]);
  });

  it('old step names: renamed, RL step counts from the curve when there is one, else not recorded', () => {
    const old = (seed: number) => {
      const { rlSteps: _a, optimizerSteps: _b, skippedOptimizerSteps: _c, rlStepsWithoutUpdate: _d, ...r } = run(seed);
      return { ...r, steps: 3, skippedSteps: 1 };
    };
    const curves = [
      {
        method: 'm',
        seed: 0,
        steps: [
          { step: 1, reward: 0, optimizerSteps: 1, skippedSteps: 1 },
          { step: 2, reward: 0, optimizerSteps: 2, skippedSteps: 0 },
        ],
      },
    ];
    const up = ResultsFileSchema.parse(upgradeResultsFile({ ...results, runs: [old(0), old(1)], curves }));
    const [a, b] = up.runs;
    expect([a.rlSteps, a.optimizerSteps, a.skippedOptimizerSteps, a.rlStepsWithoutUpdate]).toEqual([2, 3, 1, 1]);
    expect([b.optimizerSteps, b.skippedOptimizerSteps]).toEqual([3, 1]);
    expect(b.rlSteps).toBeNaN();
    expect(b.rlStepsWithoutUpdate).toBeNaN();
    expect('steps' in a).toBe(false);
    // A run checkpoint's runs take the same mapping.
    expect(upgradeRuns([old(0)], curves)).toEqual([expect.objectContaining({ rlSteps: 2, optimizerSteps: 3 })]);
  });

  it('trajectory turns without contextOffset kept their whole context: 0', () => {
    const up = ResultsFileSchema.parse(upgradeResultsFile({ ...results, trajectories: [trajectory] }));
    expect(up.trajectories?.[0].turns[0].contextOffset).toBe(0);
  });

  it('what it does not recognise passes unchanged, for the schema to name', () => {
    expect(upgradeResultsFile([1])).toEqual([1]);
    expect(upgradeResultsFile(null)).toBeNull();
    const bad = upgradeResultsFile({ ...results, runs: 'none' });
    expect(ResultsFileSchema.safeParse(bad).error?.issues[0].path).toEqual(['runs']);
  });
});

// Results files opened in the app: all shapes (the CLI's flat results.json, the app's nested
// ExperimentOutputJson, an `hlab evaluate --json` report) normalise to one form; a bad file names
// the field by its path.
import { describe, expect, it } from 'vitest';
import { outputToJsonText, parseResultsFile, parseResultsText, ResultsFileError } from '../../src/app/results_store';
import type { ExperimentResults, RunResult } from '../../src/report/results_schema';
import { evalReport, resolveEvalHarnesses } from '../../src/report/evaluate_report';
import { BASE_HARNESS } from '../../src/design';
import { trajectorySampleJson } from './lib/trajectory_sample_json';

function run(method: string, seed: number, after: number): RunResult {
  const p = (x: number) => ({ base: x, inSpace: x / 2, blackbox: { 'bb-assistant': x / 4 } });
  const beh = { parseErrors: 0.5, workflowViolations: 0, recoveryRate: 1, stateTrackingErrors: 0 };
  return {
    method,
    algorithm: 'grpo',
    seed,
    rlSteps: 3,
    optimizerSteps: 3,
    skippedOptimizerSteps: 0,
    rlStepsWithoutUpdate: 0,
    before: p(0.1),
    after: p(after),
    trainHarnesses: { before: 0.1, after },
    behaviour: { before: beh, after: beh },
    perHarness: { 'S0-T0-O0-C0-W0': after },
    seconds: 1,
  };
}
const results: ExperimentResults = {
  resultsVersion: 1,
  spec: 'quick',
  evalSet: 'all 225',
  machine: 'test',
  runs: [run('oa', 0, 0.5), run('oa', 1, NaN)],
};
const curves = [{ method: 'oa', seed: 0, steps: [{ step: 1, reward: 0.25, policyLoss: 0.1 }] }];

describe('parseResultsFile', () => {
  it('reads the CLI shape (flat) and the app shape (nested) into the same form; NaN travels as null', () => {
    const cli = JSON.parse(
      outputToJsonText({
        ...results,
        command: 'hlab run --preset quick',
        status: 'done',
        warnings: [],
        starts: ['scratch'],
        seconds: 3,
        curves,
      } as never),
    );
    const a = parseResultsFile(cli);
    expect(a.results.runs[1].after.base).toBeNaN();
    expect(a.command).toBe('hlab run --preset quick');
    expect(a.curves[0].steps[0].reward).toBe(0.25);
    const b = parseResultsText(outputToJsonText(a));
    expect(b.results).toEqual(a.results);
    expect(b.curves).toEqual(a.curves);
  });

  it("reads an hlab evaluate --json report: no runs, its per-family tables, entropy and in-space exclusion kept as 'evaluation'", () => {
    const plan = resolveEvalHarnesses('base,inSpace', { harnesses: ['S1-T0-O0-C0-W0'], label: "mix 'm' (1 harnesses)" });
    const eps = [
      { taskId: 'errands/recall/t1/1000005', harnessId: BASE_HARNESS, pass: true, score: 1, turns: [{ entropies: [0.5] }], tags: null },
    ];
    const report = JSON.parse(
      outputToJsonText(evalReport(plan, eps, { source: 'base-mini.ckpt', machine: 'cpu', warnings: ['w'] }) as never),
    );
    const o = parseResultsFile(report, 'eval.json');
    expect(o.results.runs).toEqual([]);
    expect(o.results.spec).toBe('evaluation of base-mini.ckpt');
    expect(o.warnings).toEqual(['w']);
    expect(o.evaluation?.perFamily.base).toEqual({ 'errands/recall': { passAt1: 1, score: 1, episodes: 1 } });
    expect(o.evaluation?.entropy?.overall).toBe(0.5);
    expect(o.results.evalSet).toContain("1 of the pretraining mix left out (mix 'm' (1 harnesses))");
    // It survives the app's JSON export and re-import.
    expect(parseResultsText(outputToJsonText(o)).evaluation).toEqual(o.evaluation);
    report.perFamily.base['errands/recall'].passAt1 = 2;
    expect(() => parseResultsFile(report, 'eval.json')).toThrow(/eval\.json: perFamily\.base\.errands\/recall\.passAt1: /);
  });

  it('keeps the in-space exclusion counts of a results file', () => {
    const withEx = {
      ...results,
      evalSetExcluded: { trainingSets: 17, pretrainMix: 3, mix: "mix 'm' (11 harnesses)" },
      curves,
      warnings: [],
    };
    expect(parseResultsFile(JSON.parse(outputToJsonText(withEx as never))).results.evalSetExcluded).toEqual({
      trainingSets: 17,
      pretrainMix: 3,
      mix: "mix 'm' (11 harnesses)",
    });
    expect(
      parseResultsFile(JSON.parse(outputToJsonText({ ...results, curves, warnings: [] } as never))).results.evalSetExcluded,
    ).toBeUndefined();
  });

  it('maps the old step names (steps, skippedSteps) of an older results file; RL step counts come from its curves, else NaN (not recorded)', () => {
    const old = JSON.parse(outputToJsonText({ ...results, curves, warnings: [] } as never));
    for (const r of old.runs) {
      for (const k of ['rlSteps', 'optimizerSteps', 'skippedOptimizerSteps', 'rlStepsWithoutUpdate']) delete r[k];
      Object.assign(r, { steps: 5, skippedSteps: 1 });
    }
    // Run (oa, 0) has a curve of 2 RL steps, one of which applied nothing; run (oa, 1) has none.
    old.curves = [
      {
        method: 'oa',
        seed: 0,
        steps: [
          { step: 1, reward: 0, optimizerSteps: 2, skippedSteps: 2 },
          { step: 2, reward: 0, optimizerSteps: 4, skippedSteps: 0 },
        ],
      },
    ];
    const [a, b] = parseResultsFile(old).results.runs;
    expect([a.rlSteps, a.optimizerSteps, a.skippedOptimizerSteps, a.rlStepsWithoutUpdate]).toEqual([2, 5, 1, 1]);
    expect(b.optimizerSteps).toBe(5);
    expect(b.rlSteps).toBeNaN();
    expect(b.rlStepsWithoutUpdate).toBeNaN();
    expect('steps' in a).toBe(false);
  });

  it('names the bad field by its path in the file', () => {
    const bad = JSON.parse(outputToJsonText({ ...results, curves, warnings: [] } as never));
    bad.runs[1].after.base = 'high';
    expect(() => parseResultsFile(bad, 'x.json')).toThrow(ResultsFileError);
    expect(() => parseResultsFile(bad, 'x.json')).toThrow(/x\.json: runs\[1\]\.after\.base: .*expected number/);
    const nested = {
      status: 'done',
      results: { ...results, runs: [{ ...run('oa', 0, 0.5), algorithm: 'dqn' }] },
      curves: [],
      warnings: [],
    };
    expect(() => parseResultsFile(nested)).toThrow(/results\.runs\[0\]\.algorithm: expected one of "grpo"/);
    // The bad value itself is echoed next to the choices.
    expect(() => parseResultsFile(nested)).toThrow(/algorithm: expected one of "grpo", "ppo", "sft", "none", got "dqn"/);
    expect(() => parseResultsFile({ hello: 1 })).toThrow(/neither 'runs'/);
    expect(() => parseResultsText('{ nope')).toThrow(/not JSON/);
  });

  it('checks trajectory samples: log-probs per action id, per-token advantages per action token', () => {
    const turn = { contextIds: [1, 2], contextOffset: 0, actionIds: [3, 4], logprobs: [-1, -2], kind: 'tool' };
    const traj = trajectorySampleJson('oa', [0.1, 0.2], [turn]);
    const base = { status: 'done', results, curves: [], warnings: [] };
    expect(parseResultsFile(JSON.parse(outputToJsonText({ ...base, trajectories: [traj] } as never))).trajectories).toHaveLength(1);
    expect(() =>
      parseResultsFile(JSON.parse(outputToJsonText({ ...base, trajectories: [{ ...traj, advantage: [0.1] }] } as never))),
    ).toThrow(/trajectories\[0\]\.advantage: has 1 per-token values but the turns have 2/);
    expect(() =>
      parseResultsFile(
        JSON.parse(outputToJsonText({ ...base, trajectories: [{ ...traj, turns: [{ ...turn, logprobs: [-1] }] }] } as never)),
      ),
    ).toThrow(/trajectories\[0\]\.turns\[0\]\.logprobs: has 1 values/);
  });
});

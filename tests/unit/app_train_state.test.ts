// The Train view's run state (src/app/views/train_state.ts): RunEvents in, state out — no DOM,
// no worker, the clock passed in. Includes the honesty cases: RL steps without an update,
// skipped optimizer steps, and values the run did not measure staying null / NaN, never 0.
import { describe, expect, it } from 'vitest';
import type { RunEvent, StepRecord } from '../../src/experiment/run_events';
import { parseSpec, type ExperimentSpec } from '../../src/experiment/spec';
import type { StoredHistory } from '../../src/app/train_worker';
import {
  emptyRunState,
  etaSeconds,
  metricSeries,
  passByGroupSeries,
  reduceRunEvent,
  startRunState,
  storedRunState,
  updatesSummary,
  validationGroups,
  validationSeries,
  type RunViewState,
} from '../../src/app/views/train_state';
import { smokeSpec } from './lib/smoke_spec';
import { getPreset } from '../../src/experiment/presets';

/** Store steps between runs (run_checkpoint.ts): run r's step s is stored at r·STRIDE + 1 + s. */
const CKPT_STRIDE = 1_000_000;
/** How many run messages the view keeps (the newest). */
const MAX_MESSAGES = 12;

/** A step record that applied `applied` optimizer steps (attempted − skipped). */
function rec(step: number, over: Partial<StepRecord> = {}): StepRecord {
  return {
    step,
    reward: 0.25,
    passByHarness: { 'S0-T0-O0-C0-W0': 0.5, 'S1-T0-O0-C0-W0': 0.25, 'S1-T1-O0-C0-W0': 0 },
    tokensPerSec: 100,
    workerRetries: 0,
    envFailures: 0,
    rolloutMs: 300,
    updateMs: 200,
    policyLoss: 0.5,
    valueLoss: NaN,
    clipFrac: 0.1,
    approxKl: 0.01,
    klRef: 0,
    entropy: 1.2,
    gradNorm: 2,
    optimizerSteps: 1,
    skippedSteps: 0,
    rows: 8,
    tokens: 64,
    droppedGroups: 0,
    ...over,
  };
}

const spec = (patch: Record<string, unknown> = {}): ExperimentSpec => {
  const base = smokeSpec() as unknown as Record<string, unknown>;
  return parseSpec({ ...base, ...patch }, 'spec');
};

const step = (runIndex: number, r: StepRecord): RunEvent => ({ type: 'step', runIndex, method: 'grpo', seed: 0, record: r });
/** An evaluation with nothing passing (the tests read when it came and its episodes): run 0's 'before', 16 episodes, unless `over` says. */
const evalEvent = (over: Partial<Extract<RunEvent, { type: 'eval' }>> = {}): RunEvent => ({
  type: 'eval',
  runIndex: 0,
  method: 'grpo',
  seed: 0,
  when: 'before',
  passAt1: { base: 0, inSpace: 0, blackbox: {} },
  training: 0,
  episodes: 16,
  ...over,
});
const val = (runIndex: number, at: number, passAt1: number): RunEvent => ({
  type: 'validation',
  runIndex,
  method: 'grpo',
  seed: runIndex,
  point: { step: at, passAt1, score: 0.5, episodes: 4, ms: 10, cells: [{ taskId: 't', harnessId: 'h', sample: 0, pass: true, score: 1 }] },
});
const fold = (evs: RunEvent[], times: number[] = evs.map((_, i) => 1000 * (i + 1)), s: RunViewState = emptyRunState()) =>
  evs.reduce((acc, ev, i) => reduceRunEvent(acc, ev, times[i]), s);

describe('reduceRunEvent', () => {
  it('starts empty: nothing measured, nothing shown as 0 progress of a known total', () => {
    const s = emptyRunState();
    expect(s.progress).toEqual({ done: 0, total: 0, phase: '' });
    expect(s.curves).toEqual([]);
    expect(s.stepMs).toEqual([]);
    expect(s.lastCkpt).toBeNull();
  });

  it('a run event opens a labelled curve; steps append to it in order and never mutate the old state', () => {
    const s0 = fold([
      {
        type: 'run',
        runIndex: 1,
        runs: 2,
        method: 'grpo',
        seed: 3,
        steps: 4,
        start: 'fresh',
        evalSize: { episodes: 18, harnesses: 6, tasks: 3 },
      },
    ]);
    expect(s0.runEvalSize).toEqual({ episodes: 18, harnesses: 6, tasks: 3 });
    expect(s0.currentRun).toBe(1);
    expect(s0.runSteps).toBe(4);
    expect(s0.curves[1]?.label).toBe('grpo · seed 3');
    expect(s0.curves[0]).toBeUndefined();
    const s1 = reduceRunEvent(s0, step(1, rec(1)), 5000);
    const s2 = reduceRunEvent(s1, step(1, rec(2)), 6000);
    expect(s2.curves[1]?.steps.map((r) => r.step)).toEqual([1, 2]);
    expect(s1.curves[1]?.steps.map((r) => r.step)).toEqual([1]);
    expect(s0.curves[1]?.steps).toEqual([]);
  });

  it('times RL steps: the first of a segment by its rollout + update, later ones by wall time; a non-RL phase ends the segment', () => {
    const s = fold(
      [
        { type: 'progress', done: 1, total: 5, phase: 'RL step 1/3' },
        step(0, rec(1)),
        step(0, rec(2)),
        { type: 'progress', done: 3, total: 5, phase: 'checkpoint' },
        step(0, rec(3, { rolloutMs: 40, updateMs: 2 })),
      ],
      [0, 10_000, 10_750, 11_000, 20_000],
    );
    expect(s.stepMs).toEqual([500, 750, 42]);
  });

  it('times an evaluation from its first progress event to its eval event; a restored one is not timed', () => {
    const s = fold(
      [
        { type: 'progress', done: 0, total: 5, phase: 'eval before' },
        { type: 'evalProgress', runIndex: 0, when: 'before', done: 4, total: 12 },
        { type: 'progress', done: 0, total: 5, phase: 'eval before' },
        evalEvent({ episodes: 12 }),
        { type: 'progress', done: 1, total: 5, phase: 'eval after' },
        evalEvent({ episodes: 12, restored: true }),
      ],
      [100, 200, 300, 2100, 3000, 3500],
    );
    expect(s.evalMs).toEqual([2000]);
    expect(s.evals).toHaveLength(2);
    expect(s.evalStart).toBeNull();
    expect(s.evalDone).toBeNull();
  });

  it('evalProgress is kept while the same evaluation runs', () => {
    const s = fold([
      { type: 'progress', done: 0, total: 5, phase: 'eval before' },
      { type: 'evalProgress', runIndex: 0, when: 'before', done: 4, total: 12 },
      { type: 'progress', done: 0, total: 5, phase: 'eval before' },
    ]);
    expect(s.evalDone).toEqual({ done: 4, total: 12, at: 2000 });
    expect(s.evalStart?.at).toBe(1000);
  });

  it("a resume replaces the curves by the checkpoint's", () => {
    const s = fold([
      step(0, rec(1)),
      { type: 'resume', runIndex: 1, step: 7, sftDone: false, curves: [{ method: 'sft', seed: 2, steps: [rec(1), rec(2)] }] },
    ]);
    expect(s.curves.map((c) => c?.label)).toEqual(['sft · seed 2']);
    expect(s.currentRun).toBe(1);
  });

  it('a checkpoint event records its position; messages keep the newest MAX_MESSAGES', () => {
    const msgs: RunEvent[] = Array.from(
      { length: MAX_MESSAGES + 3 },
      (_, i) => ({ type: i % 2 ? 'warn' : 'log', message: `m${i}` }) as RunEvent,
    );
    const s = fold([{ type: 'checkpoint', runId: 'r', step: CKPT_STRIDE + 3, runIndex: 1, rlStep: 2, totalBytes: 10 }, ...msgs]);
    expect(s.lastCkpt).toEqual({ runIndex: 1, rlStep: 2, finished: false });
    expect(s.messages).toHaveLength(MAX_MESSAGES);
    expect(s.messages[0].text).toBe('m3');
    expect(s.messages.at(-1)).toEqual({ kind: 'log', text: `m${MAX_MESSAGES + 2}` });
  });

  it("validation points join their run's curve in step order, without their cells; a re-measured step replaces its point", () => {
    const s = fold([val(0, 3, 0.5), step(0, rec(1)), val(0, 0, 0.25), val(1, 0, 0.1), val(0, 3, 0.75)]);
    expect(s.curves[0]?.label).toBe('grpo · seed 0');
    expect(s.curves[0]?.steps.map((r) => r.step)).toEqual([1]);
    expect(s.curves[0]?.validation).toEqual([
      { step: 0, passAt1: 0.25, score: 0.5, episodes: 4 },
      { step: 3, passAt1: 0.75, score: 0.5, episodes: 4 },
    ]);
    expect(s.curves[1]?.validation.map((p) => p.passAt1)).toEqual([0.1]);
    // Progress and the ETA's step timing are untouched by a validation point.
    expect(s.stepMs).toHaveLength(1);
  });

  it('validationSeries aligns the runs on the union of their validation steps; a missing point is null, not 0', () => {
    const s = fold([val(0, 0, 0.25), val(0, 4, 0.5), val(2, 0, 0)]);
    const m = validationSeries(s.curves, 3);
    expect(m.x).toEqual([0, 4]);
    expect(m.values).toEqual([
      [0.25, 0.5],
      [null, null],
      [0, null],
    ]);
    expect(validationSeries([], 1)).toEqual({ x: [], values: [[]] });
  });

  it('validationSeries reads a shared set (in-space, base) per run; points without that set are not drawn', () => {
    const cell = { taskId: 't', harnessId: 'h', sample: 0, pass: true, score: 1 };
    const withSets = (runIndex: number, at: number, inSpace: number | null): RunEvent => {
      const ev = val(runIndex, at, 0.9) as Extract<RunEvent, { type: 'validation' }>;
      const sets = inSpace === null ? undefined : { inSpace: { passAt1: inSpace, score: 0, episodes: 2, cells: [cell] } };
      return { ...ev, point: { ...ev.point, ...(sets ? { sets } : {}) } };
    };
    const s = fold([withSets(0, 0, 0.1), withSets(1, 0, 0.2), withSets(0, 5, 0.4), withSets(1, 5, null), withSets(1, 7, 0.3)]);
    // The view keeps a set's pass@1, not its episodes.
    expect(s.curves[0]?.validation[0]).toEqual({ step: 0, passAt1: 0.9, score: 0.5, episodes: 4, sets: { inSpace: { passAt1: 0.1 } } });
    expect(validationSeries(s.curves, 2, 'inSpace')).toEqual({
      x: [0, 5, 7],
      values: [
        [0.1, 0.4, null],
        [0.2, null, 0.3],
      ],
    });
    expect(validationSeries(s.curves, 2, 'base')).toEqual({ x: [], values: [[], []] });
    expect(validationSeries(s.curves, 2).values[1]).toEqual([0.9, 0.9, 0.9]);
  });

  it('a resume restores the validation points of every run', () => {
    const point = { step: 0, passAt1: 0.5, score: 0.6, episodes: 2, ms: 9, cells: [] };
    const s = fold([
      {
        type: 'resume',
        runIndex: 1,
        sftDone: false,
        step: 7,
        curves: [
          { method: 'grpo', seed: 0, steps: [rec(1)], validation: [point] },
          { method: 'grpo', seed: 1, steps: [] },
        ],
      },
    ]);
    expect(s.curves[0]?.validation).toEqual([{ step: 0, passAt1: 0.5, score: 0.6, episodes: 2 }]);
    expect(s.curves[1]?.validation).toEqual([]);
  });

  it('startRunState forgets the measured costs; a resume keeps the curves until the resume event', () => {
    const s = fold([step(0, rec(1)), { type: 'log', message: 'x' }]);
    const fresh = startRunState(s, false);
    const resumed = startRunState(s, true);
    expect(fresh.curves).toEqual([]);
    expect(fresh.stepMs).toEqual([]);
    expect(fresh.progress.phase).toBe('starting…');
    expect(resumed.curves).toBe(s.curves);
    expect(resumed.messages).toEqual([]);
    expect(resumed.progress.phase).toBe('resuming…');
  });
});

describe('honesty: what was not measured stays unmeasured', () => {
  const noUpdate = rec(2, {
    optimizerSteps: 0,
    skippedSteps: 0,
    droppedGroups: 2,
    policyLoss: NaN,
    clipFrac: NaN,
    approxKl: NaN,
    gradNorm: NaN,
  });
  const skipped = rec(3, { optimizerSteps: 1, skippedSteps: 1, policyLoss: NaN, gradNorm: Infinity });
  const steps = [rec(1), noUpdate, skipped];

  it('steps without an update (all groups dropped, or every attempt skipped) have no loss: null, not 0, and are shaded', () => {
    const m = metricSeries([{ label: 'a', steps, validation: [] }], 1, (r) => r.policyLoss, true);
    expect(m.x).toEqual([1, 2, 3]);
    expect(m.values[0]).toEqual([0.5, null, null]);
    expect(m.noData).toEqual([2, 3]);
  });

  it('a metric not tied to the update keeps its value; an unmeasured one stays NaN', () => {
    const m = metricSeries([{ label: 'a', steps: [rec(1, { entropy: NaN }), noUpdate], validation: [] }], 1, (r) => r.entropy, false);
    expect(m.noData).toBeUndefined();
    expect(m.values[0][0]).toBeNaN();
    expect(m.values[0][1]).toBe(1.2);
  });

  it('runs missing a step read null there; a step is shaded only when no run that has it updated', () => {
    const m = metricSeries(
      [{ label: 'a', steps: [rec(1), noUpdate], validation: [] }, undefined, { label: 'c', steps: [rec(2)], validation: [] }],
      3,
      (r) => r.gradNorm,
      true,
    );
    expect(m.values).toEqual([
      [2, null],
      [null, null],
      [null, 2],
    ]);
    expect(m.noData).toEqual([]);
  });

  it('updatesSummary counts dropped groups and skipped optimizer steps, and names the steps without an update', () => {
    const u = updatesSummary(steps, spec());
    expect(u.noUpdate.map((r) => r.step)).toEqual([2, 3]);
    expect(u.dropped).toBe(2);
    expect(u.skipped).toBe(1);
    expect(u.allDropped).toBe(false);
  });

  it('"no learning signal" only when every group of every step was dropped', () => {
    const sp = spec();
    const all = [1, 2].map((i) => rec(i, { optimizerSteps: 0, droppedGroups: sp.rl.tasksPerStep }));
    expect(updatesSummary(all, sp).allDropped).toBe(true);
    expect(updatesSummary(all, sp).groups).toBe(2 * sp.rl.tasksPerStep);
    const skippedOnly = [rec(1, { optimizerSteps: 2, skippedSteps: 2 })];
    expect(updatesSummary(skippedOnly, sp).allDropped).toBe(false);
    expect(updatesSummary(skippedOnly, sp).noUpdate).toHaveLength(1);
    expect(updatesSummary([], sp).allDropped).toBe(false);
  });

  it('the ETA is null until an RL step was timed, never a 0-second guess', () => {
    const sp = spec();
    const s = fold([{ type: 'progress', done: 0, total: 4, phase: 'eval before' }]);
    expect(etaSeconds(s, sp, 10, 2000)).toBeNull();
    expect(etaSeconds(emptyRunState(), sp, 10, 0)).toBeNull();
  });

  it("the ETA prices steps by the recent mean and evaluations by a step's cost per episode until one is measured", () => {
    const sp = spec({
      seeds: [0],
      rl: { ...spec().rl, steps: 3, tasksPerStep: 2, groupSize: 4 },
      evaluation: { ...spec().evaluation, validation: undefined },
    });
    const runs = sp.seeds.length * sp.methods.length;
    // One step done (1 s); per run: 3 steps + 2 evaluations.
    const s = fold([
      { type: 'progress', done: 2, total: runs * 5, phase: 'RL step 1/3' },
      step(0, rec(1, { rolloutMs: 800, updateMs: 200 })),
    ]);
    const stepsLeft = runs * 3 - 1;
    const evalsLeft = runs * 5 - 2 - stepsLeft;
    // An evaluation of 16 episodes costs 2 steps of 8 episodes each.
    expect(etaSeconds(s, sp, 16, 0)).toBeCloseTo(stepsLeft * 1 + evalsLeft * 2, 6);
  });

  it('the first evaluation gives an ETA once it reported progress: its own pace prices what is left of it and, until a step is timed, the RL steps', () => {
    // 1 run: 3 steps of 8 episodes, 2 evaluations; no validation.
    const sp = spec({
      seeds: [0],
      methods: [spec().methods[0]],
      rl: { ...spec().rl, steps: 3, tasksPerStep: 2, groupSize: 4 },
      evaluation: { ...spec().evaluation, validation: undefined },
    });
    const started = fold([{ type: 'progress', done: 0, total: 5, phase: 'eval before (grpo, seed 0)' }], [0]);
    // Nothing of it measured yet: unknown, not 0.
    expect(etaSeconds(started, sp, 16, 5000)).toBeNull();
    // 4 of 16 episodes in 4 s: 1 s an episode. Left: 12 s of this evaluation, 3 steps × 8 s, the after evaluation 16 s.
    const s = reduceRunEvent(started, { type: 'evalProgress', runIndex: 0, when: 'before', done: 4, total: 16 }, 4000);
    expect(etaSeconds(s, sp, 16, 4000)).toBeCloseTo(12 + 24 + 16, 6);
    // It counts down between reports.
    expect(etaSeconds(s, sp, 16, 9000)).toBeCloseTo(7 + 24 + 16, 6);
  });

  it('the last evaluation counts down at its own pace, not at the earlier one: no "0 s" while it still runs', () => {
    const sp = spec({
      seeds: [0],
      methods: [spec().methods[0]],
      rl: { ...spec().rl, steps: 1, tasksPerStep: 2, groupSize: 4 },
      evaluation: { ...spec().evaluation, validation: undefined },
    });
    const s = fold(
      [
        { type: 'progress', done: 0, total: 3, phase: 'eval before (grpo, seed 0)' },
        evalEvent(),
        step(0, rec(1)),
        { type: 'progress', done: 2, total: 3, phase: 'eval after (grpo, seed 0)' },
        // The after evaluation is 3× slower than the before one (10 s): 6 s for 2 of 16 episodes.
        { type: 'evalProgress', runIndex: 0, when: 'after', done: 2, total: 16 },
      ],
      [0, 10_000, 11_000, 11_000, 17_000],
    );
    expect(s.evalMs).toEqual([10_000]);
    // 20 s in: the earlier evaluation's 10 s would say 0; at 3 s an episode, 14 × 3 − 3 = 39 s are left.
    expect(etaSeconds(s, sp, 16, 20_000)).toBeCloseTo(39, 6);
  });

  it('the ETA prices SFT phases by the measured phase (null before one trained), a phase that will reuse the previous one at 0, and no RL steps for an sft method', () => {
    // blackbox, 1 seed, 2 steps, no validation: runs 'harness scaling' (2 steps + 2 evals), 'black-box SFT' (phase + 2 evals), 'SFT then RL' (phase, reused, + 2 steps + 2 evals).
    const bb = getPreset('blackbox');
    // Without the base-harness SFT control, so the third run's phase is the second's (reused).
    const sp = parseSpec(
      {
        ...JSON.parse(JSON.stringify(bb)),
        methods: bb.methods.filter((m) => m.harnesses !== 'single'),
        seeds: [0],
        rl: { ...bb.rl, steps: 2 },
        evaluation: { ...bb.evaluation, validation: undefined },
      },
      'spec',
    );
    const total = 4 + 3 + 5;
    const ev = (runIndex: number, when: 'before' | 'after') => evalEvent({ runIndex, method: sp.methods[runIndex].name, when });
    const s = fold(
      [
        { type: 'progress', done: 0, total, phase: 'eval before (harness scaling (GRPO), seed 0)' },
        ev(0, 'before'),
        step(0, rec(1, { rolloutMs: 800, updateMs: 200 })),
        step(0, rec(2)),
        { type: 'progress', done: 3, total, phase: 'eval after (harness scaling (GRPO), seed 0)' },
        ev(0, 'after'),
        {
          type: 'run',
          runIndex: 1,
          runs: 3,
          method: sp.methods[1].name,
          seed: 0,
          steps: 0,
          start: 'base',
          evalSize: { episodes: 18, harnesses: 6, tasks: 3 },
        },
        { type: 'progress', done: 4, total, phase: 'eval before (black-box SFT (coding-cli), seed 0)' },
        ev(1, 'before'),
        { type: 'progress', done: 5, total, phase: `SFT step 1/600 (${sp.methods[1].name}, seed 0)` },
      ],
      [0, 4000, 5000, 6000, 6000, 10_000, 10_000, 10_000, 14_000, 14_000],
    );
    expect(s.sftStart).toEqual({ at: 14_000, runIndex: 1 });
    // Left: this phase (not measured yet) → unknown.
    expect(etaSeconds(s, sp, 16, 20_000)).toBeNull();
    const after = fold(
      [
        { type: 'sftPhase', runIndex: 1, method: sp.methods[1].name, seed: 0, seconds: 90, reused: false },
        { type: 'progress', done: 6, total, phase: 'SFT phase done' },
      ],
      [104_000, 104_000],
      s,
    );
    expect(after.sftMs).toEqual([90_000]);
    expect(after.sftDone).toEqual([1]);
    // Left: run 1's after evaluation, run 2's before and after (4 s each), its phase (reused: 0 s), its 2 RL steps (1 s each).
    expect(etaSeconds(after, sp, 16, 104_000)).toBeCloseTo(3 * 4 + 2 * 1, 6);
    // Had the third run's phase differed (other SFT steps), it would cost the measured 90 s.
    const other = parseSpec(
      { ...JSON.parse(JSON.stringify(sp)), methods: sp.methods.map((m, i) => (i === 2 ? { ...m, sft: { steps: 300, lr: 0.001 } } : m)) },
      'spec',
    );
    expect(etaSeconds(after, other, 16, 104_000)).toBeCloseTo(3 * 4 + 2 * 1 + 90, 6);
  });

  describe('the ETA with validation points (step 0, every `every` steps, the last step; not progress units)', () => {
    // 1 run of 4 RL steps, validation every 2: points at steps 0, 2, 4. Units: 4 steps + 2 evaluations.
    const sp = spec({
      seeds: [0],
      rl: { ...spec().rl, steps: 4, tasksPerStep: 2, groupSize: 4 },
      evaluation: { ...spec().evaluation, validation: { tasks: 3, every: 2, samples: 2 } },
    });
    const vpoint = (runIndex: number, at: number, ms: number, episodes = 6): RunEvent => ({
      type: 'validation',
      runIndex,
      method: 'grpo',
      seed: 0,
      point: { step: at, passAt1: 0.5, score: 0.5, episodes, ms, cells: [] },
    });

    /**
     * Validation points the ETA charges for: with every other cost known, the ETA grows by one
     * second per point left when a point's measured cost grows by one second.
     */
    const pointsCharged = (s: RunViewState, at: ExperimentSpec): number => {
      const eta = (pointMs: number) =>
        etaSeconds(
          {
            ...s,
            progress: { done: 0, total: 100, phase: '' },
            stepMs: [1000],
            evalMs: [1000],
            validationMs: [pointMs],
            validationStart: null,
          },
          at,
          16,
          0,
        );
      return (eta(2000) ?? Number.NaN) - (eta(1000) ?? Number.NaN);
    };

    it('charges every run’s points less those its curve has', () => {
      expect(pointsCharged(emptyRunState(), sp)).toBeCloseTo(3, 9);
      const two = spec({ ...sp, seeds: [0, 1] });
      expect(pointsCharged(fold([vpoint(0, 0, 1), vpoint(0, 2, 1), vpoint(1, 0, 1)]), two)).toBeCloseTo(3, 9);
      expect(
        pointsCharged(
          fold([vpoint(0, 0, 1)]),
          spec({ ...sp, evaluation: { ...sp.evaluation, validation: { tasks: 0, every: 2, samples: 1 } } }),
        ),
      ).toBeCloseTo(0, 9);
    });

    it('adds the points left at their measured cost (point.ms); the step after a point is not charged for it', () => {
      const s = fold(
        [
          { type: 'progress', done: 0, total: 6, phase: 'eval before (grpo, seed 0)' },
          evalEvent(),
          { type: 'progress', done: 1, total: 6, phase: 'validation grpo seed 0 at step 0/4' },
          vpoint(0, 0, 3000),
          step(0, rec(1, { rolloutMs: 800, updateMs: 200 })),
          { type: 'progress', done: 2, total: 6, phase: 'RL grpo seed 0 step 1/4' },
        ],
        [0, 4000, 4000, 7000, 8000, 8000],
      );
      expect(s.stepMs).toEqual([1000]);
      expect(s.validationMs).toEqual([3000]);
      // 3 steps × 1 s + the after evaluation (4 s measured) + points at steps 2 and 4 × 3 s.
      expect(etaSeconds(s, sp, 16, 8000)).toBeCloseTo(3 + 4 + 2 * 3, 6);
    });

    it('before a point was measured this session: a step’s cost per episode × the last known point’s episodes; a point in progress counts what is left of it', () => {
      // A resumed run: its checkpoint's curve has the step-0 point (6 episodes), this session measured none.
      const resumed = fold([
        {
          type: 'resume',
          runIndex: 0,
          sftDone: false,
          step: 1,
          curves: [
            {
              method: 'grpo',
              seed: 0,
              steps: [rec(1)],
              validation: [{ step: 0, passAt1: 0.5, score: 0.5, episodes: 6, ms: 99_000, cells: [] }],
            },
          ],
        },
        { type: 'progress', done: 2, total: 6, phase: 'RL grpo seed 0 step 2/4' },
        step(0, rec(2, { rolloutMs: 1500, updateMs: 500 })),
      ]);
      expect(resumed.validationMs).toEqual([]);
      // Steps cost 2 s for 8 episodes, so a 6-episode point costs 1.5 s; 2 steps, 1 evaluation (16 episodes: 4 s), 2 points left.
      expect(etaSeconds({ ...resumed, progress: { done: 3, total: 6, phase: '' } }, sp, 16, 0)).toBeCloseTo(2 * 2 + 4 + 2 * 1.5, 6);
      const during = reduceRunEvent(resumed, { type: 'progress', done: 3, total: 6, phase: 'validation grpo seed 0 at step 2/4' }, 50_000);
      expect(during.validationStart).toEqual({ at: 50_000, phase: 'validation grpo seed 0 at step 2/4' });
      // 1 s into the point at step 2: 0.5 s of it left.
      expect(etaSeconds(during, sp, 16, 51_000)).toBeCloseTo(2 * 2 + 4 + 2 * 1.5 - 1, 6);
      // With no point known anywhere, the spec's size prices it: 3 tasks × 1 suite × 2 samples = 6 episodes.
      const fresh = fold([
        { type: 'progress', done: 2, total: 6, phase: 'RL grpo seed 0 step 1/4' },
        step(0, rec(1, { rolloutMs: 1500, updateMs: 500 })),
      ]);
      expect(etaSeconds(fresh, sp, 16, 0)).toBeCloseTo(3 * 2 + 1 * 4 + 3 * 1.5, 6);
    });
  });

  it("a checkpoint's history restores the validation points of finished runs and of the current run", () => {
    const sp = spec({ seeds: [0, 1] });
    const pt = (step: number, passAt1: number) => ({ step, passAt1, score: 0.5, episodes: 3, ms: 1, cells: [] });
    const passAt1 = { base: 0.1, inSpace: 0.2, blackbox: {} };
    const h = {
      step: CKPT_STRIDE + 2,
      runIndex: 1,
      rlStep: 2,
      finished: false,
      curves: [{ method: sp.methods[0].name, seed: 0, steps: [rec(1)], validation: [pt(6, 0.4), pt(0, 0.2)] }],
      results: [{ method: sp.methods[0].name, seed: 0, before: passAt1, after: passAt1, trainHarnesses: { before: 0.1, after: 0.2 } }],
      current: { history: [rec(1), rec(2)], validation: [pt(0, 0.3)], before: null, seconds: 1 },
    } as unknown as StoredHistory;
    const s = storedRunState(sp, h);
    expect(s.curves[0]?.validation.map((p) => [p.step, p.passAt1])).toEqual([
      [0, 0.2],
      [6, 0.4],
    ]);
    expect(s.curves[1]?.label).toBe(`${sp.methods[0].name} · seed 1`);
    expect(s.curves[1]?.validation).toEqual([{ step: 0, passAt1: 0.3, score: 0.5, episodes: 3 }]);
    expect(validationSeries(s.curves, 2).x).toEqual([0, 6]);
  });

  it('restored evaluations carry NaN episodes (not stored), not 0', () => {
    const sp = spec({ seeds: [0] });
    const passAt1 = { base: 0.1, inSpace: 0.2, blackbox: {} };
    const h = {
      step: CKPT_STRIDE + 2,
      runIndex: 1,
      rlStep: 1,
      finished: false,
      curves: [{ method: sp.methods[0].name, seed: 0, steps: [rec(1)] }],
      results: [{ method: sp.methods[0].name, seed: 0, before: passAt1, after: passAt1, trainHarnesses: { before: 0.1, after: NaN } }],
      current: { history: [rec(1)], before: { passAt1, training: 0.3, episodes: 7 }, seconds: 1 },
    } as unknown as StoredHistory;
    const s = storedRunState(sp, h);
    const restored = s.evals.filter((e) => e.runIndex === 0);
    expect(restored).toHaveLength(2);
    for (const e of restored) {
      expect(e.restored).toBe(true);
      expect(e.episodes).toBeNaN();
    }
    expect(restored[1].training).toBeNaN();
    expect(s.progress.phase).toContain('run 2, step 1');
    expect(s.stepMs).toEqual([]);
  });
});

describe('passByGroupSeries', () => {
  it('groups harnesses by distance to the base harness and averages within a group; a group seen at one step reads null at the others', () => {
    const g = passByGroupSeries([rec(1), rec(2, { passByHarness: { 'bb-x': 1 } })], undefined);
    expect(g.x).toEqual([1, 2]);
    // rec(1) uses harnesses at d = 0, 1, 2: no series for d = 3…5, which no rollout reached.
    expect(g.groups).toEqual(['base (d=0)', 'd=1', 'd=2', 'bb-x']);
    const at = (name: string) => g.values[g.groups.indexOf(name)];
    expect(at('base (d=0)')).toEqual([0.5, null]);
    expect(at('d=1')).toEqual([0.25, null]);
    expect(at('d=2')).toEqual([0, null]);
    expect(at('bb-x')).toEqual([null, 1]);
  });

  it("the spec's training harnesses fix the groups before any step: a single harness has one, harness scaling over the OA the distances of its 18 harnesses", () => {
    const lesson = getPreset('lesson');
    expect(passByGroupSeries([], { ...lesson, methods: lesson.methods.filter((m) => m.harnesses === 'single') }).groups).toEqual([
      'base (d=0)',
    ]);
    const main = passByGroupSeries([], getPreset('main')).groups;
    expect(main[0]).toBe('base (d=0)');
    // The L18 array's rows sit 0, 3, 4 and 5 components from the base (S0-T0-O1-C1-W2 is 3 away; none is 1 or 2 away).
    expect(main).toContain('d=3');
    expect(main).not.toContain('d=1');
  });
});

describe('validationGroups', () => {
  it('a single-harness spec validates one method on the base harness: one group', () => {
    const lesson = getPreset('lesson');
    const g = validationGroups({ ...lesson, methods: lesson.methods.filter((m) => m.harnesses === 'single') });
    expect(g).toEqual([{ on: 'the base harness (S0-T0-O0-C0-W0)', runs: [0] }]);
  });

  it('quick validates single harness and harness scaling on different harnesses: a group each', () => {
    const g = validationGroups(getPreset('quick'));
    expect(g).toHaveLength(2);
    expect(g[0]).toEqual({ on: 'the base harness (S0-T0-O0-C0-W0)', runs: [0] });
    expect(g[1].runs).toEqual([1]);
    expect(g[1].on).toContain('18 training harnesses');
  });

  it('methods on the same harnesses share a group across seeds and algorithms', () => {
    const sp = getPreset('algorithms');
    const g = validationGroups(sp);
    expect(g).toHaveLength(2);
    expect(g.flatMap((x) => x.runs).sort((a, b) => a - b)).toEqual(
      Array.from({ length: sp.seeds.length * sp.methods.length }, (_, i) => i),
    );
    const single = sp.methods.flatMap((m, i) => (m.harnesses === 'single' ? [i] : []));
    expect(g[0].runs.every((r) => single.includes(r % sp.methods.length))).toBe(true);
  });
});

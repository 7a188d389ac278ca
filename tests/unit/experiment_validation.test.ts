// The validation split and curve (src/experiment/plan.ts validationTasks /
// validationCells, validation.ts, rl_loop.ts): the split is train-seed tasks disjoint from the RL
// train-task pool by construction and from the test tasks; the loop measures it at step 0, every
// `every` steps and at the last step; the points are deterministic, survive the run-checkpoint
// codec, and a run stopped and resumed (on the CPU engine, a micro policy learning the one-turn
// choice of tests/browser/lib/choice_task.ts) gives the same curve as an uninterrupted one.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_HARNESS } from '../../src/design';
import type { EngineRlTrainer } from '../../src/engine/engine_api';
import { curvesSvg } from '../../src/report/curves_svg';
import { curvesCsv, curvesMarkdown } from '../../src/report/learning_curves';
import {
  cellKey,
  inSpaceEvalSet,
  makeSchedule,
  taskAssignments,
  testTasks,
  trainingHarnesses,
  trainPool,
  validationCells,
  validationTasks,
} from '../../src/experiment/plan';
import { rlLoop } from '../../src/experiment/rl_loop';
import { decodeRunCheckpoint, encodeRunCheckpoint, type RunState } from '../../src/experiment/run_checkpoint';
import type { RunEvent } from '../../src/experiment/run_events';
import { parseSpec, SpecError, type ExperimentSpec } from '../../src/experiment/spec';
import {
  isValidationStep,
  measureValidation,
  validationPlan,
  validationSteps,
  type ValidationPlan,
  type ValidationPoint,
} from '../../src/experiment/validation';
import { Tokenizer, type TokenizerFile } from '../../src/model/tokenizer';
import { inProcessEnv } from '../../src/rollout/rollout';
import { SEED_RANGES } from '../../src/tasks';
import { randomTokenPolicy } from './lib/random_policy';
import { CpuEngine } from '../../src/engine/wasm/wasm_engine';
import { choiceEnv, runChoiceLoop, type ChoiceSegment, type ChoiceTensors } from '../browser/lib/choice_task';
import { smokeSpec } from './lib/smoke_spec';
import { stubRlTrainer, stubRlUpdate } from './lib/stub_rl_update';
import { storedRunCheckpoint } from './lib/stored_run_checkpoint';

/** One run of the RL loop, and its state. */
type RlLoopRun = Parameters<typeof rlLoop>[0];
type LoopState = RlLoopRun['state'];

const tok = Tokenizer.fromJSON(
  JSON.parse(readFileSync(new URL('../../public/tokenizer-v2.json', import.meta.url), 'utf8')) as TokenizerFile,
);
const preset = (name: string) =>
  parseSpec(JSON.parse(readFileSync(new URL(`../../public/presets/${name}.json`, import.meta.url), 'utf8')), name);
const seedOf = (id: string) => Number(id.slice(id.lastIndexOf('/') + 1));
const tierOf = (id: string) => Number(/\/t([123])\//.exec(id)![1]);

describe('the validation split', () => {
  for (const name of ['quick', 'lesson', 'main']) {
    it(`${name}: n train-seed tasks per suite, tiers ≤ maxTier, disjoint from the train pool and the test tasks, fixed per seed`, () => {
      const spec = preset(name);
      const n = 24;
      for (const seed of [0, 1, 2]) {
        const pool = trainPool(spec, seed);
        const val = validationTasks(spec, seed, pool, n);
        expect(val).toHaveLength(n * spec.suites.length);
        expect(new Set(val).size).toBe(val.length);
        for (const s of spec.suites) expect(val.filter((id) => id.startsWith(`${s}/`))).toHaveLength(n);
        for (const id of val) {
          expect(seedOf(id)).toBeGreaterThanOrEqual(SEED_RANGES.train.from);
          expect(seedOf(id)).toBeLessThanOrEqual(SEED_RANGES.train.to);
          expect(tierOf(id)).toBeLessThanOrEqual(spec.maxTier);
        }
        const poolSeeds = new Set(pool.map(seedOf));
        expect(val.filter((id) => poolSeeds.has(seedOf(id)))).toEqual([]);
        const test = new Set(testTasks(spec, seed));
        expect(val.filter((id) => test.has(id))).toEqual([]);
        expect(validationTasks(spec, seed, pool, n)).toEqual(val);
        // More than one family: the split is balanced, not one family repeated.
        expect(new Set(val.map((id) => id.split('/')[1])).size).toBeGreaterThan(1);
      }
      expect(validationTasks(spec, 1, trainPool(spec, 1), n)).not.toEqual(validationTasks(spec, 0, trainPool(spec, 0), n));
    });
  }

  it('disjoint by construction: a pool holding exactly the tasks the split would draw pushes it to others', () => {
    const spec = preset('main');
    const wouldDraw = validationTasks(spec, 0, [], 12);
    const val = validationTasks(spec, 0, wouldDraw, 12);
    expect(val).toHaveLength(wouldDraw.length);
    const taken = new Set(wouldDraw.map(seedOf));
    expect(val.filter((id) => taken.has(seedOf(id)))).toEqual([]);
  });

  it('cells: single harness → the base harness; harness scaling → each task under its anchor, spread over the training set; an infeasible anchor drops the task', () => {
    const spec = preset('main');
    const single = spec.methods.find((m) => m.harnesses === 'single')!;
    const scaling = spec.methods.find((m) => m.harnesses === 'scaling')!;
    const tasks = validationTasks(spec, 0, trainPool(spec, 0), 24);
    expect(validationCells(spec, single, tasks, 0).map((c) => c.harnessId)).toEqual(tasks.map(() => BASE_HARNESS));
    const cells = validationCells(spec, scaling, tasks, 0);
    const anchors = taskAssignments(spec, scaling, tasks, 0).map((a) => a.harnesses[0]);
    expect(cells.map((c) => c.harnessId)).toEqual(anchors);
    expect(cells.map((c) => c.taskId)).toEqual(tasks);
    const training = new Set(trainingHarnesses(spec, scaling, 0));
    for (const c of cells) expect(training.has(c.harnessId)).toBe(true);
    expect(new Set(anchors).size).toBeGreaterThan(4);
    const excluded = new Set([cellKey(cells[0].taskId, cells[0].harnessId)]);
    expect(validationCells(spec, scaling, tasks, 0, excluded)).toEqual(cells.slice(1));
  });

  it('the plan: off when absent or tasks = 0; else the cells of `tasks` per suite with the cadence', () => {
    const quick = smokeSpec();
    const off = { ...quick, evaluation: { ...quick.evaluation, validation: undefined } };
    const m = quick.methods[0];
    expect(validationPlan(off, m, 0, trainPool(quick, 0))).toBeUndefined();
    expect(
      validationPlan(
        { ...quick, evaluation: { ...quick.evaluation, validation: { tasks: 0, every: 5, samples: 1 } } },
        m,
        0,
        trainPool(quick, 0),
      ),
    ).toBeUndefined();
    const on = { ...quick, evaluation: { ...quick.evaluation, validation: { tasks: 8, every: 5, samples: 2 } } };
    const p = validationPlan(on, m, 0, trainPool(quick, 0))!;
    expect(p.cells).toHaveLength(8);
    expect([p.every, p.samples]).toEqual([5, 2]);
  });

  it('the spec field: samples defaults to 1; a bad value is one line naming the field', () => {
    const quick = smokeSpec();
    const withVal = (v: unknown) => ({ ...quick, evaluation: { ...quick.evaluation, validation: v } });
    expect(parseSpec(withVal({ tasks: 24, every: 10 })).evaluation.validation).toEqual({ tasks: 24, every: 10, samples: 1 });
    expect(() => parseSpec(withVal({ tasks: 24, every: 0 }))).toThrow(SpecError);
    expect(() => parseSpec(withVal({ tasks: 24, every: 0 }))).toThrow(/spec\.evaluation\.validation\.every/);
    expect(() => parseSpec(withVal({ tasks: 24, every: 10, often: true }))).toThrow(/unknown field\(s\) 'often'/);
  });
});

describe('validation cadence', () => {
  it('step 0, every multiple of `every`, and the last step; nothing for a run without RL steps', () => {
    expect(validationSteps(12, 10)).toEqual([0, 10, 12]);
    expect(validationSteps(20, 10)).toEqual([0, 10, 20]);
    expect(validationSteps(3, 1)).toEqual([0, 1, 2, 3]);
    expect(validationSteps(0, 10)).toEqual([]);
    expect(isValidationStep(13, 12, 10)).toBe(false);
    expect(() => isValidationStep(0, 12, 0)).toThrow(/every must be a positive integer, got 0/);
  });
});

// ── the loop, with a stub policy on the one-turn choice (Node, no engine) ───────────────────

/** Random short actions (ids 100…899) seeded by the sampler seed; records every seed it is called with. */
const stubPolicy = (seeds: number[]) => randomTokenPolicy(900, { maxB: 64, maxT: 64, lo: 100, span: 800, onSeed: (s) => seeds.push(s) });

/** Reports one optimizer step and one dropped group, keeping no trajectory. */
const stubTrainer: EngineRlTrainer = stubRlTrainer((trajs) =>
  stubRlUpdate(trajs.length, { metrics: { policyLoss: 0, droppedGroups: 1 }, kept: [] }),
);

const choiceSpec: ExperimentSpec = (() => {
  const q = smokeSpec();
  return parseSpec({
    ...q,
    methods: [{ name: 'choice', harnesses: 'single' }],
    rl: { ...q.rl, tasksPerStep: 2, groupSize: 4 },
    rollout: { ...q.rollout, maxTurns: 1, maxNewTokens: 2, contextTokens: 64 },
  });
})();
const plan: ValidationPlan = {
  cells: Array.from({ length: 6 }, (_, i) => ({ taskId: `choice/v${i}`, harnessId: 'choice' })),
  every: 2,
  samples: 3,
};

function stubRun(o: {
  runSteps: number;
  state: LoopState;
  stopAfter?: number;
  seeds: number[];
  saves: number[][];
  events: RunEvent[];
}): RlLoopRun {
  const pool = ['choice/0', 'choice/1'];
  return {
    spec: choiceSpec,
    method: choiceSpec.methods[0],
    seed: 5,
    runIndex: 0,
    runSteps: o.runSteps,
    tok,
    policy: stubPolicy(o.seeds),
    trainer: stubTrainer,
    env: inProcessEnv(choiceEnv()),
    pool,
    schedule: makeSchedule(pool.map((task) => ({ task, harnesses: ['choice'], distances: [0] }))),
    state: o.state,
    trajectories: [],
    checkpointEvery: 1,
    progress: { done: 0, total: o.runSteps },
    stopRequested: () => o.stopAfter !== undefined && o.state.step >= o.stopAfter,
    save: async () => void o.saves.push((o.state.validation ?? []).map((p) => p.step)),
    emit: (ev) => void o.events.push(ev),
    validation: plan,
  };
}

/** A loop state through the run-checkpoint codec and the store's JSON, as a resume reads it. */
function throughCheckpoint(
  st: LoopState,
  tensors: ChoiceTensors = { params: new Float32Array(1), m: new Float32Array(1), v: new Float32Array(1), adamStep: 0 },
): { state: LoopState; tensors: ChoiceTensors } {
  const state: RunState = { runIndex: 0, before: null, schedule: {}, seconds: 0, ...st };
  const enc = encodeRunCheckpoint(
    'run-v',
    {
      spec: {},
      run: { runIndex: 0, method: 'choice', seed: 5 },
      state,
      schedule: { draws: {} },
      results: [],
      curves: [],
      trajectories: [],
    },
    { params: tensors.params, adamM: tensors.m, adamV: tensors.v, adamStep: tensors.adamStep },
    0,
  );
  const stored = storedRunCheckpoint(enc);
  const { checkpoint, tensors: t } = decodeRunCheckpoint(stored.meta, stored.tensors);
  const { step, history, skippedSteps, validation } = checkpoint.state;
  return {
    state: { step, history, skippedSteps, validation },
    tensors: { params: t.params, m: t.adamM, v: t.adamV, adamStep: t.adamStep },
  };
}

describe('rlLoop validation', () => {
  it('points at steps 0, every 2 and the last; each saved checkpoint holds the points so far; reported as events and in the progress line', async () => {
    const seeds: number[] = [];
    const saves: number[][] = [];
    const events: RunEvent[] = [];
    const state: LoopState = { step: 0, history: [], skippedSteps: 0 };
    await rlLoop(stubRun({ runSteps: 5, state, seeds, saves, events }));
    const pts = state.validation!;
    expect(pts.map((p) => p.step)).toEqual([0, 2, 4, 5]);
    for (const p of pts) {
      expect(p.episodes).toBe(plan.cells.length * plan.samples);
      expect(p.cells.map((c) => c.sample)).toEqual(plan.cells.flatMap(() => [0, 1, 2]));
      expect(p.passAt1).toBe(p.cells.filter((c) => c.pass).length / p.episodes);
    }
    // The stub's outcomes depend on the seed: the points are not all the same.
    expect(new Set(pts.map((p) => p.cells.map((c) => +c.pass).join(''))).size).toBeGreaterThan(1);
    expect(saves).toEqual([[0], [0, 2], [0, 2], [0, 2, 4], [0, 2, 4, 5]]);
    expect(events.filter((e) => e.type === 'validation').map((e) => (e as { point: ValidationPoint }).point.step)).toEqual([0, 2, 4, 5]);
    const phases = events.filter((e) => e.type === 'progress').map((e) => (e as { phase: string }).phase);
    expect(phases).toContain(
      'RL choice seed 5 step 2/5 · reward ' +
        state.history[1].reward.toFixed(3) +
        ' · entropy 1.000 · dropped 1/2 · val pass@1 ' +
        pts[1].passAt1.toFixed(3) +
        ' @2',
    );
    expect(state.history.every((h) => h.groups === 2)).toBe(true);
  });

  it('deterministic, and a run stopped (at step 0 or 3) and resumed through the checkpoint codec measures the same curve', async () => {
    const full: LoopState = { step: 0, history: [], skippedSteps: 0 };
    await rlLoop(stubRun({ runSteps: 5, state: full, seeds: [], saves: [], events: [] }));
    const again: LoopState = { step: 0, history: [], skippedSteps: 0 };
    await rlLoop(stubRun({ runSteps: 5, state: again, seeds: [], saves: [], events: [] }));
    const strip = (ps: ValidationPoint[]) => ps.map(({ ms: _ms, ...p }) => p);
    expect(strip(again.validation!)).toEqual(strip(full.validation!));
    for (const stopAt of [0, 3]) {
      const a: LoopState = { step: 0, history: [], skippedSteps: 0 };
      const r1 = await rlLoop(stubRun({ runSteps: 5, state: a, stopAfter: stopAt, seeds: [], saves: [], events: [] }));
      expect(r1.interrupted).toBe(true);
      // Stopped before step 1: not even step 0 measured; the resume catches it up.
      expect((a.validation ?? []).map((p) => p.step)).toEqual(stopAt === 0 ? [] : [0, 2]);
      const { state: b } = throughCheckpoint(a);
      await rlLoop(stubRun({ runSteps: 5, state: b, seeds: [], saves: [], events: [] }));
      expect(strip(b.validation!)).toEqual(strip(full.validation!));
    }
  });

  it('no plan, no points; the reports say so instead of drawing 0', async () => {
    const st: LoopState = { step: 0, history: [], skippedSteps: 0 };
    const run = stubRun({ runSteps: 2, state: st, seeds: [], saves: [], events: [] });
    delete run.validation;
    await rlLoop(run);
    expect(st.validation).toBeUndefined();
    const curves = [{ method: 'choice', seed: 5, steps: st.history }];
    expect(curvesSvg(curves)).toMatch(/validation pass@1[\s\S]*not measured/);
    expect(curvesCsv(curves).trim().split('\n').slice(1)).toEqual(
      st.history.map((h) => `choice,5,${h.step},${h.reward},1,0,1,1,2,0.5,,,${h.sampledEpisodes},,,`),
    );
    expect(curvesMarkdown(curves)).not.toMatch(/Validation pass@1/);
  });
});

describe('validation reports', () => {
  const pt = (step: number, passes: boolean[]): ValidationPoint => ({
    step,
    passAt1: passes.filter(Boolean).length / passes.length,
    score: 0.5,
    episodes: passes.length,
    ms: 1,
    cells: passes.map((pass, i) => ({ taskId: `t${i}`, harnessId: 'h', sample: 0, pass, score: 0.5 })),
  });
  const rec = (step: number, reward: number, entropy: number) => ({
    step,
    reward,
    entropy,
    policyLoss: 0,
    droppedGroups: 1,
    groups: 4,
    optimizerSteps: 1,
  });
  const curves = [
    {
      method: 'm',
      seed: 0,
      steps: [rec(1, 0.2, 1), rec(2, 0.4, NaN), rec(3, 0.6, 0.8), rec(4, 0.8, 0.6)],
      validation: [pt(0, [false, false, false, false, false, true]), pt(4, [true, true, true, true, true, true])],
    },
  ] as unknown as Parameters<typeof curvesCsv>[0];

  it('curves.csv: a line per measured step; validation columns only where measured; NaN empty, not 0', () => {
    const lines = curvesCsv(curves).trim().split('\n');
    expect(lines).toHaveLength(6);
    expect(lines[1]).toBe('m,0,0,,,,,,,,,,,' + (1 / 6).toString() + ',0.5,6');
    expect(lines[2]).toBe('m,0,1,0.2,1,0,1,1,4,0.25,,,,,,');
    expect(lines[3]).toBe('m,0,2,0.4,,0,1,1,4,0.25,,,,,,');
    expect(lines[5]).toBe('m,0,4,0.8,0.6,0,1,1,4,0.25,,,,1,0.5,6');
  });

  it('results.md: the validation curve with its paired first → last difference, and the training signal early → late', () => {
    const md = curvesMarkdown(curves, { resamples: 200 });
    expect(md).toMatch(/\| method \| seed \| step 0 \| step 4 \| last − first \|/);
    expect(md).toMatch(/\| m \| 0 \| 16\.7 \(0\.50\) \| 100\.0 \(0\.50\) \| \+83\.3 \[/);
    expect(md).toMatch(/\| m \| 0 \| 4 \| 0\.20 → 0\.80 \| 1\.00 → 0\.60 \| 25\.0 % → 25\.0 % \|/);
  });

  it('curves.svg: a validation panel with a marker per point; a run without an entropy value leaves a gap', () => {
    const svg = curvesSvg(curves);
    expect(svg).toContain('validation pass@1 (train-seed split)');
    expect(svg.match(/<circle /g)).toHaveLength(2);
    // Entropy NaN at step 2 splits its line in two polylines (reward stays one).
    expect(svg.match(/<polyline /g)).toHaveLength(1 + 1 + 1 + 2 + 1);
  });
});

// ── validation sets: the split under the training harnesses, the base harness and in-space ──

describe('validation sets', () => {
  const main = preset('main');
  const withSets = (spec: ExperimentSpec, sets: unknown) =>
    parseSpec({ ...spec, evaluation: { ...spec.evaluation, validation: { ...spec.evaluation.validation, sets } } });
  const all = withSets(main, ['training', 'base', 'inSpace']);
  const ids = inSpaceEvalSet(main).ids;
  const pool = trainPool(main, 0);

  it('the spec field: absent stays absent (the parsed spec, hence its digest, unchanged); training is required; no set twice', () => {
    const quick = smokeSpec();
    const withVal = (v: unknown) => ({ ...quick, evaluation: { ...quick.evaluation, validation: v } });
    expect(Object.keys(parseSpec(withVal({ tasks: 24, every: 10 })).evaluation.validation!)).toEqual(['tasks', 'every', 'samples']);
    expect(JSON.stringify(parseSpec(JSON.parse(JSON.stringify(main))))).toBe(JSON.stringify(main));
    expect(parseSpec(withVal({ tasks: 24, every: 10, sets: ['training', 'inSpace'] })).evaluation.validation!.sets).toEqual([
      'training',
      'inSpace',
    ]);
    expect(() => parseSpec(withVal({ tasks: 24, every: 10, sets: ['base'] }))).toThrow(
      /spec\.evaluation\.validation\.sets: must include 'training'/,
    );
    expect(() => parseSpec(withVal({ tasks: 24, every: 10, sets: ['training', 'base', 'base'] }))).toThrow(
      /validation\.sets: a set is listed twice/,
    );
    expect(() => parseSpec(withVal({ tasks: 24, every: 10, sets: ['training', 'heldout'] }))).toThrow(
      /validation\.sets\[1\]: expected one of/,
    );
  });

  it('sets absent: the plan is the training cells alone, as before', () => {
    for (const m of main.methods) {
      const p = validationPlan(main, m, 0, pool, undefined, ids)!;
      expect(p.sets).toBeUndefined();
      expect(p.cells).toEqual(validationCells(main, m, validationTasks(main, 0, pool, main.evaluation.validation!.tasks), 0));
    }
  });

  it('base cells are every validation task under the base harness; in-space cells one in-space configuration per validation task; both the same for every method of a seed', () => {
    const tasks = validationTasks(main, 0, pool, main.evaluation.validation!.tasks);
    const tests = new Set(testTasks(main, 0));
    const trained = new Set(main.methods.flatMap((m) => trainingHarnesses(main, m, 0)));
    const inSpace = new Set(ids);
    const plans = main.methods.map((m) => validationPlan(all, m, 0, pool, undefined, ids)!);
    for (const p of plans) {
      expect(p.sets!.base!.map((c) => c.taskId)).toEqual(tasks);
      expect(p.sets!.base!.every((c) => c.harnessId === BASE_HARNESS)).toBe(true);
      expect(p.sets!.inSpace!.map((c) => c.taskId)).toEqual(tasks);
      for (const c of p.sets!.inSpace!) {
        expect(inSpace.has(c.harnessId)).toBe(true);
        expect(trained.has(c.harnessId)).toBe(false);
        expect(tests.has(c.taskId)).toBe(false);
      }
      expect(p.sets).toEqual(plans[0].sets);
    }
    // A rotation: with more tasks than configurations every configuration is used, about equally.
    const uses = new Map<string, number>();
    for (const c of plans[0].sets!.inSpace!) uses.set(c.harnessId, (uses.get(c.harnessId) ?? 0) + 1);
    expect(tasks.length).toBeGreaterThan(ids.length);
    expect(uses.size).toBe(ids.length);
    expect(Math.max(...uses.values()) - Math.min(...uses.values())).toBeLessThanOrEqual(1);
    // Another seed rotates differently.
    const other = validationPlan(all, main.methods[0], 1, trainPool(main, 1), undefined, ids)!;
    expect(other.sets!.inSpace!.map((c) => c.harnessId)).not.toEqual(plans[0].sets!.inSpace!.map((c) => c.harnessId));
  });

  it('infeasible cells are left out of their set only; an empty set is left out; the in-space set needs the run ids', () => {
    const m = main.methods[0];
    const p = validationPlan(all, m, 0, pool, undefined, ids)!;
    const drop = [p.sets!.base![0], p.sets!.inSpace![1]];
    const q = validationPlan(all, m, 0, pool, new Set(drop.map((c) => cellKey(c.taskId, c.harnessId))), ids)!;
    expect(q.sets!.base).toEqual(p.sets!.base!.slice(1));
    expect(q.sets!.inSpace).toEqual(p.sets!.inSpace!.filter((_, i) => i !== 1));
    expect(validationPlan(all, m, 0, pool, undefined, [])!.sets).toEqual({ base: p.sets!.base });
    expect(() => validationPlan(all, m, 0, pool)).toThrow(/'inSpace' set needs the run's in-space evaluation set ids/);
  });

  const setsPlan: ValidationPlan = {
    cells: Array.from({ length: 4 }, (_, i) => ({ taskId: `choice/v${i}`, harnessId: 'choice' })),
    // The base cells coincide with the training cells (as for single-harness RL); in-space ones do not.
    sets: {
      base: Array.from({ length: 4 }, (_, i) => ({ taskId: `choice/v${i}`, harnessId: 'choice' })),
      inSpace: Array.from({ length: 4 }, (_, i) => ({ taskId: `choice/v${i}`, harnessId: `choice-${i % 2}` })),
    },
    every: 2,
    samples: 3,
  };

  it('one batch: cells two sets share are run once and count for both; each set summarises its own episodes', async () => {
    const env = choiceEnv();
    let resets = 0;
    const counted = { ...env, reset: (...a: Parameters<typeof env.reset>) => (resets++, env.reset(...a)) };
    const point = await measureValidation(setsPlan, 2, {
      tok,
      policy: stubPolicy([]),
      env: inProcessEnv(counted),
      maxTurns: 1,
      maxNewTokens: 2,
      contextTokens: 64,
      temperature: 1,
      seed: 5,
    });
    expect(resets).toBe((4 + 4) * 3);
    expect(point.episodes).toBe(12);
    expect(point.sets!.base).toEqual({ passAt1: point.passAt1, score: point.score, episodes: 12, cells: point.cells });
    const inSpace = point.sets!.inSpace!;
    expect(inSpace.episodes).toBe(12);
    expect(inSpace.cells.map((c) => `${c.taskId}@${c.harnessId}#${c.sample}`)).toEqual(
      setsPlan.sets!.inSpace!.flatMap((c) => [0, 1, 2].map((k) => `${c.taskId}@${c.harnessId}#${k}`)),
    );
    expect(inSpace.passAt1).toBe(inSpace.cells.filter((c) => c.pass).length / 12);
    // The training set alone: no breakdown (points as before sets existed).
    const alone = await measureValidation({ ...setsPlan, sets: undefined }, 2, {
      tok,
      policy: stubPolicy([]),
      env: inProcessEnv(choiceEnv()),
      maxTurns: 1,
      maxNewTokens: 2,
      contextTokens: 64,
      temperature: 1,
      seed: 5,
    });
    expect('sets' in alone).toBe(false);
  });

  it('a run stopped and resumed through the checkpoint codec measures every set as an uninterrupted one', async () => {
    const strip = (ps: ValidationPoint[]) => ps.map(({ ms: _ms, ...p }) => p);
    const run = (state: LoopState, stopAfter?: number) => {
      const r = stubRun({ runSteps: 5, state, stopAfter, seeds: [], saves: [], events: [] });
      r.validation = setsPlan;
      return r;
    };
    const full: LoopState = { step: 0, history: [], skippedSteps: 0 };
    await rlLoop(run(full));
    expect(full.validation!.every((p) => p.sets?.base && p.sets.inSpace)).toBe(true);
    const a: LoopState = { step: 0, history: [], skippedSteps: 0 };
    await rlLoop(run(a, 3));
    const { state: b } = throughCheckpoint(a);
    expect(b.validation!.map((p) => Object.keys(p.sets ?? {}))).toEqual([
      ['base', 'inSpace'],
      ['base', 'inSpace'],
    ]);
    await rlLoop(run(b));
    expect(strip(b.validation!)).toEqual(strip(full.validation!));
  });

  const spt = (step: number, train: boolean[], base: boolean[], inSpace: boolean[] | null): ValidationPoint => {
    const one = (passes: boolean[], h: string) => ({
      passAt1: passes.filter(Boolean).length / passes.length,
      score: 0.5,
      episodes: passes.length,
      cells: passes.map((pass, i) => ({ taskId: `t${i}`, harnessId: h, sample: 0, pass, score: 0.5 })),
    });
    return { step, ms: 1, ...one(train, 'h'), sets: { base: one(base, BASE_HARNESS), ...(inSpace ? { inSpace: one(inSpace, 'x') } : {}) } };
  };
  const F = false;
  const T = true;
  const setCurves = [
    {
      method: 'single',
      seed: 0,
      steps: [],
      validation: [spt(0, [F, F, F, T], [F, F, F, T], [F, F, F, F]), spt(4, [T, T, T, T], [T, T, T, T], [F, F, F, T])],
    },
    {
      method: 'scaling',
      seed: 0,
      steps: [],
      validation: [spt(0, [F, F, T, T], [F, F, F, T], null), spt(4, [T, T, T, F], [T, T, F, F], null)],
    },
  ];

  it('curves.csv: a column triple per measured set, empty where a run did not measure it; older curves keep the old header', () => {
    const lines = curvesCsv(setCurves).trim().split('\n');
    expect(lines[0].split(',').slice(13)).toEqual([
      'validation_pass_at_1',
      'validation_score',
      'validation_episodes',
      'validation_base_pass_at_1',
      'validation_base_score',
      'validation_base_episodes',
      'validation_in_space_pass_at_1',
      'validation_in_space_score',
      'validation_in_space_episodes',
    ]);
    expect(lines[1]).toBe('single,0,0,,,,,,,,,,,0.25,0.5,4,0.25,0.5,4,0,0.5,4');
    expect(lines[4]).toBe('scaling,0,4,,,,,,,,,,,0.75,0.5,4,0.5,0.5,4,,,');
    const base = setCurves.map((c) => ({ ...c, validation: c.validation.map((p) => ({ ...p, sets: { base: p.sets!.base } })) }));
    expect(
      curvesCsv(base)
        .split('\n')[0]
        .endsWith('validation_episodes,validation_base_pass_at_1,validation_base_score,validation_base_episodes'),
    ).toBe(true);
  });

  it('curves.svg: a panel per set with both methods in it, each line named; results.md: a table per set', () => {
    const svg = curvesSvg(setCurves);
    for (const label of ['training harnesses', 'base harness', 'in-space']) expect(svg).toContain(`>validation pass@1 · ${label}</text>`);
    expect(svg).not.toContain('train-seed split');
    // Markers: training and base 2 runs × 2 points each, in-space 1 run × 2.
    expect(svg.match(/<circle /g)).toHaveLength(4 + 4 + 2);
    expect(svg).toContain('<title>single (seed 0) · validation pass@1 · in-space</title>');
    expect(svg).toContain('<title>scaling (seed 0) · validation pass@1 · base harness</title>');
    const md = curvesMarkdown(setCurves, { resamples: 200 });
    expect(md).toMatch(
      /under the base harness[\s\S]*\| single \| 0 \| 25\.0 \(0\.50\) \| 100\.0 \(0\.50\) \| \+75\.0 \[[\s\S]*\| scaling \| 0 \| 25\.0 \(0\.50\) \| 50\.0 \(0\.50\)/,
    );
    const inSpaceTable = md.split('held-out in-space configurations')[1];
    expect(inSpaceTable).toMatch(
      /\| method \| seed \| step 0 \| step 4 \| last − first \|\n\|[-: |]+\|\n\| single \| 0 \| 0\.0 \(0\.50\) \| 25\.0 \(0\.50\) \| \+25\.0 \[[^\n]*$/,
    );
    expect(inSpaceTable).not.toContain('scaling');
  });
});

// ── the CPU engine: a micro policy learning the choice, validated, stopped and resumed ──────

let engine: CpuEngine;
beforeAll(async () => {
  engine = await CpuEngine.create('test', { threads: 1 });
});
afterAll(() => engine.destroy());

describe('validation on the CPU engine', () => {
  const vplan: ValidationPlan = {
    cells: Array.from({ length: 8 }, (_, i) => ({ taskId: `choice/v${i}`, harnessId: 'choice' })),
    every: 8,
    samples: 4,
  };

  it('the curve of the learning choice rises, and a run stopped at step 5 and resumed through the checkpoint gives the same curve and parameters', async () => {
    const full = await runChoiceLoop(engine, tok, {}, { validation: vplan });
    const pts = full.state.validation!;
    expect(pts.map((p) => p.step)).toEqual([0, 8, 16]);
    console.log('validation pass@1', pts.map((p) => `${p.step}: ${p.passAt1.toFixed(2)}`).join(', '));
    // Learning shown on the validation split (the training reward goes ≈ 0.2 → ≥ 0.8, rl_learns.test.ts).
    expect(pts[2].passAt1 - pts[0].passAt1).toBeGreaterThanOrEqual(0.3);

    const first = await runChoiceLoop(engine, tok, {}, { validation: vplan, stopAfter: 5 });
    expect(first.state.step).toBe(5);
    expect(first.state.validation!.map((p) => p.step)).toEqual([0]);
    const restored = throughCheckpoint(first.state, first.tensors);
    const resumed: ChoiceSegment = await runChoiceLoop(engine, tok, {}, { validation: vplan, from: restored });
    const strip = (ps: ValidationPoint[]) => ps.map(({ ms: _ms, ...p }) => p);
    expect(strip(resumed.state.validation!)).toEqual(strip(pts));
    expect(resumed.state.history.map((h) => h.reward)).toEqual(full.state.history.map((h) => h.reward));
    expect(resumed.tensors.params).toEqual(full.tensors.params);
  }, 120_000);
});

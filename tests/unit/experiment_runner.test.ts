// The experiment runner (src/experiment/runner.ts) in Node on a fake engine and an in-memory
// checkpoint store (its RunSeams) with in-process environments: it runs the compiled plan's runs
// in order with the plan's trainer options and pools, and the run-level counters of its results
// (skipped and applied optimizer steps, steps without an update, episodes sampled) and the loop's
// per-step counters (groups, dropped groups, episodes) agree with the step history and with what
// the trainer reported.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { compilePlan, type ExperimentPlan } from '../../src/experiment/compile';
import { checkSpecConsistency } from '../../src/experiment/plan';
import { baseMix } from '../../src/experiment/run_start';
import { checkpointPosition } from '../../src/experiment/run_checkpoint';
import { runExperiment, type ExperimentOutput, type RunEvent } from '../../src/experiment/runner';
import { parseSpec } from '../../src/experiment/spec';
import { shippedTokenizer } from '../../src/cli/cli_util';
import { fakeEngine, memoryStore, type UpdateScript } from './lib/fake_engine';
import { SMOKE_SPEC_JSON } from './lib/smoke_spec';

/** Sample trajectories the RL loop keeps per step. */
const TRAJECTORIES_PER_STEP = 2;

const tok = shippedTokenizer();
const STEPS = 4;

/** Two methods of one seed on a scratch tiny model, with tiny budgets and evaluation sets. */
const specJson = (() => {
  const s = structuredClone(SMOKE_SPEC_JSON);
  return {
    ...s,
    name: 'runner-unit',
    model: { preset: 'tiny', init: 'scratch' },
    methods: [
      { name: 'scaling', harnesses: 'scaling', K: 2, algorithm: 'grpo' },
      { name: 'single', harnesses: 'single', K: 1, algorithm: 'grpo' },
    ],
    rl: { ...s.rl, steps: STEPS, tasksPerStep: 2, groupSize: 2, epochs: 1, minibatches: 2 },
    rollout: { ...s.rollout, maxTurns: 2, maxNewTokens: 12, contextTokens: 512 },
    evaluation: { testTasks: 1, samples: 1, inSpace: { mode: 'stratified', perDistance: 1, seed: 0 }, blackbox: [] },
  };
})();

/** The plan with every cell kept (the tiny budgets are too small for the expert). */
function planOf(json: unknown): ExperimentPlan {
  const spec = checkSpecConsistency(parseSpec(json, 'spec'));
  return compilePlan(spec, tok, { specJson: json, mix: baseMix(spec, new Map()), infeasible: [] });
}

/** Step 2 skips both optimizer steps (no update applied), step 3 one of two; step s drops s mod 2 groups. */
const script: UpdateScript = (step) => ({ optimizerSteps: 2, skippedSteps: step === 2 ? 2 : step === 3 ? 1 : 0, droppedGroups: step % 2 });

async function run(plan: ExperimentPlan, o: { stopAfter?: number } = {}) {
  const engine = fakeEngine(script);
  const store = memoryStore();
  const events: RunEvent[] = [];
  let steps = 0;
  const out: ExperimentOutput = await runExperiment(
    plan,
    {
      tokenizer: tok,
      inProcessEnv: true,
      onProgress: (ev) => {
        events.push(ev);
        if (ev.type === 'step') steps++;
      },
      shouldStop: () => o.stopAfter !== undefined && steps >= o.stopAfter,
    },
    { engine, store },
  );
  return { out, engine, store, events };
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe('runExperiment on a fake engine', () => {
  // The runner names the machine from navigator (a browser global Node 20 lacks).
  beforeAll(() => void vi.stubGlobal('navigator', { hardwareConcurrency: 2, userAgent: 'node' }));
  afterAll(() => void vi.unstubAllGlobals());
  const plan = planOf(specJson);

  it("runs the plan's runs in order with their trainer options, pools and harness assignments", async () => {
    const { out, engine } = await run(plan);
    expect(out.status).toBe('done');
    expect(out.results.runs.map((r) => [r.method, r.seed])).toEqual(plan.runs.map((p) => [p.method.name, p.seed]));
    expect(engine.trainerOptions).toEqual(plan.runs.map((p) => p.trainer));
    expect(out.results.evalSet).toBe(plan.inSpace.description);
    for (const [i, p] of plan.runs.entries()) {
      const updates = engine.updates.filter((u) => u.stack === i);
      expect(updates.map((u) => u.step)).toEqual([1, 2, 3, 4]);
      const harnesses = new Map(p.assignments.map((a) => [String(a.task), a.harnesses]));
      for (const u of updates) {
        expect(u.cells).toHaveLength(2 * 2);
        for (const c of u.cells) expect(harnesses.get(c.taskId)).toContain(c.harnessId);
      }
    }
  }, 120_000);

  it('the run-level counters equal the step history, which records what the trainer reported', async () => {
    const { out, events } = await run(plan);
    for (const [i, r] of out.results.runs.entries()) {
      const h = out.curves[i].steps;
      expect(h.map((s) => s.step)).toEqual([1, 2, 3, 4]);
      // Per step: what the trainer reported, and the loop's own groups and episodes.
      expect(h.map((s) => [s.optimizerSteps, s.skippedSteps, s.droppedGroups])).toEqual(
        [1, 2, 3, 4].map((s) => Object.values(script(s, 4))),
      );
      expect(h.map((s) => s.groups)).toEqual([2, 2, 2, 2]);
      expect(h.map((s) => s.sampledEpisodes)).toEqual([4, 4, 4, 4]);
      // Per run: sums over the history (step 2 applied nothing).
      expect(r.rlSteps).toBe(STEPS);
      expect(r.skippedOptimizerSteps).toBe(sum(h.map((s) => s.skippedSteps)));
      expect(r.skippedOptimizerSteps).toBe(3);
      expect(r.optimizerSteps).toBe(sum(h.map((s) => s.optimizerSteps - s.skippedSteps)));
      expect(r.optimizerSteps).toBe(5);
      expect(r.rlStepsWithoutUpdate).toBe(h.filter((s) => s.optimizerSteps === s.skippedSteps).length);
      expect(r.rlStepsWithoutUpdate).toBe(1);
      expect(r.sampledEpisodes).toBe(sum(h.map((s) => s.sampledEpisodes!)));
      expect(r.sampledEpisodes).toBe(STEPS * 2 * 2);
    }
    expect(out.trajectories).toHaveLength(plan.runs.length * STEPS * TRAJECTORIES_PER_STEP);
    // The step events carry the history's records; progress ends at its total.
    expect(events.filter((e) => e.type === 'step').map((e) => (e as Extract<RunEvent, { type: 'step' }>).record)).toEqual(
      out.curves.flatMap((c) => c.steps),
    );
    const last = events.filter((e) => e.type === 'progress').at(-1) as Extract<RunEvent, { type: 'progress' }>;
    expect(last.done).toBe(last.total);
    expect(last.total).toBe(plan.runs.length * (STEPS + 2));
  }, 120_000);

  it('a stop request checkpoints the step it stopped after and returns interrupted with that history', async () => {
    const { out, store } = await run(plan, { stopAfter: 3 });
    expect(out.status).toBe('interrupted');
    expect(out.results.runs).toHaveLength(0);
    expect(out.curves[0].steps.map((s) => s.step)).toEqual([1, 2, 3]);
    const positions = store.saved.map((c) => checkpointPosition(c.meta.step));
    // After the 'before' evaluation, then every step (checkpointEvery 1).
    expect(positions).toEqual([0, 1, 2, 3].map((rlStep) => ({ runIndex: 0, rlStep, finished: false })));
  }, 120_000);
});

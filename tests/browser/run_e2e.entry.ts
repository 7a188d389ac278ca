// Runs in the page: tiny end-to-end experiments (rollouts → GRPO → eval → checkpoints) for
// run_e2e.spec.ts. Small summaries only.
import { runExperimentInPage, type ExperimentOutput } from '../../src/experiment/runner';

export type Backend = 'webgpu' | 'wasm';

/** A tiny spec: tiny model from scratch, a handful of tasks, short budgets; the WGSL engine unless `backend` says otherwise. */
export function tinySpec(overrides: { steps?: number; algorithm?: 'grpo' | 'ppo'; workers?: number; dropZeroVarianceGroups?: boolean; backend?: Backend } = {}) {
  // public/ JSON cannot be imported in the page under Vite: fetch-free inline copy of quick's rl block.
  const s = {
    specVersion: 1, seeds: [0], suites: ['workspace'], design: { method: 'oa', k: 18, seed: 0 },
    rl: {
      steps: 2, tasksPerStep: 4, groupSize: 4, epochs: 1, minibatches: 2, lr: 1e-4, weightDecay: 0, maxGradNorm: 1, clipLow: 0.2, clipHigh: 0.28, dualClip: null,
      aggregation: 'token-mean', klCoef: 0, klEstimator: 'k3', entCoef: 0, vfCoef: 0.5, vfClip: 0.2, gamma: 1, lambda: 0.95, stdFloor: 1e-6, noStdDivision: false, temperature: 1,
    },
    rollout: { workers: 2, maxTurns: 6, maxNewTokens: 48, contextTokens: 512, watchdogMs: 30000 },
  };
  return {
    ...s,
    name: 'tiny-e2e',
    description: '',
    backend: overrides.backend ?? 'webgpu',
    model: { preset: 'tiny', init: 'base' },
    methods: [{ name: 'scaling', harnesses: 'scaling', K: 2, algorithm: overrides.algorithm ?? 'grpo' }],
    rl: {
      ...s.rl, steps: overrides.steps ?? 2, tasksPerStep: 2, groupSize: 2, minibatches: 2, lr: 1e-3,
      ...(overrides.dropZeroVarianceGroups !== undefined ? { dropZeroVarianceGroups: overrides.dropZeroVarianceGroups } : {}),
    },
    rollout: { ...s.rollout, workers: overrides.workers ?? 2, maxTurns: 2, maxNewTokens: 12, watchdogMs: 20000 },
    evaluation: { testTasks: 1, samples: 1, inSpace: { mode: 'stratified', perDistance: 1, seed: 0 }, blackbox: ['bb-coding-cli'] },
  };
}

function parse(s: string): ExperimentOutput {
  return JSON.parse(s) as ExperimentOutput;
}

const strip = (steps: ExperimentOutput['curves'][number]['steps']) =>
  steps.map(({ tokensPerSec: _a, rolloutMs: _b, updateMs: _c, ...rest }) => rest);

/** Every stage once: eval before, 2 RL steps with a worker killed mid-episode, eval after, checkpoints. */
export async function tinyEndToEnd(algorithm: 'grpo' | 'ppo' = 'grpo', crashAtJob?: number, backend: Backend = 'webgpu') {
  const db = `hlab-e2e-${algorithm}-${backend}-${Math.random().toString(36).slice(2)}`;
  // Real rewards: the tiny policy rarely passes, so every group would have zero variance and the
  // default filter (spec.rl.dropZeroVarianceGroups) would skip the update this test exercises.
  const out = parse(await runExperimentInPage(tinySpec({ algorithm, dropZeroVarianceGroups: false, backend }), { dbName: db, runId: 'e2e', crashAtJob }));
  return {
    engine: out.engine,
    status: out.status,
    warnings: out.warnings,
    starts: out.starts,
    run: out.results.runs[0],
    evalSet: out.results.evalSet,
    steps: strip(out.curves[0].steps),
    seconds: out.seconds,
  };
}

/** Part 1 of the resume test: N/2 steps then stop (checkpoint in IndexedDB). */
export async function resumePart1(db: string, half: number, backend: Backend = 'webgpu') {
  const out = parse(await runExperimentInPage(tinySpec({ steps: 2 * half, backend }), { dbName: db, runId: 'resume', skipEval: true, stopAfterSteps: half, inProcessEnv: true, syntheticReward: true }));
  return { status: out.status, steps: out.curves[0]?.steps.length ?? 0 };
}

/** Part 2 (after a page reload): resume from IndexedDB and finish. */
export async function resumePart2(db: string, half: number, backend: Backend = 'webgpu') {
  const out = parse(await runExperimentInPage(tinySpec({ steps: 2 * half, backend }), { dbName: db, runId: 'resume', skipEval: true, resume: true, inProcessEnv: true, syntheticReward: true }));
  return { status: out.status, digest: out.paramDigests[0], steps: strip(out.curves[0].steps), engine: out.engine.kind };
}

/** The uninterrupted reference. */
export async function straight(db: string, steps: number, backend: Backend = 'webgpu') {
  const out = parse(await runExperimentInPage(tinySpec({ steps, backend }), { dbName: db, runId: 'straight', skipEval: true, inProcessEnv: true, syntheticReward: true }));
  return { status: out.status, digest: out.paramDigests[0], steps: strip(out.curves[0].steps), engine: out.engine.kind };
}

/** PPO (value head, GAE) and the non-finite guard: `steps` steps, step `poison` gets NaN log-probs. */
export async function ppoAndPoison(steps: number, poison?: number, backend: Backend = 'webgpu') {
  const db = `hlab-ppo-${backend}-${Math.random().toString(36).slice(2)}`;
  const out = parse(await runExperimentInPage(tinySpec({ steps, algorithm: 'ppo', backend }), { dbName: db, runId: 'ppo', skipEval: true, inProcessEnv: true, syntheticReward: true, poisonStep: poison }));
  // Recorded trajectories: per-token advantages (one per action token) with their count of action tokens.
  const traj = out.trajectories.map((t) => ({
    step: t.step,
    advantages: Array.isArray(t.advantage) ? t.advantage.length : -1,
    actionTokens: t.turns.reduce((a, u) => a + u.actionIds.length, 0),
    finite: Array.isArray(t.advantage) && t.advantage.every((x) => Number.isFinite(x)),
    nonzero: Array.isArray(t.advantage) && t.advantage.some((x) => x !== 0),
  }));
  return { status: out.status, digest: out.paramDigests[0], steps: strip(out.curves[0].steps), skipped: out.results.runs[0].skippedSteps, applied: out.results.runs[0].steps, traj };
}

/**
 * A stop requested during the last RL step: the run stops before the final evaluation
 * (status 'interrupted', no result yet); resuming runs only that evaluation.
 */
export async function stopAtLastStep(steps: number) {
  const db = `hlab-laststop-${Math.random().toString(36).slice(2)}`;
  const spec = { ...tinySpec({ steps }), evaluation: { testTasks: 1, samples: 1, inSpace: { mode: 'stratified', perDistance: 1, seed: 0 }, blackbox: [] } };
  const o = { dbName: db, runId: 'laststop', inProcessEnv: true, syntheticReward: true };
  const a = parse(await runExperimentInPage(spec, { ...o, stopAfterSteps: steps }));
  const b = parse(await runExperimentInPage(spec, { ...o, resume: true }));
  return {
    a: { status: a.status, runs: a.results.runs.length, steps: a.curves[0]?.steps.length ?? 0 },
    b: { status: b.status, runs: b.results.runs.length, steps: b.curves[0]?.steps.length ?? 0, stepsApplied: b.results.runs[0]?.steps ?? -1 },
  };
}

/**
 * A spec whose fields are each valid but inconsistent (K above the training-set size) is refused
 * by the runner in the page before any GPU work: the error names the field; no GPU device was
 * requested (createGpu counts adapters asked for through navigator.gpu).
 */
export async function inconsistentSpec() {
  const spec = { ...tinySpec(), methods: [{ name: 'scaling', harnesses: 'scaling', K: 99, algorithm: 'grpo' }] };
  const gpu = navigator.gpu;
  let adapterRequests = 0;
  const orig = gpu.requestAdapter.bind(gpu);
  gpu.requestAdapter = (o?: GPURequestAdapterOptions) => (adapterRequests++, orig(o));
  try {
    await runExperimentInPage(spec, { dbName: `hlab-inconsistent-${Math.random().toString(36).slice(2)}`, inProcessEnv: true });
    return { error: 'none', adapterRequests };
  } catch (e) {
    return { error: (e as Error).message, adapterRequests };
  } finally {
    gpu.requestAdapter = orig;
  }
}

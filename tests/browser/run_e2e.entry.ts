// Runs in the page: tiny end-to-end experiments (rollouts → GRPO → eval → checkpoints) for
// run_e2e.spec.ts. Small summaries only. Fault injection and reward transforms go through the
// runner's test seams (RunSeams: an environment host, after-rollout hooks), never options.
import { runExperiment, type ExperimentOutput, type RunEvent, type RunnerOptions } from '../../src/experiment/runner';
import { sha256Hex } from '../../src/util/encoding';
import type { RlLoopHooks } from '../../src/experiment/rl_loop';
import { parseSpec, type ExperimentSpec } from '../../src/experiment/spec';
import { checkSpecConsistency } from '../../src/experiment/plan';
import { compilePlan } from '../../src/experiment/compile';
import { loadTokenizer } from '../../src/model/tokenizer';
import { baseMix } from '../../src/experiment/run_start';
import type { EnvApi } from '../../src/episode/host';
import { WorkerPool } from '../../src/episode/worker_pool';
import { initTokenizer } from '../../src/episode/host_pool';
import type { Tokenizer } from '../../src/model/tokenizer';
import type { CrashEnvApi } from './workers/crash_env_worker';
import { SMOKE_SPEC_JSON } from '../unit/lib/smoke_spec';

/** The runner's test seams (its third parameter). */
type RunSeams = NonNullable<Parameters<typeof runExperiment>[2]>;

export type Backend = 'webgpu' | 'wasm';

/** A tiny spec: tiny model from scratch, a handful of tasks, short budgets; the WGSL engine unless `backend` says otherwise. */
export function tinySpec(
  overrides: {
    steps?: number;
    algorithm?: 'grpo' | 'ppo';
    workers?: number;
    dropZeroVarianceGroups?: boolean;
    backend?: Backend;
    validation?: { tasks: number; every: number };
  } = {},
) {
  // The loss hyper-parameters of the tests' fixed smoke spec (tests/unit/lib/smoke_spec.ts).
  const s = {
    specVersion: 1,
    seeds: [0],
    suites: ['workspace'],
    design: { method: 'oa', k: 18, seed: 0 },
    rl: SMOKE_SPEC_JSON.rl,
    rollout: { workers: 2, maxTurns: 6, maxNewTokens: 48, contextTokens: 512, watchdogMs: 30000 },
  };
  return {
    ...s,
    name: 'tiny-e2e',
    description: '',
    backend: overrides.backend ?? 'webgpu',
    model: { preset: 'tiny', init: 'scratch' },
    methods: [{ name: 'scaling', harnesses: 'scaling', K: 2, algorithm: overrides.algorithm ?? 'grpo' }],
    rl: {
      ...s.rl,
      steps: overrides.steps ?? 2,
      tasksPerStep: 2,
      groupSize: 2,
      minibatches: 2,
      lr: 1e-3,
      ...(overrides.dropZeroVarianceGroups !== undefined ? { dropZeroVarianceGroups: overrides.dropZeroVarianceGroups } : {}),
    },
    rollout: { ...s.rollout, workers: overrides.workers ?? 2, maxTurns: 2, maxNewTokens: 12, watchdogMs: 20000 },
    evaluation: {
      testTasks: 1,
      samples: 1,
      inSpace: { mode: 'stratified', perDistance: 1, seed: 0 },
      blackbox: ['bb-coding-cli'],
      ...(overrides.validation ? { validation: overrides.validation } : {}),
    },
  };
}

/**
 * runExperiment with seams on the spec's compiled plan (scratch models, so no pretraining mix;
 * every cell kept: the tiny budgets are too small for the expert, so no feasibility check), its output through JSON (NaN → null),
 * plus the SHA-256 of each run's final parameters (the onRunParams seam) for the resume tests.
 * @param o.steps overrides spec.rl.steps
 */
async function runJson(
  specJson: unknown,
  o: RunnerOptions & { steps?: number },
  seams: RunSeams = {},
): Promise<ExperimentOutput & { paramDigests: string[] }> {
  const digests: Promise<string>[] = [];
  const { steps, ...opts } = o;
  const spec = checkSpecConsistency(parseSpec(specJson, 'spec'));
  const tok = await loadTokenizer();
  const plan = compilePlan(spec, tok, {
    specJson,
    ...(steps !== undefined ? { steps } : {}),
    mix: baseMix(spec, new Map()),
    infeasible: [],
  });
  const out = await runExperiment(
    plan,
    { ...opts, tokenizer: tok },
    { ...seams, onRunParams: (_r, p) => void digests.push(sha256Hex(new Uint8Array(p.buffer, p.byteOffset, p.byteLength))) },
  );
  const json = JSON.parse(JSON.stringify(out, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v))) as ExperimentOutput;
  return { ...json, paramDigests: await Promise.all(digests) };
}

/** The evaluations skipped (tests of the training loop only). */
const noEval: RunSeams = { skipEval: true };

/**
 * A synthetic reward (a rollout's index in the step mod 2, so every group of ≥ 2 has reward
 * variance): a scratch model gets non-zero advantages and real parameter updates.
 */
const syntheticReward: NonNullable<RlLoopHooks['afterRollout']> = (_step, trajs) => {
  for (const t of trajs) t.reward = t.index % 2;
};

/** The synthetic reward, and at RL step `poison` every sampled log-prob replaced by NaN (the step must be skipped, never applied). */
function poisoned(poison: number | undefined): RlLoopHooks {
  return {
    afterRollout: (step, trajs) => {
      syntheticReward(step, trajs);
      if (step === poison) for (const t of trajs) for (const u of t.turns) u.logprobs.fill(NaN);
    },
  };
}

/** Stop (checkpoint, status 'interrupted') after `n` RL steps of this call, through the production stop request. */
function stopAfter(n: number): Pick<RunnerOptions, 'onProgress' | 'shouldStop'> {
  let steps = 0;
  return { onProgress: (ev) => void (ev.type === 'step' && steps++), shouldStop: () => steps >= n };
}

/**
 * Workers of a test env worker that can die on request: after the 'before' evaluation (the first
 * RL step's rollout comes next), job number `at` (1-based, counted from there) kills its worker
 * once, before doing its work; the pool must retry it on a fresh worker.
 */
function crashingEnv(at: number): { seams: RunSeams; onProgress: NonNullable<RunnerOptions['onProgress']> } {
  let armed = false;
  let jobs = 0;
  const env = (spec: ExperimentSpec, tok: Tokenizer) => {
    const init = initTokenizer(tok);
    const pool = new WorkerPool<CrashEnvApi>({
      size: spec.rollout.workers,
      watchdogMs: spec.rollout.watchdogMs,
      create: () => new Worker(new URL('./workers/crash_env_worker.ts', import.meta.url), { type: 'module' }),
    });
    return {
      run: <R>(job: (api: EnvApi) => Promise<R>): Promise<R> => {
        const n = armed ? ++jobs : 0;
        let crashed = false;
        return pool.run(async (api) => {
          await init(api);
          if (n === at && !crashed) {
            crashed = true;
            await api.crash();
          }
          return job(api as unknown as EnvApi);
        });
      },
      retries: () => pool.stats.retries,
      terminate: () => pool.terminate(),
    };
  };
  return { seams: { env }, onProgress: (ev) => void (ev.type === 'eval' && ev.when === 'before' && (armed = true)) };
}

const strip = (steps: ExperimentOutput['curves'][number]['steps']) =>
  steps.map(({ tokensPerSec: _a, rolloutMs: _b, updateMs: _c, ...rest }) => rest);
/** The resume tests' validation split (3 tasks at steps 0, 3 and the last) and its curve without wall-clock times. */
const RESUME_VALIDATION = { tasks: 3, every: 3 };
const stripValidation = (c: ExperimentOutput['curves'][number] | undefined) => (c?.validation ?? []).map(({ ms: _ms, ...p }) => p);

/** Every stage once: eval before, 2 RL steps with a worker killed mid-episode, eval after, checkpoints. */
export async function tinyEndToEnd(algorithm: 'grpo' | 'ppo' = 'grpo', crashAtJob?: number, backend: Backend = 'webgpu') {
  const db = `hlab-e2e-${algorithm}-${backend}-${Math.random().toString(36).slice(2)}`;
  const crash = crashAtJob !== undefined ? crashingEnv(crashAtJob) : null;
  // Real rewards: the tiny policy rarely passes, so every group would have zero variance and the
  // default filter (spec.rl.dropZeroVarianceGroups) would skip the update this test exercises.
  const out = await runJson(
    tinySpec({ algorithm, dropZeroVarianceGroups: false, backend }),
    { dbName: db, runId: 'e2e', ...(crash ? { onProgress: crash.onProgress } : {}) },
    crash?.seams,
  );
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
  const out = await runJson(
    tinySpec({ steps: 2 * half, backend, validation: RESUME_VALIDATION }),
    { dbName: db, runId: 'resume', ...stopAfter(half), inProcessEnv: true },
    { ...noEval, loop: { afterRollout: syntheticReward } },
  );
  return {
    status: out.status,
    steps: out.curves[0]?.steps.length ?? 0,
    validationSteps: stripValidation(out.curves[0]).map((p) => p.step),
  };
}

/** Part 2 (after a page reload): resume from IndexedDB and finish. */
export async function resumePart2(db: string, half: number, backend: Backend = 'webgpu') {
  const out = await runJson(
    tinySpec({ steps: 2 * half, backend, validation: RESUME_VALIDATION }),
    { dbName: db, runId: 'resume', resume: true, inProcessEnv: true },
    { ...noEval, loop: { afterRollout: syntheticReward } },
  );
  return {
    status: out.status,
    digest: out.paramDigests[0],
    steps: strip(out.curves[0].steps),
    engine: out.engine.kind,
    segments: out.segments,
    validation: stripValidation(out.curves[0]),
  };
}

/** The uninterrupted reference. */
export async function straight(db: string, steps: number, backend: Backend = 'webgpu') {
  const out = await runJson(
    tinySpec({ steps, backend, validation: RESUME_VALIDATION }),
    { dbName: db, runId: 'straight', inProcessEnv: true },
    { ...noEval, loop: { afterRollout: syntheticReward } },
  );
  return {
    status: out.status,
    digest: out.paramDigests[0],
    steps: strip(out.curves[0].steps),
    engine: out.engine.kind,
    validation: stripValidation(out.curves[0]),
  };
}

/** PPO (value head, GAE) and the non-finite guard: `steps` steps, step `poison` gets NaN log-probs. */
export async function ppoAndPoison(steps: number, poison?: number, backend: Backend = 'webgpu') {
  const db = `hlab-ppo-${backend}-${Math.random().toString(36).slice(2)}`;
  const out = await runJson(
    tinySpec({ steps, algorithm: 'ppo', backend }),
    { dbName: db, runId: 'ppo', inProcessEnv: true },
    { ...noEval, loop: poisoned(poison) },
  );
  // Recorded trajectories: per-token advantages (one per action token) with their count of action tokens.
  const traj = out.trajectories.map((t) => ({
    step: t.step,
    advantages: Array.isArray(t.advantage) ? t.advantage.length : -1,
    actionTokens: t.turns.reduce((a, u) => a + u.actionIds.length, 0),
    finite: Array.isArray(t.advantage) && t.advantage.every((x) => Number.isFinite(x)),
    nonzero: Array.isArray(t.advantage) && t.advantage.some((x) => x !== 0),
  }));
  return {
    status: out.status,
    digest: out.paramDigests[0],
    steps: strip(out.curves[0].steps),
    skipped: out.results.runs[0].skippedOptimizerSteps,
    applied: out.results.runs[0].optimizerSteps,
    withoutUpdate: out.results.runs[0].rlStepsWithoutUpdate,
    rlSteps: out.results.runs[0].rlSteps,
    traj,
  };
}

/**
 * A stop requested during the last RL step: the run stops before the final evaluation
 * (status 'interrupted', no result yet); resuming runs only that evaluation.
 */
export async function stopAtLastStep(steps: number) {
  const db = `hlab-laststop-${Math.random().toString(36).slice(2)}`;
  const spec = {
    ...tinySpec({ steps }),
    evaluation: { testTasks: 1, samples: 1, inSpace: { mode: 'stratified', perDistance: 1, seed: 0 }, blackbox: [] },
  };
  const o = { dbName: db, runId: 'laststop', inProcessEnv: true };
  const seams = { loop: { afterRollout: syntheticReward } };
  // The finished 'before' evaluation is an event too: `hlab run` keeps it in results.md when the
  // run is interrupted before its result exists.
  const evals: Array<{ when: string; runIndex: number; base: number }> = [];
  const stop = stopAfter(steps);
  const onProgress = (ev: RunEvent) => {
    stop.onProgress?.(ev);
    if (ev.type === 'eval') evals.push({ when: ev.when, runIndex: ev.runIndex, base: ev.passAt1.base });
  };
  const a = await runJson(spec, { ...o, ...stop, onProgress }, seams);
  const b = await runJson(spec, { ...o, resume: true }, seams);
  return {
    evals,
    a: { status: a.status, runs: a.results.runs.length, steps: a.curves[0]?.steps.length ?? 0 },
    b: {
      status: b.status,
      runs: b.results.runs.length,
      steps: b.curves[0]?.steps.length ?? 0,
      stepsApplied: b.results.runs[0]?.optimizerSteps ?? -1,
    },
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
    await runJson(spec, { dbName: `hlab-inconsistent-${Math.random().toString(36).slice(2)}`, inProcessEnv: true });
    return { error: 'none', adapterRequests };
  } catch (e) {
    return { error: (e as Error).message, adapterRequests };
  } finally {
    gpu.requestAdapter = orig;
  }
}

/**
 * The shared 'before' batch across methods (runner.ts evaluateBefore, before_reuse.ts): four
 * methods of one seed, no RL steps (the 'after' evaluations reuse 'before'), on the CPU engine.
 * 'single' and 'single ppo' train on the base harness, 'scaling' on two OA harnesses (K = 2),
 * all three from the same scratch init of 'tiny'; 'single (mini)' starts from another model.
 * Episodes each run's 'before' evaluation ran are counted through the evalProgress events.
 */
export async function beforeReuse(db: string) {
  const spec = {
    ...tinySpec({ backend: 'wasm' }),
    methods: [
      { name: 'single', harnesses: 'single', K: 1, algorithm: 'grpo' },
      { name: 'scaling', harnesses: 'scaling', K: 2, algorithm: 'grpo' },
      { name: 'single ppo', harnesses: 'single', K: 1, algorithm: 'ppo' },
      { name: 'single (mini)', harnesses: 'single', K: 1, algorithm: 'grpo', modelPreset: 'mini' },
      { name: 'scaling ppo', harnesses: 'scaling', K: 2, algorithm: 'ppo' },
    ],
  };
  const evaluated: Record<string, number> = {};
  const logs: string[] = [];
  const out = await runJson(spec, {
    dbName: db,
    runId: 'reuse',
    steps: 0,
    inProcessEnv: true,
    onProgress: (ev) => {
      if (ev.type === 'evalProgress')
        evaluated[`${ev.runIndex}/${ev.when}`] = Math.max(evaluated[`${ev.runIndex}/${ev.when}`] ?? 0, ev.total);
      if (ev.type === 'log' && ev.message.startsWith('before:')) logs.push(ev.message);
    },
  });
  return {
    status: out.status,
    evaluated,
    logs,
    runs: out.results.runs.map((r) => ({
      method: r.method,
      beforeReusedFrom: r.beforeReusedFrom ?? null,
      beforeTrainReusedFrom: r.beforeTrainReusedFrom ?? null,
      before: r.before,
      behaviour: r.behaviour.before,
      cells: r.episodes?.before ?? null,
    })),
  };
}

/**
 * The shared 'before' batch across a resume: two single-harness methods ('single', 'single
 * ppo'; one RL step each, CPU engine), stopped after `stopAfterSteps` RL steps of the first
 * call, then resumed. Returns each call's episodes per 'before' evaluation and the runs' provenance.
 */
export async function beforeReuseResume(db: string, stopAfterSteps: number) {
  const spec = {
    ...tinySpec({ backend: 'wasm', steps: 1 }),
    methods: [
      { name: 'single', harnesses: 'single', K: 1, algorithm: 'grpo' },
      { name: 'single ppo', harnesses: 'single', K: 1, algorithm: 'ppo' },
    ],
  };
  const call = async (o: RunnerOptions) => {
    const evaluated: Record<string, number> = {};
    const restored: number[] = [];
    const onProgress = (ev: RunEvent) => {
      o.onProgress?.(ev);
      if (ev.type === 'evalProgress' && ev.when === 'before') evaluated[ev.runIndex] = Math.max(evaluated[ev.runIndex] ?? 0, ev.total);
      if (ev.type === 'eval' && ev.when === 'before' && ev.restored) restored.push(ev.runIndex);
    };
    const out = await runJson(
      spec,
      { ...o, dbName: db, runId: 'reuse-resume', inProcessEnv: true, onProgress },
      { loop: { afterRollout: syntheticReward } },
    );
    return { status: out.status, evaluated, restored, reusedFrom: out.results.runs.map((r) => r.beforeReusedFrom ?? null) };
  };
  const a = await call(stopAfter(stopAfterSteps));
  const b = await call({ resume: true });
  return { a, b };
}

/**
 * The experiment runner (docs/ARCHITECTURE.md "Data flow", "Experiments, evaluation and results"), page-side: for every (seed, method) run —
 * evaluate the starting checkpoint, the RL loop (rl_loop.ts: schedule → rollout → advantages +
 * update → record → checkpoint), evaluate again — and collect `ExperimentResults`. This module
 * keeps what surrounds the loop: resume decoding (run_checkpoint.ts), the choice of starting
 * parameters, the engine stack and environments, the evaluations and the results.
 * The CLI (`hlab run`) and the browser tests call `runExperimentInPage` with JSON-safe
 * arguments; the app and tests that supply seams (RunSeams) call `runExperiment` directly.
 *
 * Determinism and resume: every random choice derives from (seed, step) — task draws
 * (plan.ts stepTasks), sampler seeds (Rng.derive(seed, 'rollout', step)), minibatch shuffles —
 * so the only mutable state is parameters, AdamW moments and step counter, the round-robin
 * schedule, the metric history and finished results. All of it is in each checkpoint, so a
 * run resumed from step s continues exactly as an uninterrupted run would on the same adapter.
 * ("RNG states" are therefore the seeds; the checkpoint stores them.)
 *
 * Progress: console lines `[run] {json}` (type 'progress' | 'log' | 'warn'); the CLI parses them.
 * The app (src/app/train_worker.ts) passes `onProgress` instead and gets typed `RunEvent`s
 * (run_events.ts) — the same progress/log/warn plus every step's metrics, evaluations,
 * checkpoints and, on resume, the history so far. Console lines are written either way.
 * Stop: setting `globalThis.__hlabRunStop = true`, or `shouldStop()` returning true, makes the
 * runner save a checkpoint after the current step and return `status: 'interrupted'`.
 * Checkpoint mirror: when the page has
 * `globalThis.hlabCheckpointMirror(base64)` (exposed by the CLI), every saved checkpoint is
 * also exported to it (the CLI keeps it in the output folder, so `--resume` works across
 * browser profiles and dev-server ports).
 */
import { base64ToBytes, bytesToBase64, sha256Hex, stringifyFinite } from '../util/encoding';
import { presetConfig, type ModelConfig } from '../model/config';
import { initParams } from '../model/init';
import { loadTokenizer, type Tokenizer } from '../model/tokenizer';
import { decodeBaseCheckpoint, type BaseCheckpoint } from '../pretrain/checkpoint';
import { checkpointBudget, checkRunBudget, runBudget } from '../pretrain/budget';
import { rlLossConfig } from '../rl/config';
import { inProcessEnv, type EnvBackend } from '../rollout/engine';
import type { RlTrainerOptions } from '../rl/trainer';
import { envWorkerPool } from '../rollout/env_pool';
import { CheckpointStore } from '../storage/checkpoint_store';
import type { JsonValue } from '../storage/serialize';
import { assetFetch, baseCheckpointUrl } from '../util/asset_fetch';
import { Rng } from '../util/rng';
import { checkSpecOpenings } from './openings';
import { mixUnion, NO_MIX, pretrainMixOf } from '../pretrain/mix';
import type { TrajectorySample } from './trajectory_sample';
import { evaluate, type EvalResult, type EvalSets } from './evaluate';
import {
  cellKey,
  checkSpecConsistency,
  inSpaceEvalSet,
  makeSchedule,
  mixOverlapWarnings,
  taskAssignments,
  testTasks,
  trainingHarnesses,
  trainPool,
  TRAIN_POOL_PER_SUITE,
  withoutCells,
} from './plan';
import { validationPlan } from './validation';
import { rlLoop, type RlLoopHooks } from './rl_loop';
import { makeEmit, type Emit, type RunCurves, type RunEvent, type StepRecord } from './run_events';
import { decodeRunCheckpoint, encodeRunCheckpoint, type RunSegment, type RunState, type RunTensors } from './run_checkpoint';
import type { ExperimentResults, RunResult } from './results';
import { parseSpec, type ExperimentSpec, type MethodSpec } from './spec';
import { chooseBackend, createStack, destroyBackend, type BackendChoice } from './backend';

export type { RunCurves, RunEvent, StepRecord } from './run_events';
export { CKPT_STRIDE, checkpointPosition } from './run_checkpoint';
export { TRAJECTORIES_PER_STEP } from './rl_loop';

export interface RunnerOptions {
  /**
   * Called with every RunEvent, synchronously from the training loop (keep it cheap: post it
   * somewhere). An exception it throws is logged and ignored: a display bug never stops a run.
   */
  onProgress?: (ev: RunEvent) => void;
  /** Polled before each RL step: true = checkpoint after the current step and return 'interrupted'. */
  shouldStop?: () => boolean;
  /** Override spec.rl.steps (CLI --steps). */
  steps?: number;
  /** Save a checkpoint every this many RL steps (default 1; the last step and an interruption always save). */
  checkpointEvery?: number;
  /** IndexedDB run id (default 'run-<spec.name>'); tests isolate by it. */
  runId?: string;
  /** IndexedDB database name (tests isolate by it). */
  dbName?: string;
  /** Continue from the run's latest good checkpoint when there is one. */
  resume?: boolean;
  /** An exported checkpoint (base64) to import before resuming (the CLI's mirror file). */
  importBase64?: string;
  /** Override spec.backend (CLI --backend). */
  backend?: BackendChoice;
  /** Run environments in the page instead of Web Workers (the app offline; tests). */
  inProcessEnv?: boolean;
  /** Skip the before/after evaluations (tests of the training loop only). */
  skipEval?: boolean;
  /** An explicit base checkpoint file (base64), used instead of public/base-<preset>.ckpt (CLI --base). */
  baseCheckpointBase64?: string;
  /** Train-task pool per suite (default spec.rl.trainTasks, else TRAIN_POOL_PER_SUITE). */
  trainPoolPerSuite?: number;
  /**
   * (task, harness) cells to leave out of training and evaluation: those the expert cannot solve
   * under the spec's budgets (src/experiment/feasibility.ts `excludedCells`; the CLI computes them).
   */
  excludeCells?: ReadonlyArray<{ taskId: string; harnessId: string }>;
}

/**
 * Seams only tests supply (the CLI and the app never do): fault injection and reward transforms
 * around the production loop, so no production option carries a test hook.
 */
export interface RunSeams {
  /** The run's environment backend instead of the worker pool (or the in-process one); e.g. one whose job n kills its worker. */
  env?: (spec: ExperimentSpec, tok: Tokenizer) => EnvBackend & { terminate(): void };
  /** Hooks of the RL loop (rl_loop.ts RlLoopHooks: after-rollout transforms). */
  loop?: RlLoopHooks;
}

export interface ExperimentOutput {
  /** The engine that ran the policy and why it was chosen (src/experiment/backend.ts). */
  engine: { kind: 'webgpu' | 'wasm'; describe: string; reason: string };
  status: 'done' | 'interrupted';
  results: ExperimentResults;
  curves: RunCurves[];
  warnings: string[];
  /** Where each run's starting parameters came from (base checkpoint, scratch, or the run checkpoint it resumed). */
  starts: string[];
  /**
   * Every call of the runner that worked on this experiment, this one last: engine, start and
   * positions (run_checkpoint.ts RunSegment). Absent in outputs stored before it was recorded.
   */
  segments?: RunSegment[];
  /** Parameters digest per finished or current run (resume tests). */
  paramDigests: string[];
  /**
   * A few rollouts of every RL step (TRAJECTORIES_PER_STEP, seeded from (seed, step)) with their
   * advantages, for the app's Trajectories view; kept in checkpoints, so a resumed run has them all.
   */
  trajectories: TrajectorySample[];
  seconds: number;
}

/** JSON with sorted object keys (the checkpoint store keeps canonical JSON, so key order is not preserved). */
function stableJson(v: unknown): string {
  return JSON.stringify(v, (_k, x) =>
    x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : x,
  );
}

/** SHA-256 hex of the parameters' bytes (resume tests compare them). */
const paramsDigest = (a: Float32Array) => sha256Hex(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));

/** A base checkpoint as loaded for a preset: decoded, or why it cannot be (missing, corrupt). */
type BaseLoad = ({ url: string; ck: BaseCheckpoint } | { url: string; why: string }) & { explicit: boolean };

/**
 * Load the base checkpoint of `preset` (the explicit --base file when given): through the app's
 * asset cache (filled at load; a remembered absence answers 404), so a run started offline asks
 * no network. Never throws: a failure is returned as `why`.
 * `explicit` says whether it was the user's --base file: startingParams throws for an unusable
 * one instead of falling back (only the shipped default may fall back).
 */
async function loadBase(preset: string, explicit?: string): Promise<BaseLoad> {
  const url = explicit ? '(--base file)' : baseCheckpointUrl(preset);
  try {
    const res = explicit ? null : await assetFetch(url);
    // Vite answers a missing file with the app's index.html (SPA fallback), not a 404.
    if (res && (!res.ok || (res.headers.get('content-type') ?? '').includes('text/html')))
      return { url, why: `public/base-${preset}.ckpt not found: no base checkpoint ships yet`, explicit: !!explicit };
    return { url, ck: await decodeBaseCheckpoint(res ? new Uint8Array(await res.arrayBuffer()) : base64ToBytes(explicit!)), explicit: !!explicit };
  } catch (e) {
    return { url, why: (e as Error).message.split('\n')[0], explicit: !!explicit };
  }
}

/**
 * The pretraining mix the in-space set leaves out: the union of the mixes recorded by the base
 * checkpoints the spec's methods start from (none when spec.model.init is not 'base'; a
 * checkpoint that cannot be loaded contributes none, and its run starts from scratch).
 * @throws Error naming the field when a checkpoint's recorded mix is malformed (src/pretrain/mix.ts pretrainMixOf).
 */
function baseMix(spec: ExperimentSpec, loads: ReadonlyMap<string, BaseLoad>): { ids: string[]; label: string } {
  if (spec.model.init !== 'base') return mixUnion([]);
  return mixUnion([...loads].map(([preset, load]) => [preset, 'ck' in load ? pretrainMixOf(load.ck.header.metadata) : NO_MIX] as const));
}

/**
 * The starting parameters: with spec.model.init = 'base' the pretrained base checkpoint (`load`,
 * public/base-<preset>.ckpt or --base), which must exist and match the tokenizer and config;
 * with 'scratch' a seeded random init. A random init never replaces an unusable base.
 * @throws Error naming the checkpoint and the ways out when it is unusable (the CLI refuses such a run before the browser starts)
 */
function startingParams(
  spec: ExperimentSpec,
  cfg: ModelConfig,
  preset: string,
  seed: number,
  tok: Tokenizer,
  warnings: string[],
  emit: Emit,
  load: BaseLoad | undefined,
): { params: Float32Array; source: string } {
  if (spec.model.init === 'base') {
    if (!load) throw new Error(`spec.model.init = 'base' but no base checkpoint was loaded for preset '${preset}'`);
    const url = load.url;
    let why = 'why' in load ? load.why : '';
    if ('ck' in load) {
      const ck = load.ck;
      const c = ck.header.config;
      if (c.vocabSize !== cfg.vocabSize || c.maxT !== cfg.maxT || c.C !== cfg.C || c.L !== cfg.L || c.NH !== cfg.NH)
        why = `its config ${JSON.stringify(c)} does not match preset '${preset}' ${JSON.stringify(cfg)}`;
      else if (ck.header.tokenizer.name !== tok.name) why = `it was trained with tokenizer '${ck.header.tokenizer.name}', not '${tok.name}'`;
      else {
        // Same cut for rollouts as for the rows the base learned on (throws on a mismatch unless the spec allows it).
        const note = checkRunBudget(checkpointBudget(c.maxT, ck.header.metadata), runBudget(cfg.maxT, spec.rollout), spec.rollout.allowBudgetMismatch === true);
        if (note && !warnings.includes(note)) {
          warnings.push(note);
          emit({ type: 'warn', message: note });
        }
        return { params: ck.params, source: `base checkpoint ${url} (digest ${ck.header.digest.slice(0, 12)})` };
      }
    }
    // Never replaced by a random init: only model.init 'scratch' asks for one (the CLI verifies the file first; this guards the app and other callers).
    throw new Error(
      `${load.explicit ? '--base file' : `spec.model.init = 'base' but the base checkpoint ${url}`} is unusable (${why}): build it with \`npm run -s hlab -- pretrain --preset ${preset} --out public/base-${preset}.ckpt\`, pass --base FILE, or set model.init to 'scratch'`,
    );
  }
  return { params: initParams(cfg, Rng.derive(seed, 'init').int(2 ** 31)), source: 'scratch (seeded random init)' };
}

function localEnv(tok: Tokenizer): Promise<EnvBackend & { terminate(): void }> {
  return import('../rollout/env').then(({ localEnvApi }) => ({ ...inProcessEnv(localEnvApi(tok)), terminate: () => {} }));
}

/** Largest row count per forward such that the (B, maxT, V) logits stay well inside a 128 MiB binding. */
export function maxRows(cfg: ModelConfig): number {
  return Math.max(1, Math.min(64, Math.floor((96 << 20) / (cfg.maxT * cfg.vocabSize * 4))));
}

/**
 * The RL trainer's options for a run of `algorithm` under the spec (GRPO for anything but PPO:
 * an 'sft' or harness-free method never trains, its trainer only holds the parameters).
 */
export function trainerOptions(spec: ExperimentSpec, algorithm: MethodSpec['algorithm'], padId: number, seed: number): RlTrainerOptions {
  const cfg = rlLossConfig({
    algorithm: algorithm === 'ppo' ? 'ppo' : 'grpo',
    clipLow: spec.rl.clipLow,
    clipHigh: spec.rl.clipHigh,
    dualClip: spec.rl.dualClip,
    aggregation: spec.rl.aggregation,
    klCoef: spec.rl.klCoef,
    klEstimator: spec.rl.klEstimator,
    entCoef: spec.rl.entCoef,
    vfCoef: spec.rl.vfCoef,
    vfClip: spec.rl.vfClip,
    gamma: spec.rl.gamma,
    lambda: spec.rl.lambda,
    stdFloor: spec.rl.stdFloor,
    noStdDivision: spec.rl.noStdDivision,
    // The trainer scores log-probs at the rollouts' sampling temperature.
    temperature: spec.rl.temperature,
    // Dr. GRPO's constant for seq-mean-token-sum-norm: the maximum response length (never the padded T).
    tokenSumNorm: spec.rollout.maxNewTokens,
  });
  return {
    cfg,
    lr: spec.rl.lr,
    weightDecay: spec.rl.weightDecay,
    maxGradNorm: spec.rl.maxGradNorm,
    epochs: spec.rl.epochs,
    minibatches: spec.rl.minibatches,
    padId,
    seed,
    dropZeroVarianceGroups: spec.rl.dropZeroVarianceGroups,
  };
}

/** The warning of a run whose RL steps applied no update (its 'after' evaluation reuses 'before'). */
function noSignalWarning(method: string, seed: number, history: readonly StepRecord[]): string {
  const dropped = history.reduce((a, h) => a + h.droppedGroups, 0);
  const skipped = history.reduce((a, h) => a + h.skippedSteps, 0);
  return (
    `method '${method}', seed ${seed}: no learning signal — 0 optimizer updates applied in ${history.length} RL steps ` +
    `(${dropped} groups dropped because all their rewards were equal${skipped ? `, ${skipped} steps skipped as non-finite` : ''}); ` +
    `the 'after' evaluation is the 'before' one, reused (same parameters and seeds)`
  );
}

/**
 * A finished run's row of the results (results.ts RunResult); NaN where an evaluation did not run.
 * @param seconds the run's time over all call segments
 */
function runResult(method: string, algorithm: RunResult['algorithm'], seed: number, st: RunState, after: EvalResult | null, seconds: number): RunResult {
  const empty = { base: NaN, inSpace: NaN, blackbox: {} };
  const noBeh = { parseErrors: NaN, workflowViolations: NaN, recoveryRate: NaN, stateTrackingErrors: NaN };
  return {
    method,
    algorithm,
    seed,
    // Optimizer steps applied (results.ts: skipped non-finite steps excluded).
    steps: st.history.reduce((a, h) => a + h.optimizerSteps - h.skippedSteps, 0),
    skippedSteps: st.skippedSteps,
    before: st.before?.passAt1 ?? empty,
    after: after?.passAt1 ?? empty,
    trainHarnesses: { before: st.before?.training ?? NaN, after: after?.training ?? NaN },
    behaviour: { before: st.before?.behaviour ?? noBeh, after: after?.behaviour ?? noBeh },
    perHarness: after?.perHarness ?? {},
    seconds,
    ...(st.before?.cells && after?.cells ? { episodes: { before: st.before.cells, after: after.cells } } : {}),
  };
}

/**
 * Run an experiment in the page.
 * @param seams test seams (RunSeams); production callers pass none
 * @throws SpecError for an invalid spec; Error when WebGPU is unavailable or the device is lost.
 */
export async function runExperiment(specJson: unknown, o: RunnerOptions = {}, seams: RunSeams = {}): Promise<ExperimentOutput> {
  const t0 = performance.now();
  const emit = makeEmit(o.onProgress);
  // Cross-field constraints (K, budgets) before any GPU work, as the CLI checks them.
  const spec = checkSpecConsistency(parseSpec(specJson, 'spec'));
  const steps = o.steps ?? spec.rl.steps;
  const every = o.checkpointEvery ?? 1;
  const tok = await loadTokenizer();
  const backend = await chooseBackend(o.backend ?? spec.backend);
  emit({ type: 'log', message: `engine: ${backend.describe} — ${backend.reason}` });
  const warnings: string[] = [];
  const excluded = new Set((o.excludeCells ?? []).map((c) => cellKey(c.taskId, c.harnessId)));
  const store = await CheckpointStore.open(o.dbName ? { dbName: o.dbName } : {});
  const runId = o.runId ?? `run-${spec.name}`;
  // The environments count tokens with the policy's tokenizer (C2, coding-CLI compaction).
  const env = seams.env ? seams.env(spec, tok) : o.inProcessEnv ? await localEnv(tok) : envWorkerPool(spec.rollout.workers, spec.rollout.watchdogMs, tok);
  const machine = `${backend.describe}; ${navigator.hardwareConcurrency} logical cores; ${navigator.userAgent.match(/(HeadlessChrome|Chrome)\/[\d.]+/)?.[0] ?? 'browser'}`;
  // Base checkpoints are loaded once per preset, before the in-space set: it leaves out their pretraining mix.
  const bases = new Map<string, BaseLoad>();
  if (spec.model.init === 'base')
    for (const m of spec.methods) {
      const preset = m.modelPreset ?? spec.model.preset;
      if (!bases.has(preset)) bases.set(preset, await loadBase(preset, o.baseCheckpointBase64));
    }
  const mix = baseMix(spec, bases);
  const inSpace = inSpaceEvalSet(spec, mix.ids, mix.label);
  emit({ type: 'log', message: `in-space set: ${inSpace.description}` });
  for (const w of mixOverlapWarnings(spec, mix.ids)) {
    warnings.push(w);
    emit({ type: 'warn', message: w });
  }
  // Every opening fits the context budget, checked before any rollout (throws naming harness, task, sizes).
  checkSpecOpenings(spec, tok, o.trainPoolPerSuite ?? spec.rl.trainTasks ?? TRAIN_POOL_PER_SUITE);
  const runsPlan: Array<{ seed: number; method: MethodSpec }> = spec.seeds.flatMap((seed) => spec.methods.map((method) => ({ seed, method })));
  const results: RunResult[] = [];
  const curves: RunCurves[] = [];
  const paramDigests: string[] = [];
  const trajectories: TrajectorySample[] = [];
  const starts: string[] = [];
  // Earlier segments (from the checkpoint) and this call's, whose `to` follows every save.
  const segments: RunSegment[] = [];
  const segment: RunSegment = { engine: backend.kind, describe: backend.describe, start: '', from: { runIndex: 0, step: 0 }, to: { runIndex: 0, step: 0 } };
  let resume: { state: RunState; tensors: RunTensors } | null = null;

  if (o.importBase64) await store.importCheckpoint(base64ToBytes(o.importBase64), { overwrite: true });
  if (o.resume) {
    const lg = await store.loadLatestGood(runId);
    for (const s of lg.skipped) emit({ type: 'warn', message: `checkpoint step ${s.step} is unusable (${s.code}): ${s.message}; using the previous good one` });
    if (lg.checkpoint) {
      // Throws RunCheckpointVersionError (naming the version) for a checkpoint this build cannot read.
      const { checkpoint: ck, tensors } = decodeRunCheckpoint(lg.checkpoint.meta, lg.checkpoint.tensors);
      // The engine is not part of the experiment: a checkpoint continues on either (same layout).
      const sameExperiment = (a: ExperimentSpec) => stableJson({ ...a, backend: 'auto' });
      if (sameExperiment(parseSpec(ck.spec, 'checkpoint spec')) !== sameExperiment(spec))
        throw new Error(`--resume: the checkpoint of run '${runId}' was written for a different spec; start without --resume or use the same spec`);
      trajectories.push(...ck.trajectories);
      resume = { state: ck.state, tensors };
      const at = { runIndex: ck.state.runIndex, step: ck.state.step };
      segments.push(
        ...(ck.segments.length
          ? ck.segments
          : [{ engine: 'unrecorded' as const, describe: 'not recorded (an older checkpoint)', start: 'not recorded', from: { runIndex: 0, step: 0 }, to: at }]),
      );
      segment.start = `the run checkpoint at run ${at.runIndex + 1}, step ${at.step}`;
      segment.from = { ...at };
      segment.to = { ...at };
      results.push(...ck.results);
      curves.push(...ck.curves);
      const st = ck.state;
      emit({ type: 'log', message: `resuming run '${runId}' at run ${st.runIndex + 1}/${runsPlan.length}, step ${st.step}/${steps}` });
      // The current run's history rides in its state; finished runs are in `curves`.
      const current =
        st.runIndex < runsPlan.length ? [{ method: runsPlan[st.runIndex].method.name, seed: runsPlan[st.runIndex].seed, steps: st.history, validation: st.validation ?? [] }] : [];
      emit({ type: 'resume', runIndex: st.runIndex, step: st.step, curves: [...ck.curves, ...current] });
    } else emit({ type: 'log', message: `no checkpoint of run '${runId}' found; starting fresh` });
  }
  // Work units of the whole call (an RL step or an evaluation is one), for progress displays.
  const evalUnits = o.skipEval ? 0 : 2;
  const progress = { done: results.length * (steps + evalUnits), total: runsPlan.length * (steps + evalUnits) };
  const stopRequested = () => (globalThis as { __hlabRunStop?: boolean }).__hlabRunStop === true || o.shouldStop?.() === true;
  let status: 'done' | 'interrupted' = 'done';

  try {
    for (let r = results.length; r < runsPlan.length; r++) {
      const { seed, method } = runsPlan[r];
      const rs0 = performance.now();
      const preset = method.modelPreset ?? spec.model.preset;
      const cfg = presetConfig(preset, tok.vocabSize);
      const start = startingParams(spec, cfg, preset, seed, tok, warnings, emit, bases.get(preset));
      starts.push(start.source);
      if (!segment.start) segment.start = start.source;
      emit({ type: 'log', message: `run ${r + 1}/${runsPlan.length}: ${method.name}, seed ${seed}, model ${preset}, start from ${start.source}` });
      const algorithm = method.algorithm;
      const training = method.harnesses === 'none' || algorithm === 'sft' ? [] : trainingHarnesses(spec, method);
      const runSteps = training.length ? steps : 0;
      if (algorithm === 'sft' && steps > 0) {
        const w = `method '${method.name}': algorithm 'sft' is trained by \`hlab pretrain --blackbox\`; hlab run evaluates its starting checkpoint only`;
        warnings.push(w);
        emit({ type: 'warn', message: w });
      }
      const stack = createStack(backend, cfg, start.params, maxRows(cfg), trainerOptions(spec, algorithm, tok.padId, seed));
      const { policy, trainer } = stack;
      // Cells the expert cannot solve under the run's budgets are neither trained nor evaluated.
      const fullPool = trainPool(spec, seed, o.trainPoolPerSuite ?? spec.rl.trainTasks ?? TRAIN_POOL_PER_SUITE);
      const kept = withoutCells(taskAssignments(spec, method, fullPool), excluded);
      const { pool, assignments } = kept;
      if (pool.length === 0) throw new Error(`method '${method.name}', seed ${seed}: every training task is excluded as infeasible`);
      const sets: EvalSets = { testTasks: testTasks(spec, seed), inSpace: inSpace.ids, blackbox: spec.evaluation.blackbox, training: training.length ? training : [], excluded };
      const evalOpts = {
        tok,
        policy,
        env,
        maxTurns: spec.rollout.maxTurns,
        maxNewTokens: spec.rollout.maxNewTokens,
        contextTokens: spec.rollout.contextTokens,
        samples: spec.evaluation.samples,
        temperature: spec.evaluation.temperature,
        seed,
      };
      const runEval = (when: 'before' | 'after') => evaluate(sets, { ...evalOpts, onProgress: (done, total) => emit({ type: 'evalProgress', runIndex: r, when, done, total }) });
      let st: RunState = { runIndex: r, step: 0, before: null, history: [], schedule: {}, skippedSteps: 0, seconds: 0 };
      // A checkpoint inside this run (not the fresh state before its first evaluation): continue it.
      if (resume && resume.state.runIndex === r && (resume.state.step > 0 || resume.state.before !== null)) {
        const rt = resume.tensors;
        st = { ...resume.state, runIndex: r };
        trainer.writeState({ params: rt.params, m: rt.adamM, v: rt.adamV, adamStep: rt.adamStep });
        // Its parameters are the checkpoint's, not the starting point's (the segments say where the run began).
        starts[starts.length - 1] = `the run checkpoint at step ${st.step}`;
        progress.done += (st.before ? 1 : 0) * Math.min(1, evalUnits) + st.step;
      }
      resume = null;
      const schedule = makeSchedule(assignments, { draws: st.schedule });
      emit({ type: 'run', runIndex: r, runs: runsPlan.length, method: method.name, seed, steps: runSteps, start: start.source });
      if (st.before)
        emit({
          type: 'eval',
          runIndex: r,
          method: method.name,
          seed,
          when: 'before',
          passAt1: st.before.passAt1,
          training: st.before.training,
          episodes: st.before.episodes,
          restored: true,
        });
      emit({ type: 'progress', ...progress, phase: `run ${r + 1}/${runsPlan.length} (${method.name}, seed ${seed})` });

      const save = async () => {
        const s = await trainer.readState();
        // seconds: this run's time including the segment in progress, so a resumed run's duration counts every segment.
        const state = { ...st, seconds: st.runIndex === r ? st.seconds + (performance.now() - rs0) / 1000 : st.seconds };
        segment.to = { runIndex: st.runIndex, step: st.step };
        const res = await store.save(
          encodeRunCheckpoint(
            runId,
            {
              spec: specJson as JsonValue,
              run: { runIndex: r, method: method.name, seed },
              state,
              schedule: schedule.state(),
              results,
              curves,
              trajectories,
              segments: [...segments, segment],
            },
            { params: s.params, adamM: s.m, adamV: s.v, adamStep: s.adamStep },
            Date.now(),
          ),
          { retention: { keepLast: 2 } },
        );
        emit({ type: 'checkpoint', runId, step: res.step, runIndex: st.runIndex, rlStep: st.step, totalBytes: res.totalBytes });
        const mirror = (globalThis as { hlabCheckpointMirror?: (b64: string, step: number) => Promise<void> }).hlabCheckpointMirror;
        if (mirror) await mirror(bytesToBase64(await store.exportCheckpointBytes(runId, res.step)), res.step);
      };

      if (!o.skipEval && !st.before) {
        emit({ type: 'progress', ...progress, phase: `eval before (${method.name}, seed ${seed})` });
        st.before = await runEval('before');
        progress.done++;
        emit({ type: 'eval', runIndex: r, method: method.name, seed, when: 'before', passAt1: st.before.passAt1, training: st.before.training, episodes: st.before.episodes });
        emit({
          type: 'log',
          message: `before: base ${st.before.passAt1.base.toFixed(3)}, in-space ${st.before.passAt1.inSpace.toFixed(3)}, training harnesses ${st.before.training.toFixed(3)} (${st.before.episodes} episodes, ${(st.before.stats.ms / 1000).toFixed(1)} s)`,
        });
        await save();
      }

      const loop = await rlLoop({
        spec,
        method,
        seed,
        runIndex: r,
        runSteps,
        tok,
        policy,
        trainer,
        env,
        pool,
        schedule,
        state: st,
        trajectories,
        checkpointEvery: every,
        progress,
        stopRequested,
        save,
        emit,
        hooks: seams.loop,
        validation: runSteps > 0 ? validationPlan(spec, method, seed, fullPool, excluded) : undefined,
      });
      if (loop.interrupted) status = 'interrupted';
      // A stop asked for during the last RL step: that step's checkpoint is saved; stop before
      // the final evaluation (a resume runs it) instead of ignoring the pause.
      if (status !== 'interrupted' && runSteps > 0 && st.step === runSteps && loop.stepsRun > 0 && stopRequested()) status = 'interrupted';
      if (status === 'interrupted') {
        st.seconds += (performance.now() - rs0) / 1000;
        paramDigests.push(await paramsDigest(await stack.readParams()));
        curves.push({ method: method.name, seed, steps: st.history, validation: st.validation ?? [] });
        stack.destroy();
        break;
      }
      let after: EvalResult | null = null;
      if (!o.skipEval) {
        emit({ type: 'progress', ...progress, phase: `eval after (${method.name}, seed ${seed})` });
        // No update was applied (no RL steps, or all skipped as non-finite): the parameters and
        // the evaluation seeds are those of 'before', so the result is identical; reuse it.
        const unchanged = st.before !== null && st.history.every((h) => h.optimizerSteps === h.skippedSteps);
        after = unchanged && st.before ? st.before : await runEval('after');
        if (unchanged && runSteps > 0) {
          const w = noSignalWarning(method.name, seed, st.history);
          warnings.push(w);
          emit({ type: 'warn', message: w });
        }
        progress.done++;
        emit({ type: 'eval', runIndex: r, method: method.name, seed, when: 'after', passAt1: after.passAt1, training: after.training, episodes: after.episodes });
        emit({
          type: 'log',
          message: `after: base ${after.passAt1.base.toFixed(3)}, in-space ${after.passAt1.inSpace.toFixed(3)}, training harnesses ${after.training.toFixed(3)}`,
        });
      }
      results.push(runResult(method.name, runSteps === 0 ? 'none' : algorithm, seed, st, after, st.seconds + (performance.now() - rs0) / 1000));
      curves.push({ method: method.name, seed, steps: st.history, validation: st.validation ?? [] });
      paramDigests.push(await paramsDigest(await stack.readParams()));
      st.step = runSteps;
      // Close the run: a checkpoint whose results include it (resume skips finished runs).
      st = { ...st, runIndex: r + 1, step: 0, before: null, history: [], schedule: {}, skippedSteps: 0, seconds: 0 };
      await save();
      emit({ type: 'progress', ...progress, phase: `run ${r + 1}/${runsPlan.length} finished (${method.name}, seed ${seed})` });
      stack.destroy();
    }
  } finally {
    env.terminate();
    store.close();
    destroyBackend(backend);
  }
  if (backend.kind === 'webgpu' && backend.gpu.errors.length) throw new Error(`WebGPU errors during the run: ${backend.gpu.errors.join('; ')}`);
  return {
    engine: { kind: backend.kind, describe: backend.describe, reason: backend.reason },
    status,
    results: { resultsVersion: 1, spec: spec.name, evalSet: inSpace.description, evalSetExcluded: inSpace.excluded, machine, runs: results },
    curves,
    warnings,
    starts,
    segments: [...segments, segment],
    paramDigests,
    trajectories,
    seconds: (performance.now() - t0) / 1000,
  };
}

/** JSON-safe entry for the CLI and browser tests (NaN → null in the returned JSON). */
export async function runExperimentInPage(specJson: unknown, o: RunnerOptions = {}): Promise<string> {
  const out = await runExperiment(specJson, o);
  return stringifyFinite(out);
}

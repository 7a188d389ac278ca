/**
 * The experiment runner (docs/ARCHITECTURE.md "Data flow"), page-side: `runExperiment` drives a
 * compiled plan (compile.ts; it derives none of its facts) through one function per phase for
 * every (seed, method) run — resume, start, evaluate before, SFT phase, RL loop (rl_loop.ts),
 * evaluate after, record result — with a checkpoint after each (run_checkpoint.ts).
 *
 * Invariant: every random choice derives from (seed, step) and all mutable state is in each
 * checkpoint, so a run resumed from step s continues exactly as an uninterrupted run would.
 * `shouldStop()` makes it checkpoint after the current step and return 'interrupted'.
 */
import { sha256Hex, sortedJson } from '../util/encoding';
import { maxRows, presetConfig, type PresetName } from '../model/config';
import { loadTokenizer, type Tokenizer } from '../model/tokenizer';
import { inProcessEnv, type EnvHost } from '../rollout/rollout';
import { envWorkerPool } from '../episode/host_pool';
import { CheckpointStore } from '../storage/checkpoint_store';
import type { JsonValue } from '../storage/serialize';
import type { TrajectorySample } from './trajectory_sample';
import { evalSize, evaluate, type BatchLookup, type EvalBatch, type EvalResult, type EvalSets } from './evaluate';
import { SharedBeforeBatches } from './before_reuse';
import { cellKey, makeSchedule } from './plan';
import type { ExperimentPlan, RunPlan } from './compile';
import { runSftPhase, SftReuse } from './sft_phase';
import { rlLoop, type RlLoopHooks } from './rl_loop';
import { makeEmit, type Emit, type RunCurves, type RunEvent } from './run_events';
import {
  decodeRunCheckpoint,
  saveRunCheckpoint,
  type RunCheckpointSink,
  type RunSegment,
  type RunState,
  type RunStore,
  type RunTensors,
} from './run_checkpoint';
import type { ExperimentResults, RunResult } from '../report/results_schema';
import { applied, noSignalWarning, runResult } from './run_result';
import { parseSpec, type ExperimentSpec, type MethodSpec } from './spec';
import { chooseEngine } from '../engine/choose';
import type { BackendChoice, Engine, RlStack } from '../engine/engine_api';
import { loadStartingCheckpoints, startingParams, type CheckpointLoad } from './run_start';

export type { RunCurves, RunEvent, StepRecord } from './run_events';
export { checkpointPosition } from './run_checkpoint';
export interface RunnerOptions {
  /**
   * Called with every RunEvent, synchronously from the training loop (keep it cheap: post it
   * somewhere). An exception it throws is logged and ignored: a display bug never stops a run.
   */
  onProgress?: (ev: RunEvent) => void;
  /** Polled before each RL step: true = checkpoint after the current step and return 'interrupted'. */
  shouldStop?: () => boolean;
  /** Receives every saved checkpoint as an export file (storage/serialize.ts) with its store step; awaited. */
  mirrorCheckpoint?: (file: Uint8Array, step: number) => Promise<void>;
  /** Save a checkpoint every this many RL steps (default 1; the last step and an interruption always save). */
  checkpointEvery?: number;
  /** IndexedDB run id (default 'run-<spec.name>'); tests isolate by it. */
  runId?: string;
  /** IndexedDB database name (tests isolate by it). */
  dbName?: string;
  /** Continue from the run's latest good checkpoint when there is one. */
  resume?: boolean;
  /** An exported checkpoint file to import before resuming (the CLI's mirror file). */
  importCheckpoint?: Uint8Array;
  /** Override spec.backend (CLI --backend). */
  backend?: BackendChoice;
  /** Run environments in the page instead of Web Workers (the app offline; tests). */
  inProcessEnv?: boolean;
  /** An explicit base checkpoint file, used instead of public/base-<preset>.ckpt (CLI --base). */
  baseCheckpoint?: Uint8Array;
  /** The tokenizer the plan was compiled with, when the caller has it loaded (default: the shipped one, loaded here). */
  tokenizer?: Tokenizer;
}

/**
 * Seams only tests supply (the CLI and the app never do): fault injection, reward transforms
 * and observation around the production loop, so no production option carries a test hook.
 */
interface RunSeams {
  /** The run's environment host instead of the worker pool (or the in-process one); e.g. one whose job n kills its worker. */
  env?: (spec: ExperimentSpec, tok: Tokenizer) => EnvHost & { terminate(): void };
  /** Hooks of the RL loop (rl_loop.ts RlLoopHooks: after-rollout transforms). */
  loop?: RlLoopHooks;
  /** Skip the before/after evaluations (tests of the training loop only). */
  skipEval?: boolean;
  /** Called with a run's parameters when it finishes or is interrupted (resume tests compare their digests). */
  onRunParams?: (runIndex: number, params: Float32Array) => void;
  /** The engine instead of the one `backend` chooses (a fake engine in Node). */
  engine?: Engine;
  /** The checkpoint store instead of IndexedDB's. */
  store?: RunStore;
}

export interface ExperimentOutput {
  /** The engine that ran the policy and why it was chosen (src/engine). */
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
  /**
   * A few rollouts of every RL step (TRAJECTORIES_PER_STEP, seeded from (seed, step)) with their
   * advantages, for the app's Trajectories view; kept in checkpoints, so a resumed run has them all.
   */
  trajectories: TrajectorySample[];
  seconds: number;
}

/** SHA-256 hex of parameters' bytes (f32, the model layout). */
const paramsDigest = (a: Float32Array): Promise<string> => sha256Hex(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));

function localEnv(tok: Tokenizer): Promise<EnvHost & { terminate(): void }> {
  return import('../episode/host').then(({ localEnvApi }) => ({ ...inProcessEnv(localEnvApi(tok)), terminate: () => {} }));
}

/** What one call of the runner works with, shared by the phases. */
interface RunContext {
  spec: ExperimentSpec;
  /** The compiled experiment (compile.ts): runs, pools, evaluation sets, trainer options. */
  experiment: ExperimentPlan;
  o: RunnerOptions;
  seams: RunSeams;
  tok: Tokenizer;
  engine: Engine;
  env: EnvHost & { terminate(): void };
  sink: RunCheckpointSink;
  emit: Emit;
  warnings: string[];
  excluded: Set<string>;
  /** Base checkpoints by model preset (run_start.ts loadStartingCheckpoints). */
  bases: Map<string, CheckpointLoad>;
  /** Shared 'before' batches evaluated in this call, for the runs that start where they did. */
  sharedBefore: SharedBeforeBatches;
  sftReuse: SftReuse;
  machine: string;
  /** Progress units per run, in plan order (its RL steps, evaluations and SFT phase). */
  units: number[];
  results: RunResult[];
  curves: RunCurves[];
  trajectories: TrajectorySample[];
  starts: string[];
  /** Earlier segments (from the checkpoint) and this call's, whose `to` follows every save. */
  segments: RunSegment[];
  segment: RunSegment;
  /** Work units of the whole call (an RL step or an evaluation is one), for progress displays. */
  progress: { done: number; total: number };
  evalUnits: number;
  stopRequested: () => boolean;
}

/** One (seed, method) run in progress. */
interface ActiveRun {
  r: number;
  seed: number;
  method: MethodSpec;
  /** RL steps of this run: 0 for a method that does not train. */
  runSteps: number;
  /** What the plan says of this run. */
  plan: RunPlan;
  stack: RlStack;
  /** The plan's train-task pool (infeasible cells left out). */
  pool: string[];
  schedule: ReturnType<typeof makeSchedule>;
  st: RunState;
  startSource: string;
  /** Model preset and starting parameters, and the parameters' SHA-256 (paramsDigest): the reuse keys of the shared 'before' batch (before_reuse.ts) and of the SFT phase (sft_phase.ts). */
  preset: PresetName;
  startParams: Float32Array;
  startDigest: string;
  /** performance.now() when this call started the run. */
  t0: number;
  /** Whether the run continues from a run checkpoint written inside it. */
  resumed: boolean;
  runEval: (when: 'before' | 'after', reuse?: BatchLookup) => Promise<{ result: EvalResult; shared: EvalBatch; own: EvalBatch | null }>;
  save: () => Promise<void>;
}

function warn(ctx: Pick<RunContext, 'warnings' | 'emit'>, w: string): void {
  if (!ctx.warnings.includes(w)) ctx.warnings.push(w);
  ctx.emit({ type: 'warn', message: w });
}

/**
 * Open a call: load tokenizer, engine, environments, base checkpoints and the checkpoint store
 * for the compiled plan.
 */
async function openRun(experiment: ExperimentPlan, o: RunnerOptions, seams: RunSeams): Promise<RunContext> {
  const emit = makeEmit(o.onProgress);
  const { spec } = experiment;
  const tok = o.tokenizer ?? (await loadTokenizer());
  const engine = seams.engine ?? (await chooseEngine(o.backend ?? spec.backend));
  emit({ type: 'log', message: `engine: ${engine.describe} — ${engine.reason}` });
  const warnings: string[] = [];
  const bases = await loadStartingCheckpoints(spec, o.baseCheckpoint);
  // The page reads the bases again: they must be the files the plan was made from.
  for (const load of bases.values()) {
    const planned = experiment.bases.find((b) => b.preset === load.preset);
    if ('ck' in load && planned && planned.digest !== load.ck.header.digest)
      throw new Error(
        `base checkpoint of preset '${load.preset}': the page read digest ${load.ck.header.digest.slice(0, 12)}, the plan was made from ${planned.digest.slice(0, 12)} (${planned.file}); plan again`,
      );
  }
  emit({ type: 'log', message: `in-space set: ${experiment.inSpace.description}` });
  for (const w of experiment.warnings) warn({ warnings, emit }, w);
  // The environments count tokens with the policy's tokenizer (C2, coding-CLI compaction).
  const env = seams.env
    ? seams.env(spec, tok)
    : o.inProcessEnv
      ? await localEnv(tok)
      : envWorkerPool(spec.rollout.workers, spec.rollout.watchdogMs, tok);
  const store = seams.store ?? (await CheckpointStore.open(o.dbName ? { dbName: o.dbName } : {}));
  const evalUnits = seams.skipEval ? 0 : 2;
  const units = experiment.runs.map((p) => p.rlSteps + evalUnits + (p.method.sft ? 1 : 0));
  return {
    spec,
    experiment,
    o,
    seams,
    tok,
    engine,
    env,
    sink: { store, runId: o.runId ?? `run-${spec.name}`, ...(o.mirrorCheckpoint ? { mirror: o.mirrorCheckpoint } : {}) },
    emit,
    warnings,
    excluded: new Set(experiment.infeasible.map((c) => cellKey(c.taskId, c.harnessId))),
    bases,
    sharedBefore: new SharedBeforeBatches(),
    sftReuse: new SftReuse(),
    machine: `${engine.describe}; ${navigator.hardwareConcurrency} logical cores; ${navigator.userAgent.match(/(HeadlessChrome|Chrome)\/[\d.]+/)?.[0] ?? 'browser'}`,
    units,
    results: [],
    curves: [],
    trajectories: [],
    starts: [],
    segments: [],
    segment: { engine: engine.kind, describe: engine.describe, start: '', from: { runIndex: 0, step: 0 }, to: { runIndex: 0, step: 0 } },
    progress: { done: 0, total: units.reduce((a, u) => a + u, 0) },
    evalUnits,
    stopRequested: () => o.shouldStop?.() === true,
  };
}

/**
 * ── resume ── The run checkpoint to continue from (o.resume), after importing o.importCheckpoint:
 * finished runs' results, curves, trajectories and segments go into `ctx`; the state of the run
 * in progress is returned. Null when not resuming or no checkpoint exists.
 * @throws RunCheckpointVersionError for a checkpoint this build cannot read; Error when it was written for another spec
 */
async function resumePoint(ctx: RunContext): Promise<{ state: RunState; tensors: RunTensors } | null> {
  const { o, sink, emit } = ctx;
  const runs = ctx.experiment.runs;
  if (o.importCheckpoint) await sink.store.importCheckpoint(o.importCheckpoint, { overwrite: true });
  if (!o.resume) return null;
  const lg = await sink.store.loadLatestGood(sink.runId);
  for (const s of lg.skipped)
    emit({ type: 'warn', message: `checkpoint step ${s.step} is unusable (${s.code}): ${s.message}; using the previous good one` });
  if (!lg.checkpoint) {
    emit({ type: 'log', message: `no checkpoint of run '${sink.runId}' found; starting fresh` });
    return null;
  }
  const { checkpoint: ck, tensors } = decodeRunCheckpoint(lg.checkpoint.meta, lg.checkpoint.tensors);
  // The engine is not part of the experiment: a checkpoint continues on either (same layout).
  const sameExperiment = (a: ExperimentSpec) => sortedJson({ ...a, backend: 'auto' });
  if (sameExperiment(parseSpec(ck.spec, 'checkpoint spec')) !== sameExperiment(ctx.spec))
    throw new Error(
      `--resume: the checkpoint of run '${sink.runId}' was written for a different spec; start without --resume or use the same spec`,
    );
  const st = ck.state;
  const at = { runIndex: st.runIndex, step: st.step };
  ctx.trajectories.push(...ck.trajectories);
  ctx.segments.push(
    ...(ck.segments.length
      ? ck.segments
      : [
          {
            engine: 'unrecorded' as const,
            describe: 'not recorded (an older checkpoint)',
            start: 'not recorded',
            from: { runIndex: 0, step: 0 },
            to: at,
          },
        ]),
  );
  Object.assign(ctx.segment, { start: `the run checkpoint at run ${at.runIndex + 1}, step ${at.step}`, from: { ...at }, to: { ...at } });
  ctx.results.push(...ck.results);
  ctx.curves.push(...ck.curves);
  ctx.progress.done = ctx.units.slice(0, ctx.results.length).reduce((a, u) => a + u, 0);
  emit({
    type: 'log',
    message: `resuming run '${sink.runId}' at run ${st.runIndex + 1}/${runs.length}, step ${st.step}/${ctx.experiment.steps}`,
  });
  // The current run's history rides in its state; finished runs are in `curves`.
  const current =
    st.runIndex < runs.length
      ? [{ method: runs[st.runIndex].method.name, seed: runs[st.runIndex].seed, steps: st.history, validation: st.validation ?? [] }]
      : [];
  emit({ type: 'resume', runIndex: st.runIndex, step: st.step, curves: [...ck.curves, ...current], sftDone: !!st.sft });
  return { state: st, tensors };
}

/**
 * ── start ── Run `r`: starting parameters, engine stack, training pool and schedule; from the
 * resumed state when it belongs to this run.
 * @throws Error for an unusable starting checkpoint (run_start.ts) or a run whose every training task is excluded
 */
async function startRun(ctx: RunContext, r: number, resume: { state: RunState; tensors: RunTensors } | null): Promise<ActiveRun> {
  const { spec, tok, emit } = ctx;
  const runs = ctx.experiment.runs;
  const plan = runs[r];
  const { seed, method, preset } = plan;
  const cfg = presetConfig(preset, tok.vocabSize);
  const start = startingParams(spec, method, cfg, seed, tok, ctx.bases);
  ctx.starts.push(start.source);
  if (!ctx.segment.start) ctx.segment.start = start.source;
  emit({ type: 'log', message: `run ${r + 1}/${runs.length}: ${method.name}, seed ${seed}, model ${preset}, start from ${start.source}` });
  const stack = ctx.engine.createRlStack(cfg, start.params, maxRows(cfg), plan.trainer);
  let st: RunState = { runIndex: r, step: 0, before: null, history: [], schedule: {}, skippedSteps: 0, seconds: 0 };
  // A checkpoint inside this run (not the fresh state before its first evaluation): continue it.
  const resumed = resume !== null && resume.state.runIndex === r && (resume.state.step > 0 || resume.state.before !== null);
  if (resume && resumed) {
    const rt = resume.tensors;
    st = { ...resume.state, runIndex: r };
    stack.trainer.writeState({ params: rt.params, m: rt.adamM, v: rt.adamV, adamStep: rt.adamStep });
    // Its parameters are the checkpoint's, not the starting point's (the segments say where the run began).
    ctx.starts[ctx.starts.length - 1] = `the run checkpoint at step ${st.step}`;
    ctx.progress.done += (st.before ? 1 : 0) * Math.min(1, ctx.evalUnits) + (st.sft ? 1 : 0) + st.step;
  }
  // Cells the expert cannot solve under the run's budgets are neither trained nor evaluated.
  const { cellTasks, ...sets0 } = plan.evaluation;
  const sets: EvalSets = { ...sets0, cellTasks: cellTasks ? new Map(Object.entries(cellTasks)) : undefined, excluded: ctx.excluded };
  const evalOpts = {
    tok,
    policy: stack.policy,
    env: ctx.env,
    maxTurns: spec.rollout.maxTurns,
    maxNewTokens: spec.rollout.maxNewTokens,
    contextTokens: spec.rollout.contextTokens,
    samples: spec.evaluation.samples,
    temperature: spec.evaluation.temperature,
    seed,
  };
  const run: ActiveRun = {
    r,
    seed,
    method,
    runSteps: plan.rlSteps,
    plan,
    stack,
    pool: plan.pool,
    schedule: makeSchedule(plan.assignments, { draws: st.schedule }),
    st,
    startSource: start.source,
    preset,
    startParams: start.params,
    startDigest: await paramsDigest(start.params),
    t0: performance.now(),
    resumed,
    runEval: (when, reuse) =>
      evaluate(sets, { ...evalOpts, onProgress: (done, total) => emit({ type: 'evalProgress', runIndex: r, when, done, total }) }, reuse),
    save: () => saveCheckpoint(ctx, run),
  };
  emit({
    type: 'run',
    runIndex: r,
    runs: runs.length,
    method: method.name,
    seed,
    steps: run.runSteps,
    start: start.source,
    evalSize: evalSize(sets, spec.evaluation.samples),
  });
  if (st.before) emit({ type: 'eval', runIndex: r, method: method.name, seed, when: 'before', ...evalSummary(st.before), restored: true });
  emit({ type: 'progress', ...ctx.progress, phase: `run ${r + 1}/${runs.length} (${method.name}, seed ${seed})` });
  return run;
}

/** What an 'eval' event carries of an evaluation. */
const evalSummary = (e: EvalResult) => ({ passAt1: e.passAt1, training: e.training, episodes: e.episodes });

/** Save the run's checkpoint (run_checkpoint.ts) and report it. */
async function saveCheckpoint(ctx: RunContext, run: ActiveRun): Promise<void> {
  const s = await run.stack.trainer.readState();
  const st = run.st;
  // seconds: this run's time including the segment in progress, so a resumed run's duration counts every segment.
  const state = { ...st, seconds: st.runIndex === run.r ? st.seconds + (performance.now() - run.t0) / 1000 : st.seconds };
  ctx.segment.to = { runIndex: st.runIndex, step: st.step };
  const res = await saveRunCheckpoint(
    ctx.sink,
    {
      spec: ctx.experiment.specJson as JsonValue,
      run: { runIndex: run.r, method: run.method.name, seed: run.seed },
      state,
      schedule: run.schedule.state(),
      results: ctx.results,
      curves: ctx.curves,
      trajectories: ctx.trajectories,
      segments: [...ctx.segments, ctx.segment],
    },
    { params: s.params, adamM: s.m, adamV: s.v, adamStep: s.adamStep },
    Date.now(),
  );
  ctx.emit({
    type: 'checkpoint',
    runId: ctx.sink.runId,
    step: res.step,
    runIndex: st.runIndex,
    rlStep: st.step,
    totalBytes: res.totalBytes,
  });
}

/**
 * ── evaluate ── The starting parameters, once per run (a resumed run has it), then a checkpoint.
 * A batch of an earlier run of this call with the same starting parameters and batch key — the
 * shared batch (base, in-space, black-box), or the training harnesses' batch of a method with
 * the same ones — is reused, not run again (before_reuse.ts).
 */
async function evaluateBefore(ctx: RunContext, run: ActiveRun): Promise<void> {
  if (ctx.seams.skipEval || run.st.before) return;
  const { method, seed } = run;
  ctx.emit({ type: 'progress', ...ctx.progress, phase: `eval before (${method.name}, seed ${seed})` });
  const { lookup, provenance } = ctx.sharedBefore.reuseFor(run.startDigest, run.preset, { method: method.name, seed });
  const { result: b, shared, own } = await run.runEval('before', lookup);
  const sharedFrom = provenance(shared);
  const ownFrom = own && provenance(own);
  if (sharedFrom) b.reusedFrom = sharedFrom;
  if (ownFrom) b.trainReusedFrom = ownFrom;
  run.st.before = b;
  ctx.progress.done++;
  ctx.emit({ type: 'eval', runIndex: run.r, method: method.name, seed, when: 'before', ...evalSummary(b) });
  // b.stats count the episodes this evaluation rolled out; a reused batch is not among them.
  const from = [
    sharedFrom &&
      `${sharedFrom.episodes} of base, in-space and black-box reused from method '${sharedFrom.method}', seed ${sharedFrom.seed}`,
    ownFrom && `${ownFrom.episodes} of the training harnesses reused from method '${ownFrom.method}', seed ${ownFrom.seed}`,
  ]
    .filter(Boolean)
    .map((x) => `; ${x}`)
    .join('');
  ctx.emit({
    type: 'log',
    message: `before: base ${b.passAt1.base.toFixed(3)}, in-space ${b.passAt1.inSpace.toFixed(3)}, training harnesses ${b.training.toFixed(3)} (${b.stats.episodes} episodes evaluated now, ${(b.stats.ms / 1000).toFixed(1)} s${from})`,
  });
  await run.save();
}

/** ── SFT phase ── sft_phase.ts after 'before', before RL; then a checkpoint whose state records it (a resume skips it), one progress unit. */
async function sftPhase(ctx: RunContext, run: ActiveRun): Promise<void> {
  if (!run.plan.sft || run.st.sft) return;
  // A run without RL steps gets its validation point (step 0: after SFT, before RL) here.
  const { record, point } = await runSftPhase(ctx, run, run.runSteps === 0 ? run.plan.validation : undefined);
  run.st.sft = record;
  if (point) run.st.validation = [point];
  await run.save();
  ctx.progress.done++;
  ctx.emit({ type: 'progress', ...ctx.progress, phase: `SFT phase done (${run.method.name}, seed ${run.seed})` });
}

/** ── RL loop ── rl_loop.ts over the run's steps. @returns whether the run stopped on request */
async function train(ctx: RunContext, run: ActiveRun): Promise<boolean> {
  const { spec } = ctx;
  const { method, seed, runSteps, st } = run;
  const loop = await rlLoop({
    spec,
    method,
    seed,
    runIndex: run.r,
    runSteps,
    tok: ctx.tok,
    policy: run.stack.policy,
    trainer: run.stack.trainer,
    env: ctx.env,
    pool: run.pool,
    schedule: run.schedule,
    state: st,
    trajectories: ctx.trajectories,
    checkpointEvery: ctx.o.checkpointEvery ?? 1,
    progress: ctx.progress,
    stopRequested: ctx.stopRequested,
    save: run.save,
    emit: ctx.emit,
    hooks: ctx.seams.loop,
    validation: runSteps > 0 ? run.plan.validation : undefined,
  });
  // A stop asked for during the last RL step: that step's checkpoint is saved; stop before
  // the final evaluation (a resume runs it) instead of ignoring the pause.
  return loop.interrupted || (runSteps > 0 && st.step === runSteps && loop.stepsRun > 0 && ctx.stopRequested());
}

/**
 * ── evaluate ── The trained parameters. When no update was applied (no RL steps, or all
 * skipped), parameters and evaluation seeds are those of 'before': its result is reused.
 * @returns null when evaluations are skipped
 */
async function evaluateAfter(ctx: RunContext, run: ActiveRun): Promise<EvalResult | null> {
  if (ctx.seams.skipEval) return null;
  const { method, seed, st } = run;
  ctx.emit({ type: 'progress', ...ctx.progress, phase: `eval after (${method.name}, seed ${seed})` });
  const unchanged = st.before !== null && !st.sft && st.history.every((h) => applied(h) === 0);
  const after = unchanged && st.before ? st.before : (await run.runEval('after')).result;
  if (unchanged && run.runSteps > 0) warn(ctx, noSignalWarning(method.name, seed, st.history));
  ctx.progress.done++;
  ctx.emit({ type: 'eval', runIndex: run.r, method: method.name, seed, when: 'after', ...evalSummary(after) });
  ctx.emit({
    type: 'log',
    message: `after: base ${after.passAt1.base.toFixed(3)}, in-space ${after.passAt1.inSpace.toFixed(3)}, training harnesses ${after.training.toFixed(3)}`,
  });
  return after;
}

/** ── result ── The run's RunResult and curve, then a checkpoint whose results include it (resume skips finished runs). */
async function recordResult(ctx: RunContext, run: ActiveRun, after: EvalResult | null): Promise<void> {
  const { method, seed, st } = run;
  const r = run.r;
  const algorithm = run.runSteps === 0 && !st.sft ? 'none' : method.algorithm;
  ctx.results.push(
    runResult(method.name, algorithm, seed, st, after, st.seconds + (performance.now() - run.t0) / 1000, ctx.spec.model.init),
  );
  ctx.curves.push({ method: method.name, seed, steps: st.history, validation: st.validation ?? [] });
  ctx.seams.onRunParams?.(r, await run.stack.readParams());
  run.st = { ...st, runIndex: r + 1, step: 0, before: null, history: [], schedule: {}, skippedSteps: 0, seconds: 0 };
  await run.save();
  ctx.emit({
    type: 'progress',
    ...ctx.progress,
    phase: `run ${r + 1}/${ctx.experiment.runs.length} finished (${method.name}, seed ${seed})`,
  });
}

/** A run stopped on request: its curve so far (its state is in the checkpoint just saved). */
async function closeInterrupted(ctx: RunContext, run: ActiveRun): Promise<void> {
  run.st.seconds += (performance.now() - run.t0) / 1000;
  ctx.seams.onRunParams?.(run.r, await run.stack.readParams());
  ctx.curves.push({ method: run.method.name, seed: run.seed, steps: run.st.history, validation: run.st.validation ?? [] });
}

/**
 * Run a compiled experiment in the page: resume → for each (seed, method) run of the plan: start →
 * evaluate → SFT phase → RL loop → evaluate → result (module doc).
 * @param experiment the plan (compile.ts compilePlan; prepare.ts planExperiment)
 * @param seams test seams (RunSeams); production callers pass none
 * @throws Error when WebGPU is unavailable or the device is lost, or a base checkpoint is unusable.
 */
export async function runExperiment(experiment: ExperimentPlan, o: RunnerOptions = {}, seams: RunSeams = {}): Promise<ExperimentOutput> {
  const t0 = performance.now();
  const ctx = await openRun(experiment, o, seams);
  let status: 'done' | 'interrupted' = 'done';
  try {
    let resume = await resumePoint(ctx);
    for (let r = ctx.results.length; r < ctx.experiment.runs.length; r++) {
      const run = await startRun(ctx, r, resume);
      resume = null;
      try {
        await evaluateBefore(ctx, run);
        await sftPhase(ctx, run);
        if (await train(ctx, run)) {
          status = 'interrupted';
          await closeInterrupted(ctx, run);
          break;
        }
        const after = await evaluateAfter(ctx, run);
        await recordResult(ctx, run, after);
      } finally {
        run.stack.destroy();
      }
    }
  } finally {
    ctx.env.terminate();
    ctx.sink.store.close();
    ctx.engine.destroy();
  }
  const { engine } = ctx;
  if (engine.errors().length) throw new Error(`WebGPU errors during the run: ${engine.errors().join('; ')}`);
  return {
    engine: { kind: engine.kind, describe: engine.describe, reason: engine.reason },
    status,
    results: {
      resultsVersion: 1,
      spec: ctx.spec.name,
      evalSet: experiment.inSpace.description,
      evalSetExcluded: experiment.inSpace.excluded,
      ...(experiment.bases.length ? { bases: experiment.bases } : {}),
      machine: ctx.machine,
      runs: ctx.results,
    },
    curves: ctx.curves,
    warnings: ctx.warnings,
    starts: ctx.starts,
    segments: [...ctx.segments, ctx.segment],
    trajectories: ctx.trajectories,
    seconds: (performance.now() - t0) / 1000,
  };
}

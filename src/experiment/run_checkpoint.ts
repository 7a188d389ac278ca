/**
 * The run checkpoint: what `hlab run` saves after every evaluation and RL step so that a run
 * resumes exactly (runner.ts), as one typed, versioned record, and its codec onto the
 * checkpoint store's generic slots (src/storage: JSON `config`, `rngStates`, `scheduleState`,
 * `metricHistory` and named tensors).
 *
 * Version 2 (RUN_CHECKPOINT_VERSION), slot by slot:
 *   config        { format: 'hlab-run', version, spec, run: { runIndex, method, seed } }
 *                 — the experiment and the (seed, method) run that wrote the checkpoint
 *   rngStates     { note, seed, step } — every stream derives from (seed, step); nothing else to keep
 *   scheduleState { draws } — the round-robin schedule (design RoundRobinState)
 *   metricHistory { version, state, results, curves, trajectories } — the run in progress
 *                 (`RunState`, with its validation points), finished runs' results and curves
 *                 (with their validation curves), the recorded trajectories
 *   tensors       params, adamM, adamV (f32, the model layout), adamStep (u32 [1])
 * JSON-safe: a NaN metric (an evaluation that did not run) is stored as null and read back as
 * NaN where the schema knows the field is a number (step records, evaluation summaries).
 *
 * Version 1 (before this module; no version field, the schedule's draws only in scheduleState)
 * is read and upgraded. A newer version is refused with `RunCheckpointVersionError`.
 *
 * Store step numbers (CKPT_STRIDE) order checkpoints over the whole experiment; `checkpointPosition`
 * decodes them. They are the store's ordering key only: the position is also a named field.
 */
import { z } from 'zod';
import type { RoundRobinState } from '../design';
import type { RolloutStats } from '../rollout/trajectory';
import type { CheckpointStore } from '../storage/checkpoint_store';
import type { CheckpointInput, CheckpointMeta, JsonValue, TensorData } from '../storage/serialize';
import type { EvalResult } from './evaluate';
import { RunResultSchema, type RunResult, type RunSegment } from '../report/results_schema';
import { upgradeRuns } from '../report/results_upgrade';
import type { RunCurves, StepRecord } from './run_events';
import type { SftRecord } from './sft_phase';
import type { TrajectorySample } from './trajectory_sample';
import type { ValidationPoint } from './validation';

/** Version written by this build. */
const RUN_CHECKPOINT_VERSION = 2;

/**
 * Store step numbers, increasing over the whole experiment: run r's state after its
 * before-evaluation is r·STRIDE + 1, after RL step s it is r·STRIDE + 1 + s, and the state
 * after run r finished (its result recorded, run r+1 not started) is (r+1)·STRIDE.
 */
const CKPT_STRIDE = 1_000_000;

/** The state of the run in progress (or, after a run closed, the fresh state of the next one). */
export interface RunState {
  /** Run (seed × method, runner order) this state belongs to; = runs finished after a run closed. */
  runIndex: number;
  /** RL steps done in it. */
  step: number;
  /** Its 'before' evaluation, null until it ran (or when evaluations are skipped). */
  before: EvalResult | null;
  history: StepRecord[];
  /** The schedule's draws (restored from the checkpoint's schedule slot on decode). */
  schedule: Record<string, number>;
  /** Optimizer steps skipped as non-finite, over the run. */
  skippedSteps: number;
  /** Seconds spent in this run over all call segments. */
  seconds: number;
  /** Validation points measured in this run so far (validation.ts); absent in older checkpoints (read as none). */
  validation?: ValidationPoint[];
  /**
   * The run's finished SFT phase (sft_phase.ts); set with the checkpoint that holds its
   * parameters, so a resumed run with it skips the phase. Absent: no SFT phase, or not finished.
   */
  sft?: SftRecord;
}

/** One call of the runner (a segment of the experiment): results name every engine a run resumed on. */
export type { RunSegment };

/** One decoded run checkpoint (tensors apart). */
interface RunCheckpoint {
  version: typeof RUN_CHECKPOINT_VERSION;
  /** The experiment spec as the run was given it (JSON). */
  spec: JsonValue;
  /** The run that wrote it. */
  run: { runIndex: number; method: string; seed: number };
  state: RunState;
  schedule: RoundRobinState;
  results: RunResult[];
  curves: RunCurves[];
  trajectories: TrajectorySample[];
  /** Every segment up to and including the one that wrote the checkpoint (empty in older checkpoints). */
  segments: RunSegment[];
}

/** Parameters, AdamW moments and step counter. */
export interface RunTensors {
  params: Float32Array;
  adamM: Float32Array;
  adamV: Float32Array;
  adamStep: number;
}

/** A checkpoint written by a newer build (or not a run checkpoint at all). */
class RunCheckpointVersionError extends Error {
  constructor(readonly version: unknown) {
    super(
      `run checkpoint version ${JSON.stringify(version)} cannot be read by this build (it reads versions 1–${RUN_CHECKPOINT_VERSION}); resume it with the build that wrote it, or start the run fresh`,
    );
    this.name = 'RunCheckpointVersionError';
  }
}

/**
 * Store step of a state (CKPT_STRIDE): 0 for a fresh state before any evaluation, else
 * runIndex·STRIDE + 1 + step.
 */
function storeStep(st: Pick<RunState, 'runIndex' | 'step' | 'before'>): number {
  return st.runIndex * CKPT_STRIDE + (st.step === 0 && st.before === null ? 0 : 1 + st.step);
}

/**
 * What a checkpoint's store step number means (see CKPT_STRIDE): run index (0-based) and the
 * RL steps done in it; `rlStep` = -1 for the fresh state before the first evaluation and
 * `finished` for the state after run `runIndex - 1` closed.
 * @throws Error when step is not a non-negative integer.
 */
export function checkpointPosition(step: number): { runIndex: number; rlStep: number; finished: boolean } {
  if (!Number.isSafeInteger(step) || step < 0) throw new Error(`checkpointPosition: step must be a non-negative integer, got ${step}`);
  const runIndex = Math.floor(step / CKPT_STRIDE);
  const within = step % CKPT_STRIDE;
  return { runIndex, rlStep: within - 1, finished: within === 0 && runIndex > 0 };
}

// ── schema ───────────────────────────────────────────────────────────────────────────────────

/** A number stored JSON-safe: null (a NaN or ±Infinity when written) reads back as NaN. */
const metric = z
  .number()
  .nullable()
  .transform((x) => x ?? NaN);
const count = z.number().int().nonnegative();
/** Records whose producers own their shape (trajectory_sample.ts): objects, kept as stored. */
const record = z.record(z.string(), z.unknown());

const stepRecord = z
  .object({
    step: count,
    reward: metric,
    passByHarness: z.record(z.string(), metric),
    groups: count.optional(),
    generationRounds: count.optional(),
    sampledGroups: count.optional(),
    sampledEpisodes: count.optional(),
    policyLoss: metric,
    valueLoss: metric,
    clipFrac: metric,
    approxKl: metric,
    klRef: metric,
    entropy: metric,
    gradNorm: metric,
    optimizerSteps: count,
    skippedSteps: count,
    rows: count,
    tokens: count,
    droppedGroups: count,
    tokensPerSec: metric,
    workerRetries: count,
    envFailures: count,
    droppedContextTokens: count.optional(),
    cutContexts: count.optional(),
    rolloutMs: metric,
    updateMs: metric,
  })
  // Fields a later build adds are kept, not stripped.
  .loose();

/** One evaluated episode (stats.ts EpisodeOutcomeCell). */
const episodeCell = z
  .object({ taskId: z.string(), harnessId: z.string(), sample: count, pass: z.boolean(), score: z.number().min(0).max(1) })
  .strict();

const evalResult = z
  .object({
    passAt1: z.object({ base: metric, inSpace: metric, blackbox: z.record(z.string(), metric) }),
    training: metric,
    behaviour: z.object({ parseErrors: metric, workflowViolations: metric, recoveryRate: metric, stateTrackingErrors: metric }),
    perHarness: z.record(z.string(), metric),
    episodes: count,
    // Per-episode outcomes by results column (absent in older checkpoints).
    cells: z.record(z.string(), z.array(episodeCell)).optional(),
    // The rollout counters of the evaluation, informational only (never read on resume).
    stats: z.custom<RolloutStats>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), 'expected an object'),
  })
  .loose();

const validationSetPoint = z.object({ passAt1: metric, score: metric, episodes: count, cells: z.array(episodeCell) }).strict();
const validationPoint = z
  .object({
    step: count,
    passAt1: metric,
    score: metric,
    episodes: count,
    ms: metric,
    cells: z.array(episodeCell),
    // The base and in-space validation sets (validation.ts); absent when only the training set is measured, and in older checkpoints.
    sets: z.object({ base: validationSetPoint.optional(), inSpace: validationSetPoint.optional() }).strict().optional(),
  })
  .strict();

const runState = z
  .object({
    runIndex: count,
    step: count,
    before: evalResult.nullable(),
    history: z.array(stepRecord),
    schedule: z.record(z.string(), count).optional(),
    skippedSteps: count,
    // Absent in the oldest version-1 checkpoints.
    seconds: z.number().nonnegative().default(0),
    // Absent before the validation split existed.
    validation: z.array(validationPoint).optional(),
    // Absent before in-run SFT phases existed, and for runs without one.
    sft: z
      .object({ steps: count, firstLoss: metric, lastLoss: metric, demos: count, failedDemos: count, rows: count, seconds: metric })
      .strict()
      .optional(),
  })
  .strict();

const curves = z.array(
  z
    .object({ method: z.string(), seed: z.number().int(), steps: z.array(stepRecord), validation: z.array(validationPoint).optional() })
    .strict(),
);
const scheduleState = z.object({ draws: z.record(z.string(), count) }).strict();

const v2Config = z
  .object({
    format: z.literal('hlab-run'),
    version: z.literal(RUN_CHECKPOINT_VERSION),
    spec: z.unknown(),
    run: z.object({ runIndex: count, method: z.string(), seed: z.number().int() }).strict(),
  })
  .strict();
const position = z.object({ runIndex: count, step: count }).strict();
const segment = z
  .object({ engine: z.enum(['webgpu', 'wasm', 'unrecorded']), describe: z.string(), start: z.string(), from: position, to: position })
  .strict();
const v2History = z
  .object({
    version: z.literal(RUN_CHECKPOINT_VERSION),
    state: runState,
    results: z.array(RunResultSchema),
    curves,
    trajectories: z.array(record),
    // Absent in checkpoints written before segments were recorded.
    segments: z.array(segment).optional(),
  })
  .strict();
/** Version 1: config without a version, the history without one; trajectories absent in the oldest. */
const v1Config = z.object({ spec: z.unknown(), runIndex: count, method: z.string(), seed: z.number().int() }).strict();
const v1History = z
  .object({ state: runState, results: z.array(RunResultSchema), curves, trajectories: z.array(record).optional() })
  .strict();

/** JSON-safe copy (NaN and ±Infinity → null), as the store requires. */
function jsonSafe<T>(v: T): JsonValue {
  return JSON.parse(JSON.stringify(v, (_k, x) => (typeof x === 'number' && !Number.isFinite(x) ? null : x))) as JsonValue;
}

// ── codec ────────────────────────────────────────────────────────────────────────────────────

/**
 * The store input of a run checkpoint (module doc for the layout).
 * @param createdAt ms since the epoch
 */
export function encodeRunCheckpoint(
  runId: string,
  ck: Omit<RunCheckpoint, 'version' | 'segments'> & { segments?: RunSegment[] },
  t: RunTensors,
  createdAt: number,
): CheckpointInput {
  const { spec, run, state, schedule, results, curves, trajectories, segments = [] } = ck;
  return {
    meta: {
      runId,
      step: storeStep(state),
      createdAt,
      config: { format: 'hlab-run', version: RUN_CHECKPOINT_VERSION, spec, run },
      rngStates: { note: 'all streams derive from (seed, step)', seed: run.seed, step: state.step },
      scheduleState: jsonSafe(schedule),
      // The schedule lives in its own slot; the state's copy is left empty.
      metricHistory: jsonSafe({
        version: RUN_CHECKPOINT_VERSION,
        state: { ...state, schedule: {} },
        results,
        curves,
        trajectories,
        segments,
      }),
    },
    tensors: { params: t.params, adamM: t.adamM, adamV: t.adamV, adamStep: Uint32Array.of(t.adamStep) },
  };
}

/**
 * Decode a stored run checkpoint of version 1 or 2.
 * @throws RunCheckpointVersionError for another version (or a checkpoint that is not a run's);
 *   Error naming the first bad field when the content does not match its version's schema or a
 *   tensor is missing.
 */
export function decodeRunCheckpoint(
  meta: CheckpointMeta,
  tensors: Record<string, TensorData>,
): { checkpoint: RunCheckpoint; tensors: RunTensors } {
  const cfg = meta.config as { version?: unknown } | null;
  const version = cfg && typeof cfg === 'object' && !Array.isArray(cfg) ? (cfg.version ?? 1) : undefined;
  const fail = (where: string, e: z.ZodError): never => {
    const i = e.issues[0];
    throw new Error(`run checkpoint (version ${String(version)}) ${where}.${i.path.join('.')}: ${i.message}`);
  };
  const parse = <S extends z.ZodType>(schema: S, v: unknown, where: string): z.output<S> => {
    const r = schema.safeParse(v);
    return r.success ? r.data : fail(where, r.error);
  };
  const schedule = parse(scheduleState, meta.scheduleState, 'scheduleState');
  // Results written before the step vocabulary of src/report/results_schema.ts say `steps`/`skippedSteps`.
  const mh = meta.metricHistory as { results?: unknown; curves?: unknown } | null;
  const history = mh && typeof mh === 'object' && !Array.isArray(mh) ? { ...mh, results: upgradeRuns(mh.results, mh.curves) } : mh;
  let checkpoint: RunCheckpoint;
  if (version === RUN_CHECKPOINT_VERSION) {
    const c = parse(v2Config, meta.config, 'config');
    const h = parse(v2History, history, 'metricHistory');
    checkpoint = {
      version: RUN_CHECKPOINT_VERSION,
      spec: c.spec as JsonValue,
      run: c.run,
      state: { ...h.state, schedule: schedule.draws },
      schedule,
      results: h.results,
      curves: h.curves,
      trajectories: h.trajectories as unknown as TrajectorySample[],
      segments: h.segments ?? [],
    };
  } else if (version === 1) {
    const c = parse(v1Config, meta.config, 'config');
    const h = parse(v1History, history, 'metricHistory');
    checkpoint = {
      version: RUN_CHECKPOINT_VERSION,
      spec: c.spec as JsonValue,
      run: { runIndex: c.runIndex, method: c.method, seed: c.seed },
      state: { ...h.state, schedule: schedule.draws },
      schedule,
      // Checkpoints written before trajectories were recorded have none: the run goes on without the old ones.
      results: h.results,
      curves: h.curves,
      trajectories: (h.trajectories ?? []) as unknown as TrajectorySample[],
      segments: [],
    };
  } else throw new RunCheckpointVersionError(version);
  const f32 = (name: string): Float32Array => {
    const a = tensors[name];
    if (!(a instanceof Float32Array)) throw new Error(`run checkpoint: tensor '${name}' is missing or not f32`);
    return a;
  };
  const step = tensors.adamStep;
  if (!(step instanceof Uint32Array) || step.length !== 1) throw new Error("run checkpoint: tensor 'adamStep' is missing or not u32 [1]");
  return { checkpoint, tensors: { params: f32('params'), adamM: f32('adamM'), adamV: f32('adamV'), adamStep: step[0] } };
}

/**
 * Who wrote a run checkpoint, read from its meta alone (no tensors, no history schema): the run
 * id, the spec as the run was given it and the segments so far (none in older checkpoints).
 * The CLI checks these against a `--resume` before any browser starts.
 * @throws RunCheckpointVersionError for another version; Error naming the bad field
 */
export function runCheckpointOrigin(meta: Pick<CheckpointMeta, 'runId' | 'config' | 'metricHistory'>): {
  runId: string;
  spec: JsonValue;
  segments: RunSegment[];
} {
  const cfg = meta.config as { version?: unknown } | null;
  const version = cfg && typeof cfg === 'object' && !Array.isArray(cfg) ? (cfg.version ?? 1) : undefined;
  if (version !== 1 && version !== RUN_CHECKPOINT_VERSION) throw new RunCheckpointVersionError(version);
  const c = (version === 1 ? v1Config : v2Config).safeParse(meta.config);
  if (!c.success)
    throw new Error(`run checkpoint (version ${String(version)}) config.${c.error.issues[0].path.join('.')}: ${c.error.issues[0].message}`);
  const mh = meta.metricHistory as { segments?: unknown } | null;
  const segs = z
    .array(segment)
    .optional()
    .safeParse(mh && typeof mh === 'object' && !Array.isArray(mh) ? mh.segments : undefined);
  if (!segs.success)
    throw new Error(
      `run checkpoint (version ${String(version)}) metricHistory.segments.${segs.error.issues[0].path.join('.')}: ${segs.error.issues[0].message}`,
    );
  return { runId: meta.runId, spec: c.data.spec as JsonValue, segments: segs.data ?? [] };
}

// ── save ─────────────────────────────────────────────────────────────────────────────────────

/** Where a run's checkpoints go: the IndexedDB store under `runId`, and optionally a mirror outside the page. */
/** What the runner uses of the checkpoint store (storage/checkpoint_store.ts). */
export type RunStore = Pick<CheckpointStore, 'save' | 'exportCheckpointBytes' | 'importCheckpoint' | 'loadLatestGood' | 'close'>;

export interface RunCheckpointSink {
  store: RunStore;
  runId: string;
  /**
   * Called with the export file of every saved checkpoint (storage/serialize.ts format) and its
   * store step, awaited: the CLI keeps it as <out>/checkpoint.hlab so `--resume` works across
   * browser profiles and dev-server ports.
   */
  mirror?: (file: Uint8Array, step: number) => Promise<void>;
}

/**
 * Save one run checkpoint (the latest two are kept) and mirror its export file.
 * @param createdAt ms since the epoch
 * @returns the store step and the checkpoint's tensor bytes
 * @throws Error from the store (quota, a closed database) or the mirror
 */
export async function saveRunCheckpoint(
  sink: RunCheckpointSink,
  ck: Omit<RunCheckpoint, 'version'>,
  t: RunTensors,
  createdAt: number,
): Promise<{ step: number; totalBytes: number }> {
  const res = await sink.store.save(encodeRunCheckpoint(sink.runId, ck, t, createdAt), { retention: { keepLast: 2 } });
  if (sink.mirror) await sink.mirror(await sink.store.exportCheckpointBytes(sink.runId, res.step), res.step);
  return { step: res.step, totalBytes: res.totalBytes };
}

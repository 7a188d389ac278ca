/**
 * The Train view's worker: runs `runExperiment` off the main thread, so the page stays
 * responsive while WebGPU (SwiftShader: the CPU) trains. A dedicated module worker, created by
 * the view with
 *   new Worker(new URL('./train_worker.ts', import.meta.url), { type: 'module' })
 * and driven through comlink (`TrainWorkerApi`). WebGPU and IndexedDB both work in dedicated
 * workers in Chromium; the runner's rollout WorkerPool spawns its environment workers from here
 * (nested workers; their URL is resolved against the runner module's import.meta.url, so it is
 * the same inside a worker as in a page).
 *
 * Progress reaches the page as `RunEvent`s through a comlink-proxied callback. Pause =
 * `requestStop()`: the runner checkpoints after the current RL step and `start` resolves with
 * status 'interrupted'; `start(…, { resume: true })` continues from the latest good checkpoint.
 */
import { gpuErrorsOfRealm } from '../engine/choose';
import { runFailureMessage } from './run_failure';
import { expose, transfer, type ProxyMarked } from 'comlink';
import { decodeRunCheckpoint } from '../experiment/run_checkpoint';
import {
  checkpointPosition,
  runExperiment,
  type ExperimentOutput,
  type RunCurves,
  type RunEvent,
  type StepRecord,
} from '../experiment/runner';
import type { RunResult } from '../report/results_schema';
import type { EvalResult } from '../experiment/evaluate';
import type { ValidationPoint } from '../experiment/validation';
import { CheckpointStore } from '../storage/checkpoint_store';
import { trainPlan } from './train_plan';
import { outputToJsonText, saveRunOutput } from './results_store';
import { eventRelay } from './event_relay';
// Loaded with this worker — which the app starts at load (views/train_client.ts prewarmTrainWorker) —
// so that the runner's in-process environments (`inProcessEnv`, used offline, see `start`)
// import an already-loaded module and make no request. Referenced below so no bundler drops it.
import { localEnvApi } from '../episode/host';

/** One stored checkpoint, as the view's table lists it. */
export interface CheckpointRow {
  runId: string;
  /** Store step number (runner.ts CKPT_STRIDE numbering). */
  step: number;
  /** Run (seed × method) index, 0-based, and RL steps done in it (-1: before the first evaluation). */
  runIndex: number;
  rlStep: number;
  /** The state after the run before `runIndex` finished. */
  finished: boolean;
  /** ms since the epoch. */
  createdAt: number;
  /** Tensor bytes. */
  bytes: number;
  /** The run's resume point (its pointer names this step). */
  isLatest: boolean;
}

export interface StartOptions {
  /** IndexedDB run id of the checkpoints. */
  runId: string;
  /** Continue from the run's latest good checkpoint; otherwise its old checkpoints are deleted first. */
  resume: boolean;
  /** Override spec.rl.steps. */
  steps?: number;
  /** IndexedDB database (tests isolate by it; default the runner's). */
  dbName?: string;
  /** When the run finishes ('done'), save its output in the results store under this name (Results view). */
  saveAs?: string;
}

/**
 * What `start` resolves with: the runner's output without curves and trajectories (the page
 * has the curves from the events, the results store has everything; this keeps the message
 * the main thread must deserialize small). NaN written as null (JSON-safe).
 */
export interface TrainOutcome {
  output: Pick<ExperimentOutput, 'status' | 'results' | 'warnings' | 'starts' | 'seconds'>;
  /** The results-store name it was saved under (status 'done' with `saveAs`), else null. */
  savedAs: string | null;
  /** Why saving failed (the run itself succeeded), else null. */
  saveError: string | null;
}

/**
 * What a run's latest good checkpoint holds for display (`loadHistory`): the curves of its
 * finished runs, the current run's steps, validation points and 'before' evaluation, the finished runs' results.
 * The same numbers a Resume would report, read without starting anything.
 */
export interface StoredHistory {
  /** Checkpoint store step and its position. */
  step: number;
  runIndex: number;
  rlStep: number;
  finished: boolean;
  /** Finished (seed × method) runs, in order. */
  curves: RunCurves[];
  results: RunResult[];
  /** The current run (index `runIndex`): its RL steps and validation points so far, and its 'before' evaluation (null: not run yet). */
  current: {
    history: StepRecord[];
    validation: ValidationPoint[];
    before: Pick<EvalResult, 'passAt1' | 'training' | 'episodes'> | null;
    seconds: number;
    sft: boolean;
  };
}

/** Thrown (through comlink, as an Error) when a run fails; the message says whether the GPU device was lost. */
export interface TrainWorkerApi {
  /**
   * Run the experiment `specJson` (validated and planned here: a SpecError names the bad fields).
   * @param onEvent a comlink.proxy'd callback; called for every RunEvent, not awaited; `start`
   *   answers only after the page has handled every event (event_relay.ts).
   * @throws Error when a run is already in progress in this worker, on invalid input, on WebGPU
   *   errors or device loss (message prefixed 'WebGPU device lost:').
   */
  start(specJson: unknown, opts: StartOptions, onEvent: ((ev: RunEvent) => void) & ProxyMarked): Promise<TrainOutcome>;
  /** Answers once this worker's scripts are loaded (the app's offline readiness, views/train_client.ts prewarmTrainWorker). */
  ping(): 'ready';
  /** Ask the running experiment to checkpoint after the current RL step and stop (no-op when idle). */
  requestStop(): void;
  /** The history in the run's latest good checkpoint, or null when it has none. */
  loadHistory(runId: string, dbName?: string): Promise<StoredHistory | null>;
  /** Every stored checkpoint of every run, newest first. */
  listCheckpoints(dbName?: string): Promise<CheckpointRow[]>;
  /** One verified checkpoint as an export file (the same format as `hlab run`'s checkpoint.hlab). */
  exportCheckpoint(runId: string, step: number, dbName?: string): Promise<Uint8Array>;
  /** Verify and store an export file; it becomes its run's latest checkpoint. @returns its run id and step. */
  importCheckpoint(bytes: Uint8Array, dbName?: string): Promise<{ runId: string; step: number }>;
  /** Delete one checkpoint. @returns whether it existed. */
  deleteCheckpoint(runId: string, step: number, dbName?: string): Promise<boolean>;
}

let running = false;
let stop = false;

async function withStore<T>(dbName: string | undefined, fn: (s: CheckpointStore) => Promise<T>): Promise<T> {
  const store = await CheckpointStore.open(dbName ? { dbName } : {});
  try {
    return await fn(store);
  } finally {
    store.close();
  }
}

/** The WebGPU errors this worker's devices reported (engine/webgpu/device.ts). */
const gpuErrors = gpuErrorsOfRealm;

const api: TrainWorkerApi = {
  async start(specJson, opts, onEvent) {
    if (running) throw new Error('a run is already in progress in this worker; pause it first');
    running = true;
    stop = false;
    const lost0 = gpuErrors().length;
    const events = eventRelay(onEvent);
    try {
      if (!opts.resume) await withStore(opts.dbName, (s) => s.deleteRun(opts.runId));
      // Offline, the rollout pool's environment workers could not load their scripts (every
      // new worker fetches them; only this worker was loaded at app load), so environments run
      // in this worker instead: the same episodes, without the pool's parallelism and watchdog.
      const offline = navigator.onLine === false && typeof localEnvApi === 'function';
      if (offline) events.send({ type: 'log', message: 'offline: environments run in the training worker (no rollout workers)' });
      // The plan the CLI would run for this spec: infeasible cells left out alike.
      const log = (message: string) => events.send({ type: 'log', message });
      log("planning: which (task, harness) cells the expert can solve under the spec's budgets");
      const { plan, tok } = await trainPlan(specJson, opts.steps);
      if (plan.infeasible.length) log(`${plan.infeasible.length} infeasible (task, harness) cells are left out of training and evaluation`);
      const out = await runExperiment(plan, {
        ...(offline ? { inProcessEnv: true } : {}),
        runId: opts.runId,
        resume: opts.resume,
        dbName: opts.dbName,
        tokenizer: tok,
        shouldStop: () => stop,
        // Nothing here waits for the page; the answer below waits for the events (drain).
        onProgress: (ev) => events.send(ev),
      });
      let savedAs: string | null = null;
      let saveError: string | null = null;
      if (out.status === 'done' && opts.saveAs) {
        try {
          // The spec as run (seed and step overrides folded in) rides along: Results shows it and diffs runs by it.
          await saveRunOutput(opts.saveAs, { ...out, specJson, infeasibleCells: plan.infeasible } as unknown as Parameters<
            typeof saveRunOutput
          >[1]);
          savedAs = opts.saveAs;
        } catch (e) {
          saveError = (e as Error).message;
        }
      }
      // NaN → null: the same JSON the CLI writes, and what the results store keeps.
      const lean = { status: out.status, results: out.results, warnings: out.warnings, starts: out.starts, seconds: out.seconds };
      const output = JSON.parse(outputToJsonText(lean, 0)) as TrainOutcome['output'];
      // The page has every step and checkpoint event before it reads "paused" / "done".
      await events.drain();
      return { output, savedAs, saveError };
    } catch (e) {
      await events.drain();
      throw new Error(
        runFailureMessage(
          e,
          gpuErrors()
            .slice(lost0)
            .find((m) => m.startsWith('device lost')),
        ),
      );
    } finally {
      running = false;
    }
  },
  ping() {
    return 'ready';
  },
  requestStop() {
    stop = true;
  },
  loadHistory(runId, dbName) {
    return withStore(dbName, async (s) => {
      const lg = await s.loadLatestGood(runId);
      if (!lg.checkpoint) return null;
      const { checkpoint: ck } = decodeRunCheckpoint(lg.checkpoint.meta, lg.checkpoint.tensors);
      const step = lg.checkpoint.meta.step;
      const b = ck.state.before;
      return {
        step,
        ...checkpointPosition(step),
        curves: ck.curves,
        results: ck.results,
        current: {
          history: ck.state.history,
          validation: ck.state.validation ?? [],
          before: b ? { passAt1: b.passAt1, training: b.training, episodes: b.episodes } : null,
          seconds: ck.state.seconds,
          sft: !!ck.state.sft,
        },
      };
    });
  },
  listCheckpoints(dbName) {
    return withStore(dbName, async (s) => {
      const rows: CheckpointRow[] = [];
      for (const run of await s.listRuns()) {
        for (const c of await s.listCheckpoints(run.runId)) {
          const pos = checkpointPosition(c.step);
          rows.push({ runId: c.runId, step: c.step, ...pos, createdAt: c.createdAt, bytes: c.totalBytes, isLatest: c.isLatest });
        }
      }
      return rows.sort((a, b) => b.createdAt - a.createdAt || (a.runId < b.runId ? -1 : 1));
    });
  },
  exportCheckpoint(runId, step, dbName) {
    // Transferred, not copied: a base-size checkpoint is tens of MB.
    return withStore(dbName, async (s) => {
      const bytes = await s.exportCheckpointBytes(runId, step);
      return transfer(bytes, [bytes.buffer as ArrayBuffer]);
    });
  },
  importCheckpoint(bytes, dbName) {
    return withStore(dbName, async (s) => {
      const r = await s.importCheckpoint(bytes, { overwrite: true });
      return { runId: r.runId, step: r.step };
    });
  },
  deleteCheckpoint(runId, step, dbName) {
    return withStore(dbName, (s) => s.deleteCheckpoint(runId, step));
  },
};

expose(api);

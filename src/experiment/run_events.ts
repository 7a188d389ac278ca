/**
 * What a run reports while it works and what it records per RL step: the `RunEvent` vocabulary
 * (typed events for the app's worker and, through the page entry, the CLI), the per-step
 * `StepRecord`, a run's curve, and the reporter both the runner and the RL loop write through.
 * Types only plus `makeEmit`; runner.ts re-exports the types for its callers.
 */
import type { RlUpdateMetrics } from '../rl/update';
import type { EvalResult, EvalSize } from './evaluate';
import type { ValidationPoint } from './validation';

/** Metrics of one RL step. */
export interface StepRecord extends Omit<RlUpdateMetrics, 'ms'> {
  step: number;
  /** Mean verifier pass (the reward) over the step's rollouts. */
  reward: number;
  /** Rollout pass rate per training harness used this step. */
  passByHarness: Record<string, number>;
  /** Groups (tasks) given to the update this step; droppedGroups / groups is the share left out as all-equal. Absent in records of older runs. */
  groups?: number;
  /** Episodes rolled out this step over all its generation rounds (the update's cost in samples). Absent in records of older runs. */
  sampledEpisodes?: number;
  /**
   * With rl.dynamicSampling (dynamic_sampling.ts): generation rounds this step ran and the groups
   * sampled over them (the informative ones kept are `groups`). Absent without it.
   */
  generationRounds?: number;
  sampledGroups?: number;
  /** Sampled tokens per second of sampler time. */
  tokensPerSec: number;
  /** Cumulative worker-pool retries and environment failures. */
  workerRetries: number;
  envFailures: number;
  /** Context tokens the cut dropped in this step's rollouts (rows.ts `fitContext`), and the turns cut. Absent in records of older runs. */
  droppedContextTokens?: number;
  cutContexts?: number;
  rolloutMs: number;
  updateMs: number;
}

/**
 * What the runner reports while it works (RunnerOptions.onProgress). All JSON-safe (structured
 * clone across a worker boundary), except that metrics may be NaN.
 */
export type RunEvent =
  /** Work units done of the whole call (an RL step, an evaluation or an SFT phase is one unit; plan.ts plannedRuns) and what runs now. */
  | { type: 'progress'; done: number; total: number; phase: string }
  | { type: 'log'; message: string }
  | { type: 'warn'; message: string }
  /** A (seed, method) run starts (or continues after a resume) with `steps` RL steps. */
  | {
      type: 'run';
      runIndex: number;
      runs: number;
      method: string;
      seed: number;
      steps: number;
      start: string;
      /** The size of this run's evaluations (evaluate.ts evalSize): what a progress display divides by. */
      evalSize: EvalSize;
    }
  /** One RL step finished: its metrics. */
  | { type: 'step'; runIndex: number; method: string; seed: number; record: StepRecord }
  /** A run's SFT phase ended (sft_phase.ts): its wall time, and whether it reused an identical earlier phase's parameters instead of training. */
  | { type: 'sftPhase'; runIndex: number; method: string; seed: number; seconds: number; reused: boolean }
  /** A validation point was measured (validation.ts; `point.step` 0 = before RL). */
  | { type: 'validation'; runIndex: number; method: string; seed: number; point: ValidationPoint }
  /**
   * An evaluation finished: pass@1 (base harness, held-out in-space, black-box) and over the
   * training harnesses. `restored`: read from the checkpoint on resume, not run again.
   */
  | {
      type: 'eval';
      runIndex: number;
      method: string;
      seed: number;
      when: 'before' | 'after';
      passAt1: EvalResult['passAt1'];
      training: number;
      episodes: number;
      restored?: boolean;
    }
  /** A checkpoint was committed to IndexedDB (store step numbering, see CKPT_STRIDE) after RL step `rlStep` of run `runIndex`. */
  | { type: 'checkpoint'; runId: string; step: number; runIndex: number; rlStep: number; totalBytes: number }
  /** Episodes finished so far in the evaluation that is running (after every rollout round). */
  | { type: 'evalProgress'; runIndex: number; when: 'before' | 'after'; done: number; total: number }
  /**
   * Resumed from a checkpoint: the curves so far (finished runs and the current run's steps), so a
   * view can redraw them; `sftDone`: the current run's SFT phase is behind it.
   */
  | { type: 'resume'; runIndex: number; step: number; curves: RunCurves[]; sftDone: boolean };

export interface RunCurves {
  method: string;
  seed: number;
  steps: StepRecord[];
  /** The validation curve (validation.ts), ascending by step, each point with its other sets (base, in-space) when measured; empty when validation is off, absent in older runs. */
  validation?: ValidationPoint[];
}

/** A reporter of RunEvents. */
export type Emit = (ev: RunEvent) => void;

/**
 * The runner's reporter: every event goes to `onProgress` (the app's worker posts it to the
 * view; the page entry sends it to the CLI, src/page/entries.ts).
 */
export function makeEmit(onProgress?: (ev: RunEvent) => void): Emit {
  let reported = false;
  return (ev) => {
    if (!onProgress) return;
    try {
      onProgress(ev);
    } catch (e) {
      if (!reported) console.error('runExperiment: onProgress threw (ignored; the run goes on):', e);
      reported = true;
    }
  };
}

// The run checkpoint codec (src/experiment/run_checkpoint.ts): a version-2 record round-trips
// through the store's JSON slots (NaN metrics come back as NaN), a version-1 checkpoint (the
// layout before the codec) is read and upgraded, a newer version is refused naming it, a bad
// field is named, and store step numbers decode to positions.
import { describe, expect, it } from 'vitest';
import { checkpointPosition, decodeRunCheckpoint, encodeRunCheckpoint, type RunState } from '../../src/experiment/run_checkpoint';
import type { StepRecord } from '../../src/experiment/run_events';
import type { EvalResult } from '../../src/experiment/evaluate';
import type { CheckpointMeta, JsonValue } from '../../src/storage/serialize';
import { rolloutStats } from './lib/rollout_stats';
import { storedRunCheckpoint } from './lib/stored_run_checkpoint';

/** The version this build writes, and the store steps between runs (run_checkpoint.ts module doc). */
const RUN_CHECKPOINT_VERSION = 2;
const CKPT_STRIDE = 1_000_000;

const rec = (step: number): StepRecord => ({
  step,
  reward: 0.5,
  passByHarness: { 'S0-T0-O0-C0-W0': 0.5 },
  policyLoss: -0.1,
  valueLoss: 0,
  clipFrac: 0,
  approxKl: 1e-4,
  klRef: 0,
  entropy: 1.2,
  gradNorm: NaN,
  optimizerSteps: 2,
  skippedSteps: 0,
  rows: 8,
  tokens: 90,
  droppedGroups: 0,
  tokensPerSec: 100,
  workerRetries: 0,
  envFailures: 0,
  droppedContextTokens: 0,
  cutContexts: 0,
  rolloutMs: 10,
  updateMs: 5,
});
const before: EvalResult = {
  passAt1: { base: 0.25, inSpace: NaN, blackbox: { 'bb-coding-cli': 0 } },
  training: 0.5,
  behaviour: { parseErrors: 1, workflowViolations: 0, recoveryRate: NaN, stateTrackingErrors: 0 },
  perHarness: { 'S0-T0-O0-C0-W0': 0.25 },
  episodes: 4,
  stats: rolloutStats(),
};
const state: RunState = {
  runIndex: 1,
  step: 2,
  before,
  history: [rec(1), rec(2)],
  schedule: { 'workspace/a/t1/1': 3 },
  skippedSteps: 0,
  seconds: 12.5,
};
const tensors = {
  params: Float32Array.of(1, 2, 3),
  adamM: Float32Array.of(0.1, 0.2, 0.3),
  adamV: Float32Array.of(0.01, 0.02, 0.03),
  adamStep: 4,
};

describe('run checkpoint codec', () => {
  it('round-trips version 2 with named fields; NaN metrics come back as NaN; the step is the store position', () => {
    const enc = encodeRunCheckpoint(
      'run-x',
      {
        spec: { name: 'x' },
        run: { runIndex: 1, method: 'scaling', seed: 3 },
        state,
        schedule: { draws: state.schedule },
        results: [],
        curves: [{ method: 'base', seed: 3, steps: [rec(1)] }],
        trajectories: [],
      },
      tensors,
      7,
    );
    expect(enc.meta.step).toBe(CKPT_STRIDE + 3);
    expect(enc.meta.config).toMatchObject({
      format: 'hlab-run',
      version: RUN_CHECKPOINT_VERSION,
      run: { runIndex: 1, method: 'scaling', seed: 3 },
    });
    const s = storedRunCheckpoint(enc);
    const { checkpoint, tensors: t } = decodeRunCheckpoint(s.meta, s.tensors);
    expect(checkpoint.version).toBe(RUN_CHECKPOINT_VERSION);
    expect(checkpoint.state).toEqual(state);
    expect(Number.isNaN(checkpoint.state.history[0].gradNorm)).toBe(true);
    expect(Number.isNaN(checkpoint.state.before!.passAt1.inSpace)).toBe(true);
    expect(checkpoint.schedule).toEqual({ draws: state.schedule });
    expect(checkpoint.curves[0].steps[0]).toEqual(rec(1));
    expect(t).toEqual(tensors);
  });

  it('reads a version-1 checkpoint (no version; run state, results, curves inside metricHistory) and upgrades it', () => {
    const v1 = {
      meta: {
        runId: 'run-x',
        step: CKPT_STRIDE + 3,
        createdAt: 1,
        schemaVersion: 1,
        config: { spec: { name: 'x' }, runIndex: 1, method: 'scaling', seed: 3 },
        rngStates: { note: 'all streams derive from (seed, step)', seed: 3, step: 2 },
        scheduleState: { draws: state.schedule },
        metricHistory: JSON.parse(
          JSON.stringify({ state: { ...state, schedule: {} }, results: [], curves: [] }, (_k, v) =>
            typeof v === 'number' && !Number.isFinite(v) ? null : v,
          ),
        ),
      } as CheckpointMeta,
      tensors: { params: tensors.params, adamM: tensors.adamM, adamV: tensors.adamV, adamStep: Uint32Array.of(4) },
    };
    const { checkpoint } = decodeRunCheckpoint(v1.meta, v1.tensors);
    expect(checkpoint.version).toBe(RUN_CHECKPOINT_VERSION);
    expect(checkpoint.run).toEqual({ runIndex: 1, method: 'scaling', seed: 3 });
    expect(checkpoint.state).toEqual(state);
    expect(checkpoint.trajectories).toEqual([]);
  });

  // A run resumed on another engine records every segment (engine, start, positions).
  it('carries the segments of every call; a version-2 checkpoint without them decodes to none', () => {
    const segments = [
      {
        engine: 'webgpu' as const,
        describe: 'WebGPU (SwiftShader)',
        start: 'base checkpoint public/base-mini.ckpt',
        from: { runIndex: 0, step: 0 },
        to: { runIndex: 0, step: 2 },
      },
      {
        engine: 'wasm' as const,
        describe: 'CPU engine (WebAssembly SIMD, 2 threads)',
        start: 'the run checkpoint at run 1, step 2',
        from: { runIndex: 0, step: 2 },
        to: { runIndex: 1, step: 0 },
      },
    ];
    const base = {
      spec: {},
      run: { runIndex: 0, method: 'm', seed: 0 },
      state,
      schedule: { draws: state.schedule },
      results: [],
      curves: [],
      trajectories: [],
    };
    const s = storedRunCheckpoint(encodeRunCheckpoint('run-x', { ...base, segments }, tensors, 0));
    expect(decodeRunCheckpoint(s.meta, s.tensors).checkpoint.segments).toEqual(segments);
    const old = storedRunCheckpoint(encodeRunCheckpoint('run-x', base, tensors, 0));
    const { segments: _none, ...history } = old.meta.metricHistory as Record<string, JsonValue>;
    expect(decodeRunCheckpoint({ ...old.meta, metricHistory: history }, old.tensors).checkpoint.segments).toEqual([]);
    const bad = {
      ...s.meta,
      metricHistory: { ...(s.meta.metricHistory as object), segments: [{ ...segments[0], engine: 'tpu' }] },
    } as unknown as CheckpointMeta;
    expect(() => decodeRunCheckpoint(bad, s.tensors)).toThrow(/metricHistory\.segments\.0\.engine/);
  });

  it('refuses a newer version naming it, and names a bad field', () => {
    const s = storedRunCheckpoint(
      encodeRunCheckpoint(
        'run-x',
        { spec: {}, run: { runIndex: 0, method: 'm', seed: 0 }, state, schedule: { draws: {} }, results: [], curves: [], trajectories: [] },
        tensors,
        0,
      ),
    );
    const newer = { ...s.meta, config: { ...(s.meta.config as object), version: 9 } };
    expect(() => decodeRunCheckpoint(newer, s.tensors)).toThrow(expect.objectContaining({ name: 'RunCheckpointVersionError' }));
    expect(() => decodeRunCheckpoint(newer, s.tensors)).toThrow(
      /run checkpoint version 9 cannot be read by this build \(it reads versions 1–2\)/,
    );
    const bad = {
      ...s.meta,
      metricHistory: { ...(s.meta.metricHistory as object), state: { ...state, step: -1, schedule: {} } },
    } as unknown as CheckpointMeta;
    expect(() => decodeRunCheckpoint(bad, s.tensors)).toThrow(/version 2\) metricHistory\.state\.step/);
    const { adamStep: _drop, ...noStep } = s.tensors;
    expect(() => decodeRunCheckpoint(s.meta, noStep)).toThrow(/tensor 'adamStep'/);
  });

  it('store steps: fresh 0, after evaluation r·STRIDE + 1, after RL step s r·STRIDE + 1 + s; positions decode them', () => {
    const run = { runIndex: 0, method: 'm', seed: 0 };
    const storeStep = (st: Pick<RunState, 'runIndex' | 'step' | 'before'>) =>
      encodeRunCheckpoint(
        'r',
        { spec: {}, run, state: { ...state, ...st }, schedule: { draws: {} }, results: [], curves: [], trajectories: [] },
        tensors,
        0,
      ).meta.step;
    expect(storeStep({ runIndex: 0, step: 0, before: null })).toBe(0);
    expect(storeStep({ runIndex: 2, step: 0, before })).toBe(2 * CKPT_STRIDE + 1);
    expect(storeStep({ runIndex: 2, step: 5, before: null })).toBe(2 * CKPT_STRIDE + 6);
    expect(checkpointPosition(2 * CKPT_STRIDE + 6)).toEqual({ runIndex: 2, rlStep: 5, finished: false });
    expect(checkpointPosition(CKPT_STRIDE)).toEqual({ runIndex: 1, rlStep: -1, finished: true });
    expect(() => checkpointPosition(-1)).toThrow(/non-negative integer/);
  });
});

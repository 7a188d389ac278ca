/**
 * Launcher of src/engine/webgpu/shaders/rl_metrics_forward.wgsl (four entry points, one prepare each).
 * CPU reference: rl_metrics_forward.ref.ts. Layouts: rl_metrics.ts.
 */
import code from '../shaders/rl_metrics_forward.wgsl?raw';
import type { Gpu } from '../device';
import type { PreparedDispatch, TensorView } from './dispatch_plan';
import { checkDims, packUniform, prepareEntry, wholeView } from './rl_launch';
import { RL_METRICS, ROW_STATS } from '../../../reference/rl_metrics';
import type { LossCoefs } from '../../../reference/rl_metrics_forward.ref';

const OP = 'rl_metrics_forward';

function params(gpu: Gpu, B: number, c: LossCoefs = { klCoef: 0, entCoef: 0, vfCoef: 0 }): GPUBuffer {
  return packUniform(gpu, `${OP}-params`, [
    { u32: B },
    { u32: 0 },
    { u32: 0 },
    { u32: 0 },
    { f32: c.klCoef },
    { f32: c.entCoef },
    { f32: c.vfCoef },
  ]);
}

interface RlRowsArgs {
  /** Rows of the micro-batch. */
  B: number;
  /** (B, ROW_STATS) f32. */
  rowStats: TensorView;
}

interface RlAccArgs {
  /** (ROW_STATS) f32: the optimizer step's accumulator. */
  acc: TensorView;
}

interface RlAccumulateArgs extends RlRowsArgs, RlAccArgs {}

interface RlMetricsFinalizeArgs extends RlAccArgs {
  /** (1) u32 non-finite flag word written by nonfinite_check. */
  flags: TensorView;
  /** (RL_METRICS) f32 out: the named metrics (rl_metrics.ts METRIC). */
  metrics: TensorView;
  c: LossCoefs;
}

/** @internal The checked (B, ROW_STATS) rowStats buffer. */
function rowStatsOf(op: string, a: RlRowsArgs): GPUBuffer {
  checkDims(op, { B: a.B });
  return wholeView(op, 'rowStats', a.rowStats, a.B * ROW_STATS);
}

/**
 * Prepare rowStats ← initial values (before a micro-batch's loss kernels). One invocation per row.
 * @throws Error naming a bad dimension or a view outside its buffer.
 */
export function prepareRlRowsZero(gpu: Gpu, a: RlRowsArgs): PreparedDispatch {
  const rowStats = rowStatsOf(`${OP}.zero_rows`, a);
  return prepareEntry(gpu, OP, code, 'zero_rows', 64, a.B, [
    [0, params(gpu, a.B)],
    [1, rowStats],
  ]);
}

/**
 * Prepare acc ← initial values (once per optimizer step).
 * @throws Error when acc is outside its buffer.
 */
export function prepareRlAccInit(gpu: Gpu, a: RlAccArgs): PreparedDispatch {
  const acc = wholeView(`${OP}.init_acc`, 'acc', a.acc, ROW_STATS);
  return prepareEntry(gpu, OP, code, 'init_acc', 1, 1, [[2, acc]], false);
}

/**
 * Prepare acc ← acc ⊕ rowStats rows 0…B−1 in order (after each micro-batch). One invocation.
 * @throws Error naming a bad dimension or a view outside its buffer.
 */
export function prepareRlAccumulate(gpu: Gpu, a: RlAccumulateArgs): PreparedDispatch {
  const op = `${OP}.accumulate`;
  const rowStats = rowStatsOf(op, a);
  const acc = wholeView(op, 'acc', a.acc, ROW_STATS);
  return prepareEntry(
    gpu,
    OP,
    code,
    'accumulate',
    1,
    1,
    [
      [0, params(gpu, a.B)],
      [1, rowStats],
      [2, acc],
    ],
    false,
  );
}

/**
 * Prepare metrics ← named metrics of acc and the non-finite flags (end of step). One invocation.
 * @throws Error naming a view outside its buffer.
 */
export function prepareRlMetricsFinalize(gpu: Gpu, a: RlMetricsFinalizeArgs): PreparedDispatch {
  const op = `${OP}.finalize`;
  const acc = wholeView(op, 'acc', a.acc, ROW_STATS);
  const flags = wholeView(op, 'flags', a.flags, 1);
  const metrics = wholeView(op, 'metrics', a.metrics, RL_METRICS);
  return prepareEntry(
    gpu,
    OP,
    code,
    'finalize',
    1,
    1,
    [
      [0, params(gpu, 1, a.c)],
      [2, acc],
      [3, flags],
      [4, metrics],
    ],
    false,
  );
}

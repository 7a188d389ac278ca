/**
 * Launcher of shaders/rl_metrics_forward.wgsl. CPU reference: rl_metrics_forward.ref.ts.
 */
import code from '../../shaders/rl_metrics_forward.wgsl?raw';
import type { Gpu } from '../gpu/device';
import { encodePrepared, type PreparedDispatch } from './dispatch_plan';
import { packUniform, prepareEntry } from './rl_launch';
import type { LossCoefs } from './rl_metrics_forward.ref';

const LABEL = 'rl_metrics_forward';

function params(gpu: Gpu, B: number, c: LossCoefs = { klCoef: 0, entCoef: 0, vfCoef: 0 }): GPUBuffer {
  return packUniform(gpu, `${LABEL}-params`, [{ u32: B }, { u32: 0 }, { u32: 0 }, { u32: 0 }, { f32: c.klCoef }, { f32: c.entCoef }, { f32: c.vfCoef }]);
}

/** Prepare rowStats (B, ROW_STATS) ← initial values (before a micro-batch's loss kernels). */
export function prepareRlRowsZero(gpu: Gpu, rowStats: GPUBuffer, B: number): PreparedDispatch {
  return prepareEntry(gpu, LABEL, code, 'zero_rows', 64, B, [[0, params(gpu, B)], [1, rowStats]]);
}

/** Prepare acc (ROW_STATS) ← initial values (once per optimizer step). */
export function prepareRlAccInit(gpu: Gpu, acc: GPUBuffer): PreparedDispatch {
  return prepareEntry(gpu, LABEL, code, 'init_acc', 1, 1, [[2, acc]], false);
}

/** Prepare acc ← acc ⊕ rowStats rows 0…B−1 (after each micro-batch). */
export function prepareRlAccumulate(gpu: Gpu, rowStats: GPUBuffer, acc: GPUBuffer, B: number): PreparedDispatch {
  return prepareEntry(gpu, LABEL, code, 'accumulate', 1, 1, [[0, params(gpu, B)], [1, rowStats], [2, acc]], false);
}

/**
 * Prepare metrics (RL_METRICS) f32 ← named metrics of acc and the non-finite flags (end of step).
 * @param flags (1) u32 written by nonfinite_check
 */
export function prepareRlMetricsFinalize(gpu: Gpu, acc: GPUBuffer, flags: GPUBuffer, metrics: GPUBuffer, c: LossCoefs): PreparedDispatch {
  return prepareEntry(gpu, LABEL, code, 'finalize', 1, 1, [[0, params(gpu, 1, c)], [2, acc], [3, flags], [4, metrics]], false);
}

/** Encode prepareRlRowsZero. */
export function encodeRlRowsZero(gpu: Gpu, pass: GPUComputePassEncoder, rowStats: GPUBuffer, B: number): void {
  encodePrepared(pass, [prepareRlRowsZero(gpu, rowStats, B)]);
}

/** Encode prepareRlAccInit. */
export function encodeRlAccInit(gpu: Gpu, pass: GPUComputePassEncoder, acc: GPUBuffer): void {
  encodePrepared(pass, [prepareRlAccInit(gpu, acc)]);
}

/** Encode prepareRlMetricsFinalize. */
export function encodeRlMetricsFinalize(gpu: Gpu, pass: GPUComputePassEncoder, acc: GPUBuffer, flags: GPUBuffer, metrics: GPUBuffer, c: LossCoefs): void {
  encodePrepared(pass, [prepareRlMetricsFinalize(gpu, acc, flags, metrics, c)]);
}

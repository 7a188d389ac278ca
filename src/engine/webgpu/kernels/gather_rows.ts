/**
 * Launcher of src/engine/webgpu/shaders/gather_rows.wgsl: out (B,C) = inp[idx[b], :] (rows clamped to [0,R)).
 * A copy; tested exactly in tests/browser/kernels_forward.spec.ts.
 */
import code from '../shaders/gather_rows.wgsl?raw';
import type { Gpu } from '../device';
import { bindAll, checkView, grid, paramsUniform, type PreparedDispatch } from './dispatch_plan';

const WG = 256;

interface GatherRowsArgs {
  B: number;
  C: number;
  /** Rows of inp. */
  R: number;
  /** (R,C) from element 0. */
  inp: GPUBuffer;
  /** (B) i32 row indices. */
  idx: GPUBuffer;
  /** (B,C) written. */
  out: GPUBuffer;
}

/** Prepare once. @throws Error naming the argument on a bad dimension or a buffer too small. */
export function prepareGatherRows(gpu: Gpu, a: GatherRowsArgs, label = 'gather_rows'): PreparedDispatch {
  const { B, C, R } = a;
  for (const [k, v] of Object.entries({ B, C, R })) {
    if (!Number.isInteger(v) || v <= 0) throw new Error(`${label}: ${k} must be a positive integer, got ${v}`);
  }
  checkView(label, 'inp', { buffer: a.inp }, R * C);
  checkView(label, 'idx', { buffer: a.idx }, B);
  checkView(label, 'out', { buffer: a.out }, B * C);
  const pipeline = gpu.pipelines.get('gather_rows', code, 'main', { WG });
  const params = paramsUniform(gpu, `${label}-params`, [
    ['u32', B],
    ['u32', C],
    ['u32', R],
    ['u32', 0],
  ]);
  const bindGroup = bindAll(gpu, `${label}-bind`, pipeline, [
    [0, params],
    [1, a.inp],
    [2, a.idx],
    [3, a.out],
  ]);
  return { label, pipeline, bindGroup, groups: grid(Math.ceil((B * C) / WG)), flops: 0, bytes: 8 * B * C };
}

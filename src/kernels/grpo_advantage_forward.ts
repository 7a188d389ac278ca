/**
 * Launcher of shaders/grpo_advantage_forward.wgsl. CPU reference: grpo_advantage_forward.ref.ts.
 */
import code from '../../shaders/grpo_advantage_forward.wgsl?raw';
import type { Gpu } from '../gpu/device';
import { checkRowDims, dispatchEntry, packUniform } from './rl_launch';
import type { GrpoParams } from './grpo_advantage_forward.ref';

/** Buffers of the GRPO advantage kernel. */
export interface GrpoBuffers {
  /** (E) f32 episode rewards. */
  rewards: GPUBuffer;
  /** (numGroups + 1) i32, non-decreasing from 0 to E (checked by the CPU reference, not here). */
  groupOffsets: GPUBuffer;
  /** (E) f32 out: per-episode advantages. */
  episodeAdvantages: GPUBuffer;
  /** (B) i32 in [0, E): the episode of each row. */
  rowEpisode: GPUBuffer;
  /** (B,T) f32 mask. */
  mask: GPUBuffer;
  /** (B,T) f32 out: advantages broadcast to policy tokens (written). */
  advantages: GPUBuffer;
}

/**
 * Encode GRPO group advantages (two dispatches: `groups`, then `broadcast`).
 * @throws Error naming a bad dimension.
 */
export function encodeGrpoAdvantageForward(
  gpu: Gpu,
  pass: GPUComputePassEncoder,
  bufs: GrpoBuffers,
  numGroups: number,
  B: number,
  T: number,
  p: GrpoParams,
): void {
  checkRowDims('encodeGrpoAdvantageForward', B, T);
  if (!Number.isInteger(numGroups) || numGroups <= 0) throw new Error(`encodeGrpoAdvantageForward: numGroups must be a positive integer, got ${numGroups}`);
  const params = packUniform(gpu, 'grpo_advantage_forward-params', [
    { u32: numGroups },
    { u32: B },
    { u32: T },
    { u32: p.noStdDivision ? 1 : 0 },
    { f32: p.stdFloor },
    { f32: p.eps },
  ]);
  dispatchEntry(gpu, pass, 'grpo_advantage_forward', code, 'groups', 64, numGroups, [
    [0, params],
    [1, bufs.rewards],
    [2, bufs.groupOffsets],
    [3, bufs.episodeAdvantages],
  ]);
  dispatchEntry(gpu, pass, 'grpo_advantage_forward', code, 'broadcast', 64, B * T, [
    [0, params],
    [3, bufs.episodeAdvantages],
    [4, bufs.rowEpisode],
    [5, bufs.mask],
    [6, bufs.advantages],
  ]);
}

/**
 * Launcher of src/engine/webgpu/shaders/grpo_advantage_forward.wgsl. CPU reference: grpo_advantage_forward.ref.ts.
 */
import code from '../shaders/grpo_advantage_forward.wgsl?raw';
import type { Gpu } from '../device';
import type { PreparedDispatch, TensorView } from './dispatch_plan';
import { checkDims, checkRowDims, packUniform, prepareEntry, wholeView } from './rl_launch';
import type { GrpoParams } from '../../../reference/grpo_advantage_forward.ref';

interface GrpoAdvantageForwardArgs {
  /** Episodes (length of rewards). */
  E: number;
  numGroups: number;
  B: number;
  T: number;
  /** (E) f32 episode rewards. */
  rewards: TensorView;
  /** (numGroups + 1) i32, non-decreasing from 0 to E (checked by the CPU reference, not here). */
  groupOffsets: TensorView;
  /** (E) f32 out: per-episode advantages. */
  episodeAdvantages: TensorView;
  /** (B) i32 in [0, E): the episode of each row. */
  rowEpisode: TensorView;
  /** (B,T) f32. */
  mask: TensorView;
  /** (B,T) f32 out: advantages broadcast to policy tokens (written). */
  advantages: TensorView;
  p: GrpoParams;
}

/**
 * Prepare GRPO group advantages (two dispatches: `groups` per group, then `broadcast` per
 * position).
 * @throws Error naming a bad dimension or a view outside its buffer.
 */
export function prepareGrpoAdvantageForward(gpu: Gpu, a: GrpoAdvantageForwardArgs): PreparedDispatch[] {
  const op = 'grpo_advantage_forward';
  const { E, numGroups, B, T, p } = a;
  checkRowDims(op, B, T);
  checkDims(op, { E, numGroups });
  const rewards = wholeView(op, 'rewards', a.rewards, E);
  const groupOffsets = wholeView(op, 'groupOffsets', a.groupOffsets, numGroups + 1);
  const episodeAdvantages = wholeView(op, 'episodeAdvantages', a.episodeAdvantages, E);
  const rowEpisode = wholeView(op, 'rowEpisode', a.rowEpisode, B);
  const mask = wholeView(op, 'mask', a.mask, B * T);
  const advantages = wholeView(op, 'advantages', a.advantages, B * T);
  const params = packUniform(gpu, `${op}-params`, [
    { u32: numGroups },
    { u32: B },
    { u32: T },
    { u32: p.noStdDivision ? 1 : 0 },
    { f32: p.stdFloor },
    { f32: p.eps },
  ]);
  return [
    prepareEntry(gpu, op, code, 'groups', 64, numGroups, [
      [0, params],
      [1, rewards],
      [2, groupOffsets],
      [3, episodeAdvantages],
    ]),
    prepareEntry(gpu, op, code, 'broadcast', 64, B * T, [
      [0, params],
      [3, episodeAdvantages],
      [4, rowEpisode],
      [5, mask],
      [6, advantages],
    ]),
  ];
}

/**
 * Launcher of src/engine/webgpu/shaders/adv_normalize_forward.wgsl. CPU reference: adv_normalize_forward.ref.ts.
 */
import code from '../shaders/adv_normalize_forward.wgsl?raw';
import type { Gpu } from '../device';
import type { PreparedDispatch, TensorView } from './dispatch_plan';
import { checkRowDims, packUniform, prepareEntry, wholeView } from './rl_launch';

/** Bytes of the scratch buffer prepareAdvNormalizeForward needs: (B + 1) vec4 f32. */
export function advNormalizeScratchBytes(B: number): number {
  return (B + 1) * 16;
}

interface AdvNormalizeForwardArgs {
  B: number;
  T: number;
  /** (B,T) f32, whitened in place at valid tokens. */
  advantages: TensorView;
  /** (B,T) f32. */
  mask: TensorView;
  /** (B + 1, 4) f32 scratch (advNormalizeScratchBytes(B)); afterwards row B holds (n, mean, std, 0). */
  scratch: TensorView;
  /** δ in (A − mean)/(std + δ), > 0. */
  eps: number;
}

/**
 * Prepare masked whitening of `advantages` in place (three dispatches: rows, combine, apply).
 * @throws Error naming a bad dimension, eps ≤ 0, or a view outside its buffer.
 */
export function prepareAdvNormalizeForward(gpu: Gpu, a: AdvNormalizeForwardArgs): PreparedDispatch[] {
  const op = 'adv_normalize_forward';
  const { B, T, eps } = a;
  checkRowDims(op, B, T);
  if (!(eps > 0)) throw new Error(`${op}: eps = ${eps} must be > 0`);
  const advantages = wholeView(op, 'advantages', a.advantages, B * T);
  const mask = wholeView(op, 'mask', a.mask, B * T);
  const scratch = wholeView(op, 'scratch', a.scratch, advNormalizeScratchBytes(B) / 4);
  const params = packUniform(gpu, `${op}-params`, [{ u32: B }, { u32: T }, { u32: 0 }, { u32: 0 }, { f32: eps }]);
  return [
    prepareEntry(gpu, op, code, 'rows', 64, B, [
      [0, params],
      [1, advantages],
      [2, mask],
      [3, scratch],
    ]),
    prepareEntry(
      gpu,
      op,
      code,
      'combine',
      1,
      1,
      [
        [0, params],
        [3, scratch],
      ],
      false,
    ),
    prepareEntry(gpu, op, code, 'apply', 64, B * T, [
      [0, params],
      [1, advantages],
      [2, mask],
      [3, scratch],
    ]),
  ];
}

/**
 * Launcher of src/engine/webgpu/shaders/nonfinite_check.wgsl (two entry points, one prepare each).
 * CPU reference: nonfinite_check.ref.ts.
 */
import code from '../shaders/nonfinite_check.wgsl?raw';
import type { Gpu } from '../device';
import type { PreparedDispatch, TensorView } from './dispatch_plan';
import { checkDims, packUniform, prepareEntry, wholeView } from './rl_launch';

const OP = 'nonfinite_check';

interface NonfiniteFlagsArgs {
  /** (1) u32 flag word (src/reference/rl_metrics.ts NONFINITE bits). */
  flags: TensorView;
}

interface NonfiniteCheckArgs extends NonfiniteFlagsArgs {
  /** Elements of x checked. */
  n: number;
  /** (n) f32. */
  x: TensorView;
  /** The NONFINITE bit OR-ed into flags[0] (a single bit). */
  bit: number;
}

/**
 * Prepare flags[0] |= bit when any of x is NaN or ±Inf (exponent-bit test). One invocation per element.
 * @throws Error when n is not a positive integer, bit is not a single bit, or a view is outside its buffer.
 */
export function prepareNonfiniteCheck(gpu: Gpu, a: NonfiniteCheckArgs): PreparedDispatch {
  const op = `${OP}.check`;
  const { n, bit } = a;
  checkDims(op, { n });
  if (!(bit > 0 && bit <= 0x80000000 && (bit & (bit - 1)) === 0)) throw new Error(`${op}: bit = ${bit} must be a single bit`);
  const x = wholeView(op, 'x', a.x, n);
  const flags = wholeView(op, 'flags', a.flags, 1);
  const params = packUniform(gpu, `${OP}-params`, [{ u32: n }, { u32: bit >>> 0 }]);
  return prepareEntry(gpu, OP, code, 'check', 256, n, [
    [0, params],
    [1, x],
    [2, flags],
  ]);
}

/**
 * Prepare flags[0] = 0 (start of an optimizer step).
 * @throws Error when flags is outside its buffer.
 */
export function prepareNonfiniteClear(gpu: Gpu, a: NonfiniteFlagsArgs): PreparedDispatch {
  const flags = wholeView(`${OP}.clear`, 'flags', a.flags, 1);
  return prepareEntry(gpu, OP, code, 'clear', 1, 1, [[2, flags]], false);
}

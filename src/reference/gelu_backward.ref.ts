import { GELU_SCALE } from './gelu_forward.ref';
import { alloc, checkLen, type Floats } from './ref_util';

/**
 * CPU reference of src/engine/webgpu/shaders/gelu_backward.wgsl: dinp = dout·GELU'(x) for the tanh approximation,
 * GELU'(x) = 0.5(1 + tanh u) + 0.5·x·(1 − tanh²u)·√(2/π)(1 + 3·0.044715·x²), u = √(2/π)(x + 0.044715x³).
 * At huge |x|, (1 − tanh²u) is exactly 0 and x² is finite up to ~1e154, so the result is
 * dout or 0 (for |x| beyond that, x·0·Inf would be NaN; we return the limit 1 or 0).
 * @param dout (n) @param inp (n)
 * @returns dinp (n), written
 * @throws Error when the lengths differ.
 */
export function geluBackwardRef<A extends Floats>(dout: A, inp: A): A {
  checkLen('geluBackwardRef', 'inp', inp, dout.length, 'dout.length');
  const dinp = alloc(dout, dout.length);
  for (let i = 0; i < dout.length; i++) {
    const x = inp[i];
    let g: number;
    if (Math.abs(x) > 1e10) {
      g = x > 0 ? 1 : 0;
    } else {
      const u = GELU_SCALE * (x + 0.044715 * x * x * x);
      const th = Math.tanh(u);
      g = 0.5 * (1 + th) + 0.5 * x * (1 - th * th) * GELU_SCALE * (1 + 3 * 0.044715 * x * x);
    }
    dinp[i] = dout[i] * g;
  }
  return dinp;
}

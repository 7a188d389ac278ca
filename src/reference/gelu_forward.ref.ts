import { alloc, type Floats } from './ref_util';

/** √(2/π), the constant of the tanh approximation. */
export const GELU_SCALE = Math.sqrt(2 / Math.PI);

/**
 * CPU reference of src/engine/webgpu/shaders/gelu_forward.wgsl: the tanh approximation of GELU used by GPT-2
 * (Hendrycks & Gimpel 2016): out = 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
 * Math.tanh saturates cleanly, so huge |x| gives x or −0 (a GPU tanh written as
 * (e^{2u}−1)/(e^{2u}+1) overflows to NaN there: the kernel must clamp).
 * @param inp (n)
 * @returns out (n)
 */
export function geluForwardRef<A extends Floats>(inp: A): A {
  const out = alloc(inp, inp.length);
  for (let i = 0; i < inp.length; i++) {
    const x = inp[i];
    out[i] = 0.5 * x * (1 + Math.tanh(GELU_SCALE * (x + 0.044715 * x * x * x)));
  }
  return out;
}

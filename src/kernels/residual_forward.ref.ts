/**
 * CPU reference of shaders/residual_forward.wgsl: out = a + b.
 * @param a (n) f32
 * @param b (n) f32
 * @returns (n) f32
 * @throws Error when the lengths differ.
 */
export function residualForwardRef(a: Float32Array, b: Float32Array): Float32Array {
  if (a.length !== b.length) throw new Error(`residualForwardRef: length mismatch a=${a.length} b=${b.length}`);
  const out = new Float32Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i] + b[i];
  return out;
}

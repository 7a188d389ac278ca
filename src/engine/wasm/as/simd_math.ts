// Vectorized exp and tanh for f32x4 (the scalar Mathf versions cost ~50 ns each and dominated
// GELU, softmax and the log-prob head). exp: x = n·ln2 + r with n = round(x·log2 e) and
// |r| ≤ ln2/2 (Cody–Waite split of ln2), e^r by its degree-6 Taylor polynomial (truncation
// error ≤ r⁷/7! ≈ 1.2e-7 relative), 2ⁿ built in the exponent bits. Inputs below −87.3 give 0,
// above 88.7 +Inf (n reaches 128); NaN propagates. tanh(u) = 1 − 2/(e^{2u} + 1): absolute error ~1e-7
// (relative error grows for |u| ≪ 1, harmless where it is used: GELU adds it to 1).
// Cost, per vector (it is most of a softmax's or GELU's time): the clamps are pmin/pmax (one
// instruction each, and NaN passes through them in this order), n is rounded by the
// 1.5·2²³ magic-number add (which also leaves n's integer in the low mantissa bits, so 2ⁿ needs
// no float-to-int conversion), and the reduction and Horner steps are `madd` (fused in the
// relaxed-SIMD build). In attention_forward (small, one layer, 1 thread) the exponentials
// took 2.1 of 7.6 ms before and ≈ 0.4 ms after.
const MAGIC: f32 = 12582912.0; // 1.5·2²³

// @ts-ignore: decorator
@inline
export function exp4(x: v128): v128 {
  const lo = f32x4.splat(-87.3);
  const xc = f32x4.pmin(f32x4.pmax(x, lo), f32x4.splat(88.7));
  const j = madd(xc, f32x4.splat(1.4426950408889634), f32x4.splat(MAGIC));
  const n = f32x4.sub(j, f32x4.splat(MAGIC));
  let r = madd(n, f32x4.splat(-0.693359375), xc);
  r = madd(n, f32x4.splat(2.12194440e-4), r);
  let p = madd(f32x4.splat(1.0 / 720.0), r, f32x4.splat(1.0 / 120.0));
  p = madd(p, r, f32x4.splat(1.0 / 24.0));
  p = madd(p, r, f32x4.splat(1.0 / 6.0));
  p = madd(p, r, f32x4.splat(0.5));
  p = madd(p, r, f32x4.splat(1.0));
  p = madd(p, r, f32x4.splat(1.0));
  // j's bits are MAGIC's plus n in the low mantissa: 2ⁿ = (n + 127) << 23.
  const pow2 = i32x4.shl(i32x4.add(j, i32x4.splat(127 - 0x4b400000)), 23);
  // x < −87.3 → 0 (false for NaN, which stays NaN through p).
  return v128.andnot(f32x4.mul(p, pow2), f32x4.lt(x, lo));
}

// @ts-ignore: decorator
@inline
export function tanh4(u: v128): v128 {
  const e = exp4(f32x4.add(u, u));
  return f32x4.sub(f32x4.splat(1), f32x4.div(f32x4.splat(2), f32x4.add(e, f32x4.splat(1))));
}

/** Horizontal sum, lanes in order ((0 + 1) + 2) + 3. */
// @ts-ignore: decorator
@inline
export function hsum(v: v128): f32 {
  return f32x4.extract_lane(v, 0) + f32x4.extract_lane(v, 1) + f32x4.extract_lane(v, 2) + f32x4.extract_lane(v, 3);
}

/** Horizontal max. */
// @ts-ignore: decorator
@inline
export function hmax(v: v128): f32 {
  return max(max(f32x4.extract_lane(v, 0), f32x4.extract_lane(v, 1)), max(f32x4.extract_lane(v, 2), f32x4.extract_lane(v, 3)));
}

/** Scalar exp through the same polynomial (lane 0), so tails round like the vector body. */
// @ts-ignore: decorator
@inline
export function exp1(x: f32): f32 {
  return f32x4.extract_lane(exp4(f32x4.splat(x)), 0);
}

// @ts-ignore: decorator
@inline
export function tanh1(x: f32): f32 {
  return f32x4.extract_lane(tanh4(f32x4.splat(x)), 0);
}

// a·b + c per lane. Built twice (scripts/build-wasm.mjs): with relaxed SIMD it is
// f32x4.relaxed_madd, which the runtime lowers to a fused multiply-add where the CPU has one
// (one rounding; x86 FMA3, ARM NEON) and to mul + add elsewhere; without, it is mul then add
// (two roundings), bit for bit the kernels' arithmetic before relaxed SIMD. Either way one
// module runs the same instruction on every thread, so thread-count determinism holds.
// @ts-ignore: decorator
@inline
export function madd(a: v128, b: v128, c: v128): v128 {
  if (ASC_FEATURE_RELAXED_SIMD) return f32x4.relaxed_madd(a, b, c);
  return f32x4.add(c, f32x4.mul(a, b));
}

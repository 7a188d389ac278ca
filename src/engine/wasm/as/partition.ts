// Work partition shared by every kernel: thread `tid` of `nth` owns the contiguous block
// [lo, hi) of `n` items, cut at multiples of `align`. The result of every kernel depends only
// on which items exist, never on who computes them, so outputs are identical for any thread
// count (each output element is written by exactly one thread, in a fixed reduction order).

// @ts-ignore: decorator
@inline
export function partLo(n: i32, align: i32, tid: i32, nth: i32): i32 {
  const blocks = (n + align - 1) / align;
  const per = blocks / nth;
  const rem = blocks % nth;
  const b = tid * per + min(tid, rem);
  return min(n, b * align);
}

// @ts-ignore: decorator
@inline
export function partHi(n: i32, align: i32, tid: i32, nth: i32): i32 {
  return partLo(n, align, tid + 1, nth);
}

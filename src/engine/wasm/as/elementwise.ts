// gelu_forward / gelu_backward (tanh approximation), residual_forward, and the row gather /
// scatter used to score only some positions. All elementwise or row-wise: any partition gives
// the same result.
import { partLo, partHi } from './partition';
import { tanh4, tanh1 } from './simd_math';

const S: f32 = 0.7978845608028654; // √(2/π)
const A: f32 = 0.044715;

export function geluForwardTask(inp: usize, out: usize, n: i32, tid: i32, nth: i32): void {
  const i0 = partLo(n, 4, tid, nth);
  const i1 = partHi(n, 4, tid, nth);
  const half = f32x4.splat(0.5);
  const one = f32x4.splat(1);
  const sv = f32x4.splat(S);
  const av = f32x4.splat(A);
  let i = i0;
  for (; i + 4 <= i1; i += 4) {
    const p = <usize>i << 2;
    const x = v128.load(inp + p);
    const x3 = f32x4.mul(f32x4.mul(x, x), x);
    const th = tanh4(f32x4.mul(sv, f32x4.add(x, f32x4.mul(av, x3))));
    v128.store(out + p, f32x4.mul(f32x4.mul(half, x), f32x4.add(one, th)));
  }
  for (; i < i1; i++) {
    const p = <usize>i << 2;
    const x = load<f32>(inp + p);
    store<f32>(out + p, 0.5 * x * (1 + tanh1(S * (x + A * x * x * x))));
  }
}

// @ts-ignore: decorator
@inline
function geluGrad1(x: f32): f32 {
  if (Mathf.abs(x) > 1e10) return x > 0 ? 1 : 0;
  const th = tanh1(S * (x + A * x * x * x));
  return 0.5 * (1 + th) + 0.5 * x * (1 - th * th) * S * (1 + 3 * A * x * x);
}

export function geluBackwardTask(dout: usize, inp: usize, dinp: usize, n: i32, tid: i32, nth: i32): void {
  const i0 = partLo(n, 4, tid, nth);
  const i1 = partHi(n, 4, tid, nth);
  const half = f32x4.splat(0.5);
  const one = f32x4.splat(1);
  const sv = f32x4.splat(S);
  const av = f32x4.splat(A);
  const a3 = f32x4.splat(3 * A);
  const big = f32x4.splat(1e10);
  let i = i0;
  for (; i + 4 <= i1; i += 4) {
    const p = <usize>i << 2;
    const x = v128.load(inp + p);
    const x2 = f32x4.mul(x, x);
    const th = tanh4(f32x4.mul(sv, f32x4.add(x, f32x4.mul(av, f32x4.mul(x2, x)))));
    const sech2 = f32x4.sub(one, f32x4.mul(th, th));
    let g = f32x4.add(f32x4.mul(half, f32x4.add(one, th)), f32x4.mul(f32x4.mul(f32x4.mul(half, x), sech2), f32x4.mul(sv, f32x4.add(one, f32x4.mul(a3, x2)))));
    // |x| > 1e10: the limit 1 (x > 0) or 0, as the reference.
    const huge = f32x4.gt(f32x4.abs(x), big);
    g = v128.bitselect(v128.bitselect(one, f32x4.splat(0), f32x4.gt(x, f32x4.splat(0))), g, huge);
    v128.store(dinp + p, f32x4.mul(v128.load(dout + p), g));
  }
  for (; i < i1; i++) {
    const p = <usize>i << 2;
    store<f32>(dinp + p, load<f32>(dout + p) * geluGrad1(load<f32>(inp + p)));
  }
}

/** out = a + b (out may alias a). */
export function addTask(a: usize, b: usize, out: usize, n: i32, tid: i32, nth: i32): void {
  const i0 = partLo(n, 4, tid, nth);
  const i1 = partHi(n, 4, tid, nth);
  let i = i0;
  for (; i + 4 <= i1; i += 4) {
    const p = <usize>i << 2;
    v128.store(out + p, f32x4.add(v128.load(a + p), v128.load(b + p)));
  }
  for (; i < i1; i++) {
    const p = <usize>i << 2;
    store<f32>(out + p, load<f32>(a + p) + load<f32>(b + p));
  }
}

/** dst (S,C) row s = src row idx[s]. */
export function gatherRowsTask(src: usize, idx: usize, dst: usize, Srows: i32, C: i32, tid: i32, nth: i32): void {
  const s0 = partLo(Srows, 1, tid, nth);
  const s1 = partHi(Srows, 1, tid, nth);
  for (let s = s0; s < s1; s++) memory.copy(dst + (<usize>(s * C) << 2), src + (<usize>(load<i32>(idx + (<usize>s << 2)) * C) << 2), <usize>C << 2);
}

/** dst row idx[s] += src (S,C) row s; idx must be distinct (each dst row written by one s). */
export function scatterAddRowsTask(src: usize, idx: usize, dst: usize, Srows: i32, C: i32, tid: i32, nth: i32): void {
  const s0 = partLo(Srows, 1, tid, nth);
  const s1 = partHi(Srows, 1, tid, nth);
  for (let s = s0; s < s1; s++) {
    const ps = src + (<usize>(s * C) << 2);
    const pd = dst + (<usize>(load<i32>(idx + (<usize>s << 2)) * C) << 2);
    for (let c = 0; c < C; c++) store<f32>(pd + (<usize>c << 2), load<f32>(pd + (<usize>c << 2)) + load<f32>(ps + (<usize>c << 2)));
  }
}

/** out (B·T, C) = wte[ids] + wpe[t]. Thread tid: a block of rows. */
export function encoderForwardTask(ids: usize, wte: usize, wpe: usize, out: usize, B: i32, T: i32, C: i32, tid: i32, nth: i32): void {
  const N = B * T;
  const r0 = partLo(N, 1, tid, nth);
  const r1 = partHi(N, 1, tid, nth);
  for (let r = r0; r < r1; r++) {
    const t = r % T;
    const pe = wte + (<usize>(load<i32>(ids + (<usize>r << 2)) * C) << 2);
    const pp = wpe + (<usize>(t * C) << 2);
    const po = out + (<usize>(r * C) << 2);
    for (let c = 0; c < C; c++) {
      const co = <usize>c << 2;
      store<f32>(po + co, load<f32>(pe + co) + load<f32>(pp + co));
    }
  }
}

/** dwte[ids[n]] += dout[n], dwpe[t] += dout[n], rows in increasing order; thread tid: a block of channels. */
export function encoderBackwardTask(dout: usize, ids: usize, dwte: usize, dwpe: usize, B: i32, T: i32, C: i32, tid: i32, nth: i32): void {
  const c0 = partLo(C, 1, tid, nth);
  const c1 = partHi(C, 1, tid, nth);
  const N = B * T;
  for (let r = 0; r < N; r++) {
    const t = r % T;
    const pd = dout + (<usize>(r * C) << 2);
    const pe = dwte + (<usize>(load<i32>(ids + (<usize>r << 2)) * C) << 2);
    const pp = dwpe + (<usize>(t * C) << 2);
    for (let c = c0; c < c1; c++) {
      const co = <usize>c << 2;
      const d = load<f32>(pd + co);
      store<f32>(pe + co, load<f32>(pe + co) + d);
      store<f32>(pp + co, load<f32>(pp + co) + d);
    }
  }
}

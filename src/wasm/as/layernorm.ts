// layernorm_forward / layernorm_backward (docs/KERNELS.md; llm.c formulation, ε = 1e-5).
// Rows are independent; the weight and bias gradients are sums over rows, computed with the
// channels partitioned across threads and the rows summed in increasing order.
import { partLo, partHi } from './partition';
import { hsum } from './simd_math';

const EPS: f32 = 1e-5;

/** out (N,C) = (x − mean)·rstd·w + b; saves mean (N), rstd (N). Thread tid: a block of rows. */
export function layernormForwardTask(inp: usize, w: usize, b: usize, out: usize, mean: usize, rstd: usize, N: i32, C: i32, tid: i32, nth: i32): void {
  const r0 = partLo(N, 1, tid, nth);
  const r1 = partHi(N, 1, tid, nth);
  const C4 = C & ~3;
  for (let r = r0; r < r1; r++) {
    const x = inp + (<usize>(r * C) << 2);
    let sv = f32x4.splat(0);
    let c = 0;
    for (; c < C4; c += 4) sv = f32x4.add(sv, v128.load(x + (<usize>c << 2)));
    let s: f32 = hsum(sv);
    for (; c < C; c++) s += load<f32>(x + (<usize>c << 2));
    const m: f32 = s / <f32>C;
    const mv = f32x4.splat(m);
    let qv = f32x4.splat(0);
    c = 0;
    for (; c < C4; c += 4) {
      const d = f32x4.sub(v128.load(x + (<usize>c << 2)), mv);
      qv = f32x4.add(qv, f32x4.mul(d, d));
    }
    let q: f32 = hsum(qv);
    for (; c < C; c++) {
      const d = load<f32>(x + (<usize>c << 2)) - m;
      q += d * d;
    }
    const rs: f32 = 1 / Mathf.sqrt(q / <f32>C + EPS);
    store<f32>(mean + (<usize>r << 2), m);
    store<f32>(rstd + (<usize>r << 2), rs);
    const rv = f32x4.splat(rs);
    const o = out + (<usize>(r * C) << 2);
    c = 0;
    for (; c < C4; c += 4) {
      const co = <usize>c << 2;
      const n = f32x4.mul(f32x4.sub(v128.load(x + co), mv), rv);
      v128.store(o + co, f32x4.add(f32x4.mul(n, v128.load(w + co)), v128.load(b + co)));
    }
    for (; c < C; c++) {
      const co = <usize>c << 2;
      store<f32>(o + co, (load<f32>(x + co) - m) * rs * load<f32>(w + co) + load<f32>(b + co));
    }
  }
}

/** dinp (N,C) += rstd·(g − mean(g) − n̂·mean(g·n̂)), g = w·dout. Thread tid: a block of rows. */
export function layernormBackwardDinpTask(dout: usize, inp: usize, w: usize, mean: usize, rstd: usize, dinp: usize, N: i32, C: i32, tid: i32, nth: i32): void {
  const r0 = partLo(N, 1, tid, nth);
  const r1 = partHi(N, 1, tid, nth);
  for (let r = r0; r < r1; r++) {
    const ro = <usize>(r * C) << 2;
    const m = load<f32>(mean + (<usize>r << 2));
    const rs = load<f32>(rstd + (<usize>r << 2));
    let gm: f32 = 0;
    let gnm: f32 = 0;
    for (let c = 0; c < C; c++) {
      const co = <usize>c << 2;
      const nh = (load<f32>(inp + ro + co) - m) * rs;
      const g = load<f32>(w + co) * load<f32>(dout + ro + co);
      gm += g;
      gnm += g * nh;
    }
    gm /= <f32>C;
    gnm /= <f32>C;
    for (let c = 0; c < C; c++) {
      const co = <usize>c << 2;
      const nh = (load<f32>(inp + ro + co) - m) * rs;
      const g = load<f32>(w + co) * load<f32>(dout + ro + co);
      const p = dinp + ro + co;
      store<f32>(p, load<f32>(p) + rs * (g - gm - nh * gnm));
    }
  }
}

/** dw (C) += Σ_rows dout·n̂, db (C) += Σ_rows dout. Thread tid: a block of channels. */
export function layernormBackwardDwDbTask(dout: usize, inp: usize, mean: usize, rstd: usize, dw: usize, db: usize, N: i32, C: i32, tid: i32, nth: i32): void {
  const c0 = partLo(C, 1, tid, nth);
  const c1 = partHi(C, 1, tid, nth);
  for (let c = c0; c < c1; c++) {
    const co = <usize>c << 2;
    let sw: f32 = 0;
    let sb: f32 = 0;
    for (let r = 0; r < N; r++) {
      const p = (<usize>(r * C) << 2) + co;
      const d = load<f32>(dout + p);
      sw += d * (load<f32>(inp + p) - load<f32>(mean + (<usize>r << 2))) * load<f32>(rstd + (<usize>r << 2));
      sb += d;
    }
    store<f32>(dw + co, load<f32>(dw + co) + sw);
    store<f32>(db + co, load<f32>(db + co) + sb);
  }
}

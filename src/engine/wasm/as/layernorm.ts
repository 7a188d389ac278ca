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

/**
 * dinp (N,C) += rstd·(g − mean(g) − n̂·mean(g·n̂)), g = w·dout, n̂ = (x − mean)·rstd. Thread tid:
 * a block of rows; the two means are summed in 4 lanes, then across (as the forward's).
 */
export function layernormBackwardDinpTask(dout: usize, inp: usize, w: usize, mean: usize, rstd: usize, dinp: usize, N: i32, C: i32, tid: i32, nth: i32): void {
  const r0 = partLo(N, 1, tid, nth);
  const r1 = partHi(N, 1, tid, nth);
  const C4 = C & ~3;
  for (let r = r0; r < r1; r++) {
    const ro = <usize>(r * C) << 2;
    const m = load<f32>(mean + (<usize>r << 2));
    const rs = load<f32>(rstd + (<usize>r << 2));
    const mv = f32x4.splat(m);
    const rv = f32x4.splat(rs);
    let gmv = f32x4.splat(0);
    let gnv = f32x4.splat(0);
    let c = 0;
    for (; c < C4; c += 4) {
      const co = <usize>c << 2;
      const nh = f32x4.mul(f32x4.sub(v128.load(inp + ro + co), mv), rv);
      const g = f32x4.mul(v128.load(w + co), v128.load(dout + ro + co));
      gmv = f32x4.add(gmv, g);
      gnv = f32x4.add(gnv, f32x4.mul(g, nh));
    }
    let gm: f32 = hsum(gmv);
    let gnm: f32 = hsum(gnv);
    for (; c < C; c++) {
      const co = <usize>c << 2;
      const nh = (load<f32>(inp + ro + co) - m) * rs;
      const g = load<f32>(w + co) * load<f32>(dout + ro + co);
      gm += g;
      gnm += g * nh;
    }
    gm /= <f32>C;
    gnm /= <f32>C;
    const gmb = f32x4.splat(gm);
    const gnb = f32x4.splat(gnm);
    c = 0;
    for (; c < C4; c += 4) {
      const co = <usize>c << 2;
      const nh = f32x4.mul(f32x4.sub(v128.load(inp + ro + co), mv), rv);
      const g = f32x4.mul(v128.load(w + co), v128.load(dout + ro + co));
      const p = dinp + ro + co;
      v128.store(p, f32x4.add(v128.load(p), f32x4.mul(rv, f32x4.sub(f32x4.sub(g, gmb), f32x4.mul(nh, gnb)))));
    }
    for (; c < C; c++) {
      const co = <usize>c << 2;
      const nh = (load<f32>(inp + ro + co) - m) * rs;
      const g = load<f32>(w + co) * load<f32>(dout + ro + co);
      const p = dinp + ro + co;
      store<f32>(p, load<f32>(p) + rs * (g - gm - nh * gnm));
    }
  }
}

/**
 * dw (C) += Σ_rows dout·n̂, db (C) += Σ_rows dout, each channel's rows summed in increasing order.
 * Thread tid: a block of channels (a multiple of 4), walked 16 at a time across the rows.
 */
export function layernormBackwardDwDbTask(dout: usize, inp: usize, mean: usize, rstd: usize, dw: usize, db: usize, N: i32, C: i32, tid: i32, nth: i32): void {
  const c0 = partLo(C, 4, tid, nth);
  const c1 = partHi(C, 4, tid, nth);
  let c = c0;
  for (; c + 16 <= c1; c += 16) {
    const co = <usize>c << 2;
    let w0 = f32x4.splat(0), w1 = f32x4.splat(0), w2 = f32x4.splat(0), w3 = f32x4.splat(0);
    let b0 = f32x4.splat(0), b1 = f32x4.splat(0), b2 = f32x4.splat(0), b3 = f32x4.splat(0);
    for (let r = 0; r < N; r++) {
      const p = (<usize>(r * C) << 2) + co;
      const m = f32x4.splat(load<f32>(mean + (<usize>r << 2)));
      const rs = f32x4.splat(load<f32>(rstd + (<usize>r << 2)));
      const d0 = v128.load(dout + p), d1 = v128.load(dout + p + 16), d2 = v128.load(dout + p + 32), d3 = v128.load(dout + p + 48);
      w0 = f32x4.add(w0, f32x4.mul(f32x4.mul(d0, f32x4.sub(v128.load(inp + p), m)), rs));
      w1 = f32x4.add(w1, f32x4.mul(f32x4.mul(d1, f32x4.sub(v128.load(inp + p + 16), m)), rs));
      w2 = f32x4.add(w2, f32x4.mul(f32x4.mul(d2, f32x4.sub(v128.load(inp + p + 32), m)), rs));
      w3 = f32x4.add(w3, f32x4.mul(f32x4.mul(d3, f32x4.sub(v128.load(inp + p + 48), m)), rs));
      b0 = f32x4.add(b0, d0); b1 = f32x4.add(b1, d1); b2 = f32x4.add(b2, d2); b3 = f32x4.add(b3, d3);
    }
    v128.store(dw + co, f32x4.add(v128.load(dw + co), w0)); v128.store(dw + co + 16, f32x4.add(v128.load(dw + co + 16), w1));
    v128.store(dw + co + 32, f32x4.add(v128.load(dw + co + 32), w2)); v128.store(dw + co + 48, f32x4.add(v128.load(dw + co + 48), w3));
    v128.store(db + co, f32x4.add(v128.load(db + co), b0)); v128.store(db + co + 16, f32x4.add(v128.load(db + co + 16), b1));
    v128.store(db + co + 32, f32x4.add(v128.load(db + co + 32), b2)); v128.store(db + co + 48, f32x4.add(v128.load(db + co + 48), b3));
  }
  for (; c < c1; c++) {
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

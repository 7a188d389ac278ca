// matmul_forward / matmul_backward on WebAssembly SIMD: one register-tiled GEMM,
//   C (n, m) = init + Σ_k A (n, k) · B (k, m),
// with A read through strides (so Aᵀ is free), B and C row-major. The model's products map
// onto it (docs/KERNELS.md "Model"; PyTorch nn.Linear layout, W is (M, K)):
//   forward   out  (N,M) = inp (N,K) · Wᵀ     → B = Wᵀ, a transposed copy kept per weight
//   backward  dinp (N,K) = dout (N,M) · W     → B = W
//             dW   (M,K) += doutᵀ (M,N) · inp → A = dout read transposed, B = inp
// Every multiply-add is `madd` (simd_math.ts): fused in the relaxed-SIMD build.
// Tiles of 4 rows × 8 columns (8 f32x4 accumulators, 11 live v128 registers: fits x86's 16
// xmm). The reduction dimension is walked in blocks of KB with the running sums stored in C
// between blocks: the f32 additions happen in exactly the order k = 0, 1, …, K−1 for every
// element, whatever the blocking or the thread count, so results are reproducible bit for bit.
import { partLo, partHi } from './partition';
import { madd } from './simd_math';

const KB: i32 = 256;
// One panel per thread (threads ≤ 64) for packing a k-strided A (gemmRows): 4 rows × KB floats,
// in the area right after the module's static data; JS allocates above it (index.ts heapBase).
const PACK_BYTES: i32 = 4 * KB * 4;
export const PACK_AREA_BYTES: usize = 64 * PACK_BYTES;
// @ts-ignore: decorator
@inline
export function packArea(): usize {
  return (__heap_base + 15) & ~15;
}

// init: 0 = zero, 1 = bias[m], 2 = C's current value (accumulate)
// @ts-ignore: decorator
@inline
function initVal(C: usize, bias: usize, init: i32, m: i32): v128 {
  if (init == 1) return v128.load(bias + (<usize>m << 2));
  if (init == 2) return v128.load(C + (<usize>m << 2));
  return f32x4.splat(0);
}

function tile4x8(A: usize, sar: i32, sak: i32, B: usize, ldb: i32, C: usize, ldc: i32, bias: usize, init: i32, n: i32, m: i32, k0: i32, k1: i32): void {
  const c0 = C + (<usize>(n * ldc) << 2);
  const c1 = c0 + (<usize>ldc << 2);
  const c2 = c1 + (<usize>ldc << 2);
  const c3 = c2 + (<usize>ldc << 2);
  let a00: v128, a01: v128, a10: v128, a11: v128, a20: v128, a21: v128, a30: v128, a31: v128;
  if (k0 == 0 && init != 2) {
    a00 = initVal(c0, bias, init, m); a01 = initVal(c0, bias, init, m + 4);
    a10 = a00; a11 = a01; a20 = a00; a21 = a01; a30 = a00; a31 = a01;
  } else {
    const mo = <usize>m << 2;
    a00 = v128.load(c0 + mo); a01 = v128.load(c0 + mo + 16);
    a10 = v128.load(c1 + mo); a11 = v128.load(c1 + mo + 16);
    a20 = v128.load(c2 + mo); a21 = v128.load(c2 + mo + 16);
    a30 = v128.load(c3 + mo); a31 = v128.load(c3 + mo + 16);
  }
  let pa = A + (<usize>(n * sar + k0 * sak) << 2);
  const dr = <usize>sar << 2;
  const dk = <usize>sak << 2;
  let pb = B + (<usize>(k0 * ldb + m) << 2);
  const db = <usize>ldb << 2;
  for (let k = k0; k < k1; k++) {
    const b0 = v128.load(pb);
    const b1 = v128.load(pb + 16);
    const x0 = f32x4.splat(load<f32>(pa));
    const x1 = f32x4.splat(load<f32>(pa + dr));
    const x2 = f32x4.splat(load<f32>(pa + 2 * dr));
    const x3 = f32x4.splat(load<f32>(pa + 3 * dr));
    a00 = madd(x0, b0, a00); a01 = madd(x0, b1, a01);
    a10 = madd(x1, b0, a10); a11 = madd(x1, b1, a11);
    a20 = madd(x2, b0, a20); a21 = madd(x2, b1, a21);
    a30 = madd(x3, b0, a30); a31 = madd(x3, b1, a31);
    pa += dk;
    pb += db;
  }
  const mo = <usize>m << 2;
  v128.store(c0 + mo, a00); v128.store(c0 + mo + 16, a01);
  v128.store(c1 + mo, a10); v128.store(c1 + mo + 16, a11);
  v128.store(c2 + mo, a20); v128.store(c2 + mo + 16, a21);
  v128.store(c3 + mo, a30); v128.store(c3 + mo + 16, a31);
}

function tile1x8(A: usize, sar: i32, sak: i32, B: usize, ldb: i32, C: usize, ldc: i32, bias: usize, init: i32, n: i32, m: i32, k0: i32, k1: i32): void {
  const c0 = C + (<usize>(n * ldc) << 2);
  const mo = <usize>m << 2;
  let a0: v128, a1: v128;
  if (k0 == 0 && init != 2) { a0 = initVal(c0, bias, init, m); a1 = initVal(c0, bias, init, m + 4); }
  else { a0 = v128.load(c0 + mo); a1 = v128.load(c0 + mo + 16); }
  let pa = A + (<usize>(n * sar + k0 * sak) << 2);
  const dk = <usize>sak << 2;
  let pb = B + (<usize>(k0 * ldb + m) << 2);
  const db = <usize>ldb << 2;
  for (let k = k0; k < k1; k++) {
    const x = f32x4.splat(load<f32>(pa));
    a0 = madd(x, v128.load(pb), a0);
    a1 = madd(x, v128.load(pb + 16), a1);
    pa += dk;
    pb += db;
  }
  v128.store(c0 + mo, a0); v128.store(c0 + mo + 16, a1);
}

// Fewer than 4 rows (a decode step's 1–2 rows per thread, row tails): tile1x8 would keep only 2
// accumulator chains busy, so each k would wait on the multiply-add latency (~4 cycles) instead
// of the two FMA ports; these wider tiles keep 8 independent chains, as tile4x8 does. The sums
// per element are the same madd chain in k order, so every tile shape gives the same bits.
function tile2x16(A: usize, sar: i32, sak: i32, B: usize, ldb: i32, C: usize, ldc: i32, bias: usize, init: i32, n: i32, m: i32, k0: i32, k1: i32): void {
  const c0 = C + (<usize>(n * ldc) << 2);
  const c1 = c0 + (<usize>ldc << 2);
  const mo = <usize>m << 2;
  let a00: v128, a01: v128, a02: v128, a03: v128, a10: v128, a11: v128, a12: v128, a13: v128;
  if (k0 == 0 && init != 2) {
    a00 = initVal(c0, bias, init, m); a01 = initVal(c0, bias, init, m + 4);
    a02 = initVal(c0, bias, init, m + 8); a03 = initVal(c0, bias, init, m + 12);
    a10 = a00; a11 = a01; a12 = a02; a13 = a03;
  } else {
    a00 = v128.load(c0 + mo); a01 = v128.load(c0 + mo + 16); a02 = v128.load(c0 + mo + 32); a03 = v128.load(c0 + mo + 48);
    a10 = v128.load(c1 + mo); a11 = v128.load(c1 + mo + 16); a12 = v128.load(c1 + mo + 32); a13 = v128.load(c1 + mo + 48);
  }
  let pa = A + (<usize>(n * sar + k0 * sak) << 2);
  const dr = <usize>sar << 2;
  const dk = <usize>sak << 2;
  let pb = B + (<usize>(k0 * ldb + m) << 2);
  const db = <usize>ldb << 2;
  for (let k = k0; k < k1; k++) {
    const b0 = v128.load(pb);
    const b1 = v128.load(pb + 16);
    const b2 = v128.load(pb + 32);
    const b3 = v128.load(pb + 48);
    const x0 = f32x4.splat(load<f32>(pa));
    const x1 = f32x4.splat(load<f32>(pa + dr));
    a00 = madd(x0, b0, a00); a01 = madd(x0, b1, a01); a02 = madd(x0, b2, a02); a03 = madd(x0, b3, a03);
    a10 = madd(x1, b0, a10); a11 = madd(x1, b1, a11); a12 = madd(x1, b2, a12); a13 = madd(x1, b3, a13);
    pa += dk;
    pb += db;
  }
  v128.store(c0 + mo, a00); v128.store(c0 + mo + 16, a01); v128.store(c0 + mo + 32, a02); v128.store(c0 + mo + 48, a03);
  v128.store(c1 + mo, a10); v128.store(c1 + mo + 16, a11); v128.store(c1 + mo + 32, a12); v128.store(c1 + mo + 48, a13);
}

function tile1x32(A: usize, sar: i32, sak: i32, B: usize, ldb: i32, C: usize, ldc: i32, bias: usize, init: i32, n: i32, m: i32, k0: i32, k1: i32): void {
  const c0 = C + (<usize>(n * ldc) << 2);
  const mo = <usize>m << 2;
  let a0: v128, a1: v128, a2: v128, a3: v128, a4: v128, a5: v128, a6: v128, a7: v128;
  if (k0 == 0 && init != 2) {
    a0 = initVal(c0, bias, init, m); a1 = initVal(c0, bias, init, m + 4);
    a2 = initVal(c0, bias, init, m + 8); a3 = initVal(c0, bias, init, m + 12);
    a4 = initVal(c0, bias, init, m + 16); a5 = initVal(c0, bias, init, m + 20);
    a6 = initVal(c0, bias, init, m + 24); a7 = initVal(c0, bias, init, m + 28);
  } else {
    a0 = v128.load(c0 + mo); a1 = v128.load(c0 + mo + 16); a2 = v128.load(c0 + mo + 32); a3 = v128.load(c0 + mo + 48);
    a4 = v128.load(c0 + mo + 64); a5 = v128.load(c0 + mo + 80); a6 = v128.load(c0 + mo + 96); a7 = v128.load(c0 + mo + 112);
  }
  let pa = A + (<usize>(n * sar + k0 * sak) << 2);
  const dk = <usize>sak << 2;
  let pb = B + (<usize>(k0 * ldb + m) << 2);
  const db = <usize>ldb << 2;
  for (let k = k0; k < k1; k++) {
    const x = f32x4.splat(load<f32>(pa));
    a0 = madd(x, v128.load(pb), a0); a1 = madd(x, v128.load(pb + 16), a1);
    a2 = madd(x, v128.load(pb + 32), a2); a3 = madd(x, v128.load(pb + 48), a3);
    a4 = madd(x, v128.load(pb + 64), a4); a5 = madd(x, v128.load(pb + 80), a5);
    a6 = madd(x, v128.load(pb + 96), a6); a7 = madd(x, v128.load(pb + 112), a7);
    pa += dk;
    pb += db;
  }
  v128.store(c0 + mo, a0); v128.store(c0 + mo + 16, a1); v128.store(c0 + mo + 32, a2); v128.store(c0 + mo + 48, a3);
  v128.store(c0 + mo + 64, a4); v128.store(c0 + mo + 80, a5); v128.store(c0 + mo + 96, a6); v128.store(c0 + mo + 112, a7);
}

function tile4x4(A: usize, sar: i32, sak: i32, B: usize, ldb: i32, C: usize, ldc: i32, bias: usize, init: i32, n: i32, m: i32, k0: i32, k1: i32): void {
  const c0 = C + (<usize>(n * ldc) << 2);
  const c1 = c0 + (<usize>ldc << 2);
  const c2 = c1 + (<usize>ldc << 2);
  const c3 = c2 + (<usize>ldc << 2);
  const mo = <usize>m << 2;
  let a0: v128, a1: v128, a2: v128, a3: v128;
  if (k0 == 0 && init != 2) { a0 = initVal(c0, bias, init, m); a1 = a0; a2 = a0; a3 = a0; }
  else { a0 = v128.load(c0 + mo); a1 = v128.load(c1 + mo); a2 = v128.load(c2 + mo); a3 = v128.load(c3 + mo); }
  let pa = A + (<usize>(n * sar + k0 * sak) << 2);
  const dr = <usize>sar << 2;
  const dk = <usize>sak << 2;
  let pb = B + (<usize>(k0 * ldb + m) << 2);
  const db = <usize>ldb << 2;
  for (let k = k0; k < k1; k++) {
    const b = v128.load(pb);
    a0 = madd(f32x4.splat(load<f32>(pa)), b, a0);
    a1 = madd(f32x4.splat(load<f32>(pa + dr)), b, a1);
    a2 = madd(f32x4.splat(load<f32>(pa + 2 * dr)), b, a2);
    a3 = madd(f32x4.splat(load<f32>(pa + 3 * dr)), b, a3);
    pa += dk;
    pb += db;
  }
  v128.store(c0 + mo, a0); v128.store(c1 + mo, a1); v128.store(c2 + mo, a2); v128.store(c3 + mo, a3);
}

function tile1x4(A: usize, sar: i32, sak: i32, B: usize, ldb: i32, C: usize, ldc: i32, bias: usize, init: i32, n: i32, m: i32, k0: i32, k1: i32): void {
  const c0 = C + (<usize>(n * ldc) << 2);
  const mo = <usize>m << 2;
  let a0: v128 = k0 == 0 && init != 2 ? initVal(c0, bias, init, m) : v128.load(c0 + mo);
  let pa = A + (<usize>(n * sar + k0 * sak) << 2);
  const dk = <usize>sak << 2;
  let pb = B + (<usize>(k0 * ldb + m) << 2);
  const db = <usize>ldb << 2;
  for (let k = k0; k < k1; k++) {
    a0 = madd(f32x4.splat(load<f32>(pa)), v128.load(pb), a0);
    pa += dk;
    pb += db;
  }
  v128.store(c0 + mo, a0);
}

// A column tail (M % 4 columns) in scalar f32, same order of additions.
function tile1x1(A: usize, sar: i32, sak: i32, B: usize, ldb: i32, C: usize, ldc: i32, bias: usize, init: i32, n: i32, m: i32, k0: i32, k1: i32): void {
  const pc = C + (<usize>(n * ldc + m) << 2);
  let s: f32 = k0 == 0 && init != 2 ? (init == 1 ? load<f32>(bias + (<usize>m << 2)) : 0) : load<f32>(pc);
  let pa = A + (<usize>(n * sar + k0 * sak) << 2);
  const dk = <usize>sak << 2;
  let pb = B + (<usize>(k0 * ldb + m) << 2);
  const db = <usize>ldb << 2;
  for (let k = k0; k < k1; k++) {
    s += load<f32>(pa) * load<f32>(pb);
    pa += dk;
    pb += db;
  }
  store<f32>(pc, s);
}

/**
 * Rows [n0, n1) of C (n, m) = init + A·B. K = 0 writes init only.
 * A (n,k) at A + 4·(n·sar + k·sak); B (K, M) row stride ldb; C (·, M) row stride ldc.
 * pack: 4·KB floats of scratch (0: none). With it, an A that is strided along k (sak ≠ 1: a
 * weight gradient's doutᵀ) is copied per 4-row block and k-block into a k-major panel first:
 * read in place, every k touches a new cache line at a power-of-two stride (512 B to 4 KB), and
 * those lines all map to a few L1 sets, so the block's A is evicted before the next column tile
 * reuses it. The copy moves values only, so the sums and their order are unchanged.
 */
export function gemmRows(A: usize, sar: i32, sak: i32, B: usize, ldb: i32, C: usize, ldc: i32, bias: usize, init: i32, n0: i32, n1: i32, M: i32, K: i32, pack: usize): void {
  if (K == 0) {
    for (let n = n0; n < n1; n++) for (let m = 0; m < M; m++) {
      const pc = C + (<usize>(n * ldc + m) << 2);
      if (init == 0) store<f32>(pc, 0);
      else if (init == 1) store<f32>(pc, load<f32>(bias + (<usize>m << 2)));
    }
    return;
  }
  const M8 = M & ~7;
  const M4 = M & ~3;
  for (let k0 = 0; k0 < K; k0 += KB) {
    const k1 = min(K, k0 + KB);
    let n = n0;
    for (; n + 4 <= n1; n += 4) {
      let Ap = A, sr = sar, sk = sak;
      if (pack != 0 && sak != 1) {
        packPanel(A, sar, sak, n, k0, k1, pack);
        // The panel holds (r, k) at pack + 4·(4·(k − k0) + r); the tiles address A at
        // Ap + 4·(n'·1 + k·4) for n' = n + r, so Ap = pack − 4·(n + 4·k0) (u32 wrap-around).
        Ap = pack - (<usize>(n + 4 * k0) << 2);
        sr = 1;
        sk = 4;
      }
      let m = 0;
      for (; m < M8; m += 8) tile4x8(Ap, sr, sk, B, ldb, C, ldc, bias, init, n, m, k0, k1);
      if (m < M4) { tile4x4(Ap, sr, sk, B, ldb, C, ldc, bias, init, n, m, k0, k1); m += 4; }
      for (; m < M; m++) for (let r = 0; r < 4; r++) tile1x1(Ap, sr, sk, B, ldb, C, ldc, bias, init, n + r, m, k0, k1);
    }
    for (; n + 2 <= n1; n += 2) {
      let m = 0;
      for (; m + 16 <= M; m += 16) tile2x16(A, sar, sak, B, ldb, C, ldc, bias, init, n, m, k0, k1);
      for (; m < M8; m += 8) for (let r = 0; r < 2; r++) tile1x8(A, sar, sak, B, ldb, C, ldc, bias, init, n + r, m, k0, k1);
      for (; m < M4; m += 4) for (let r = 0; r < 2; r++) tile1x4(A, sar, sak, B, ldb, C, ldc, bias, init, n + r, m, k0, k1);
      for (; m < M; m++) for (let r = 0; r < 2; r++) tile1x1(A, sar, sak, B, ldb, C, ldc, bias, init, n + r, m, k0, k1);
    }
    for (; n < n1; n++) {
      let m = 0;
      for (; m + 32 <= M; m += 32) tile1x32(A, sar, sak, B, ldb, C, ldc, bias, init, n, m, k0, k1);
      for (; m < M8; m += 8) tile1x8(A, sar, sak, B, ldb, C, ldc, bias, init, n, m, k0, k1);
      if (m < M4) { tile1x4(A, sar, sak, B, ldb, C, ldc, bias, init, n, m, k0, k1); m += 4; }
      for (; m < M; m++) tile1x1(A, sar, sak, B, ldb, C, ldc, bias, init, n, m, k0, k1);
    }
  }
}

/** A's rows n..n+3, k in [k0, k1), into the k-major panel dst (4 floats per k). */
function packPanel(A: usize, sar: i32, sak: i32, n: i32, k0: i32, k1: i32, dst: usize): void {
  let src = A + (<usize>(n * sar + k0 * sak) << 2);
  const dk = <usize>sak << 2;
  if (sar == 1) {
    for (let k = k0; k < k1; k++) {
      v128.store(dst, v128.load(src));
      src += dk;
      dst += 16;
    }
    return;
  }
  const dr = <usize>sar << 2;
  for (let k = k0; k < k1; k++) {
    store<f32>(dst, load<f32>(src));
    store<f32>(dst + 4, load<f32>(src + dr));
    store<f32>(dst + 8, load<f32>(src + 2 * dr));
    store<f32>(dst + 12, load<f32>(src + 3 * dr));
    src += dk;
    dst += 16;
  }
}

/** Thread tid's packing panel for gemmRows (0 beyond 64 threads: no packing). */
function packPanelOf(tid: i32): usize {
  return tid < 64 ? packArea() + <usize>(tid * PACK_BYTES) : 0;
}

/** Thread `tid` of `nth`: its block of rows (multiples of 4) of the GEMM. */
export function gemmTask(A: usize, sar: i32, sak: i32, B: usize, ldb: i32, C: usize, ldc: i32, bias: usize, init: i32, N: i32, M: i32, K: i32, tid: i32, nth: i32): void {
  gemmRows(A, sar, sak, B, ldb, C, ldc, bias, init, partLo(N, 4, tid, nth), partHi(N, 4, tid, nth), M, K, packPanelOf(tid));
}

/** dst (C, R) = srcᵀ for src (R, C); thread tid owns a block of dst rows. */
export function transposeTask(src: usize, dst: usize, R: i32, Cc: i32, tid: i32, nth: i32): void {
  const c0 = partLo(Cc, 1, tid, nth);
  const c1 = partHi(Cc, 1, tid, nth);
  for (let c = c0; c < c1; c++) {
    const pd = dst + (<usize>(c * R) << 2);
    for (let r = 0; r < R; r++) store<f32>(pd + (<usize>r << 2), load<f32>(src + (<usize>(r * Cc + c) << 2)));
  }
}

/** db (M) += Σ_n dout (n, m), rows in increasing order; thread tid owns a block of m (multiple of 4). */
export function biasGradTask(dout: usize, db: usize, N: i32, M: i32, tid: i32, nth: i32): void {
  const m0 = partLo(M, 4, tid, nth);
  const m1 = partHi(M, 4, tid, nth);
  for (let n = 0; n < N; n++) {
    const row = dout + (<usize>(n * M) << 2);
    let m = m0;
    for (; m + 4 <= m1; m += 4) {
      const o = <usize>m << 2;
      v128.store(db + o, f32x4.add(v128.load(db + o), v128.load(row + o)));
    }
    for (; m < m1; m++) {
      const o = <usize>m << 2;
      store<f32>(db + o, load<f32>(db + o) + load<f32>(row + o));
    }
  }
}

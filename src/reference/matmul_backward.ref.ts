import { checkMatmulDims, type MatmulDims } from './matmul_forward.ref';
import { alloc, checkLen, type Floats } from './ref_util';

/** Parameter gradients of a matmul; both accumulated into. `dbias` null means no bias. */
interface MatmulParamGrads<A extends Floats> {
  /** (M,K) */
  dweight: A;
  /** (M), or null when the forward had no bias. */
  dbias: A | null;
}

/**
 * CPU reference of src/engine/webgpu/shaders/matmul_backward.wgsl for out = inp·weightᵀ + bias:
 * dinp = dout·weight (written), dweight += doutᵀ·inp, dbias += Σ_rows dout (accumulated).
 * Sums in f64 in increasing index order.
 * @param dout (N,M) @param inp (N,K) @param weight (M,K)
 * @param acc gradients to accumulate into; when omitted, zeros of dout's type with a (M) dbias
 *   (pass `{ dweight, dbias: null }` for a bias-free matmul)
 * @returns {dinp (N,K) fresh, dweight (M,K), dbias (M) | null}
 * @throws Error naming the argument on a size mismatch.
 */
export function matmulBackwardRef<A extends Floats>(
  dout: A,
  inp: A,
  weight: A,
  d: MatmulDims,
  acc?: MatmulParamGrads<A>,
): { dinp: A } & MatmulParamGrads<A> {
  const op = 'matmulBackwardRef';
  checkMatmulDims(op, d);
  const { N, K, M } = d;
  checkLen(op, 'dout', dout, N * M, '(N,M)');
  checkLen(op, 'inp', inp, N * K, '(N,K)');
  checkLen(op, 'weight', weight, M * K, '(M,K)');
  const dweight = acc ? acc.dweight : alloc(dout, M * K);
  const dbias = acc ? acc.dbias : alloc(dout, M);
  checkLen(op, 'acc.dweight', dweight, M * K, '(M,K)');
  if (dbias !== null) checkLen(op, 'acc.dbias', dbias, M, '(M)');
  const dinp = alloc(dout, N * K);
  // dinp[n,k] = Σ_m dout[n,m]·weight[m,k]
  const row = new Float64Array(K);
  for (let n = 0; n < N; n++) {
    row.fill(0);
    for (let m = 0; m < M; m++) {
      const g = dout[n * M + m];
      if (g === 0) continue;
      const wo = m * K;
      for (let k = 0; k < K; k++) row[k] += g * weight[wo + k];
    }
    for (let k = 0; k < K; k++) dinp[n * K + k] = row[k];
  }
  // dweight[m,k] += Σ_n dout[n,m]·inp[n,k]; dbias[m] += Σ_n dout[n,m]
  const wrow = new Float64Array(K);
  for (let m = 0; m < M; m++) {
    wrow.fill(0);
    let sb = 0;
    for (let n = 0; n < N; n++) {
      const g = dout[n * M + m];
      sb += g;
      if (g === 0) continue;
      const io = n * K;
      for (let k = 0; k < K; k++) wrow[k] += g * inp[io + k];
    }
    const wo = m * K;
    for (let k = 0; k < K; k++) dweight[wo + k] += wrow[k];
    if (dbias !== null) dbias[m] += sb;
  }
  return { dinp, dweight, dbias };
}

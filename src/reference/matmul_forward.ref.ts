import { alloc, checkDim, checkLen, type Floats } from './ref_util';

/** out (N,M) = inp (N,K) · weight (M,K)ᵀ + bias (M). */
export interface MatmulDims {
  /** Rows of inp and out (B·T). */
  N: number;
  /** Inner (input) dimension. */
  K: number;
  /** Output dimension (rows of weight). */
  M: number;
}

/** @internal */
export function checkMatmulDims(op: string, d: MatmulDims): void {
  checkDim(op, 'N', d.N);
  checkDim(op, 'K', d.K);
  checkDim(op, 'M', d.M);
}

/**
 * CPU reference of src/engine/webgpu/shaders/matmul_forward.wgsl: out = inp·weightᵀ + bias (PyTorch nn.Linear
 * layout: weight is (out_features, in_features)). Each dot product is summed in f64 over k in
 * increasing order, then rounded once.
 * @param inp (N,K)
 * @param weight (M,K)
 * @param bias (M), or null for no bias (the tied lm head)
 * @returns out (N,M)
 * @throws Error naming the argument on a size mismatch.
 */
export function matmulForwardRef<A extends Floats>(inp: A, weight: A, bias: A | null, d: MatmulDims): A {
  const op = 'matmulForwardRef';
  checkMatmulDims(op, d);
  const { N, K, M } = d;
  checkLen(op, 'inp', inp, N * K, '(N,K)');
  checkLen(op, 'weight', weight, M * K, '(M,K)');
  if (bias !== null) checkLen(op, 'bias', bias, M, '(M)');
  const out = alloc(inp, N * M);
  for (let n = 0; n < N; n++) {
    const io = n * K;
    for (let m = 0; m < M; m++) {
      const wo = m * K;
      let s = bias === null ? 0 : bias[m];
      for (let k = 0; k < K; k++) s += inp[io + k] * weight[wo + k];
      out[n * M + m] = s;
    }
  }
  return out;
}

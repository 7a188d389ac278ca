import { alloc, checkDim, checkLen, type Floats } from './ref_util';

/** Rows × channels of a LayerNorm / matmul input. */
export interface RowsDims {
  /** Rows (N = B·T flattened positions). */
  N: number;
  /** Channels normalized over. */
  C: number;
}

/** LayerNorm epsilon (docs/KERNELS.md; GPT-2 / PyTorch default). */
export const LAYERNORM_EPS = 1e-5;

/**
 * CPU reference of src/engine/webgpu/shaders/layernorm_forward.wgsl (Ba, Kiros & Hinton 2016):
 * mean = Σx/C, var = Σ(x−mean)²/C (biased, two-pass), rstd = 1/√(var + 1e-5),
 * out = (x − mean)·rstd·w + b. Statistics in f64.
 * @param inp (N,C)
 * @param w (C) gain
 * @param b (C) bias
 * @returns out (N,C), mean (N), rstd (N) (mean and rstd are saved for the backward pass)
 * @throws Error naming the argument on a size mismatch.
 */
export function layernormForwardRef<A extends Floats>(inp: A, w: A, b: A, d: RowsDims): { out: A; mean: A; rstd: A } {
  const op = 'layernormForwardRef';
  checkDim(op, 'N', d.N);
  checkDim(op, 'C', d.C);
  const { N, C } = d;
  checkLen(op, 'inp', inp, N * C, '(N,C)');
  checkLen(op, 'w', w, C, '(C)');
  checkLen(op, 'b', b, C, '(C)');
  const out = alloc(inp, N * C);
  const mean = alloc(inp, N);
  const rstd = alloc(inp, N);
  for (let i = 0; i < N; i++) {
    const o = i * C;
    let s = 0;
    for (let c = 0; c < C; c++) s += inp[o + c];
    const m = s / C;
    let v = 0;
    for (let c = 0; c < C; c++) {
      const x = inp[o + c] - m;
      v += x * x;
    }
    const r = 1 / Math.sqrt(v / C + LAYERNORM_EPS);
    for (let c = 0; c < C; c++) out[o + c] = (inp[o + c] - m) * r * w[c] + b[c];
    mean[i] = m;
    rstd[i] = r;
  }
  return { out, mean, rstd };
}

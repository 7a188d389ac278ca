import type { RowsDims } from './layernorm_forward.ref';
import { alloc, checkDim, checkLen, type Floats } from './ref_util';

/** LayerNorm gradients; all three are accumulated into. */
interface LayernormGrads<A extends Floats> {
  /** (N,C): the residual stream's gradient, accumulated into. */
  dinp: A;
  /** (C) */
  dw: A;
  /** (C) */
  db: A;
}

/**
 * CPU reference of src/engine/webgpu/shaders/layernorm_backward.wgsl. With n̂ = (x − mean)·rstd and g = w ⊙ dout:
 * dinp += rstd·(g − mean_c(g) − n̂·mean_c(g ⊙ n̂)), dw += Σ_rows dout ⊙ n̂, db += Σ_rows dout
 * (the llm.c formulation). Uses the saved mean and rstd of the forward pass; sums in f64,
 * dw/db summed over rows in increasing order and added once.
 * @param dout (N,C) @param inp (N,C) @param w (C) @param mean (N) @param rstd (N)
 * @param acc gradients to accumulate into; zeros of dout's type when omitted
 * @returns {dinp (N,C), dw (C), db (C)} (the `acc` arrays when given)
 * @throws Error naming the argument on a size mismatch.
 */
export function layernormBackwardRef<A extends Floats>(
  dout: A,
  inp: A,
  w: A,
  mean: A,
  rstd: A,
  d: RowsDims,
  acc?: LayernormGrads<A>,
): LayernormGrads<A> {
  const op = 'layernormBackwardRef';
  checkDim(op, 'N', d.N);
  checkDim(op, 'C', d.C);
  const { N, C } = d;
  checkLen(op, 'dout', dout, N * C, '(N,C)');
  checkLen(op, 'inp', inp, N * C, '(N,C)');
  checkLen(op, 'w', w, C, '(C)');
  checkLen(op, 'mean', mean, N, '(N)');
  checkLen(op, 'rstd', rstd, N, '(N)');
  const dinp = acc?.dinp ?? alloc(dout, N * C);
  const dw = acc?.dw ?? alloc(dout, C);
  const db = acc?.db ?? alloc(dout, C);
  checkLen(op, 'acc.dinp', dinp, N * C, '(N,C)');
  checkLen(op, 'acc.dw', dw, C, '(C)');
  checkLen(op, 'acc.db', db, C, '(C)');
  const sdw = new Float64Array(C);
  const sdb = new Float64Array(C);
  for (let i = 0; i < N; i++) {
    const o = i * C;
    const m = mean[i];
    const r = rstd[i];
    let gMean = 0;
    let gnMean = 0;
    for (let c = 0; c < C; c++) {
      const nh = (inp[o + c] - m) * r;
      const g = w[c] * dout[o + c];
      gMean += g;
      gnMean += g * nh;
    }
    gMean /= C;
    gnMean /= C;
    for (let c = 0; c < C; c++) {
      const nh = (inp[o + c] - m) * r;
      const g = w[c] * dout[o + c];
      sdw[c] += dout[o + c] * nh;
      sdb[c] += dout[o + c];
      dinp[o + c] += r * (g - gMean - nh * gnMean);
    }
  }
  for (let c = 0; c < C; c++) {
    dw[c] += sdw[c];
    db[c] += sdb[c];
  }
  return { dinp, dw, db };
}

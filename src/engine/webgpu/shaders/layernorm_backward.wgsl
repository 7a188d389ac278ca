// LayerNorm backward (docs/KERNELS.md; the llm.c formulation). With n̂ = (x − mean)·rstd and
// g = w ⊙ dout, per row:
//   dinp += rstd·(g − mean_c(g) − n̂·mean_c(g ⊙ n̂))           (accumulated: residual stream)
// and per channel over rows:
//   dw += Σ_rows dout ⊙ n̂,   db += Σ_rows dout                  (accumulated)
// One dispatch: invocations [0, N) each own a row (two passes over C), invocations
// [N, N + C) each own a channel and loop over the rows in increasing order. Barrier-free and
// deterministic (no atomics, fixed order). dw and db live in one gradient buffer (binding 6).

struct Params {
  N: u32, C: u32, dout_off: u32, inp_off: u32,
  w_off: u32, mean_off: u32, rstd_off: u32, dinp_off: u32,
  dw_off: u32, db_off: u32, _p0: u32, _p1: u32,
};

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> dout: array<f32>;
@group(0) @binding(2) var<storage, read> inp: array<f32>;
@group(0) @binding(3) var<storage, read> w: array<f32>;
@group(0) @binding(4) var<storage, read> mean: array<f32>;
@group(0) @binding(5) var<storage, read> rstd: array<f32>;
@group(0) @binding(6) var<storage, read_write> grads: array<f32>;
@group(0) @binding(7) var<storage, read_write> dinp: array<f32>;

override WG: u32 = 64u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  let N = params.N;
  let C = params.C;
  if (i < N) {
    let o = i * C;
    let m = mean[params.mean_off + i];
    let r = rstd[params.rstd_off + i];
    var g_mean = 0.0;
    var gn_mean = 0.0;
    for (var c = 0u; c < C; c++) {
      let nh = (inp[params.inp_off + o + c] - m) * r;
      let g = w[params.w_off + c] * dout[params.dout_off + o + c];
      g_mean += g;
      gn_mean += g * nh;
    }
    g_mean /= f32(C);
    gn_mean /= f32(C);
    for (var c = 0u; c < C; c++) {
      let nh = (inp[params.inp_off + o + c] - m) * r;
      let g = w[params.w_off + c] * dout[params.dout_off + o + c];
      dinp[params.dinp_off + o + c] += r * (g - g_mean - nh * gn_mean);
    }
    return;
  }
  let c = i - N;
  if (c >= C) { return; }
  var sw = 0.0;
  var sb = 0.0;
  for (var n = 0u; n < N; n++) {
    let d = dout[params.dout_off + n * C + c];
    let nh = (inp[params.inp_off + n * C + c] - mean[params.mean_off + n]) * rstd[params.rstd_off + n];
    sw += d * nh;
    sb += d;
  }
  grads[params.dw_off + c] += sw;
  grads[params.db_off + c] += sb;
}

// LayerNorm forward (Ba, Kiros & Hinton 2016), eps = 1e-5:
//   mean = Σx/C, var = Σ(x−mean)²/C (biased, two-pass), rstd = 1/√(var + eps),
//   out = (x − mean)·rstd·w + b; mean and rstd are saved for the backward pass.
// One invocation per row, no barriers: for the C ≤ 256 of our presets a row is a few hundred
// flops, and a cooperative (workgroup) reduction would pay a barrier per step on SwiftShader.
// The reduction order (c increasing) is fixed and independent of N.

struct Params {
  N: u32, C: u32, inp_off: u32, w_off: u32,
  b_off: u32, out_off: u32, mean_off: u32, rstd_off: u32,
  eps: f32, _p0: u32, _p1: u32, _p2: u32,
};

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> inp: array<f32>;
@group(0) @binding(2) var<storage, read> w: array<f32>;
@group(0) @binding(3) var<storage, read> b: array<f32>;
@group(0) @binding(4) var<storage, read_write> out: array<f32>;
@group(0) @binding(5) var<storage, read_write> mean: array<f32>;
@group(0) @binding(6) var<storage, read_write> rstd: array<f32>;

override WG: u32 = 64u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let row = gid.x + gid.y * nwg.x * WG;
  if (row >= p.N) { return; }
  let C = p.C;
  let o = p.inp_off + row * C;
  var s = 0.0;
  for (var c = 0u; c < C; c++) { s = s + inp[o + c]; }
  let m = s / f32(C);
  var v = 0.0;
  for (var c = 0u; c < C; c++) {
    let x = inp[o + c] - m;
    v = v + x * x;
  }
  let r = 1.0 / sqrt(v / f32(C) + p.eps);
  let oo = p.out_off + row * C;
  for (var c = 0u; c < C; c++) {
    out[oo + c] = (inp[o + c] - m) * r * w[p.w_off + c] + b[p.b_off + c];
  }
  mean[p.mean_off + row] = m;
  rstd[p.rstd_off + row] = r;
}

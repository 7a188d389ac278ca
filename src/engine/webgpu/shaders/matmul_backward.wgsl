// Matmul backward for out = inp·weightᵀ + bias (docs/KERNELS.md):
//   dinp (N,K)    = dout (N,M) · weight (M,K)       written (or accumulated, flag bit 1)
//   dweight (M,K) += doutᵀ · inp                      accumulated
//   dbias (M)     += Σ_n dout[n,:]                    accumulated (flag bit 0)
// One dispatch does both products: invocations [0, tilesDinp) compute dinp tiles, the rest
// dweight tiles. Barrier-free register tiling (WEBGPU-NOTES.md: a workgroup barrier costs ~7× on
// SwiftShader): each invocation owns a 4×4 output tile held in four vec4 registers.
// Deterministic: every output element is produced by exactly one invocation that loops over the
// reduction index in increasing order (no atomics); dweight/dbias are read-added-written once.
// Tensors live in whole-buffer bindings at element offsets (params.*_off).
// Entry points: main_vec4 (M, K and all offsets multiples of 4: vec4 loads) and main_scalar
// (any sizes: one invocation per output element).

struct Params {
  N: u32, M: u32, K: u32, flags: u32,
  dout_off: u32, inp_off: u32, w_off: u32, dinp_off: u32,
  dw_off: u32, db_off: u32, tiles_dinp: u32, _p0: u32,
};

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> dout: array<f32>;
@group(0) @binding(2) var<storage, read> inp: array<f32>;
@group(0) @binding(3) var<storage, read> weight: array<f32>;
@group(0) @binding(4) var<storage, read_write> dinp: array<f32>;
@group(0) @binding(5) var<storage, read_write> grads: array<f32>;

// vec4 views of the same bindings, used only by main_vec4 (WGSL allows two variables on one
// binding when no entry point uses both).
@group(0) @binding(1) var<storage, read> dout4: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> inp4: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> weight4: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> dinp4: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> grads4: array<vec4<f32>>;

override WG: u32 = 64u;

const HAS_BIAS: u32 = 1u;
const ACC_DINP: u32 = 2u;

@compute @workgroup_size(WG)
fn main_vec4(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  let N = params.N;
  let M4 = params.M / 4u;
  let K4 = params.K / 4u;
  if (i < params.tiles_dinp) {
    // dinp tile: rows n0..n0+3, columns 4·k4..4·k4+3.
    let k4 = i % K4;
    let n0 = (i / K4) * 4u;
    // Rows past N read row N−1 (valid memory) and are not stored.
    let r0 = (params.dout_off / 4u) + min(n0, N - 1u) * M4;
    let r1 = (params.dout_off / 4u) + min(n0 + 1u, N - 1u) * M4;
    let r2 = (params.dout_off / 4u) + min(n0 + 2u, N - 1u) * M4;
    let r3 = (params.dout_off / 4u) + min(n0 + 3u, N - 1u) * M4;
    let wb = params.w_off / 4u + k4;
    var a0 = vec4<f32>(0.0);
    var a1 = vec4<f32>(0.0);
    var a2 = vec4<f32>(0.0);
    var a3 = vec4<f32>(0.0);
    for (var m4 = 0u; m4 < M4; m4++) {
      let w0 = weight4[wb + (4u * m4) * K4];
      let w1 = weight4[wb + (4u * m4 + 1u) * K4];
      let w2 = weight4[wb + (4u * m4 + 2u) * K4];
      let w3 = weight4[wb + (4u * m4 + 3u) * K4];
      let d0 = dout4[r0 + m4];
      let d1 = dout4[r1 + m4];
      let d2 = dout4[r2 + m4];
      let d3 = dout4[r3 + m4];
      a0 += d0.x * w0 + d0.y * w1 + d0.z * w2 + d0.w * w3;
      a1 += d1.x * w0 + d1.y * w1 + d1.z * w2 + d1.w * w3;
      a2 += d2.x * w0 + d2.y * w1 + d2.z * w2 + d2.w * w3;
      a3 += d3.x * w0 + d3.y * w1 + d3.z * w2 + d3.w * w3;
    }
    let acc = (params.flags & ACC_DINP) != 0u;
    let ob = params.dinp_off / 4u + n0 * K4 + k4;
    if (acc) { a0 += dinp4[ob]; }
    dinp4[ob] = a0;
    if (n0 + 1u < N) { if (acc) { a1 += dinp4[ob + K4]; } dinp4[ob + K4] = a1; }
    if (n0 + 2u < N) { if (acc) { a2 += dinp4[ob + 2u * K4]; } dinp4[ob + 2u * K4] = a2; }
    if (n0 + 3u < N) { if (acc) { a3 += dinp4[ob + 3u * K4]; } dinp4[ob + 3u * K4] = a3; }
    return;
  }
  let j = i - params.tiles_dinp;
  if (j >= M4 * K4) { return; }
  // dweight tile: rows 4·mq..4·mq+3, columns 4·k4..4·k4+3; the k4 = 0 column also sums dbias.
  let k4 = j % K4;
  let mq = j / K4;
  var g0 = vec4<f32>(0.0);
  var g1 = vec4<f32>(0.0);
  var g2 = vec4<f32>(0.0);
  var g3 = vec4<f32>(0.0);
  var gb = vec4<f32>(0.0);
  var dptr = params.dout_off / 4u + mq;
  var iptr = params.inp_off / 4u + k4;
  for (var n = 0u; n < N; n++) {
    let d = dout4[dptr];
    let x = inp4[iptr];
    g0 += d.x * x;
    g1 += d.y * x;
    g2 += d.z * x;
    g3 += d.w * x;
    gb += d;
    dptr += M4;
    iptr += K4;
  }
  let wo = params.dw_off / 4u + (4u * mq) * K4 + k4;
  grads4[wo] += g0;
  grads4[wo + K4] += g1;
  grads4[wo + 2u * K4] += g2;
  grads4[wo + 3u * K4] += g3;
  if (k4 == 0u && (params.flags & HAS_BIAS) != 0u) {
    grads4[params.db_off / 4u + mq] += gb;
  }
}

@compute @workgroup_size(WG)
fn main_scalar(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  let N = params.N;
  let M = params.M;
  let K = params.K;
  if (i < params.tiles_dinp) {
    // One dinp element (n, k).
    let k = i % K;
    let n = i / K;
    var s = 0.0;
    for (var m = 0u; m < M; m++) {
      s += dout[params.dout_off + n * M + m] * weight[params.w_off + m * K + k];
    }
    let o = params.dinp_off + n * K + k;
    if ((params.flags & ACC_DINP) != 0u) { s += dinp[o]; }
    dinp[o] = s;
    return;
  }
  let j = i - params.tiles_dinp;
  if (j >= M * K) { return; }
  // One dweight element (m, k); k = 0 also sums dbias[m].
  let k = j % K;
  let m = j / K;
  var s = 0.0;
  var sb = 0.0;
  for (var n = 0u; n < N; n++) {
    let d = dout[params.dout_off + n * M + m];
    s += d * inp[params.inp_off + n * K + k];
    sb += d;
  }
  grads[params.dw_off + m * K + k] += s;
  if (k == 0u && (params.flags & HAS_BIAS) != 0u) {
    grads[params.db_off + m] += sb;
  }
}

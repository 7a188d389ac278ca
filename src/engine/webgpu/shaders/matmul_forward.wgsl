// Matmul forward: out (N,M) = inp (N,K) · weight (M,K)ᵀ + bias (M) [+ residual (N,M)].
//
// Barrier-free register tiling (WEBGPU-NOTES.md: on SwiftShader a workgroupBarrier costs ~7×;
// a vec4 4×4 register tile ran 10× faster than 16×16 shared-memory tiles). Each invocation
// owns a 4-row × 4-column output tile and walks k in increasing order, 4 at a time, keeping 16
// accumulators in registers. Rows and columns past N or M are clamped on load (their results
// are never stored), so the arithmetic of one output element depends only on K and its data,
// never on N: the same token gives bit-identical outputs whatever the batch shape.
//
// Entry points: `main_vec4` (K and every offset a multiple of 4: vec4 loads) and
// `main_scalar` (any K). The residual variant (HAS_RES) computes (acc + bias) + res, exactly
// the rounding of a separate matmul followed by a separate add.

struct Params {
  N: u32, K: u32, M: u32, inp_off: u32,
  w_off: u32, b_off: u32, res_off: u32, out_off: u32,
};

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> inp4: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> w4: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> inp_s: array<f32>;
@group(0) @binding(2) var<storage, read> w_s: array<f32>;
@group(0) @binding(3) var<storage, read> bias: array<f32>;
@group(0) @binding(4) var<storage, read> res: array<f32>;
@group(0) @binding(5) var<storage, read_write> out: array<f32>;

override HAS_BIAS: bool = true;
override HAS_RES: bool = false;
override WGX: u32 = 8u;
override WGY: u32 = 8u;

fn store_row(n: u32, m0: u32, acc: vec4<f32>, bv: vec4<f32>) {
  if (n >= p.N) { return; }
  var v = acc;
  if (HAS_BIAS) { v = v + bv; }
  let o = n * p.M;
  for (var j = 0u; j < 4u; j++) {
    let m = m0 + j;
    if (m >= p.M) { break; }
    var x = v[j];
    if (HAS_RES) { x = x + res[p.res_off + o + m]; }
    out[p.out_off + o + m] = x;
  }
}

fn store_tile(n0: u32, m0: u32, c0: vec4<f32>, c1: vec4<f32>, c2: vec4<f32>, c3: vec4<f32>) {
  var bv = vec4<f32>(0.0);
  if (HAS_BIAS) {
    let mm = p.M - 1u;
    bv = vec4<f32>(bias[p.b_off + min(m0, mm)], bias[p.b_off + min(m0 + 1u, mm)],
                   bias[p.b_off + min(m0 + 2u, mm)], bias[p.b_off + min(m0 + 3u, mm)]);
  }
  store_row(n0, m0, c0, bv);
  store_row(n0 + 1u, m0, c1, bv);
  store_row(n0 + 2u, m0, c2, bv);
  store_row(n0 + 3u, m0, c3, bv);
}

// The 4×4 tile lives in named registers (no private arrays: SwiftShader keeps dynamically
// indexed arrays in memory).
@compute @workgroup_size(WGX, WGY)
fn main_vec4(@builtin(global_invocation_id) gid: vec3<u32>) {
  let m0 = gid.x * 4u;
  let n0 = gid.y * 4u;
  if (m0 >= p.M || n0 >= p.N) { return; }
  let K4 = p.K / 4u;
  // Clamped row bases (vec4 units): out-of-range rows/cols re-read a valid one.
  let nn = p.N - 1u;
  let mm = p.M - 1u;
  let a0 = p.inp_off / 4u + min(n0, nn) * K4;
  let a1 = p.inp_off / 4u + min(n0 + 1u, nn) * K4;
  let a2 = p.inp_off / 4u + min(n0 + 2u, nn) * K4;
  let a3 = p.inp_off / 4u + min(n0 + 3u, nn) * K4;
  let b0 = p.w_off / 4u + min(m0, mm) * K4;
  let b1 = p.w_off / 4u + min(m0 + 1u, mm) * K4;
  let b2 = p.w_off / 4u + min(m0 + 2u, mm) * K4;
  let b3 = p.w_off / 4u + min(m0 + 3u, mm) * K4;
  var c0 = vec4<f32>(0.0);
  var c1 = vec4<f32>(0.0);
  var c2 = vec4<f32>(0.0);
  var c3 = vec4<f32>(0.0);
  for (var k = 0u; k < K4; k++) {
    let w0 = w4[b0 + k];
    let w1 = w4[b1 + k];
    let w2 = w4[b2 + k];
    let w3 = w4[b3 + k];
    let x0 = inp4[a0 + k];
    let x1 = inp4[a1 + k];
    let x2 = inp4[a2 + k];
    let x3 = inp4[a3 + k];
    c0 = c0 + vec4<f32>(dot(x0, w0), dot(x0, w1), dot(x0, w2), dot(x0, w3));
    c1 = c1 + vec4<f32>(dot(x1, w0), dot(x1, w1), dot(x1, w2), dot(x1, w3));
    c2 = c2 + vec4<f32>(dot(x2, w0), dot(x2, w1), dot(x2, w2), dot(x2, w3));
    c3 = c3 + vec4<f32>(dot(x3, w0), dot(x3, w1), dot(x3, w2), dot(x3, w3));
  }
  store_tile(n0, m0, c0, c1, c2, c3);
}

@compute @workgroup_size(WGX, WGY)
fn main_scalar(@builtin(global_invocation_id) gid: vec3<u32>) {
  let m0 = gid.x * 4u;
  let n0 = gid.y * 4u;
  if (m0 >= p.M || n0 >= p.N) { return; }
  let K = p.K;
  let nn = p.N - 1u;
  let mm = p.M - 1u;
  let a0 = p.inp_off + min(n0, nn) * K;
  let a1 = p.inp_off + min(n0 + 1u, nn) * K;
  let a2 = p.inp_off + min(n0 + 2u, nn) * K;
  let a3 = p.inp_off + min(n0 + 3u, nn) * K;
  let b0 = p.w_off + min(m0, mm) * K;
  let b1 = p.w_off + min(m0 + 1u, mm) * K;
  let b2 = p.w_off + min(m0 + 2u, mm) * K;
  let b3 = p.w_off + min(m0 + 3u, mm) * K;
  var c0 = vec4<f32>(0.0);
  var c1 = vec4<f32>(0.0);
  var c2 = vec4<f32>(0.0);
  var c3 = vec4<f32>(0.0);
  for (var k = 0u; k < K; k++) {
    let w = vec4<f32>(w_s[b0 + k], w_s[b1 + k], w_s[b2 + k], w_s[b3 + k]);
    c0 = c0 + inp_s[a0 + k] * w;
    c1 = c1 + inp_s[a1 + k] * w;
    c2 = c2 + inp_s[a2 + k] * w;
    c3 = c3 + inp_s[a3 + k] * w;
  }
  store_tile(n0, m0, c0, c1, c2, c3);
}

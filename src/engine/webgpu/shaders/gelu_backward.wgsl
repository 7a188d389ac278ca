// GELU backward (tanh approximation, docs/KERNELS.md): dinp = dout·GELU'(x),
//   GELU'(x) = 0.5(1 + tanh u) + 0.5·x·(1 − tanh²u)·√(2/π)(1 + 3·0.044715·x²),
//   u = √(2/π)(x + 0.044715x³).
// tanh's argument is clamped to ±10 (tanh(10) rounds to 1 in f32) so no implementation-defined
// overflow reaches tanh; |x| > 1e10 returns the limits 1 / 0 as the CPU reference does (x² would
// overflow). Elementwise, no barriers. dinp is written.

struct Params { n: u32, dout_off: u32, inp_off: u32, dinp_off: u32 };

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> dout: array<f32>;
@group(0) @binding(2) var<storage, read> inp: array<f32>;
@group(0) @binding(3) var<storage, read_write> dinp: array<f32>;

override WG: u32 = 256u;
const S: f32 = 0.7978845608028654; // √(2/π)

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= params.n) { return; }
  let x = inp[params.inp_off + i];
  var g: f32;
  if (abs(x) > 1e10) {
    g = select(0.0, 1.0, x > 0.0);
  } else {
    let u = clamp(S * (x + 0.044715 * x * x * x), -10.0, 10.0);
    let th = tanh(u);
    g = 0.5 * (1.0 + th) + 0.5 * x * (1.0 - th * th) * S * (1.0 + 3.0 * 0.044715 * x * x);
  }
  dinp[params.dinp_off + i] = dout[params.dout_off + i] * g;
}

// GELU forward, tanh approximation (Hendrycks & Gimpel 2016; GPT-2):
//   out = 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), elementwise over n values.
// The tanh argument is clamped to ±15 (tanh(15) rounds to 1 in f32): some tanh lowerings use
// (e^{2u}−1)/(e^{2u}+1), which is NaN for huge |u|; the clamp gives x or −0 exactly as the
// CPU reference's Math.tanh does.

struct Params { n: u32, inp_off: u32, out_off: u32, _p0: u32 };

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> inp: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

override WG: u32 = 256u;
const GELU_SCALE: f32 = 0.7978845608028654;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= p.n) { return; }
  let x = inp[p.inp_off + i];
  let u = clamp(GELU_SCALE * (x + 0.044715 * x * x * x), -15.0, 15.0);
  out[p.out_off + i] = 0.5 * x * (1.0 + tanh(u));
}

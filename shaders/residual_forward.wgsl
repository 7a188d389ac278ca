// Residual add, forward: out = a + b, elementwise over n f32 values.
// vec4 loads: each invocation handles 4 consecutive elements when n is a multiple of 4 (the
// launcher picks the scalar entry point otherwise). No barriers (WEBGPU-NOTES.md cost model).

struct Params { n: u32, _p0: u32, _p1: u32, _p2: u32 };

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

override WG: u32 = 256u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  // 2-D grid: more than 65535 workgroups are folded into y.
  let i = gid.x + gid.y * nwg.x * WG;
  if (i < params.n) {
    out[i] = a[i] + b[i];
  }
}

// Residual add, forward: out = a + b, elementwise over n f32 values (each at its element offset).
// One invocation per element, no barriers (WEBGPU-NOTES.md cost model). The transformer fuses
// its residual adds into the projection matmuls' stores; this kernel is the standalone op and
// the smallest worked example of the shader / launcher / CPU-reference triplet.

struct Params { n: u32, a_off: u32, b_off: u32, out_off: u32 };

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
    out[params.out_off + i] = a[params.a_off + i] + b[params.b_off + i];
  }
}

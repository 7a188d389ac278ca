// Cross-entropy backward for the SFT token-mean loss (docs/KERNELS.md):
//   dlogits[i,j] = scale·mask[i]·(p_ij − 1[j = a_i]),  p_ij = exp(z_ij − lse_i),
// scale = 1/Σmask (0 for an all-masked batch). Rows with mask = 0 are exactly zero.
// Elementwise over (N,V), written. `scale` is read from a storage word (scale_buf[scale_idx]) so
// it can be produced on the GPU by the forward's reduction or written by the CPU.

struct Params { N: u32, V: u32, logits_off: u32, targets_off: u32, mask_off: u32, lse_off: u32, dlogits_off: u32, scale_idx: u32 };

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> logits: array<f32>;
@group(0) @binding(2) var<storage, read> targets: array<i32>;
@group(0) @binding(3) var<storage, read> mask: array<f32>;
@group(0) @binding(4) var<storage, read> lse: array<f32>;
@group(0) @binding(5) var<storage, read> scale_buf: array<f32>;
@group(0) @binding(6) var<storage, read_write> dlogits: array<f32>;

override WG: u32 = 256u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= params.N * params.V) { return; }
  let n = i / params.V;
  let j = i % params.V;
  let g = scale_buf[params.scale_idx] * mask[params.mask_off + n];
  var d = 0.0;
  if (g != 0.0) {
    let p = exp(logits[params.logits_off + i] - lse[params.lse_off + n]);
    let onehot = select(0.0, 1.0, i32(j) == targets[params.targets_off + n]);
    d = g * (p - onehot);
  }
  dlogits[params.dlogits_off + i] = d;
}

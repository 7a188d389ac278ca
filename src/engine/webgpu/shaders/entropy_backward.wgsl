// Entropy of the full softmax at temperature τ, backward: dlogits[i,j] += dentropy[i]·(−p_ij·(log p_ij + H_i))/τ,
// log p = z/τ − lse (∂H/∂z_j = −p_j(log p_j + H)/τ). One invocation per element of (B·T, V);
// positions with dentropy = 0 (masked) are left untouched. Accumulates onto logprob_backward's
// dlogits. CPU reference: src/kernels/entropy_backward.ref.ts.

// LossParams, ROW_STATS, row_weight, expm1_c, k3, row_count: shaders/rl_loss_common.wgsl,
// prepended by the launcher (WGSL has no #include).

@group(0) @binding(0) var<uniform> P: LossParams;
@group(0) @binding(1) var<storage, read> logits: array<f32>;
@group(0) @binding(2) var<storage, read> lse: array<f32>;
@group(0) @binding(3) var<storage, read> entropy: array<f32>;
@group(0) @binding(4) var<storage, read> dentropy: array<f32>;
@group(0) @binding(5) var<storage, read_write> dlogits: array<f32>;
@group(0) @binding(6) var<storage, read> mask: array<f32>;

override WG: u32 = 256u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let e = gid.x + gid.y * nwg.x * WG;
  if (e >= P.B * P.T * P.V) { return; }
  let i = e / P.V;
  let g = dentropy[i];
  if (g == 0.0) { return; }
  let tau = P.temperature;
  let lp = logits[e] / tau - lse[i];
  dlogits[e] += -(g / tau) * exp(lp) * (lp + entropy[i]);
}

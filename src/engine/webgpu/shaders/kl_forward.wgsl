// KL(π‖π_ref) penalty, forward: per valid token the estimator of Schulman's KL note with
// x = ℓ_ref − ℓ: k1 = −x, k2 = ½x², k3 = e^x − 1 − x (≥ 0, x clamped to ±20, series near 0);
// one invocation per row writes rowStats KL_SUM (Σ k) and KL_LOSS (Σ w·k). opt = 0/1/2 selects
// k1/k2/k3. CPU reference: src/kernels/kl_forward.ref.ts.

// LossParams, ROW_STATS, row_weight, expm1_c, k3, row_count: shaders/rl_loss_common.wgsl,
// prepended by the launcher (WGSL has no #include).

@group(0) @binding(0) var<uniform> P: LossParams;
@group(0) @binding(1) var<storage, read> logprobs: array<f32>;
@group(0) @binding(2) var<storage, read> ref_logprobs: array<f32>;
@group(0) @binding(3) var<storage, read> mask: array<f32>;
@group(0) @binding(4) var<storage, read_write> row_stats: array<f32>;

override WG: u32 = 64u;

fn kl_value(kind: u32, x: f32) -> f32 {
  if (kind == 0u) { return -x; }
  if (kind == 1u) { return 0.5 * x * x; }
  return k3(x);
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let b = gid.x + gid.y * nwg.x * WG;
  if (b >= P.B) { return; }
  let w = row_weight(P, row_count(P, b));
  var s = 0.0;
  for (var t = 0u; t < P.T; t++) {
    let i = b * P.T + t;
    if (mask[i] > 0.0) { s += kl_value(P.opt, ref_logprobs[i] - logprobs[i]); }
  }
  row_stats[b * ROW_STATS + 12u] = s;
  row_stats[b * ROW_STATS + 13u] = w * s;
}

// Masked clipped surrogate, backward: dℓ = w·(−A)·ρ where the unclipped term is active, 0 where
// the clip or the dual clip is active, where |ℓ − ℓ_old| > 20 (clamp), and at masked tokens.
// Overwrites dlogprob (B,T); kl_backward adds to it; logprob_backward turns it into dlogits.
// One invocation per row (w needs the row's valid-token count). CPU reference:
// src/kernels/surrogate_backward.ref.ts.

// LossParams, ROW_STATS, row_weight, expm1_c, k3, row_count: shaders/rl_loss_common.wgsl,
// prepended by the launcher (WGSL has no #include).

@group(0) @binding(0) var<uniform> P: LossParams;
@group(0) @binding(1) var<storage, read> logprobs: array<f32>;
@group(0) @binding(2) var<storage, read> old_logprobs: array<f32>;
@group(0) @binding(3) var<storage, read> advantages: array<f32>;
@group(0) @binding(4) var<storage, read> mask: array<f32>;
@group(0) @binding(5) var<storage, read_write> dlogprob: array<f32>;

override WG: u32 = 64u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let b = gid.x + gid.y * nwg.x * WG;
  if (b >= P.B) { return; }
  let w = row_weight(P, row_count(P, b));
  for (var t = 0u; t < P.T; t++) {
    let i = b * P.T + t;
    var g = 0.0;
    if (mask[i] > 0.0) {
      let x = logprobs[i] - old_logprobs[i];
      let rho = exp(clamp(x, -LOG_RATIO_CLAMP, LOG_RATIO_CLAMP));
      let a = advantages[i];
      let l1 = -a * rho;
      let l2 = -a * clamp(rho, 1.0 - P.clip_low, 1.0 + P.clip_high);
      var flows = !(l2 > l1);
      let l = max(l1, l2);
      if (P.opt != 0u && a < 0.0 && l > -a * P.dual_clip) { flows = false; }
      if (flows && abs(x) <= LOG_RATIO_CLAMP) { g = w * (-a) * rho; }
    }
    dlogprob[i] = g;
  }
}

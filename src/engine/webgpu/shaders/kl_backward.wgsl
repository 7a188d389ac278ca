// KL(π‖π_ref) penalty, backward: dlogprob += coef·w·∂k/∂ℓ at valid tokens (accumulate, after
// surrogate_backward wrote dlogprob), with x = ℓ_ref − ℓ: ∂k1/∂ℓ = 1, ∂k2/∂ℓ = −x,
// ∂k3/∂ℓ = −(e^x − 1) (0 when |x| > 20: the clamp). One invocation per row.
// CPU reference: src/kernels/kl_backward.ref.ts.

// LossParams, ROW_STATS, row_weight, expm1_c, k3, row_count: shaders/rl_loss_common.wgsl,
// prepended by the launcher (WGSL has no #include).

@group(0) @binding(0) var<uniform> P: LossParams;
@group(0) @binding(1) var<storage, read> logprobs: array<f32>;
@group(0) @binding(2) var<storage, read> ref_logprobs: array<f32>;
@group(0) @binding(3) var<storage, read> mask: array<f32>;
@group(0) @binding(4) var<storage, read_write> dlogprob: array<f32>;

override WG: u32 = 64u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let b = gid.x + gid.y * nwg.x * WG;
  if (b >= P.B) { return; }
  let cw = P.coef * row_weight(P, row_count(P, b));
  for (var t = 0u; t < P.T; t++) {
    let i = b * P.T + t;
    if (!(mask[i] > 0.0)) { continue; }
    let x = ref_logprobs[i] - logprobs[i];
    var g = 1.0;
    if (P.opt == 1u) { g = -x; }
    if (P.opt == 2u) { g = select(0.0, -expm1_c(x), abs(x) <= LOG_RATIO_CLAMP); }
    dlogprob[i] += cw * g;
  }
}

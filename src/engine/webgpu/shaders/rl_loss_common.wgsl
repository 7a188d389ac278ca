// Shared by the RL loss shaders (surrogate, kl, value_loss, entropy; forward and backward).
// Their launchers prepend this file to the shader body, so the uniform layout (packed by
// src/rl/gpu_util.ts) and the helpers exist once. `row_count` reads the `mask` binding that
// every including shader declares.
struct LossParams {
  B: u32, T: u32, V: u32, mode: u32,        // mode: 0 token-mean, 1 seq-mean-token-mean, 2 seq-mean-token-sum-norm
  opt: u32, temperature: f32, _p1: u32, _p2: u32,   // opt: dual clip on (surrogate), estimator (kl), value clip on (value); temperature τ: entropy kernels
  clip_low: f32, clip_high: f32, dual_clip: f32, coef: f32,
  n_tokens: f32, n_seqs: f32, token_sum_norm: f32, vf_clip: f32,
};
const ROW_STATS: u32 = 24u;
const LOG_RATIO_CLAMP: f32 = 20.0;
const F32_MAX: f32 = 3.4028234663852886e38;

// Weight w of each valid token of a row with nb valid tokens (verl agg_loss, step-global counts).
fn row_weight(P: LossParams, nb: f32) -> f32 {
  var den = P.n_tokens;
  if (P.mode == 1u) { den = P.n_seqs * nb; } else if (P.mode == 2u) { den = P.n_seqs * P.token_sum_norm; }
  return select(0.0, 1.0 / den, nb > 0.0 && den > 0.0);
}

// e^x − 1 for |x| ≤ 20, by its series below 0.5 (no cancellation near 0).
fn expm1_c(x: f32) -> f32 {
  if (abs(x) < 0.5) {
    var s = 0.0;
    for (var k = 9; k >= 1; k--) { s = (s + 1.0) * (x / f32(k)); }
    return s;
  }
  return exp(x) - 1.0;
}

// k3(x) = e^x − 1 − x ≥ 0 with x clamped to ±20 (Schulman's KL note); series below |x| = 0.5.
fn k3(x_in: f32) -> f32 {
  let x = clamp(x_in, -LOG_RATIO_CLAMP, LOG_RATIO_CLAMP);
  if (abs(x) < 0.5) {
    var s = 0.0;
    for (var k = 9; k >= 2; k--) { s = (s + 1.0) * (x / f32(k)); }
    return max(0.0, s * x);
  }
  return max(0.0, exp(x) - 1.0 - x);
}

// Valid-token count of row b.
fn row_count(P: LossParams, b: u32) -> f32 {
  var nb = 0.0;
  for (var t = 0u; t < P.T; t++) { if (mask[b * P.T + t] > 0.0) { nb += 1.0; } }
  return nb;
}

// Clipped value loss, forward (PPO2 / verl compute_value_loss), against the V_old stored at
// rollout time: l = ½·max((V − R)², (V_clip − R)²), V_clip = V_old + clamp(V − V_old, ±ε_v)
// (opt = 1; opt = 0: l = ½(V − R)²). One invocation per row writes rowStats VF_LOSS (Σ w·l),
// VF_CLIP (count of active clipped branches), RET_MEAN/RET_M2 and RES_MEAN/RES_M2 (Welford, for
// the explained variance). CPU reference: src/kernels/value_loss_forward.ref.ts.

// --- shared by the RL loss shaders (packed by src/rl/gpu_params.ts; tests/unit/rl_layout.test.ts
// --- checks this block is identical in every file) ---
struct LossParams {
  B: u32, T: u32, V: u32, mode: u32,        // mode: 0 token-mean, 1 seq-mean-token-mean, 2 seq-mean-token-sum-norm
  opt: u32, _p0: u32, _p1: u32, _p2: u32,   // opt: dual clip on (surrogate), estimator (kl), value clip on (value)
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
// --- end of shared block ---

@group(0) @binding(0) var<uniform> P: LossParams;
@group(0) @binding(1) var<storage, read> values: array<f32>;
@group(0) @binding(2) var<storage, read> old_values: array<f32>;
@group(0) @binding(3) var<storage, read> returns: array<f32>;
@group(0) @binding(4) var<storage, read> mask: array<f32>;
@group(0) @binding(5) var<storage, read_write> row_stats: array<f32>;

override WG: u32 = 64u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let b = gid.x + gid.y * nwg.x * WG;
  if (b >= P.B) { return; }
  let w = row_weight(P, row_count(P, b));
  var vf = 0.0; var clipped = 0.0;
  var k = 0.0; var rmean = 0.0; var rm2 = 0.0; var emean = 0.0; var em2 = 0.0;
  for (var t = 0u; t < P.T; t++) {
    let i = b * P.T + t;
    if (!(mask[i] > 0.0)) { continue; }
    let v = values[i];
    let r = returns[i];
    let e1 = v - r;
    var l = 0.5 * e1 * e1;
    if (P.opt != 0u) {
      let e2 = old_values[i] + clamp(v - old_values[i], -P.vf_clip, P.vf_clip) - r;
      if (e2 * e2 > e1 * e1) { l = 0.5 * e2 * e2; clipped += 1.0; }
    }
    vf += w * l;
    k += 1.0;
    let dr = r - rmean;
    rmean += dr / k;
    rm2 += dr * (r - rmean);
    let res = r - v;
    let de = res - emean;
    emean += de / k;
    em2 += de * (res - emean);
  }
  let o = b * ROW_STATS;
  row_stats[o + 16u] = vf;
  row_stats[o + 17u] = clipped;
  row_stats[o + 18u] = rmean;
  row_stats[o + 19u] = rm2;
  row_stats[o + 20u] = emean;
  row_stats[o + 21u] = em2;
}

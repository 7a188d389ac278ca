// Clipped value loss, backward: dvalues = coef·w·∂l/∂V (write), ∂l/∂V = V − R on the unclipped
// branch, V_clip − R on the clipped one while |V − V_old| ≤ ε_v, else 0; 0 at masked tokens.
// One invocation per row. CPU reference: src/kernels/value_loss_backward.ref.ts.

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
@group(0) @binding(5) var<storage, read_write> dvalues: array<f32>;

override WG: u32 = 64u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let b = gid.x + gid.y * nwg.x * WG;
  if (b >= P.B) { return; }
  let cw = P.coef * row_weight(P, row_count(P, b));
  for (var t = 0u; t < P.T; t++) {
    let i = b * P.T + t;
    var g = 0.0;
    if (mask[i] > 0.0) {
      let v = values[i];
      let r = returns[i];
      let e1 = v - r;
      g = e1;
      if (P.opt != 0u) {
        let dv = v - old_values[i];
        let e2 = old_values[i] + clamp(dv, -P.vf_clip, P.vf_clip) - r;
        if (e2 * e2 > e1 * e1) { g = select(0.0, e2, dv >= -P.vf_clip && dv <= P.vf_clip); }
      }
      g = cw * g;
    }
    dvalues[i] = g;
  }
}

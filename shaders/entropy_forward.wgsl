// Entropy of the full softmax over valid tokens, forward.
//   `tokens` one invocation per position i of (B·T): if M > 0, lse = max + log Σ exp(z − max)
//            and H = −Σ p·(z − lse) (max-subtracted: finite at |z| ≈ 1e4; an underflowed p adds 0);
//            masked positions get H = lse = 0 and their logits are never read.
//   `rows`   one invocation per row: rowStats ENT_SUM (Σ H), ENT_LOSS (Σ w·H) and the loss
//            weight dentropy = ∂L/∂H = −coef·w (0 at masked tokens) for entropy_backward.
// CPU reference: src/kernels/entropy_forward.ref.ts.

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
@group(0) @binding(1) var<storage, read> logits: array<f32>;
@group(0) @binding(2) var<storage, read> mask: array<f32>;
@group(0) @binding(3) var<storage, read_write> entropy: array<f32>;
@group(0) @binding(4) var<storage, read_write> lse: array<f32>;
@group(0) @binding(5) var<storage, read_write> dentropy: array<f32>;
@group(0) @binding(6) var<storage, read_write> row_stats: array<f32>;

override WG: u32 = 64u;

@compute @workgroup_size(WG)
fn tokens(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= P.B * P.T) { return; }
  var h = 0.0;
  var l = 0.0;
  if (mask[i] > 0.0) {
    let o = i * P.V;
    var mx = -F32_MAX;
    for (var j = 0u; j < P.V; j++) { mx = max(mx, logits[o + j]); }
    var s = 0.0;
    for (var j = 0u; j < P.V; j++) { s += exp(logits[o + j] - mx); }
    l = mx + log(s);
    var pz = 0.0;
    for (var j = 0u; j < P.V; j++) {
      let lp = logits[o + j] - l;
      pz += exp(lp) * lp;
    }
    h = max(0.0, -pz);
  }
  entropy[i] = h;
  lse[i] = l;
}

@compute @workgroup_size(WG)
fn rows(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let b = gid.x + gid.y * nwg.x * WG;
  if (b >= P.B) { return; }
  let w = row_weight(P, row_count(P, b));
  var s = 0.0;
  for (var t = 0u; t < P.T; t++) {
    let i = b * P.T + t;
    var d = 0.0;
    if (mask[i] > 0.0) { s += entropy[i]; d = -P.coef * w; }
    dentropy[i] = d;
  }
  row_stats[b * ROW_STATS + 14u] = s;
  row_stats[b * ROW_STATS + 15u] = w * s;
}

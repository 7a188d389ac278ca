// Entropy of the full softmax at temperature τ (P.temperature) over valid tokens, forward.
//   `tokens` one invocation per position i of (B·T): if M > 0, x = z/τ, lse = max + log Σ exp(x − max)
//            and H = −Σ p·(x − lse) (max-subtracted: finite at |z| ≈ 1e4; an underflowed p adds 0);
//            masked positions get H = lse = 0 and their logits are never read.
//   `rows`   one invocation per row: rowStats ENT_SUM (Σ H), ENT_LOSS (Σ w·H) and the loss
//            weight dentropy = ∂L/∂H = −coef·w (0 at masked tokens) for entropy_backward.
// CPU reference: src/kernels/entropy_forward.ref.ts.

// LossParams, ROW_STATS, row_weight, expm1_c, k3, row_count: shaders/rl_loss_common.wgsl,
// prepended by the launcher (WGSL has no #include).

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
    let tau = P.temperature;
    var mx = -F32_MAX;
    for (var j = 0u; j < P.V; j++) { mx = max(mx, logits[o + j] / tau); }
    var s = 0.0;
    for (var j = 0u; j < P.V; j++) { s += exp(logits[o + j] / tau - mx); }
    l = mx + log(s);
    var pz = 0.0;
    for (var j = 0u; j < P.V; j++) {
      let lp = logits[o + j] / tau - l;
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

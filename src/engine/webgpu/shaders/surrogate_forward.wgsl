// Masked clipped surrogate, forward (PPO, Schulman et al. 2017; ε_low/ε_high as DAPO; dual clip
// only where A < 0). One invocation per row b, tokens in increasing t (deterministic): per token
//   ρ = exp(clamp(ℓ − ℓ_old, ±20)), l1 = −Aρ, l2 = −A·clip(ρ, 1−ε_low, 1+ε_high), l = max(l1, l2),
//   and with the dual clip and A < 0, l = min(l, −cA);
// writes the rowStats columns TOKENS, SEQS, PG_LOSS (Σ w·l), CLIP_LOW, CLIP_HIGH, DUAL_CLIP,
// APPROX_KL (Σ k3(ℓ − ℓ_old)), RATIO_SUM/MIN/MAX, ADV_MEAN, ADV_M2 (Welford).
// CPU reference: src/kernels/surrogate_forward.ref.ts.

// LossParams, ROW_STATS, row_weight, expm1_c, k3, row_count: shaders/rl_loss_common.wgsl,
// prepended by the launcher (WGSL has no #include).

@group(0) @binding(0) var<uniform> P: LossParams;
@group(0) @binding(1) var<storage, read> logprobs: array<f32>;
@group(0) @binding(2) var<storage, read> old_logprobs: array<f32>;
@group(0) @binding(3) var<storage, read> advantages: array<f32>;
@group(0) @binding(4) var<storage, read> mask: array<f32>;
@group(0) @binding(5) var<storage, read_write> row_stats: array<f32>;

override WG: u32 = 64u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let b = gid.x + gid.y * nwg.x * WG;
  if (b >= P.B) { return; }
  let nb = row_count(P, b);
  let w = row_weight(P, nb);
  var pg = 0.0; var low = 0.0; var high = 0.0; var dual = 0.0; var akl = 0.0;
  var rsum = 0.0; var rmin = F32_MAX; var rmax = -F32_MAX;
  var k = 0.0; var amean = 0.0; var am2 = 0.0;
  for (var t = 0u; t < P.T; t++) {
    let i = b * P.T + t;
    if (!(mask[i] > 0.0)) { continue; }
    let x = logprobs[i] - old_logprobs[i];
    let rho = exp(clamp(x, -LOG_RATIO_CLAMP, LOG_RATIO_CLAMP));
    let a = advantages[i];
    let l1 = -a * rho;
    let l2 = -a * clamp(rho, 1.0 - P.clip_low, 1.0 + P.clip_high);
    var l = l1;
    if (l2 > l1) {
      l = l2;
      if (a < 0.0) { low += 1.0; } else { high += 1.0; }
    }
    if (P.opt != 0u && a < 0.0) {
      let l3 = -a * P.dual_clip;
      if (l > l3) {
        if (l2 > l1) { low -= 1.0; }   // a token counts in one clip state only
        l = l3;
        dual += 1.0;
      }
    }
    pg += w * l;
    akl += k3(x);
    rsum += rho;
    rmin = min(rmin, rho);
    rmax = max(rmax, rho);
    k += 1.0;
    let d = a - amean;
    amean += d / k;
    am2 += d * (a - amean);
  }
  let o = b * ROW_STATS;
  row_stats[o + 0u] = nb;
  row_stats[o + 1u] = select(0.0, 1.0, nb > 0.0);
  row_stats[o + 2u] = pg;
  row_stats[o + 3u] = low;
  row_stats[o + 4u] = high;
  row_stats[o + 5u] = dual;
  row_stats[o + 6u] = akl;
  row_stats[o + 7u] = rsum;
  row_stats[o + 8u] = rmin;
  row_stats[o + 9u] = rmax;
  row_stats[o + 10u] = amean;
  row_stats[o + 11u] = am2;
}

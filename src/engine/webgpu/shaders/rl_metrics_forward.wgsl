// RL metric reductions of one optimizer step (layouts in src/rl/metrics.ts), deterministic:
//   `zero_rows`  one invocation per row: rowStats[b] = 0, RATIO_MIN = +F32_MAX, RATIO_MAX = −F32_MAX;
//   `init_acc`   acc = the same initial values (once per step);
//   `accumulate` one invocation: fold rows 0…B−1 into acc in order — sums add, min/max combine,
//                (mean, M2) pairs merge by Chan, Golub & LeVeque (1979) with TOKENS as count;
//   `finalize`   one invocation: acc + flags → the named metrics (one readback per step).
// CPU reference: src/kernels/rl_metrics_forward.ref.ts.

struct Params {
  B: u32, _p0: u32, _p1: u32, _p2: u32,
  kl_coef: f32, ent_coef: f32, vf_coef: f32, _p3: f32,
};

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> row_stats: array<f32>;
@group(0) @binding(2) var<storage, read_write> acc: array<f32>;
@group(0) @binding(3) var<storage, read> flags: array<u32>;
@group(0) @binding(4) var<storage, read_write> metrics: array<f32>;

const ROW_STATS: u32 = 24u;
const F32_MAX: f32 = 3.4028234663852886e38;
// rowStats / acc columns (src/rl/metrics.ts ROW)
const TOKENS: u32 = 0u;
const SEQS: u32 = 1u;
const PG_LOSS: u32 = 2u;
const CLIP_LOW: u32 = 3u;
const CLIP_HIGH: u32 = 4u;
const DUAL_CLIP: u32 = 5u;
const APPROX_KL: u32 = 6u;
const RATIO_SUM: u32 = 7u;
const RATIO_MIN: u32 = 8u;
const RATIO_MAX: u32 = 9u;
const ADV_MEAN: u32 = 10u;
const ADV_M2: u32 = 11u;
const KL_SUM: u32 = 12u;
const KL_LOSS: u32 = 13u;
const ENT_SUM: u32 = 14u;
const ENT_LOSS: u32 = 15u;
const VF_LOSS: u32 = 16u;
const VF_CLIP: u32 = 17u;
const RET_MEAN: u32 = 18u;
const RET_M2: u32 = 19u;
const RES_MEAN: u32 = 20u;
const RES_M2: u32 = 21u;

override WG: u32 = 64u;

fn init_value(k: u32) -> f32 {
  if (k == RATIO_MIN) { return F32_MAX; }
  if (k == RATIO_MAX) { return -F32_MAX; }
  return 0.0;
}

@compute @workgroup_size(WG)
fn zero_rows(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let b = gid.x + gid.y * nwg.x * WG;
  if (b >= params.B) { return; }
  for (var k = 0u; k < ROW_STATS; k++) { row_stats[b * ROW_STATS + k] = init_value(k); }
}

@compute @workgroup_size(1)
fn init_acc() {
  for (var k = 0u; k < ROW_STATS; k++) { acc[k] = init_value(k); }
}

fn is_pair_slot(k: u32) -> bool {
  return k == ADV_MEAN || k == ADV_M2 || k == RET_MEAN || k == RET_M2 || k == RES_MEAN || k == RES_M2;
}

@compute @workgroup_size(1)
fn accumulate() {
  for (var b = 0u; b < params.B; b++) {
    let o = b * ROW_STATS;
    let nb = row_stats[o + TOKENS];
    if (!(nb > 0.0)) { continue; }
    let na = acc[TOKENS];
    let n = na + nb;
    // (mean, M2) pairs: ADV (10, 11), RET (18, 19), RES (20, 21)
    var mslots = array<u32, 3>(ADV_MEAN, RET_MEAN, RES_MEAN);
    for (var p = 0u; p < 3u; p++) {
      let mi = mslots[p];
      let delta = row_stats[o + mi] - acc[mi];
      acc[mi] = acc[mi] + delta * nb / n;
      acc[mi + 1u] = acc[mi + 1u] + row_stats[o + mi + 1u] + delta * delta * na * nb / n;
    }
    for (var k = 0u; k < ROW_STATS; k++) {
      if (k == RATIO_MIN) { acc[k] = min(acc[k], row_stats[o + k]); }
      else if (k == RATIO_MAX) { acc[k] = max(acc[k], row_stats[o + k]); }
      else if (!is_pair_slot(k)) { acc[k] = acc[k] + row_stats[o + k]; }
    }
  }
}

@compute @workgroup_size(1)
fn finalize() {
  let n = acc[TOKENS];
  let inv = select(0.0, 1.0 / n, n > 0.0);
  let f = flags[0];
  metrics[0] = acc[PG_LOSS] + params.kl_coef * acc[KL_LOSS] - params.ent_coef * acc[ENT_LOSS] + params.vf_coef * acc[VF_LOSS];
  metrics[1] = acc[PG_LOSS];
  metrics[2] = acc[VF_LOSS];
  metrics[3] = acc[KL_SUM] * inv;
  metrics[4] = acc[ENT_SUM] * inv;
  metrics[5] = acc[APPROX_KL] * inv;
  metrics[6] = acc[CLIP_LOW] * inv;
  metrics[7] = acc[CLIP_HIGH] * inv;
  metrics[8] = acc[DUAL_CLIP] * inv;
  metrics[9] = acc[VF_CLIP] * inv;
  metrics[10] = select(1.0, acc[RATIO_SUM] * inv, n > 0.0);
  metrics[11] = select(1.0, acc[RATIO_MIN], n > 0.0);
  metrics[12] = select(1.0, acc[RATIO_MAX], n > 0.0);
  metrics[13] = acc[ADV_MEAN];
  metrics[14] = select(0.0, sqrt(max(acc[ADV_M2], 0.0) / (n - 1.0)), n > 1.0);
  let var_r = acc[RET_M2];
  metrics[15] = select(0.0, 1.0 - acc[RES_M2] / var_r, var_r > 0.0);
  metrics[16] = acc[RET_MEAN];
  metrics[17] = n;
  metrics[18] = acc[SEQS];
  metrics[19] = 0.0;                        // gradNorm: the trainer copies its norm here
  metrics[20] = select(0.0, 1.0, f != 0u);  // skipped
  metrics[21] = f32(f);                     // nonfiniteMask
  metrics[22] = 0.0;
  metrics[23] = 0.0;
}

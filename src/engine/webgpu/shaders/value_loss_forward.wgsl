// Clipped value loss, forward (PPO2 / verl compute_value_loss), against the V_old stored at
// rollout time: l = ½·max((V − R)², (V_clip − R)²), V_clip = V_old + clamp(V − V_old, ±ε_v)
// (opt = 1; opt = 0: l = ½(V − R)²). One invocation per row writes rowStats VF_LOSS (Σ w·l),
// VF_CLIP (count of active clipped branches), RET_MEAN/RET_M2 and RES_MEAN/RES_M2 (Welford, for
// the explained variance). CPU reference: src/kernels/value_loss_forward.ref.ts.

// LossParams, ROW_STATS, row_weight, expm1_c, k3, row_count: shaders/rl_loss_common.wgsl,
// prepended by the launcher (WGSL has no #include).

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

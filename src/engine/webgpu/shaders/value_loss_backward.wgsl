// Clipped value loss, backward: dvalues = coef·w·∂l/∂V (write), ∂l/∂V = V − R on the unclipped
// branch, V_clip − R on the clipped one while |V − V_old| ≤ ε_v, else 0; 0 at masked tokens.
// One invocation per row. CPU reference: src/kernels/value_loss_backward.ref.ts.

// LossParams, ROW_STATS, row_weight, expm1_c, k3, row_count: shaders/rl_loss_common.wgsl,
// prepended by the launcher (WGSL has no #include).

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

// GRPO group-relative advantages (Shao et al. 2024; Dr. GRPO, Liu et al. 2025).
// Entry `groups`: one invocation per group g (episodes offsets[g] … offsets[g+1]−1): two-pass
//   mean and unbiased sd in f32 in increasing e; A_e = 0 when sd ≤ stdFloor, else
//   (r − mean)/(sd + δ), or r − mean with noStdDivision.
// Entry `broadcast`: one invocation per token of (B,T): A[b,t] = M > 0 ? A_{rowEpisode[b]} : 0.
// CPU reference: src/kernels/grpo_advantage_forward.ref.ts.

struct Params {
  num_groups: u32, B: u32, T: u32, no_std_division: u32,
  std_floor: f32, eps: f32, _p0: f32, _p1: f32,
};

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> rewards: array<f32>;
@group(0) @binding(2) var<storage, read> group_offsets: array<i32>;
@group(0) @binding(3) var<storage, read_write> episode_adv: array<f32>;
@group(0) @binding(4) var<storage, read> row_episode: array<i32>;
@group(0) @binding(5) var<storage, read> mask: array<f32>;
@group(0) @binding(6) var<storage, read_write> advantages: array<f32>;

override WG: u32 = 64u;

@compute @workgroup_size(WG)
fn groups(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let g = gid.x + gid.y * nwg.x * WG;
  if (g >= params.num_groups) { return; }
  let lo = u32(group_offsets[g]);
  let hi = u32(group_offsets[g + 1u]);
  if (hi <= lo) { return; }
  let n = f32(hi - lo);
  var s = 0.0;
  for (var e = lo; e < hi; e++) { s += rewards[e]; }
  let mean = s / n;
  var ss = 0.0;
  for (var e = lo; e < hi; e++) { let d = rewards[e] - mean; ss += d * d; }
  var sd = 0.0;
  if (hi - lo > 1u) { sd = sqrt(ss / (n - 1.0)); }
  for (var e = lo; e < hi; e++) {
    var a = 0.0;
    if (sd > params.std_floor) {
      a = rewards[e] - mean;
      if (params.no_std_division == 0u) { a = a / (sd + params.eps); }
    }
    episode_adv[e] = a;
  }
}

@compute @workgroup_size(WG)
fn broadcast(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= params.B * params.T) { return; }
  let b = i / params.T;
  var a = 0.0;
  if (mask[i] > 0.0) { a = episode_adv[u32(row_episode[b])]; }
  advantages[i] = a;
}

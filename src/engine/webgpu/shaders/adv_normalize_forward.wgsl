// Masked advantage whitening over the batch's valid tokens (verl masked_whiten), in place:
//   `rows`    one invocation per row: Welford (n, mean, M2) over its valid tokens → scratch[b];
//   `combine` one invocation: Chan et al.'s merge of the rows in increasing b → scratch[B] =
//             (n, mean, sd (unbiased, 0 when n ≤ 1), 0);
//   `apply`   one invocation per token: A ← M > 0 ? (A − mean)/(sd + δ) : 0.
// Fixed order everywhere (deterministic). CPU reference: src/kernels/adv_normalize_forward.ref.ts.

struct Params { B: u32, T: u32, _p0: u32, _p1: u32, eps: f32, _p2: f32, _p3: f32, _p4: f32 };

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> advantages: array<f32>;
@group(0) @binding(2) var<storage, read> mask: array<f32>;
@group(0) @binding(3) var<storage, read_write> scratch: array<vec4<f32>>;

override WG: u32 = 64u;

@compute @workgroup_size(WG)
fn rows(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let b = gid.x + gid.y * nwg.x * WG;
  if (b >= params.B) { return; }
  var n = 0.0;
  var mean = 0.0;
  var m2 = 0.0;
  for (var t = 0u; t < params.T; t++) {
    let i = b * params.T + t;
    if (mask[i] > 0.0) {
      let a = advantages[i];
      n += 1.0;
      let d = a - mean;
      mean += d / n;
      m2 += d * (a - mean);
    }
  }
  scratch[b] = vec4<f32>(n, mean, m2, 0.0);
}

@compute @workgroup_size(1)
fn combine() {
  var n = 0.0;
  var mean = 0.0;
  var m2 = 0.0;
  for (var b = 0u; b < params.B; b++) {
    let r = scratch[b];
    if (r.x > 0.0) {
      let nn = n + r.x;
      let d = r.y - mean;
      mean += d * r.x / nn;
      m2 += r.z + d * d * n * r.x / nn;
      n = nn;
    }
  }
  var sd = 0.0;
  if (n > 1.0) { sd = sqrt(max(m2, 0.0) / (n - 1.0)); }
  scratch[params.B] = vec4<f32>(n, mean, sd, 0.0);
}

@compute @workgroup_size(WG)
fn apply(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= params.B * params.T) { return; }
  let s = scratch[params.B];
  var a = 0.0;
  if (mask[i] > 0.0) { a = (advantages[i] - s.y) / (s.z + params.eps); }
  advantages[i] = a;
}

// Causal multi-head self-attention, forward (Vaswani et al. 2017), scale 1/√HS.
// qkv is (B,T,3C) as [q ‖ k ‖ v]; head h uses channels h·HS … (h+1)·HS−1 of each part.
//
// No barriers, no shared memory. Per (row b, head h, query t) the kernel computes
// s_j = q_t·k_j·scale for j ≤ t (stored in att), the max, e_j = exp(s_j − max), their sum, and
// out_t = Σ_j (e_j/sum)·v_j, all in increasing j. That order depends only on t, never on B or T,
// so a token's output is bit-identical whatever the batch composition and padding.
// Right padding needs no mask: under the causal mask a valid query never sees a padded key.
//
// Entry `main`: full forward, one invocation per (b, h, t). q and kv are both bound to qkv;
// writes att (B,NH,T,T) with zeros above the diagonal (the softmax probabilities the backward
// pass needs) and out (B,T,C).
// Entry `decode`: one new query per row at position pos[b] (KV-cache sampling). q is (B,1,3C)
// (the new token's qkv); kv is the layer's cache (B,Tmax,2C) as [k ‖ v], already holding
// positions 0…pos[b] (kv_cache_write ran first); att is scratch (B,NH,Tmax). The same
// `attend_any` function runs in both entries, so cached decoding repeats the full forward's
// arithmetic exactly.
// Limits: HS a multiple of 4 and ≤ 64 (registers); every offset/stride a multiple of 4.

struct Params {
  B: u32, T: u32, C: u32, NH: u32,
  HS: u32, kv_T: u32, kv_stride: u32, k_chan: u32,
  v_chan: u32, att_T: u32, q_off: u32, kv_off: u32,
  att_off: u32, out_off: u32, scale: f32, _p0: u32,
};

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> q4: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> kv4: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> att: array<f32>;
@group(0) @binding(4) var<storage, read_write> out4: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> pos: array<i32>;

override WG: u32 = 64u;
// HS/4, specialized per pipeline: selects the register variant and fixes the per-head trip counts.
override HS4: u32 = 8u;

// q_base, kv_row0 (element offset of key/value row 0 of this batch row), out_base: elements.
// The reference implementation of one query, used for 32 < HS ≤ 64 (`attend_r` below is the
// same computation for HS ≤ 32).
fn attend(q_base: u32, kv_row0: u32, tq: u32, att_base: u32, out_base: u32, h: u32) {
  var q: array<vec4<f32>, 16>;
  for (var i = 0u; i < HS4; i++) { q[i] = q4[q_base / 4u + i]; }
  var mx = -3.0e38;
  for (var j = 0u; j <= tq; j++) {
    let kb = (kv_row0 + j * p.kv_stride + p.k_chan + h * p.HS) / 4u;
    var d = 0.0;
    for (var i = 0u; i < HS4; i++) { d = d + dot(q[i], kv4[kb + i]); }
    let s = d * p.scale;
    att[att_base + j] = s;
    mx = max(mx, s);
  }
  var sum = 0.0;
  for (var j = 0u; j <= tq; j++) {
    let e = exp(att[att_base + j] - mx);
    att[att_base + j] = e;
    sum = sum + e;
  }
  var o: array<vec4<f32>, 16>;
  for (var i = 0u; i < HS4; i++) { o[i] = vec4<f32>(0.0); }
  for (var j = 0u; j <= tq; j++) {
    let pj = att[att_base + j] / sum;
    att[att_base + j] = pj;
    let vb = (kv_row0 + j * p.kv_stride + p.v_chan + h * p.HS) / 4u;
    for (var i = 0u; i < HS4; i++) { o[i] = o[i] + pj * kv4[vb + i]; }
  }
  for (var i = 0u; i < HS4; i++) { out4[out_base / 4u + i] = o[i]; }
}

@compute @workgroup_size(WG)
fn decode(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let bh = gid.x + gid.y * nwg.x * WG;
  if (bh >= p.B * p.NH) { return; }
  let h = bh % p.NH;
  let b = bh / p.NH;
  let tq = min(u32(max(pos[b], 0)), p.kv_T - 1u);
  attend_any(
    p.q_off + b * 3u * p.C + h * p.HS,
    p.kv_off + b * p.kv_T * p.kv_stride,
    tq,
    p.att_off + bh * p.att_T,
    p.out_off + b * p.C + h * p.HS,
    h,
  );
}

// `attend` for HS ≤ 32 with q and the output accumulator in named vec4 registers. SwiftShader
// keeps private arrays in memory (per-lane addressing): this variant ran 2–3.5× faster than
// `attend` (B=4, T=128/256, HS=32) with bit-identical results (same operations, same order;
// the HS4 tests are override constants, folded when the pipeline is created).
fn attend_r(q_base: u32, kv_row0: u32, tq: u32, att_base: u32, out_base: u32, h: u32) {
  let qb = q_base / 4u;
  let z = vec4<f32>(0.0);
  let q0 = q4[qb];
  var q1 = z; var q2 = z; var q3 = z; var q4v = z; var q5 = z; var q6 = z; var q7 = z;
  if (HS4 > 1u) { q1 = q4[qb + 1u]; }
  if (HS4 > 2u) { q2 = q4[qb + 2u]; }
  if (HS4 > 3u) { q3 = q4[qb + 3u]; }
  if (HS4 > 4u) { q4v = q4[qb + 4u]; }
  if (HS4 > 5u) { q5 = q4[qb + 5u]; }
  if (HS4 > 6u) { q6 = q4[qb + 6u]; }
  if (HS4 > 7u) { q7 = q4[qb + 7u]; }
  var mx = -3.0e38;
  for (var j = 0u; j <= tq; j++) {
    let kb = (kv_row0 + j * p.kv_stride + p.k_chan + h * p.HS) / 4u;
    var d = 0.0;
    d = d + dot(q0, kv4[kb]);
    if (HS4 > 1u) { d = d + dot(q1, kv4[kb + 1u]); }
    if (HS4 > 2u) { d = d + dot(q2, kv4[kb + 2u]); }
    if (HS4 > 3u) { d = d + dot(q3, kv4[kb + 3u]); }
    if (HS4 > 4u) { d = d + dot(q4v, kv4[kb + 4u]); }
    if (HS4 > 5u) { d = d + dot(q5, kv4[kb + 5u]); }
    if (HS4 > 6u) { d = d + dot(q6, kv4[kb + 6u]); }
    if (HS4 > 7u) { d = d + dot(q7, kv4[kb + 7u]); }
    let s = d * p.scale;
    att[att_base + j] = s;
    mx = max(mx, s);
  }
  var sum = 0.0;
  for (var j = 0u; j <= tq; j++) {
    let e = exp(att[att_base + j] - mx);
    att[att_base + j] = e;
    sum = sum + e;
  }
  var o0 = z; var o1 = z; var o2 = z; var o3 = z; var o4 = z; var o5 = z; var o6 = z; var o7 = z;
  for (var j = 0u; j <= tq; j++) {
    let pj = att[att_base + j] / sum;
    att[att_base + j] = pj;
    let vb = (kv_row0 + j * p.kv_stride + p.v_chan + h * p.HS) / 4u;
    o0 = o0 + pj * kv4[vb];
    if (HS4 > 1u) { o1 = o1 + pj * kv4[vb + 1u]; }
    if (HS4 > 2u) { o2 = o2 + pj * kv4[vb + 2u]; }
    if (HS4 > 3u) { o3 = o3 + pj * kv4[vb + 3u]; }
    if (HS4 > 4u) { o4 = o4 + pj * kv4[vb + 4u]; }
    if (HS4 > 5u) { o5 = o5 + pj * kv4[vb + 5u]; }
    if (HS4 > 6u) { o6 = o6 + pj * kv4[vb + 6u]; }
    if (HS4 > 7u) { o7 = o7 + pj * kv4[vb + 7u]; }
  }
  let ob = out_base / 4u;
  out4[ob] = o0;
  if (HS4 > 1u) { out4[ob + 1u] = o1; }
  if (HS4 > 2u) { out4[ob + 2u] = o2; }
  if (HS4 > 3u) { out4[ob + 3u] = o3; }
  if (HS4 > 4u) { out4[ob + 4u] = o4; }
  if (HS4 > 5u) { out4[ob + 5u] = o5; }
  if (HS4 > 6u) { out4[ob + 6u] = o6; }
  if (HS4 > 7u) { out4[ob + 7u] = o7; }
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let idx = gid.x + gid.y * nwg.x * WG;
  if (idx >= p.B * p.NH * p.T) { return; }
  let t = idx % p.T;
  let bh = idx / p.T;
  let h = bh % p.NH;
  let b = bh / p.NH;
  let att_base = p.att_off + (bh * p.T + t) * p.att_T;
  attend_any(p.q_off + (b * p.T + t) * 3u * p.C + h * p.HS, p.kv_off + b * p.kv_T * p.kv_stride, t, att_base, p.out_off + (b * p.T + t) * p.C + h * p.HS, h);
  for (var j = t + 1u; j < p.att_T; j++) { att[att_base + j] = 0.0; }
}

fn attend_any(q_base: u32, kv_row0: u32, tq: u32, att_base: u32, out_base: u32, h: u32) {
  if (HS4 <= 8u) {
    attend_r(q_base, kv_row0, tq, att_base, out_base, h);
  } else {
    attend(q_base, kv_row0, tq, att_base, out_base, h);
  }
}

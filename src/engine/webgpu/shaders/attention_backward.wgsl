// Causal multi-head attention backward (docs/KERNELS.md), from the saved softmax att.
// Per (b, h, t), p = att[b,h,t,:], g = dout[b,t,head h], scale = 1/√HS:
//   datt_t2 = g·v_t2;  ds_t2 = p_t2·(datt_t2 − Σ_t3 p_t3·datt_t3)      (softmax Jacobian)
//   dq_t = scale·Σ_{t2≤t} ds[t,t2]·k_t2;  dk_t2 = scale·Σ_{t≥t2} ds[t,t2]·q_t;  dv_t2 = Σ_{t≥t2} p[t,t2]·g_t
// Two dispatches, both gather-style (each output written by one invocation, fixed order):
//   entry `dscores`: one invocation per (b,h,t) writes ds[b,h,t,0..t] into the scratch buffer;
//   entry `dqkv`:    one invocation per (b,t,part,c) of dqkv (B,T,3C) sums over t2 (q) or t (k,v).
// No barriers, no atomics. Entries of ds above the diagonal are never written nor read.
// `*_vec4` entry points (HS and every offset multiples of 4) do the same sums 4 channels at a
// time with vec4 loads, cutting the loads of ds/att per output 4×; the launcher picks them.

struct Params {
  B: u32, T: u32, C: u32, NH: u32,
  dout_off: u32, qkv_off: u32, att_off: u32, dqkv_off: u32,
  scale: f32, _p0: u32, _p1: u32, _p2: u32,
};

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> dout: array<f32>;
@group(0) @binding(2) var<storage, read> qkv: array<f32>;
@group(0) @binding(3) var<storage, read> att: array<f32>;
@group(0) @binding(4) var<storage, read_write> ds: array<f32>;
@group(0) @binding(5) var<storage, read_write> dqkv: array<f32>;

// vec4 views of the same bindings (used only by the *_vec4 entry points).
@group(0) @binding(1) var<storage, read> dout4: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> qkv4: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> dqkv4: array<vec4<f32>>;

override WG: u32 = 64u;

@compute @workgroup_size(WG)
fn dscores(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  let T = params.T;
  let C = params.C;
  let NH = params.NH;
  if (i >= params.B * NH * T) { return; }
  let t = i % T;
  let h = (i / T) % NH;
  let b = i / (T * NH);
  let HS = C / NH;
  let row = i * T; // ((b·NH + h)·T + t)·T
  let go = params.dout_off + (b * T + t) * C + h * HS;
  var dot = 0.0;
  for (var t2 = 0u; t2 <= t; t2++) {
    let vo = params.qkv_off + (b * T + t2) * 3u * C + 2u * C + h * HS;
    var s = 0.0;
    for (var k = 0u; k < HS; k++) { s += dout[go + k] * qkv[vo + k]; }
    ds[row + t2] = s;
    dot += att[params.att_off + row + t2] * s;
  }
  for (var t2 = 0u; t2 <= t; t2++) {
    ds[row + t2] = att[params.att_off + row + t2] * (ds[row + t2] - dot);
  }
}

@compute @workgroup_size(WG)
fn dqkv_main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  let T = params.T;
  let C = params.C;
  let NH = params.NH;
  let C3 = 3u * C;
  if (i >= params.B * T * C3) { return; }
  let j = i % C3;
  let bt = i / C3;
  let t = bt % T;
  let b = bt / T;
  let part = j / C;
  let c = j % C;
  let HS = C / NH;
  let h = c / HS;
  let base = (b * NH + h) * T; // row index of (b, h, 0) in att / ds
  var s = 0.0;
  if (part == 0u) {
    // dq[t] = scale·Σ_{t2≤t} ds[t,t2]·k[t2]
    for (var t2 = 0u; t2 <= t; t2++) {
      s += ds[(base + t) * T + t2] * qkv[params.qkv_off + (b * T + t2) * C3 + C + c];
    }
    s *= params.scale;
  } else if (part == 1u) {
    // dk[t] = scale·Σ_{t'≥t} ds[t',t]·q[t']
    for (var tq = t; tq < T; tq++) {
      s += ds[(base + tq) * T + t] * qkv[params.qkv_off + (b * T + tq) * C3 + c];
    }
    s *= params.scale;
  } else {
    // dv[t] = Σ_{t'≥t} att[t',t]·dout[t']
    for (var tq = t; tq < T; tq++) {
      s += att[params.att_off + (base + tq) * T + t] * dout[params.dout_off + (b * T + tq) * C + c];
    }
  }
  dqkv[params.dqkv_off + i] = s;
}

@compute @workgroup_size(WG)
fn dscores_vec4(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  let T = params.T;
  let C = params.C;
  let NH = params.NH;
  if (i >= params.B * NH * T) { return; }
  let t = i % T;
  let h = (i / T) % NH;
  let b = i / (T * NH);
  let HS4 = C / NH / 4u;
  let row = i * T;
  let go4 = (params.dout_off + (b * T + t) * C) / 4u + h * HS4;
  var acc = 0.0;
  for (var t2 = 0u; t2 <= t; t2++) {
    let vo4 = (params.qkv_off + (b * T + t2) * 3u * C + 2u * C) / 4u + h * HS4;
    var s = 0.0;
    for (var k = 0u; k < HS4; k++) { s += dot(dout4[go4 + k], qkv4[vo4 + k]); }
    ds[row + t2] = s;
    acc += att[params.att_off + row + t2] * s;
  }
  for (var t2 = 0u; t2 <= t; t2++) {
    ds[row + t2] = att[params.att_off + row + t2] * (ds[row + t2] - acc);
  }
}

@compute @workgroup_size(WG)
fn dqkv_vec4(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  let T = params.T;
  let C = params.C;
  let C4 = C / 4u;
  let C34 = 3u * C4;
  if (i >= params.B * T * C34) { return; }
  let j4 = i % C34;
  let bt = i / C34;
  let t = bt % T;
  let b = bt / T;
  let part = j4 / C4;
  let c4 = j4 % C4;
  let h = (4u * c4) / (C / params.NH);
  let base = (b * params.NH + h) * T;
  let q4 = params.qkv_off / 4u;
  var s = vec4<f32>(0.0);
  if (part == 0u) {
    let r = (base + t) * T;
    for (var t2 = 0u; t2 <= t; t2++) {
      s += ds[r + t2] * qkv4[q4 + (b * T + t2) * C34 + C4 + c4];
    }
    s *= params.scale;
  } else if (part == 1u) {
    for (var tq = t; tq < T; tq++) {
      s += ds[(base + tq) * T + t] * qkv4[q4 + (b * T + tq) * C34 + c4];
    }
    s *= params.scale;
  } else {
    let d4 = params.dout_off / 4u;
    for (var tq = t; tq < T; tq++) {
      s += att[params.att_off + (base + tq) * T + t] * dout4[d4 + (b * T + tq) * C4 + c4];
    }
  }
  dqkv4[params.dqkv_off / 4u + i] = s;
}

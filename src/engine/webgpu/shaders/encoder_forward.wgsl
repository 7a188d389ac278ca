// Token + position embedding, forward: out[b,t,:] = wte[ids[b,t],:] + wpe[pos,:].
// Entry `main`: pos = t (full forward over right-padded rows).
// Entry `main_offset`: pos = pos0[b] + t (KV-cache decoding: row b continues at its own
// position). Ids outside [0,V) and positions ≥ maxT are clamped (the host validates both
// before upload, so this only keeps a bad buffer from reading out of bounds).
// One invocation per output element; no reductions.

struct Params {
  B: u32, T: u32, C: u32, V: u32,
  maxT: u32, wte_off: u32, wpe_off: u32, out_off: u32,
};

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> ids: array<i32>;
@group(0) @binding(2) var<storage, read> wte: array<f32>;
@group(0) @binding(3) var<storage, read> wpe: array<f32>;
@group(0) @binding(4) var<storage, read_write> out: array<f32>;
@group(0) @binding(5) var<storage, read> pos0: array<i32>;

override WG: u32 = 256u;

fn embed(i: u32, pos: u32) {
  let c = i % p.C;
  let bt = i / p.C;
  let id = u32(clamp(ids[bt], 0, i32(p.V) - 1));
  let t = min(pos, p.maxT - 1u);
  out[p.out_off + i] = wte[p.wte_off + id * p.C + c] + wpe[p.wpe_off + t * p.C + c];
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= p.B * p.T * p.C) { return; }
  embed(i, (i / p.C) % p.T);
}

@compute @workgroup_size(WG)
fn main_offset(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= p.B * p.T * p.C) { return; }
  let bt = i / p.C;
  let b = bt / p.T;
  embed(i, u32(max(pos0[b], 0)) + bt % p.T);
}

// KV cache write: copy the k and v parts of qkv (B,T,3C) into a layer's cache (B,Tmax,2C)
// as [k ‖ v] at positions pos0[b] + t, t < T. Prefill uses pos0 = 0 and T = prompt length;
// a decode step uses T = 1 and pos0[b] = row b's current position. Positions ≥ Tmax are
// dropped (the sampler never asks for them). One invocation per (b, t, channel of 2C).

struct Params { B: u32, T: u32, C: u32, Tmax: u32, qkv_off: u32, cache_off: u32, _p0: u32, _p1: u32 };

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> qkv: array<f32>;
@group(0) @binding(2) var<storage, read> pos0: array<i32>;
@group(0) @binding(3) var<storage, read_write> cache: array<f32>;

override WG: u32 = 256u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  let C2 = 2u * p.C;
  if (i >= p.B * p.T * C2) { return; }
  let c = i % C2;
  let bt = i / C2;
  let t = bt % p.T;
  let b = bt / p.T;
  let dst_t = u32(max(pos0[b], 0)) + t;
  if (dst_t >= p.Tmax) { return; }
  cache[p.cache_off + (b * p.Tmax + dst_t) * C2 + c] = qkv[p.qkv_off + bt * 3u * p.C + p.C + c];
}

// Row gather: out[b,:] = inp[idx[b],:] for b < B, rows of C f32. The sampler's prefill uses it
// to take each prompt's last hidden state (row b·T + len_b − 1 of lnf) before the lm head, so
// the head runs on B rows instead of B·T. A copy: exact.

struct Params { B: u32, C: u32, R: u32, _p0: u32 };

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> inp: array<f32>;
@group(0) @binding(2) var<storage, read> idx: array<i32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

override WG: u32 = 256u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= p.B * p.C) { return; }
  let b = i / p.C;
  let r = u32(clamp(idx[b], 0, i32(p.R) - 1));
  out[i] = inp[r * p.C + i % p.C];
}

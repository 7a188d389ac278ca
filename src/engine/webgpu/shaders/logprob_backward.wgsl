// Log-prob backward at temperature τ (docs/KERNELS.md): dlogits[i,j] = dlogprob[i]·(1[j = a_i] − p_ij)/τ,
// p_ij = exp(z_ij/τ − lse_i) with the forward's saved lse at the same τ (p ≤ 1, no overflow at |z| ≈ 1e4).
// A row with dlogprob = 0 (masked or padded) is exactly zero. Elementwise over (N,V), written.

struct Params { N: u32, V: u32, logits_off: u32, targets_off: u32, lse_off: u32, dlogprob_off: u32, dlogits_off: u32, temperature: f32 };

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> logits: array<f32>;
@group(0) @binding(2) var<storage, read> targets: array<i32>;
@group(0) @binding(3) var<storage, read> lse: array<f32>;
@group(0) @binding(4) var<storage, read> dlogprob: array<f32>;
@group(0) @binding(5) var<storage, read_write> dlogits: array<f32>;

override WG: u32 = 256u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= params.N * params.V) { return; }
  let n = i / params.V;
  let j = i % params.V;
  let g = dlogprob[params.dlogprob_off + n];
  var d = 0.0;
  if (g != 0.0) {
    let tau = params.temperature;
    let p = exp(logits[params.logits_off + i] / tau - lse[params.lse_off + n]);
    let onehot = select(0.0, 1.0, i32(j) == targets[params.targets_off + n]);
    d = (g / tau) * (onehot - p);
  }
  dlogits[params.dlogits_off + i] = d;
}

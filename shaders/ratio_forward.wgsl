// Importance ratio, forward: ρ = exp(clamp(ℓ − ℓ_old, −20, 20)) at valid tokens, 1 elsewhere
// (PPO, Schulman et al. 2017; the clamp as verl). One invocation per token of (B,T). CPU
// reference: src/kernels/ratio_forward.ref.ts.

struct Params { n: u32, _p0: u32, _p1: u32, _p2: u32 };

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> logprobs: array<f32>;
@group(0) @binding(2) var<storage, read> old_logprobs: array<f32>;
@group(0) @binding(3) var<storage, read> mask: array<f32>;
@group(0) @binding(4) var<storage, read_write> ratio: array<f32>;

override WG: u32 = 256u;
const LOG_RATIO_CLAMP: f32 = 20.0;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= params.n) { return; }
  var r = 1.0;
  if (mask[i] > 0.0) {
    r = exp(clamp(logprobs[i] - old_logprobs[i], -LOG_RATIO_CLAMP, LOG_RATIO_CLAMP));
  }
  ratio[i] = r;
}

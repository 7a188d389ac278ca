// Log-prob of the target token at temperature τ, forward: x = z/τ (divided, as the sampler
// does), lse = max(x) + log Σ exp(x − max(x)), logprob = x[a] − lse (stable at |z| ≈ 1e4,
// where a naive exp overflows). τ = 1 is plain log softmax.
// One invocation per row (V ≤ 1024 in our presets: a serial row beats barrier reductions on
// SwiftShader); j increases, so the result depends only on the row's logits, never on N.
// Targets outside [0,V) are clamped (the host validates them; this only guards memory).

struct Params { N: u32, V: u32, logits_off: u32, tgt_off: u32, lp_off: u32, lse_off: u32, temperature: f32, _p1: u32 };

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> logits: array<f32>;
@group(0) @binding(2) var<storage, read> targets: array<i32>;
@group(0) @binding(3) var<storage, read_write> logprob: array<f32>;
@group(0) @binding(4) var<storage, read_write> lse: array<f32>;

override WG: u32 = 64u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let row = gid.x + gid.y * nwg.x * WG;
  if (row >= p.N) { return; }
  let o = p.logits_off + row * p.V;
  let tau = p.temperature;
  var mx = logits[o] / tau;
  for (var j = 1u; j < p.V; j++) { mx = max(mx, logits[o + j] / tau); }
  var s = 0.0;
  for (var j = 0u; j < p.V; j++) { s = s + exp(logits[o + j] / tau - mx); }
  let l = mx + log(s);
  let a = u32(clamp(targets[p.tgt_off + row], 0, i32(p.V) - 1));
  lse[p.lse_off + row] = l;
  logprob[p.lp_off + row] = logits[o + a] / tau - l;
}

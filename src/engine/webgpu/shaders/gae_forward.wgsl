// Generalized advantage estimation (Schulman et al. 2016) over policy tokens only: one
// invocation per row walks t = T−1 … 0; masked tokens carry no reward, no value delta and no
// decay; the row's reward sits on its last policy token; a truncated row bootstraps from
// next_value[b], a terminated one from 0. Writes A and R = A + V (0 at masked tokens).
// CPU reference: src/kernels/gae_forward.ref.ts.

struct Params { B: u32, T: u32, _p0: u32, _p1: u32, gamma: f32, lambda: f32, _p2: f32, _p3: f32 };

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> rewards: array<f32>;
@group(0) @binding(2) var<storage, read> values: array<f32>;
@group(0) @binding(3) var<storage, read> mask: array<f32>;
@group(0) @binding(4) var<storage, read> next_value: array<f32>;
@group(0) @binding(5) var<storage, read> truncated: array<f32>;
@group(0) @binding(6) var<storage, read_write> advantages: array<f32>;
@group(0) @binding(7) var<storage, read_write> returns: array<f32>;

override WG: u32 = 64u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let b = gid.x + gid.y * nwg.x * WG;
  if (b >= params.B) { return; }
  let T = params.T;
  var next_v = 0.0;
  if (truncated[b] > 0.0) { next_v = next_value[b]; }
  var reward = rewards[b];
  var carry = 0.0;
  let gl = params.gamma * params.lambda;
  for (var k = 0u; k < T; k++) {
    let i = b * T + (T - 1u - k);
    if (mask[i] > 0.0) {
      let v = values[i];
      let delta = reward + params.gamma * next_v - v;
      carry = delta + gl * carry;
      advantages[i] = carry;
      returns[i] = carry + v;
      next_v = v;
      reward = 0.0;
    } else {
      advantages[i] = 0.0;
      returns[i] = 0.0;
    }
  }
}

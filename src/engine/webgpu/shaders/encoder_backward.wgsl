// Encoder (token + position embedding) backward (docs/KERNELS.md):
//   dwte[v,c] += Σ_{(b,t): ids[b,t] = v} dout[b,t,c]      dwpe[t,c] += Σ_b dout[b,t,c]
// Gather-style and deterministic: one invocation per (v, c) or (t, c) sums its positions in
// increasing (b,t) order and adds the sum once; no atomics. The positions of token v are
// bucket_pos[bucket_start[v] .. bucket_start[v+1]), built on the CPU by a stable counting sort
// of the ids (src/kernels/encoder_backward.ts `tokenBuckets`), so the work is O(N·C + V·C),
// not O(V·N·C). Invocations [0, V·C) do dwte, [V·C, V·C + T·C) do dwpe.
// dwte and dwpe live in one gradient buffer (binding 4) at element offsets.

struct Params {
  B: u32, T: u32, C: u32, V: u32,
  dout_off: u32, dwte_off: u32, dwpe_off: u32, _p0: u32,
};

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> dout: array<f32>;
@group(0) @binding(2) var<storage, read> bucket_start: array<u32>;
@group(0) @binding(3) var<storage, read> bucket_pos: array<u32>;
@group(0) @binding(4) var<storage, read_write> grads: array<f32>;

override WG: u32 = 64u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  let C = params.C;
  let VC = params.V * C;
  if (i < VC) {
    let v = i / C;
    let c = i % C;
    let end = bucket_start[v + 1u];
    var s = 0.0;
    for (var j = bucket_start[v]; j < end; j++) {
      s += dout[params.dout_off + bucket_pos[j] * C + c];
    }
    // Tokens absent from the batch leave their row untouched.
    if (end > bucket_start[v]) {
      grads[params.dwte_off + i] += s;
    }
    return;
  }
  let j = i - VC;
  if (j >= params.T * C) { return; }
  let t = j / C;
  let c = j % C;
  var s = 0.0;
  for (var b = 0u; b < params.B; b++) {
    s += dout[params.dout_off + (b * params.T + t) * C + c];
  }
  grads[params.dwpe_off + j] += s;
}

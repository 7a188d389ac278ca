// Cross-entropy (SFT next-token loss), forward:
//   entry `main`: loss[i] = −(z[a_i] − lse_i)·mask[i] (exactly 0 where mask = 0), lse[i] saved;
//   entry `mean`: one invocation sums loss and mask over i = 0…N−1 in increasing order and
//   writes stats = [Σloss/Σmask (0 when Σmask = 0), Σmask]. A single-invocation sum is
//   deterministic and cheap next to the (N,V) row pass (N ≤ a few thousand).

struct Params { N: u32, V: u32, logits_off: u32, _p0: u32 };

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> logits: array<f32>;
@group(0) @binding(2) var<storage, read> targets: array<i32>;
@group(0) @binding(3) var<storage, read> mask: array<f32>;
@group(0) @binding(4) var<storage, read_write> loss: array<f32>;
@group(0) @binding(5) var<storage, read_write> lse: array<f32>;
@group(0) @binding(6) var<storage, read_write> stats: array<f32>;

override WG: u32 = 64u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let row = gid.x + gid.y * nwg.x * WG;
  if (row >= p.N) { return; }
  let o = p.logits_off + row * p.V;
  var mx = logits[o];
  for (var j = 1u; j < p.V; j++) { mx = max(mx, logits[o + j]); }
  var s = 0.0;
  for (var j = 0u; j < p.V; j++) { s = s + exp(logits[o + j] - mx); }
  let l = mx + log(s);
  lse[row] = l;
  let m = mask[row];
  var li = 0.0;
  if (m != 0.0) {
    let a = u32(clamp(targets[row], 0, i32(p.V) - 1));
    li = -(logits[o + a] - l) * m;
  }
  loss[row] = li;
}

@compute @workgroup_size(1)
fn mean() {
  var total = 0.0;
  var msum = 0.0;
  for (var i = 0u; i < p.N; i++) {
    total = total + loss[i];
    msum = msum + mask[i];
  }
  var mean_loss = 0.0;
  if (msum > 0.0) { mean_loss = total / msum; }
  stats[0] = mean_loss;
  stats[1] = msum;
}

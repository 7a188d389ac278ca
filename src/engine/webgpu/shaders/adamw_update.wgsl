// AdamW update, in place on params, m, v (Loshchilov & Hutter 2019, Algorithm 2, schedule
// multiplier 1; docs/KERNELS.md):
//   g ← grad·gradScale;  m ← β1·m + (1−β1)·g;  v ← β2·v + (1−β2)·g²;
//   p ← p − lr·( (m/bc1) / (√(v/bc2) + ε) + λ·p )      bc1 = 1−β1^t, bc2 = 1−β2^t
// The decay uses the pre-update p (decoupled weight decay). gradScale is read from a storage
// word written by global_norm_forward in the same command buffer (no readback); lr, β, ε, λ and
// the bias corrections and 1−β (computed in f64 on the CPU for step t: 1 − f32(0.999) would be
// off by 5e-5 relative) come from a uniform that the
// trainer rewrites with queue.writeBuffer before each submit. Elementwise, no barriers.

struct Hyper {
  P: u32, params_off: u32, grads_off: u32, scale_idx: u32,
  lr: f32, beta1: f32, beta2: f32, eps: f32,
  wd: f32, bc1: f32, bc2: f32, omb1: f32,
  omb2: f32, _p0: u32, _p1: u32, _p2: u32,
};

@group(0) @binding(0) var<uniform> hp: Hyper;
@group(0) @binding(1) var<storage, read_write> params: array<f32>;
@group(0) @binding(2) var<storage, read> grads: array<f32>;
@group(0) @binding(3) var<storage, read_write> m: array<f32>;
@group(0) @binding(4) var<storage, read_write> v: array<f32>;
@group(0) @binding(5) var<storage, read> scale_buf: array<f32>;

override WG: u32 = 256u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= hp.P) { return; }
  let scale = scale_buf[hp.scale_idx];
  // gradScale < 0: global_norm_forward found a non-finite norm; leave p, m, v untouched.
  if (scale < 0.0) { return; }
  let g = grads[hp.grads_off + i] * scale;
  let mi = hp.beta1 * m[i] + hp.omb1 * g;
  let vi = hp.beta2 * v[i] + hp.omb2 * g * g;
  m[i] = mi;
  v[i] = vi;
  let p = params[hp.params_off + i];
  params[hp.params_off + i] = p - hp.lr * ((mi / hp.bc1) / (sqrt(vi / hp.bc2) + hp.eps) + hp.wd * p);
}

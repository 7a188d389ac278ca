// Global gradient norm and the clipping multiplier, computed on the GPU (docs/KERNELS.md):
//   norm = √Σ_i g_i²,   gradScale = min(1, maxNorm/(norm + 1e-6))  (1 when clipping is off)
// (Pascanu et al. 2013). Fixed-order two-stage reduction, no atomics, no barriers:
//   entry `partials`: invocation j < G sums g_i² for i = j, j+G, j+2G, … (strided so adjacent
//                     invocations read adjacent words) into partials[j];
//   entry `finalize`: one invocation sums partials[0..G) in order and writes
//                     out[out_off] = norm, out[out_off+1] = gradScale.
// A non-finite norm (NaN or Inf gradients) writes gradScale = −1, which AdamW reads as "skip
// this update": parameters and moments stay unchanged and the trainer reports the bad step.
// A non-zero skip word (`skip[skip_off]`, u32) forces the same skip state: the loss head's
// non-finite flag (src/rl/gpu_loss.ts `state.flags[0]`, set earlier in the same pass) makes the
// whole optimizer step a no-op through the one mechanism AdamW already honours. Without a loss
// flag the launcher binds a zero word.
// AdamW (shaders/adamw_update.wgsl) reads gradScale from `out` in the same command buffer, so
// clipping needs no readback before the update.

struct Params { P: u32, G: u32, grads_off: u32, out_off: u32, clip: u32, max_norm: f32, skip_off: u32, _p1: u32 };

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> grads: array<f32>;
@group(0) @binding(2) var<storage, read_write> partials: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var<storage, read> skip: array<u32>;

override WG: u32 = 64u;

@compute @workgroup_size(WG)
fn partials_main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let j = gid.x;
  if (j >= params.G) { return; }
  var s = 0.0;
  for (var i = j; i < params.P; i += params.G) {
    let g = grads[params.grads_off + i];
    s += g * g;
  }
  partials[j] = s;
}

@compute @workgroup_size(1)
fn finalize() {
  var s = 0.0;
  for (var j = 0u; j < params.G; j++) { s += partials[j]; }
  let norm = sqrt(s);
  var scale = 1.0;
  if (params.clip != 0u) { scale = min(1.0, params.max_norm / (norm + 1e-6)); }
  // NaN fails every comparison, Inf fails this one: both give −1.
  if (!(s <= 3.0e38)) { scale = -1.0; }
  // An integer test, not a float one: nothing here for the compiler to fold away.
  if (skip[params.skip_off] != 0u) { scale = -1.0; }
  out[params.out_off] = norm;
  out[params.out_off + 1u] = scale;
}

// Non-finite detection without `x != x` (which WGSL compilers may fold to false): a f32 is NaN
// or ±Inf exactly when its 8 exponent bits are all ones, (bits & 0x7f800000) == 0x7f800000.
//   `check` one invocation per element of x: flags[0] |= bit when x[i] is non-finite
//           (atomicOr on u32 is order-independent, so the result is deterministic);
//   `clear` flags[0] = 0 (once at the start of an optimizer step).
// A non-zero flags[0] marks the step as skipped (see src/rl/gpu_loss.ts for how the optimizer
// consumes it). CPU reference: src/kernels/nonfinite_check.ref.ts.

struct Params { n: u32, bit: u32, _p0: u32, _p1: u32 };

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> flags: array<atomic<u32>>;

override WG: u32 = 256u;

fn is_nonfinite(v: f32) -> bool {
  return (bitcast<u32>(v) & 0x7f800000u) == 0x7f800000u;
}

@compute @workgroup_size(WG)
fn check(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= params.n) { return; }
  if (is_nonfinite(x[i])) { atomicOr(&flags[0], params.bit); }
}

@compute @workgroup_size(1)
fn clear() {
  atomicStore(&flags[0], 0u);
}

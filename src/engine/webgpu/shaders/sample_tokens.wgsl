// Batched token sampling from logits, one invocation per batch row (V ≤ 1024: a serial row
// scan is cheaper on SwiftShader than a barrier reduction, and its order is fixed).
//
// Row b reads logits row rows[2b] (prefill: b·T + len_b − 1; decode: b) and draws with the
// counter-based uniform u = hash(seed, b, step = rows[2b+1]) ∈ [0,1) (PCG output permutation,
// O'Neill 2014, applied three times), so a draw depends only on (seed, row, step), never on
// the batch composition or on earlier draws.
//   temperature τ > 0: x = z/τ, m = max x, e_i = exp(x_i − m), S = Σ e_i (i increasing);
//     top_p < 1 keeps the nucleus {i : e_i ≥ θ} with θ the largest value (bisection, 30 steps
//     on [0,1]) whose kept mass is ≥ top_p·S (Holtzman et al. 2020); ties at θ are all kept.
//     Inverse CDF: the first i whose running sum of kept e exceeds u·S_kept.
//     logprob = x_a − (m + log S_kept): the log-prob under the distribution actually sampled
//     from (temperature-scaled, nucleus-renormalized). At τ = 1 and top_p = 1 this is the
//     same arithmetic as logprob_forward, so training re-scoring reproduces it bit for bit.
//   τ = 0 (greedy): a = the first argmax of z; logprob = log-softmax(z)[a] at τ = 1 (the
//     point mass actually sampled from has log-prob 0, which is useless to a trainer).
// Banned ids [ban_lo, ban_hi) other than `allow` (the special tokens except the stop id) are
// never drawn: the greedy argmax and the inverse CDF skip them. They still count in max x, S
// and the nucleus, so logprob is unchanged by the ban: at τ = 1, top_p = 1 it stays the
// policy's log-softmax that training recomputes (the first-epoch ratio stays exactly 1).
// entropy[b] = H(softmax(z)) at τ = 1 over the whole vocabulary, in nats (the policy's own
// uncertainty whatever τ, top-p or the ban): log S₁ − Σ e_j (z_j − m₁) / S₁ with m₁ = max z,
// e_j = exp(z_j − m₁), S₁ = Σ e_j (entropy_forward's max-subtracted form), one extra pass.
// Writes ids[b] (also the next decode step's input ids), logprob[b] and entropy[b].

struct Params {
  B: u32, V: u32, logits_off: u32, seed: u32,
  temperature: f32, top_p: f32, ban_lo: u32, ban_hi: u32,
  allow: u32, _p0: u32, _p1: u32, _p2: u32,
};

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> logits: array<f32>;
@group(0) @binding(2) var<storage, read> rows: array<u32>;
@group(0) @binding(3) var<storage, read_write> ids: array<i32>;
@group(0) @binding(4) var<storage, read_write> logprob: array<f32>;
@group(0) @binding(5) var<storage, read_write> entropy: array<f32>;

override WG: u32 = 64u;

fn pcg(v: u32) -> u32 {
  let s = v * 747796405u + 2891336453u;
  let w = ((s >> ((s >> 28u) + 4u)) ^ s) * 277803737u;
  return (w >> 22u) ^ w;
}

/** Uniform in [0,1) with 24 random bits. */
fn uniform01(seed: u32, row: u32, step: u32) -> f32 {
  let h = pcg(pcg(pcg(seed) + row) + step);
  return f32(h >> 8u) * (1.0 / 16777216.0);
}

fn allowed(j: u32) -> bool {
  return j < p.ban_lo || j >= p.ban_hi || j == p.allow;
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let b = gid.x;
  if (b >= p.B) { return; }
  let o = p.logits_off + rows[2u * b] * p.V;
  let step = rows[2u * b + 1u];
  let greedy = p.temperature <= 0.0;
  let tau = select(p.temperature, 1.0, greedy);
  var mx = logits[o] / tau;
  for (var j = 1u; j < p.V; j++) { mx = max(mx, logits[o + j] / tau); }
  // First argmax among the allowed ids (the host guarantees one exists).
  var amax = 0u;
  var amx = 0.0;
  var have = false;
  for (var j = 0u; j < p.V; j++) {
    let x = logits[o + j] / tau;
    if (allowed(j) && (!have || x > amx)) { amx = x; amax = j; have = true; }
  }
  var m1 = logits[o];
  for (var j = 1u; j < p.V; j++) { m1 = max(m1, logits[o + j]); }
  var s1 = 0.0;
  var t1 = 0.0;
  for (var j = 0u; j < p.V; j++) {
    let d = logits[o + j] - m1;
    let e1 = exp(d);
    s1 = s1 + e1;
    t1 = t1 + e1 * d;
  }
  entropy[b] = log(s1) - t1 / s1;
  var s = 0.0;
  for (var j = 0u; j < p.V; j++) { s = s + exp(logits[o + j] / tau - mx); }
  if (greedy) {
    ids[b] = i32(amax);
    logprob[b] = logits[o + amax] - (mx + log(s));
    return;
  }
  // Nucleus threshold θ on e = exp(x − m) ∈ (0,1]: θ = 0 keeps everything.
  var theta = 0.0;
  var kept = s;
  if (p.top_p < 1.0) {
    let want = p.top_p * s;
    var lo = 0.0;
    var hi = 1.0;
    for (var it = 0u; it < 30u; it++) {
      let mid = 0.5 * (lo + hi);
      var mass = 0.0;
      for (var j = 0u; j < p.V; j++) {
        let e = exp(logits[o + j] / tau - mx);
        if (e >= mid) { mass = mass + e; }
      }
      if (mass >= want) { lo = mid; } else { hi = mid; }
    }
    theta = lo;
    kept = 0.0;
    for (var j = 0u; j < p.V; j++) {
      let e = exp(logits[o + j] / tau - mx);
      if (e >= theta) { kept = kept + e; }
    }
  }
  // Kept mass the draw can land on: the nucleus without the banned ids.
  var drawable = 0.0;
  for (var j = 0u; j < p.V; j++) {
    let e = exp(logits[o + j] / tau - mx);
    if (e >= theta && allowed(j)) { drawable = drawable + e; }
  }
  let goal = uniform01(p.seed, b, step) * drawable;
  var c = 0.0;
  var pick = amax;
  var last = amax;
  var found = false;
  for (var j = 0u; j < p.V; j++) {
    let e = exp(logits[o + j] / tau - mx);
    if (e >= theta && e > 0.0 && allowed(j)) {
      c = c + e;
      last = j;
      if (!found && c > goal) { pick = j; found = true; }
    }
  }
  if (!found) { pick = last; }
  ids[b] = i32(pick);
  logprob[b] = logits[o + pick] / tau - (mx + log(kept));
}

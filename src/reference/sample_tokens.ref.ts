/**
 * CPU reference of src/engine/webgpu/shaders/sample_tokens.wgsl: one token per batch row from its logits row,
 * with temperature, nucleus (top-p) truncation and a counter-based uniform per (seed, row, step).
 *
 * τ > 0: x = z/τ; e_i = exp(x_i − max x); with top_p < 1 the kept set is {i : e_i ≥ θ} for the
 * largest θ ∈ [0,1] (30 bisection steps, as on the GPU) whose kept mass is ≥ top_p·Σe
 * (Holtzman et al. 2020, "The curious case of neural text degeneration"); the id is the first
 * i whose running kept sum exceeds u·S_kept, and logprob = x_a − (max x + log S_kept), the
 * log-prob under the distribution actually sampled from.
 * τ = 0: greedy; id = first argmax of z; logprob = log-softmax(z)[id] at τ = 1.
 * `ban` [lo, hi) except `allow`: never drawn (argmax and inverse CDF over the other ids, the
 * target u·(kept mass without them)); they still count in max x, S and the nucleus, so the
 * log-prob formula is unchanged (at τ = 1, top_p = 1 the policy's log-softmax).
 * entropy: H = −Σ_j p_j log p_j of the policy p = softmax(z) at τ = 1 over the whole vocabulary
 * (whatever τ, top-p or the ban: the policy's own uncertainty, not the sampled distribution's),
 * = log S₁ − Σ_j e_j (z_j − m₁) / S₁ with m₁ = max z, e_j = exp(z_j − m₁), S₁ = Σ e_j (the
 * max-subtracted form of entropy_forward.ref.ts), in nats.
 * Arithmetic in f64 (the GPU uses f32): ids agree except when u·S lands within rounding of a
 * cumulative boundary (probability ~1e-7 per draw); log-probs agree to ~1e-6 relative.
 */
import { checkDim, checkLen } from './ref_util';

/** PCG output permutation (O'Neill 2014, "PCG: a family of … algorithms"), u32 → u32. */
export function pcgHash(v: number): number {
  const s = (Math.imul(v >>> 0, 747796405) + 2891336453) >>> 0;
  const w = Math.imul(((s >>> ((s >>> 28) + 4)) ^ s) >>> 0, 277803737) >>> 0;
  return ((w >>> 22) ^ w) >>> 0;
}

/** The sampler's uniform in [0,1) for (seed, row, step): 24 random bits, exactly as the GPU. */
export function sampleUniform(seed: number, row: number, step: number): number {
  const h = pcgHash((pcgHash((pcgHash(seed >>> 0) + (row >>> 0)) >>> 0) + (step >>> 0)) >>> 0);
  return (h >>> 8) / 16777216;
}

interface SampleOptions {
  /** u32 seed of the whole sampling call. */
  seed: number;
  /** τ ≥ 0; 0 = greedy. */
  temperature: number;
  /** Nucleus mass in (0,1]; 1 = no truncation. */
  topP: number;
  /** Ids lo ≤ id < hi other than `allow` are never drawn (special tokens except the stop id). */
  ban?: SampleBan;
}

/** A range of ids the sampler never draws, except `allow`. */
export interface SampleBan {
  lo: number;
  hi: number;
  allow?: number;
}

/** Whether `j` may be drawn under `ban`. */
function banAllows(ban: SampleBan | undefined, j: number): boolean {
  return !ban || j < ban.lo || j >= ban.hi || j === ban.allow;
}

/**
 * @param logits (R,V) f32 logits rows
 * @param rows (B) index of the logits row each batch row samples from
 * @param steps (B) the step counter of each row (the RNG's third input)
 * @returns ids (B) i32, logprob (B) f32 and entropy (B) f32 nats (module doc)
 * @throws Error naming the argument on a size mismatch, a row index out of range or bad options.
 */
export function sampleTokensRef(
  logits: Float32Array,
  V: number,
  rows: ArrayLike<number>,
  steps: ArrayLike<number>,
  opt: SampleOptions,
): { ids: Int32Array; logprob: Float32Array; entropy: Float32Array } {
  const op = 'sampleTokensRef';
  checkDim(op, 'V', V);
  const B = rows.length;
  checkLen(op, 'steps', steps, B, '(B)');
  if (logits.length % V !== 0) throw new Error(`${op}: logits has ${logits.length} values, not a multiple of V = ${V}`);
  if (!(opt.temperature >= 0)) throw new Error(`${op}: temperature must be ≥ 0, got ${opt.temperature}`);
  if (!(opt.topP > 0 && opt.topP <= 1)) throw new Error(`${op}: topP must be in (0,1], got ${opt.topP}`);
  const R = logits.length / V;
  const ids = new Int32Array(B);
  const logprob = new Float32Array(B);
  const entropy = new Float32Array(B);
  const e = new Float64Array(V); // exp(x − max x) of the row being sampled, reused across rows
  for (let b = 0; b < B; b++) {
    const r = rows[b];
    if (!Number.isInteger(r) || r < 0 || r >= R) throw new Error(`${op}: rows[${b}] = ${r} is outside [0, ${R})`);
    const o = r * V;
    const greedy = opt.temperature <= 0;
    const tau = greedy ? 1 : opt.temperature;
    let mx = -Infinity;
    let amax = -1;
    let amaxX = -Infinity;
    for (let j = 0; j < V; j++) {
      const x = logits[o + j] / tau;
      mx = j === 0 ? x : Math.max(mx, x); // Math.max: a NaN logit propagates, as before
      if (banAllows(opt.ban, j) && (amax < 0 || x > amaxX)) {
        amax = j;
        amaxX = x;
      }
    }
    if (amax < 0) throw new Error(`${op}: the ban leaves no id to draw`);
    let s = 0;
    for (let j = 0; j < V; j++) {
      e[j] = Math.exp(logits[o + j] / tau - mx);
      s += e[j];
    }
    // The entropy's exponentials are e itself at τ = 1 (x = z, m₁ = max x): the same values,
    // summed in the same order, so rollouts (τ = 1) pay for V exponentials per row, not 2V.
    let s1 = 0;
    let t1 = 0;
    if (tau === 1) {
      s1 = s;
      for (let j = 0; j < V; j++) t1 += e[j] * (logits[o + j] - mx);
    } else {
      let m1 = logits[o];
      for (let j = 1; j < V; j++) m1 = Math.max(m1, logits[o + j]);
      for (let j = 0; j < V; j++) {
        const d = logits[o + j] - m1;
        const e1 = Math.exp(d);
        s1 += e1;
        t1 += e1 * d;
      }
    }
    entropy[b] = Math.log(s1) - t1 / s1;
    if (greedy) {
      ids[b] = amax;
      logprob[b] = logits[o + amax] - (mx + Math.log(s));
      continue;
    }
    let theta = 0;
    let kept = s;
    if (opt.topP < 1) {
      const want = opt.topP * s;
      let lo = 0;
      let hi = 1;
      for (let it = 0; it < 30; it++) {
        const mid = 0.5 * (lo + hi);
        let mass = 0;
        for (let j = 0; j < V; j++) if (e[j] >= mid) mass += e[j];
        if (mass >= want) lo = mid;
        else hi = mid;
      }
      theta = lo;
      kept = 0;
      for (let j = 0; j < V; j++) if (e[j] >= theta) kept += e[j];
    }
    let drawable = 0;
    for (let j = 0; j < V; j++) if (e[j] >= theta && banAllows(opt.ban, j)) drawable += e[j];
    const target = sampleUniform(opt.seed, b, steps[b]) * drawable;
    let c = 0;
    let pick = -1;
    let last = amax;
    for (let j = 0; j < V; j++) {
      if (e[j] >= theta && e[j] > 0 && banAllows(opt.ban, j)) {
        c += e[j];
        last = j;
        if (c > target) {
          pick = j;
          break; // `last` only matters when no id reached the target
        }
      }
    }
    if (pick < 0) pick = last;
    ids[b] = pick;
    logprob[b] = logits[o + pick] / tau - (mx + Math.log(kept));
  }
  return { ids, logprob, entropy };
}

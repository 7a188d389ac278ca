import { checkLen, type Floats } from './ref_util';

/** Hyper-parameters of one AdamW step (Loshchilov & Hutter 2019). */
export interface AdamWParams {
  /** Learning rate α ≥ 0 (0 allowed: the moments still update). */
  lr: number;
  /** First-moment decay β1 ∈ [0, 1). */
  beta1: number;
  /** Second-moment decay β2 ∈ [0, 1). */
  beta2: number;
  /** ε > 0 added to √v̂. */
  eps: number;
  /** Decoupled weight decay λ ≥ 0 (multiplied by lr, not by the adaptive scale). */
  weightDecay: number;
  /** Step number t, 1-based (bias correction 1 − β^t). */
  step: number;
  /** Gradient multiplier from global-norm clipping, in [0, 1] (1 = no clipping). */
  gradScale: number;
}

/** @throws Error naming the first invalid hyper-parameter. */
export function checkAdamW(op: string, hp: AdamWParams): void {
  const bad = (k: string, v: number, why: string) => new Error(`${op}: ${k} = ${v} ${why}`);
  if (!(hp.lr >= 0) || !Number.isFinite(hp.lr)) throw bad('lr', hp.lr, 'must be finite and ≥ 0');
  if (!(hp.beta1 >= 0 && hp.beta1 < 1)) throw bad('beta1', hp.beta1, 'must be in [0, 1)');
  if (!(hp.beta2 >= 0 && hp.beta2 < 1)) throw bad('beta2', hp.beta2, 'must be in [0, 1)');
  if (!(hp.eps > 0) || !Number.isFinite(hp.eps)) throw bad('eps', hp.eps, 'must be finite and > 0');
  if (!(hp.weightDecay >= 0) || !Number.isFinite(hp.weightDecay)) throw bad('weightDecay', hp.weightDecay, 'must be finite and ≥ 0');
  if (!Number.isInteger(hp.step) || hp.step < 1) throw bad('step', hp.step, 'must be an integer ≥ 1');
  if (!(hp.gradScale >= 0) || !Number.isFinite(hp.gradScale)) throw bad('gradScale', hp.gradScale, 'must be finite and ≥ 0');
}

/**
 * CPU reference of src/engine/webgpu/shaders/adamw_update.wgsl, in place on params, m and v:
 *   g ← grad·gradScale;  m ← β1·m + (1−β1)·g;  v ← β2·v + (1−β2)·g²;
 *   m̂ = m/(1−β1^t);  v̂ = v/(1−β2^t);  p ← p − lr·(m̂/(√v̂ + ε) + λ·p)
 * (AdamW, Loshchilov & Hutter 2019, Algorithm 2 with schedule multiplier 1; the decay uses the
 * pre-update p). Arithmetic per element in f64, stored rounded.
 * @param params (P) @param grads (P) @param m (P) @param v (P)
 * @throws Error naming the argument on a size mismatch or the hyper-parameter that is invalid.
 */
export function adamwUpdateRef(params: Floats, grads: Floats, m: Floats, v: Floats, hp: AdamWParams): void {
  const op = 'adamwUpdateRef';
  const P = params.length;
  checkLen(op, 'grads', grads, P, 'params.length');
  checkLen(op, 'm', m, P, 'params.length');
  checkLen(op, 'v', v, P, 'params.length');
  checkAdamW(op, hp);
  const { lr, beta1, beta2, eps, weightDecay, step, gradScale } = hp;
  const bc1 = 1 - Math.pow(beta1, step);
  const bc2 = 1 - Math.pow(beta2, step);
  for (let i = 0; i < P; i++) {
    const g = grads[i] * gradScale;
    const mi = beta1 * m[i] + (1 - beta1) * g;
    const vi = beta2 * v[i] + (1 - beta2) * g * g;
    m[i] = mi;
    v[i] = vi;
    const p = params[i];
    params[i] = p - lr * (mi / bc1 / (Math.sqrt(vi / bc2) + eps) + weightDecay * p);
  }
}

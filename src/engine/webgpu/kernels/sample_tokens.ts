/**
 * Launcher of src/engine/webgpu/shaders/sample_tokens.wgsl: one sampled token, its log-prob and the policy's entropy per batch row.
 * CPU reference: sample_tokens.ref.ts (`sampleTokensRef`, which also documents the math).
 */
import code from '../shaders/sample_tokens.wgsl?raw';
import type { Gpu } from '../device';
import type { SampleBan } from '../../../reference/sample_tokens.ref';
import { bindAll, checkView, off, paramsUniform, type PreparedDispatch, type TensorView } from './dispatch_plan';

const WG = 64;

interface SampleTokensArgs {
  B: number;
  V: number;
  /** Number of logits rows available (bounds the row indices; validated by the host). */
  R: number;
  /** (R,V) logits. */
  logits: TensorView;
  /** (B,2) u32: [logits row, step] per batch row, rewritten by the host before each submit. */
  rows: GPUBuffer;
  /** (B) i32 written: sampled ids (the sampler binds the decode step's input ids here). */
  ids: GPUBuffer;
  /** (B) f32 written: log-probs of the sampled ids. */
  logprob: GPUBuffer;
  /** (B) f32 written: entropy of softmax(logits row) at τ = 1, nats. */
  entropy: GPUBuffer;
  /** u32 seed. */
  seed: number;
  /** ≥ 0; 0 = greedy. */
  temperature: number;
  /** (0,1]. */
  topP: number;
  /** Ids never drawn (sample_tokens.ref.ts `SampleBan`); none by default. */
  ban?: SampleBan;
}

/**
 * Prepare once per (shape, seed, temperature, top-p, ban).
 * @throws Error naming the argument on a bad dimension, option or buffer size.
 */
export function prepareSampleTokens(gpu: Gpu, a: SampleTokensArgs, label = 'sample_tokens'): PreparedDispatch {
  const { B, V, R } = a;
  for (const [k, v] of Object.entries({ B, V, R })) {
    if (!Number.isInteger(v) || v <= 0) throw new Error(`${label}: ${k} must be a positive integer, got ${v}`);
  }
  if (!(a.temperature >= 0) || !Number.isFinite(a.temperature))
    throw new Error(`${label}: temperature must be finite and ≥ 0, got ${a.temperature}`);
  if (!(a.topP > 0 && a.topP <= 1)) throw new Error(`${label}: topP must be in (0,1], got ${a.topP}`);
  if (!Number.isInteger(a.seed)) throw new Error(`${label}: seed must be an integer, got ${a.seed}`);
  const ban = a.ban;
  if (ban) {
    if (!Number.isInteger(ban.lo) || !Number.isInteger(ban.hi) || ban.lo < 0 || ban.hi > V || ban.lo > ban.hi)
      throw new Error(`${label}: ban [${ban.lo}, ${ban.hi}) must be a range inside [0, V = ${V}]`);
    if (ban.allow !== undefined && !(Number.isInteger(ban.allow) && ban.allow >= 0 && ban.allow < V))
      throw new Error(`${label}: ban.allow = ${ban.allow} is outside [0, ${V})`);
    const free = V - (ban.hi - ban.lo) + (ban.allow !== undefined && ban.allow >= ban.lo && ban.allow < ban.hi ? 1 : 0);
    if (free < 1) throw new Error(`${label}: ban [${ban.lo}, ${ban.hi}) leaves no id to draw`);
  }
  checkView(label, 'logits', a.logits, R * V);
  checkView(label, 'rows', { buffer: a.rows }, 2 * B);
  checkView(label, 'ids', { buffer: a.ids }, B);
  checkView(label, 'logprob', { buffer: a.logprob }, B);
  checkView(label, 'entropy', { buffer: a.entropy }, B);
  const pipeline = gpu.pipelines.get('sample_tokens', code, 'main', { WG });
  const params = paramsUniform(gpu, `${label}-params`, [
    ['u32', B],
    ['u32', V],
    ['u32', off('logits', a.logits)],
    ['u32', a.seed >>> 0],
    ['f32', a.temperature],
    ['f32', a.topP],
    ['u32', ban?.lo ?? 0],
    ['u32', ban?.hi ?? 0],
    ['u32', ban?.allow ?? 0xffffffff],
    ['u32', 0],
    ['u32', 0],
    ['u32', 0],
  ]);
  const bindGroup = bindAll(gpu, `${label}-bind`, pipeline, [
    [0, params],
    [1, a.logits.buffer],
    [2, a.rows],
    [3, a.ids],
    [4, a.logprob],
    [5, a.entropy],
  ]);
  return { label, pipeline, bindGroup, groups: [Math.ceil(B / WG), 1, 1], flops: 0, bytes: 4 * B * V };
}

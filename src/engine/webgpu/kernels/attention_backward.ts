/**
 * Launcher of src/engine/webgpu/shaders/attention_backward.wgsl (dqkv written, two dispatches through a
 * (B,NH,T,T) scratch buffer of score gradients). CPU reference: attention_backward.ref.ts.
 */
import code from '../shaders/attention_backward.wgsl?raw';
import type { Gpu } from '../device';
import { createStorage } from '../buffers';
import { bindAll, checkView, grid, off, paramsUniform, type PreparedDispatch, type TensorView } from './dispatch_plan';

const WG = 64;

interface AttentionBackwardArgs {
  B: number;
  T: number;
  C: number;
  NH: number;
  /** (B,T,C) gradient of the attention output (before the output projection). */
  dout: TensorView;
  /** (B,T,3C) the forward's [q ‖ k ‖ v]. */
  qkv: TensorView;
  /** (B,NH,T,T) the forward's softmax probabilities (causal). */
  att: TensorView;
  /** (B,T,3C) written. */
  dqkv: TensorView;
  /** Scratch of at least B·NH·T·T f32 (created when omitted; share one across layers). */
  scratch?: GPUBuffer;
}

/** A scratch buffer for attention_backward's score gradients, (B,NH,T,T) f32. */
export function createAttentionScratch(gpu: Gpu, B: number, NH: number, T: number, label = 'attention_backward-dscores'): GPUBuffer {
  return createStorage(gpu.device, `${label} (B=${B}, NH=${NH}, T=${T}, T)`, B * NH * T * T * 4);
}

/**
 * Prepare the two dispatches of attention_backward.
 * @throws Error naming the argument on a bad size, C not divisible by NH, or a scratch too small.
 */
export function prepareAttentionBackward(gpu: Gpu, a: AttentionBackwardArgs, label = 'attention_backward'): PreparedDispatch[] {
  const { B, T, C, NH } = a;
  for (const [k, v] of Object.entries({ B, T, C, NH })) {
    if (!Number.isInteger(v) || v <= 0) throw new Error(`${label}: ${k} must be a positive integer, got ${v}`);
  }
  if (C % NH !== 0) throw new Error(`${label}: C = ${C} is not divisible by NH = ${NH}`);
  checkView(label, 'dout', a.dout, B * T * C);
  checkView(label, 'qkv', a.qkv, B * T * 3 * C);
  checkView(label, 'att', a.att, B * NH * T * T);
  checkView(label, 'dqkv', a.dqkv, B * T * 3 * C);
  const scratch = a.scratch ?? createAttentionScratch(gpu, B, NH, T);
  checkView(label, 'scratch', { buffer: scratch }, B * NH * T * T);
  if (a.dqkv.buffer === scratch) throw new Error(`${label}: dqkv must not be the scratch buffer`);
  const HS = C / NH;
  const params = paramsUniform(gpu, `${label}-params`, [
    ['u32', B],
    ['u32', T],
    ['u32', C],
    ['u32', NH],
    ['u32', off('dout', a.dout)],
    ['u32', off('qkv', a.qkv)],
    ['u32', off('att', a.att)],
    ['u32', off('dqkv', a.dqkv)],
    ['f32', 1 / Math.sqrt(HS)],
    ['u32', 0],
    ['u32', 0],
    ['u32', 0],
  ]);
  // vec4 entry points when a head's channels and every tensor start are 4-aligned.
  const vec4 = HS % 4 === 0 && [a.dout, a.qkv, a.dqkv].every((t) => (t.offset ?? 0) % 4 === 0);
  const p1 = gpu.pipelines.get('attention_backward-dscores', code, vec4 ? 'dscores_vec4' : 'dscores', { WG });
  const p2 = gpu.pipelines.get('attention_backward-dqkv', code, vec4 ? 'dqkv_vec4' : 'dqkv_main', { WG });
  const causal = (B * NH * T * (T + 1)) / 2; // (b,h,t,t2 ≤ t) pairs
  return [
    {
      label: `${label}-dscores`,
      pipeline: p1,
      bindGroup: bindAll(gpu, `${label}-dscores-bind`, p1, [
        [0, params],
        [1, a.dout.buffer],
        [2, a.qkv.buffer],
        [3, a.att.buffer],
        [4, scratch],
      ]),
      groups: grid(Math.ceil((B * NH * T) / WG)),
      flops: causal * (2 * HS + 4),
      bytes: 4 * (B * T * C * 2 + causal * 3),
    },
    {
      label: `${label}-dqkv`,
      pipeline: p2,
      bindGroup: bindAll(gpu, `${label}-dqkv-bind`, p2, [
        [0, params],
        [1, a.dout.buffer],
        [2, a.qkv.buffer],
        [3, a.att.buffer],
        [4, scratch],
        [5, a.dqkv.buffer],
      ]),
      groups: grid(Math.ceil((B * T * 3 * C) / (vec4 ? 4 : 1) / WG)),
      flops: causal * HS * 6,
      bytes: 4 * (B * T * 3 * C * 2 + causal * 2),
    },
  ];
}

/**
 * Launcher of src/engine/webgpu/shaders/attention_forward.wgsl: causal multi-head attention, forward, and its
 * KV-cache decode variant. CPU reference: attention_forward.ref.ts (`attentionForwardRef`);
 * the decode entry repeats the same per-query arithmetic (`attend` in the shader), so cached
 * decoding reproduces the full forward's outputs (tested in tests/browser/sampler.spec.ts).
 */
import code from '../shaders/attention_forward.wgsl?raw';
import type { Gpu } from '../device';
import { bindAll, checkView, grid, off, paramsUniform, type PreparedDispatch, type TensorView } from './dispatch_plan';

const WG = 64;
/** Largest head size the shader keeps in registers (array<vec4<f32>, 16>). */
const ATTENTION_MAX_HS = 64;

interface AttentionForwardArgs {
  B: number;
  T: number;
  C: number;
  NH: number;
  /** (B,T,3C) as [q ‖ k ‖ v]. */
  qkv: TensorView;
  /** (B,NH,T,T) written: softmax probabilities, 0 above the diagonal (saved for backward). */
  att: TensorView;
  /** (B,T,C) written. */
  out: TensorView;
}

/** @internal validates C, NH and returns HS. */
function headSize(label: string, C: number, NH: number): number {
  if (C % NH !== 0) throw new Error(`${label}: C = ${C} is not divisible by NH = ${NH}`);
  const HS = C / NH;
  if (HS % 4 !== 0 || HS > ATTENTION_MAX_HS) {
    throw new Error(`${label}: head size HS = C/NH = ${HS} must be a multiple of 4 and ≤ ${ATTENTION_MAX_HS}`);
  }
  return HS;
}

function checkDims(label: string, dims: Record<string, number>): void {
  for (const [k, v] of Object.entries(dims)) {
    if (!Number.isInteger(v) || v <= 0) throw new Error(`${label}: ${k} must be a positive integer, got ${v}`);
  }
}

function checkAligned(label: string, views: Record<string, TensorView>): void {
  for (const [k, v] of Object.entries(views)) {
    if (off(k, v) % 4 !== 0) throw new Error(`${label}: ${k}.offset = ${off(k, v)} must be a multiple of 4 (vec4 loads)`);
  }
}

/**
 * Prepare the full causal attention once; encode with `encodePrepared`.
 * @throws Error naming the argument on bad dimensions (HS not a multiple of 4 or > 64), a view
 *   outside its buffer or an offset that is not a multiple of 4.
 */
export function prepareAttentionForward(gpu: Gpu, a: AttentionForwardArgs, label = 'attention_forward'): PreparedDispatch {
  const { B, T, C, NH } = a;
  checkDims(label, { B, T, C, NH });
  const HS = headSize(label, C, NH);
  checkView(label, 'qkv', a.qkv, B * T * 3 * C);
  checkView(label, 'att', a.att, B * NH * T * T);
  checkView(label, 'out', a.out, B * T * C);
  checkAligned(label, { qkv: a.qkv, out: a.out });
  const pipeline = gpu.pipelines.get('attention_forward', code, 'main', { WG, HS4: HS / 4 });
  const params = paramsUniform(gpu, `${label}-params`, [
    ['u32', B],
    ['u32', T],
    ['u32', C],
    ['u32', NH],
    ['u32', HS],
    ['u32', T],
    ['u32', 3 * C],
    ['u32', C],
    ['u32', 2 * C],
    ['u32', T],
    ['u32', off('qkv', a.qkv)],
    ['u32', off('qkv', a.qkv)],
    ['u32', off('att', a.att)],
    ['u32', off('out', a.out)],
    ['f32', 1 / Math.sqrt(HS)],
    ['u32', 0],
  ]);
  const bindGroup = bindAll(gpu, `${label}-bind`, pipeline, [
    [0, params],
    [1, a.qkv.buffer],
    [2, a.qkv.buffer],
    [3, a.att.buffer],
    [4, a.out.buffer],
  ]);
  const pairs = (B * NH * T * (T + 1)) / 2;
  return {
    label,
    pipeline,
    bindGroup,
    groups: grid(Math.ceil((B * NH * T) / WG)),
    flops: pairs * (4 * HS + 4),
    bytes: 4 * (B * T * 3 * C + B * NH * T * T + B * T * C),
  };
}

interface AttentionDecodeArgs {
  B: number;
  C: number;
  NH: number;
  /** Positions per row of the cache. */
  Tmax: number;
  /** (B,1,3C): the new token's q ‖ k ‖ v (only q is read here). */
  qkv: TensorView;
  /** (B,Tmax,2C) as [k ‖ v], holding positions 0…pos[b] of each row. */
  cache: TensorView;
  /** (B) i32: the position of each row's new token (its query attends to keys 0…pos[b]). */
  pos: GPUBuffer;
  /** (B,NH,Tmax) scratch for the probabilities (entries ≤ pos[b] hold them afterwards). */
  att: TensorView;
  /** (B,1,C) written. */
  out: TensorView;
}

/**
 * Prepare one decode step's attention (one query per row at its own position) once.
 * @throws Error as `prepareAttentionForward`, and when the pos buffer is too small.
 */
export function prepareAttentionDecode(gpu: Gpu, a: AttentionDecodeArgs, label = 'attention_decode'): PreparedDispatch {
  const { B, C, NH, Tmax } = a;
  checkDims(label, { B, C, NH, Tmax });
  const HS = headSize(label, C, NH);
  checkView(label, 'qkv', a.qkv, B * 3 * C);
  checkView(label, 'cache', a.cache, B * Tmax * 2 * C);
  checkView(label, 'att', a.att, B * NH * Tmax);
  checkView(label, 'out', a.out, B * C);
  checkAligned(label, { qkv: a.qkv, cache: a.cache, out: a.out });
  if (a.pos.size < B * 4) throw new Error(`${label}: pos buffer '${a.pos.label}' has ${a.pos.size} bytes, needs (B) = ${B * 4}`);
  const pipeline = gpu.pipelines.get('attention_forward', code, 'decode', { WG, HS4: HS / 4 });
  const params = paramsUniform(gpu, `${label}-params`, [
    ['u32', B],
    ['u32', 1],
    ['u32', C],
    ['u32', NH],
    ['u32', HS],
    ['u32', Tmax],
    ['u32', 2 * C],
    ['u32', 0],
    ['u32', C],
    ['u32', Tmax],
    ['u32', off('qkv', a.qkv)],
    ['u32', off('cache', a.cache)],
    ['u32', off('att', a.att)],
    ['u32', off('out', a.out)],
    ['f32', 1 / Math.sqrt(HS)],
    ['u32', 0],
  ]);
  const bindGroup = bindAll(gpu, `${label}-bind`, pipeline, [
    [0, params],
    [1, a.qkv.buffer],
    [2, a.cache.buffer],
    [3, a.att.buffer],
    [4, a.out.buffer],
    [5, a.pos],
  ]);
  return {
    label,
    pipeline,
    bindGroup,
    groups: grid(Math.ceil((B * NH) / WG)),
    flops: 0, // depends on the positions, known only on the GPU
    bytes: 0,
  };
}

/**
 * Launcher of src/engine/webgpu/shaders/encoder_forward.wgsl: out[b,t,:] = wte[ids[b,t],:] + wpe[pos,:] with
 * pos = t (full forward) or pos = pos0[b] + t (KV-cache decoding). CPU reference:
 * encoder_forward.ref.ts (`encoderForwardRef`, the pos = t case).
 */
import code from '../shaders/encoder_forward.wgsl?raw';
import type { Gpu } from '../device';
import { bindAll, checkView, grid, off, paramsUniform, type PreparedDispatch, type TensorView } from './dispatch_plan';

const WG = 256;

interface EncoderForwardArgs {
  B: number;
  /** Tokens per row in this call (1 for a decode step). */
  T: number;
  C: number;
  V: number;
  /** Rows of wpe. */
  maxT: number;
  /** (B,T) i32 token ids in [0,V) (validated by the caller; clamped on the GPU). */
  ids: GPUBuffer;
  /** (V,C) */
  wte: TensorView;
  /** (maxT,C) */
  wpe: TensorView;
  /** (B,T,C) written. */
  out: TensorView;
  /** (B) i32 start position of each row (decode); omitted: every row starts at 0. */
  pos0?: GPUBuffer;
}

/** Prepare once. @throws Error naming the argument on a bad dimension or a view outside its buffer. */
export function prepareEncoderForward(gpu: Gpu, a: EncoderForwardArgs, label = 'encoder_forward'): PreparedDispatch {
  const { B, T, C, V, maxT } = a;
  for (const [k, v] of Object.entries({ B, T, C, V, maxT })) {
    if (!Number.isInteger(v) || v <= 0) throw new Error(`${label}: ${k} must be a positive integer, got ${v}`);
  }
  if (!a.pos0 && T > maxT) throw new Error(`${label}: T = ${T} exceeds maxT = ${maxT}`);
  if (a.ids.size < B * T * 4) throw new Error(`${label}: ids buffer '${a.ids.label}' has ${a.ids.size} bytes, needs (B,T) = ${B * T * 4}`);
  if (a.pos0 && a.pos0.size < B * 4)
    throw new Error(`${label}: pos0 buffer '${a.pos0.label}' has ${a.pos0.size} bytes, needs (B) = ${B * 4}`);
  checkView(label, 'wte', a.wte, V * C);
  checkView(label, 'wpe', a.wpe, maxT * C);
  checkView(label, 'out', a.out, B * T * C);
  const pipeline = gpu.pipelines.get('encoder_forward', code, a.pos0 ? 'main_offset' : 'main', { WG });
  const params = paramsUniform(gpu, `${label}-params`, [
    ['u32', B],
    ['u32', T],
    ['u32', C],
    ['u32', V],
    ['u32', maxT],
    ['u32', off('wte', a.wte)],
    ['u32', off('wpe', a.wpe)],
    ['u32', off('out', a.out)],
  ]);
  const entries: Array<[number, GPUBuffer]> = [
    [0, params],
    [1, a.ids],
    [2, a.wte.buffer],
    [3, a.wpe.buffer],
    [4, a.out.buffer],
  ];
  if (a.pos0) entries.push([5, a.pos0]);
  const bindGroup = bindAll(gpu, `${label}-bind`, pipeline, entries);
  const n = B * T * C;
  return { label, pipeline, bindGroup, groups: grid(Math.ceil(n / WG)), flops: n, bytes: 4 * (3 * n + B * T) };
}

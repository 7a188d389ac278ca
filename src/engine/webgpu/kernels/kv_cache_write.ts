/**
 * Launcher of src/engine/webgpu/shaders/kv_cache_write.wgsl: copy k ‖ v of qkv (B,T,3C) into a layer's KV cache
 * (B,Tmax,2C) at positions pos0[b] + t. A pure copy; its test compares it exactly.
 */
import code from '../shaders/kv_cache_write.wgsl?raw';
import type { Gpu } from '../device';
import { bindAll, checkView, grid, off, paramsUniform, type PreparedDispatch, type TensorView } from './dispatch_plan';

const WG = 256;

interface KvCacheWriteArgs {
  B: number;
  /** Tokens per row being written (prompt length at prefill, 1 per decode step). */
  T: number;
  C: number;
  Tmax: number;
  /** (B,T,3C) */
  qkv: TensorView;
  /** (B) i32 first destination position of each row. */
  pos0: GPUBuffer;
  /** (B,Tmax,2C) as [k ‖ v]. */
  cache: TensorView;
}

/** Prepare once. @throws Error naming the argument on a bad dimension or a view outside its buffer. */
export function prepareKvCacheWrite(gpu: Gpu, a: KvCacheWriteArgs, label = 'kv_cache_write'): PreparedDispatch {
  const { B, T, C, Tmax } = a;
  for (const [k, v] of Object.entries({ B, T, C, Tmax })) {
    if (!Number.isInteger(v) || v <= 0) throw new Error(`${label}: ${k} must be a positive integer, got ${v}`);
  }
  checkView(label, 'qkv', a.qkv, B * T * 3 * C);
  checkView(label, 'cache', a.cache, B * Tmax * 2 * C);
  if (a.pos0.size < B * 4) throw new Error(`${label}: pos0 buffer '${a.pos0.label}' has ${a.pos0.size} bytes, needs (B) = ${B * 4}`);
  const pipeline = gpu.pipelines.get('kv_cache_write', code, 'main', { WG });
  const params = paramsUniform(gpu, `${label}-params`, [
    ['u32', B],
    ['u32', T],
    ['u32', C],
    ['u32', Tmax],
    ['u32', off('qkv', a.qkv)],
    ['u32', off('cache', a.cache)],
    ['u32', 0],
    ['u32', 0],
  ]);
  const bindGroup = bindAll(gpu, `${label}-bind`, pipeline, [
    [0, params],
    [1, a.qkv.buffer],
    [2, a.pos0],
    [3, a.cache.buffer],
  ]);
  const n = B * T * 2 * C;
  return { label, pipeline, bindGroup, groups: grid(Math.ceil(n / WG)), flops: 0, bytes: 8 * n };
}

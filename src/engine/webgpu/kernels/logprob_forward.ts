/**
 * Launcher of src/engine/webgpu/shaders/logprob_forward.wgsl: logprob = z[a]/τ − logsumexp(z/τ) per row, and lse.
 * CPU reference: logprob_forward.ref.ts (`logprobForwardRef`).
 */
import code from '../shaders/logprob_forward.wgsl?raw';
import type { Gpu } from '../device';
import { bindAll, checkView, grid, off, paramsUniform, type PreparedDispatch, type TensorView } from './dispatch_plan';
import { checkTemperature } from '../../../reference/ref_util';

const WG = 64;

interface LogprobForwardArgs {
  /** Rows (B·T). */
  N: number;
  V: number;
  /** (N,V) */
  logits: TensorView;
  /** (N) i32 in [0,V) (validated by the caller; clamped on the GPU). */
  targets: TensorView;
  /** (N) written. */
  logprob: TensorView;
  /** (N) written: logsumexp(z/τ) of each row (saved for the backward pass). */
  lse: TensorView;
  /** τ ∈ (0, 10]: score log softmax(z/τ), the rollout's sampling temperature (default 1). */
  temperature?: number;
}

/** Prepare once. @throws Error naming the argument on a bad dimension, a view outside its buffer or a bad τ. */
export function prepareLogprobForward(gpu: Gpu, a: LogprobForwardArgs, label = 'logprob_forward'): PreparedDispatch {
  const { N, V } = a;
  for (const [k, v] of Object.entries({ N, V })) {
    if (!Number.isInteger(v) || v <= 0) throw new Error(`${label}: ${k} must be a positive integer, got ${v}`);
  }
  checkView(label, 'logits', a.logits, N * V);
  checkView(label, 'targets', a.targets, N);
  checkView(label, 'logprob', a.logprob, N);
  checkView(label, 'lse', a.lse, N);
  const temperature = a.temperature ?? 1;
  checkTemperature(label, temperature);
  const pipeline = gpu.pipelines.get('logprob_forward', code, 'main', { WG });
  const params = paramsUniform(gpu, `${label}-params`, [
    ['u32', N],
    ['u32', V],
    ['u32', off('logits', a.logits)],
    ['u32', off('targets', a.targets)],
    ['u32', off('logprob', a.logprob)],
    ['u32', off('lse', a.lse)],
    ['f32', temperature],
    ['u32', 0],
  ]);
  const bindGroup = bindAll(gpu, `${label}-bind`, pipeline, [
    [0, params],
    [1, a.logits.buffer],
    [2, a.targets.buffer],
    [3, a.logprob.buffer],
    [4, a.lse.buffer],
  ]);
  return { label, pipeline, bindGroup, groups: grid(Math.ceil(N / WG)), flops: 4 * N * V, bytes: 4 * (N * V + 3 * N) };
}

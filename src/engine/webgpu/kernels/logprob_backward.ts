/**
 * Launcher of src/engine/webgpu/shaders/logprob_backward.wgsl (dlogits = dlogprob·(onehot − softmax(z/τ))/τ, written).
 * CPU reference: logprob_backward.ref.ts (`logprobBackwardRef`). Used by the RL loss heads.
 */
import code from '../shaders/logprob_backward.wgsl?raw';
import type { Gpu } from '../device';
import { bindAll, checkView, grid, off, paramsUniform, type PreparedDispatch, type TensorView } from './dispatch_plan';
import { checkTemperature } from '../../../reference/ref_util';

const WG = 256;

interface LogprobBackwardArgs {
  N: number;
  V: number;
  /** (N,V) logits. */
  logits: TensorView;
  /** (N) i32 target ids. */
  targets: TensorView;
  /** (N) saved log-sum-exp of the forward. */
  lse: TensorView;
  /** (N) upstream gradient of the log-probs. */
  dlogprob: TensorView;
  /** (N,V) written. */
  dlogits: TensorView;
  /** τ ∈ (0, 10] of the forward that saved `lse` (default 1). */
  temperature?: number;
}

/** Prepare the logprob_backward dispatch. @throws Error naming the argument on a bad size, aliasing or a bad τ. */
export function prepareLogprobBackward(gpu: Gpu, a: LogprobBackwardArgs, label = 'logprob_backward'): PreparedDispatch {
  const { N, V } = a;
  for (const [k, v] of Object.entries({ N, V })) {
    if (!Number.isInteger(v) || v <= 0) throw new Error(`${label}: ${k} must be a positive integer, got ${v}`);
  }
  checkView(label, 'logits', a.logits, N * V);
  checkView(label, 'targets', a.targets, N);
  checkView(label, 'lse', a.lse, N);
  checkView(label, 'dlogprob', a.dlogprob, N);
  checkView(label, 'dlogits', a.dlogits, N * V);
  for (const k of ['logits', 'targets', 'lse', 'dlogprob'] as const) {
    if (a[k].buffer === a.dlogits.buffer) throw new Error(`${label}: dlogits must not share a buffer with ${k}`);
  }
  const temperature = a.temperature ?? 1;
  checkTemperature(label, temperature);
  const pipeline = gpu.pipelines.get('logprob_backward', code, 'main', { WG });
  const params = paramsUniform(gpu, `${label}-params`, [
    ['u32', N],
    ['u32', V],
    ['u32', off('logits', a.logits)],
    ['u32', off('targets', a.targets)],
    ['u32', off('lse', a.lse)],
    ['u32', off('dlogprob', a.dlogprob)],
    ['u32', off('dlogits', a.dlogits)],
    ['f32', temperature],
  ]);
  const bindGroup = bindAll(gpu, `${label}-bind`, pipeline, [
    [0, params],
    [1, a.logits.buffer],
    [2, a.targets.buffer],
    [3, a.lse.buffer],
    [4, a.dlogprob.buffer],
    [5, a.dlogits.buffer],
  ]);
  return { label, pipeline, bindGroup, groups: grid(Math.ceil((N * V) / WG)), flops: 4 * N * V, bytes: 8 * N * V };
}

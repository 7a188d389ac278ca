/**
 * Pieces of a GPU RL step the kernel tests drive on their own (the trainer, gpu_rl_trainer.ts,
 * encodes its step itself): GRPO advantages with the reward check, the gradient norm copied into
 * the metrics, and the metrics' readback.
 */
import type { Gpu } from '../../../src/engine/webgpu/device';
import { readF32 } from '../../../src/engine/webgpu/buffers';
import type { RlStepState } from '../../../src/engine/webgpu/gpu_loss';
import type { PreparedDispatch } from '../../../src/engine/webgpu/kernels/dispatch_plan';
import { prepareNonfiniteCheck } from '../../../src/engine/webgpu/kernels/nonfinite_check';
import { prepareGrpoAdvantageForward } from '../../../src/engine/webgpu/kernels/grpo_advantage_forward';
import { METRIC, NONFINITE, RL_METRICS, decodeRlMetrics, type RlMetrics } from '../../../src/reference/rl_metrics';

/**
 * Prepare GRPO advantages: rewards checked (NONFINITE.rewards), then group-normalized and
 * broadcast to the rows' policy tokens.
 * @throws Error naming a bad dimension or a view outside its buffer.
 */
export function prepareGrpoAdvantages(gpu: Gpu, s: RlStepState, a: Parameters<typeof prepareGrpoAdvantageForward>[1]): PreparedDispatch[] {
  return [
    prepareNonfiniteCheck(gpu, { n: a.E, x: a.rewards, flags: { buffer: s.flags }, bit: NONFINITE.rewards }),
    ...prepareGrpoAdvantageForward(gpu, a),
  ];
}

/**
 * Copy the global gradient norm (one f32 at byte `normOffset` of `norm`) into the metrics'
 * gradNorm slot. Encoded on the command encoder after the pass that ran prepareRlStepEnd's dispatch.
 */
export function copyGradNormToMetrics(enc: GPUCommandEncoder, s: RlStepState, norm: GPUBuffer, normOffset = 0): void {
  enc.copyBufferToBuffer(norm, normOffset, s.metrics, METRIC.gradNorm * 4, 4);
}

/** The step's one readback: decode the metrics buffer. */
export async function readRlMetrics(gpu: Gpu, s: RlStepState): Promise<RlMetrics> {
  return decodeRlMetrics(await readF32(gpu.device, s.metrics, RL_METRICS));
}

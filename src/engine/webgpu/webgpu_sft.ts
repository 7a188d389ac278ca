/**
 * The WebGPU engine's SFT trainer (browser only) on `GpuTrainer`: one submit and one metrics
 * readback per step (src/engine/webgpu/gpu_train.ts).
 */
import type { Gpu } from './device';
import { sftTargets } from '../../model/cpu_model';
import type { ModelConfig } from '../../model/config';
import { GpuModel } from './gpu_model';
import { GpuTrainer } from './gpu_train';
import type { SftHyper, SftTrainer } from '../engine_api';

/**
 * SFT on the GPU. The learning rate of each step is the one `trainSft` passes (the trainer's
 * schedule callback reads it); AdamW's step counter advances in lockstep with trainSft's.
 * @param maxB,maxT the largest batch shape (rows, tokens) the run uses
 */
export function gpuSftTrainer(
  gpu: Gpu,
  cfg: ModelConfig,
  init: Float32Array,
  hp: SftHyper,
  maxB: number,
  maxT: number,
): SftTrainer & { model: GpuModel } {
  const model = GpuModel.create(gpu, cfg, { maxB, maxT });
  model.writeParams(init);
  let lrNow = 0;
  const trainer = GpuTrainer.create(model, { lr: () => lrNow, weightDecay: hp.weightDecay, maxNorm: hp.maxNorm });
  return {
    name: 'gpu',
    model,
    async step(batch, lr, step) {
      if (trainer.step + 1 !== step) throw new Error(`gpuSftTrainer: step ${step} out of order (trainer at ${trainer.step})`);
      lrNow = lr;
      const { targets, mask } = sftTargets(batch.ids, batch.lengths, { B: batch.B, T: batch.T }, batch.mask);
      const m = await trainer.trainStep({ B: batch.B, T: batch.T, ids: batch.ids, targets, mask });
      return { loss: m.head.loss, gradNorm: m.gradNorm, tokens: m.head.tokens };
    },
    params: () => model.readParams(),
  };
}

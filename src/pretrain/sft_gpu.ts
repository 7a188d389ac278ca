/**
 * The GPU side of pretraining (browser only): the SFT backend on `GpuTrainer` (one submit and
 * one metrics readback per step; src/model/gpu_train.ts) and a greedy decoder on the batched
 * KV-cache `Sampler` (src/rollout/sampler.ts).
 */
import type { Gpu } from '../gpu/device';
import { sftTargets } from '../model/cpu_model';
import type { ModelConfig } from '../model/config';
import { GpuModel } from '../model/gpu_model';
import { GpuTrainer } from '../model/gpu_train';
import type { Tokenizer } from '../model/tokenizer';
import { Sampler } from '../rollout/sampler';
import type { Decoder } from './eval_greedy';
import { endTokenId } from '../model/rows';
import type { SftBackend } from './sft';

/**
 * SFT on the GPU. The learning rate of each step is the one `trainSft` passes (the trainer's
 * schedule callback reads it); AdamW's step counter advances in lockstep with trainSft's.
 * @param maxB,maxT the largest batch shape (rows, tokens) the run uses
 */
export function gpuSftBackend(
  gpu: Gpu,
  cfg: ModelConfig,
  init: Float32Array,
  hp: { weightDecay: number; maxNorm: number },
  maxB: number,
  maxT: number,
): SftBackend & { model: GpuModel } {
  const model = GpuModel.create(gpu, cfg, { maxB, maxT });
  model.writeParams(init);
  let lrNow = 0;
  const trainer = GpuTrainer.create(model, { lr: () => lrNow, weightDecay: hp.weightDecay, maxNorm: hp.maxNorm });
  return {
    name: 'gpu',
    model,
    async step(batch, lr, step) {
      if (trainer.step + 1 !== step) throw new Error(`gpuSftBackend: step ${step} out of order (trainer at ${trainer.step})`);
      lrNow = lr;
      const { targets, mask } = sftTargets(batch.ids, batch.lengths, { B: batch.B, T: batch.T }, batch.mask);
      const m = await trainer.trainStep({ B: batch.B, T: batch.T, ids: batch.ids, targets, mask });
      return { loss: m.head.loss, gradNorm: m.gradNorm, tokens: m.head.tokens };
    },
    params: () => model.readParams(),
  };
}

/**
 * Greedy decoding with the GPU sampler (temperature 0, stop at `<|end|>`), in chunks of maxB.
 * @param maxB rows per sampler call
 */
export function gpuGreedyDecoder(gpu: Gpu, cfg: ModelConfig, params: Float32Array, tok: Tokenizer, maxB: number): Decoder & { destroy(): void } {
  const model = GpuModel.create(gpu, cfg, { maxB });
  model.writeParams(params);
  const sampler = new Sampler(model);
  const end = endTokenId(tok);
  const dec = (async (prompts: number[][], maxNew: number) => {
    const out: Array<{ ids: number[]; ended: boolean }> = [];
    for (let i = 0; i < prompts.length; i += maxB) {
      const chunk = prompts.slice(i, i + maxB).map((p) => Int32Array.from(p));
      const { rows } = await sampler.sample({ prompts: chunk, maxNewTokens: maxNew, temperature: 0, seed: 0, endToken: end });
      for (const r of rows) out.push({ ids: Array.from(r.ids), ended: r.stop === 'end' });
    }
    return out;
  }) as Decoder & { destroy(): void };
  dec.destroy = () => {
    sampler.destroy();
    model.destroy();
  };
  return dec;
}

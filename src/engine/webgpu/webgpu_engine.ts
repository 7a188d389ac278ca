/**
 * The WebGPU engine (this folder: device, kernels/ launchers, shaders/ WGSL) as an `Engine`: GpuModel, the batched
 * KV-cache Sampler (as a SamplerPolicy), RlTrainer (src/engine/webgpu/gpu_rl_trainer.ts) and GpuTrainer's SFT step
 * (webgpu_sft.ts). Browser only.
 */
import type { Gpu } from './device';
import type { ModelConfig } from '../../model/config';
import { GpuModel } from './gpu_model';
import { RlTrainer } from './gpu_rl_trainer';
import type { RlTrainerOptions } from '../../rl/update';
import { Sampler } from './gpu_sampler';
import { SamplerPolicy } from '../sampler_policy';
import type { Engine, EnginePolicy, RlStack, SftHyper, SftTrainer } from '../engine_api';
import { gpuSftTrainer } from './webgpu_sft';

export class WebGpuEngine implements Engine {
  readonly kind = 'webgpu' as const;
  readonly describe: string;

  /** @param reason why it was chosen (shown with every result) */
  constructor(
    readonly gpu: Gpu,
    readonly reason: string,
  ) {
    this.describe = `WebGPU ${gpu.info.vendor}/${gpu.info.architecture}${gpu.info.device ? '/' + gpu.info.device : ''}`;
  }

  private model(cfg: ModelConfig, params: Float32Array, maxB: number): GpuModel {
    const model = GpuModel.create(this.gpu, cfg, { maxB });
    model.writeParams(params);
    return model;
  }

  createPolicy(cfg: ModelConfig, params: Float32Array, maxB: number): EnginePolicy {
    const model = this.model(cfg, params, maxB);
    const sampler = new Sampler(model);
    return Object.assign(new SamplerPolicy(sampler, maxB, model.maxT, cfg.vocabSize), {
      destroy: () => (sampler.destroy(), model.destroy()),
    });
  }

  createRlStack(cfg: ModelConfig, params: Float32Array, maxB: number, opts: RlTrainerOptions): RlStack {
    const model = this.model(cfg, params, maxB);
    const sampler = new Sampler(model);
    const policy = Object.assign(new SamplerPolicy(sampler, maxB, model.maxT, cfg.vocabSize), { destroy: () => {} });
    const trainer = RlTrainer.create(this.gpu, model, opts);
    return {
      policy,
      trainer,
      readParams: () => model.readParams(),
      destroy: () => {
        trainer.destroy();
        sampler.destroy();
        model.destroy();
      },
    };
  }

  createSftTrainer(cfg: ModelConfig, init: Float32Array, hp: SftHyper, maxB: number, maxT: number): SftTrainer {
    return gpuSftTrainer(this.gpu, cfg, init, hp, maxB, maxT);
  }

  errors(): readonly string[] {
    return this.gpu.errors;
  }

  /** Nothing to release: the device goes with the page (destroying it would report a device loss to anything still holding it). */
  destroy(): void {}
}

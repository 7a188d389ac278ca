// Runs in the page: a lost device stops training with a clear error instead of hanging or
// producing garbage (docs/ARCHITECTURE.md "The WebGPU engine"). destroy() is the one loss a page can cause on purpose.
import { createGpu } from '../../src/engine/webgpu/device';
import { GpuModel } from '../../src/engine/webgpu/gpu_model';
import { GpuTrainer } from '../../src/engine/webgpu/gpu_train';
import { presetConfig } from '../../src/model/config';
import { initParams } from '../../src/model/init';
import { sftTargets } from '../../src/model/cpu_model';
import { Sampler } from '../../src/engine/webgpu/gpu_sampler';
import { readF32 } from '../../src/engine/webgpu/buffers';

export async function trainAfterLoss(): Promise<{ firstLoss: number; lostSeen: boolean; onLostCalls: number; error: string }> {
  let onLostCalls = 0;
  const gpu = await createGpu({ onLost: () => onLostCalls++ });
  const cfg = presetConfig('tiny', 64);
  const B = 2;
  const T = 8;
  const model = GpuModel.create(gpu, cfg, { maxB: B, maxT: T });
  model.writeParams(initParams(cfg, 1));
  const trainer = GpuTrainer.create(model, {});
  const ids = Int32Array.from({ length: B * T }, (_, i) => (i * 7) % cfg.vocabSize);
  const lengths = Int32Array.from([T, T - 3]);
  const { targets, mask } = sftTargets(ids, lengths, { B, T });
  const first = await trainer.trainStep({ B, T, ids, targets, mask });
  gpu.device.destroy();
  await gpu.device.lost;
  let error = '';
  try {
    await trainer.trainStep({ B, T, ids, targets, mask });
  } catch (e) {
    error = (e as Error).message;
  }
  return { firstLoss: first.head.loss, lostSeen: gpu.lost !== null, onLostCalls, error };
}

/**
 * A loss in the middle of each kind of GPU call (the device destroyed right after the call
 * started, before its readback resolved): a training step, a sampling call and a plain readback
 * each reject with the same DeviceLostError message, never the raw AbortError of mapAsync.
 */
export async function lossMidCall(): Promise<Record<'trainStep' | 'sample' | 'readF32', { name: string; message: string }>> {
  const cfg = presetConfig('tiny', 64);
  const B = 2;
  const T = 8;
  const ids = Int32Array.from({ length: B * T }, (_, i) => (i * 7) % cfg.vocabSize);
  const { targets, mask } = sftTargets(ids, Int32Array.from([T, T - 3]), { B, T });
  const fresh = async () => {
    const gpu = await createGpu();
    const model = GpuModel.create(gpu, cfg, { maxB: B, maxT: 16 });
    model.writeParams(initParams(cfg, 1));
    return { gpu, model };
  };
  const caught = async (p: Promise<unknown>) => {
    try {
      await p;
      return { name: 'none', message: 'resolved' };
    } catch (e) {
      return { name: (e as Error).name, message: (e as Error).message };
    }
  };
  const out = {} as Record<'trainStep' | 'sample' | 'readF32', { name: string; message: string }>;
  {
    const { gpu, model } = await fresh();
    const trainer = GpuTrainer.create(model, {});
    const p = trainer.trainStep({ B, T, ids, targets, mask });
    gpu.device.destroy();
    out.trainStep = await caught(p);
  }
  {
    const { gpu, model } = await fresh();
    const sampler = new Sampler(model);
    const p = sampler.sample({ prompts: [ids.subarray(0, 4), ids.subarray(4, 6)], maxNewTokens: 4, temperature: 1, seed: 1 });
    gpu.device.destroy();
    out.sample = await caught(p);
  }
  {
    const { gpu, model } = await fresh();
    const p = readF32(gpu.device, model.params);
    gpu.device.destroy();
    out.readF32 = await caught(p);
  }
  return out;
}

// Runs in the page: a lost device stops training with a clear error instead of hanging or
// producing garbage (DESIGN.md §10). destroy() is the one loss a page can cause on purpose.
import { createGpu } from '../../src/gpu/device';
import { GpuModel } from '../../src/model/gpu_model';
import { GpuTrainer } from '../../src/model/gpu_train';
import { presetConfig } from '../../src/model/config';
import { initParams } from '../../src/model/init';
import { sftTargets } from '../../src/model/cpu_model';

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

// Browser side of rl_learns.spec.ts: the learning sanity check (tests/browser/lib/choice_task.ts)
// on the WebGPU engine — the SamplerPolicy over the GPU's KV-cache sampler, the rollout engine and RlTrainer's
// one-submit GRPO/PPO updates with GPU advantages.
import { createGpu } from '../../src/engine/webgpu/device';
import { WebGpuEngine } from '../../src/engine/webgpu/webgpu_engine';
import { loadTokenizer } from '../../src/model/tokenizer';
import { CHOICE_DEFAULTS, learnChoice, type ChoiceStep } from './lib/choice_task';

/** Train the choice on this page's WebGPU adapter: every step's record, and the steps planned. */
export async function learnOnGpu(algorithm: 'grpo' | 'ppo'): Promise<{ adapter: string; planned: number; steps: ChoiceStep[] }> {
  const [gpu, tok] = await Promise.all([createGpu(), loadTokenizer()]);
  try {
    const steps = await learnChoice(new WebGpuEngine(gpu, 'test'), tok, { algorithm });
    return { adapter: `${gpu.info.vendor}/${gpu.info.architecture}`, planned: CHOICE_DEFAULTS.steps, steps };
  } finally {
    gpu.device.destroy();
  }
}

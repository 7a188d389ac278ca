// Runs in the page: the GPU model's forward against the CPU model (src/model/cpu_model.ts),
// and the batch-composition invariance of log-probs (bit-identical f32).
import { createGpu, type Gpu } from '../../src/engine/webgpu/device';
import { allClose } from './lib/compare';
import { Rng } from '../../src/util/rng';
import { validateConfig, type ModelConfig } from '../../src/model/config';
import { initParams } from '../../src/model/init';
import { cpuForward } from '../../src/model/cpu_model';
import { GpuModel } from '../../src/engine/webgpu/gpu_model';

let shared: Promise<Gpu> | null = null;
const gpuOnce = () => (shared ??= createGpu());

/** GPT-2 init plus N(0, 0.1²) on every parameter, so that biases, LN gains and every path matter. */
export function testParams(cfg: ModelConfig, seed: number): Float32Array {
  const p = initParams(cfg, seed);
  const rng = Rng.derive(seed, 'test-noise');
  for (let i = 0; i < p.length; i++) p[i] += 0.1 * rng.normal();
  return p;
}

/** Random right-padded ids (B,T) with row lengths `lengths`; padding id 0. */
function randomBatch(rng: Rng, V: number, B: number, T: number, lengths: number[]): Int32Array {
  const ids = new Int32Array(B * T);
  for (let b = 0; b < B; b++) for (let t = 0; t < lengths[b]; t++) ids[b * T + t] = rng.int(V);
  return ids;
}

/**
 * GPU vs CPU forward: logits and values at every position (padded ones included: both sides
 * compute them the same way).
 */
export async function forwardVsCpu(cfg: ModelConfig, B: number, T: number, lengths: number[], seed: number, atol: number, rtol: number) {
  validateConfig(cfg);
  const gpu = await gpuOnce();
  const params = testParams(cfg, seed);
  const ids = randomBatch(new Rng(seed), cfg.vocabSize, B, T, lengths);
  const model = GpuModel.create(gpu, cfg, { maxB: B, maxT: T });
  model.writeParams(params);
  const got = await model.forward(ids, B, T);
  const ref = cpuForward(cfg, params, ids, Int32Array.from(lengths), { B, T });
  const dispatches = model.forwardDispatches(B, T).length;
  model.destroy();
  return {
    logits: allClose(got.logits, ref.logits, atol, rtol),
    values: allClose(got.values, ref.values, atol, rtol),
    dispatches,
  };
}

/**
 * One row of `len` tokens scored alone (B = 1, T = len) and as row 2 of a batch of 4 with
 * other random rows of other lengths and `extraPad` more padding (T = len + extraPad).
 * @returns whether its log-probs (next-token targets) and logits are bit-identical.
 */
export async function batchInvariance(cfg: ModelConfig, len: number, extraPad: number, seed: number) {
  const gpu = await gpuOnce();
  const V = cfg.vocabSize;
  const rng = new Rng(seed);
  const row = Int32Array.from({ length: len }, () => rng.int(V));
  const tgt = Int32Array.from({ length: len }, (_, t) => (t + 1 < len ? row[t + 1] : 0));
  const T = len + extraPad;
  const B = 4;
  const model = GpuModel.create(gpu, cfg, { maxB: B, maxT: T });
  model.writeParams(testParams(cfg, seed));
  const alone = await model.forward(row, 1, len, tgt);
  const lengths = [T, 3, len, 1];
  const ids = randomBatch(rng, V, B, T, lengths);
  ids.set(row, 2 * T);
  const targets = new Int32Array(B * T);
  targets.set(tgt, 2 * T);
  const batch = await model.forward(ids, B, T, targets);
  model.destroy();
  let lpDiff = 0;
  let logitDiff = 0;
  let lpEqual = true;
  let logitsEqual = true;
  for (let t = 0; t < len; t++) {
    const a = alone.logprob![t];
    const b = batch.logprob![2 * T + t];
    if (!Object.is(a, b)) lpEqual = false;
    lpDiff = Math.max(lpDiff, Math.abs(a - b));
    for (let v = 0; v < V; v++) {
      const x = alone.logits[t * V + v];
      const y = batch.logits[(2 * T + t) * V + v];
      if (!Object.is(x, y)) logitsEqual = false;
      logitDiff = Math.max(logitDiff, Math.abs(x - y));
    }
  }
  return { lpEqual, logitsEqual, lpDiff, logitDiff, finite: alone.logprob!.every(Number.isFinite) };
}

/** A tensor too large for one binding must be rejected with an error naming it and the limit. */
export async function bindingLimitError(): Promise<string> {
  const gpu = await gpuOnce();
  const cfg = validateConfig({ vocabSize: 64, maxT: 4096, C: 32, L: 1, NH: 1 });
  try {
    // att (B,NH,T,T) at B = 64, T = 4096 is 4 GiB.
    GpuModel.create(gpu, cfg, { maxB: 64, maxT: 4096 });
    return 'no error';
  } catch (e) {
    return (e as Error).message;
  }
}

/** Bad inputs give errors naming the field: an id out of range, a shape past maxB/maxT. */
export async function badInputErrors(): Promise<string[]> {
  const gpu = await gpuOnce();
  const cfg = validateConfig({ vocabSize: 64, maxT: 16, C: 32, L: 1, NH: 2 });
  const model = GpuModel.create(gpu, cfg, { maxB: 2, maxT: 8 });
  const msgs: string[] = [];
  const tryIt = (f: () => unknown) => {
    try {
      f();
      msgs.push('no error');
    } catch (e) {
      msgs.push((e as Error).message);
    }
  };
  tryIt(() => model.writeIds(Int32Array.from([1, 2, 3, 64]), 1, 4));
  tryIt(() => model.forwardDispatches(3, 4));
  tryIt(() => model.forwardDispatches(1, 9));
  tryIt(() => model.writeParams(new Float32Array(5)));
  model.destroy();
  return msgs;
}

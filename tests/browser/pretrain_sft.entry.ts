// Runs in the page: SFT on the WebGPU engine's trainer vs the reference model on the same demonstration batches
// (src/pretrain/sft.ts), and the whole page-side pretraining (src/pretrain/page.ts) at toy size.
import { createGpu } from '../../src/engine/webgpu/device';
import { loadTokenizer } from '../../src/model/tokenizer';
import { prepareSft, refSftTrainer, trainSft, type SftConfig } from '../../src/pretrain/sft';
import { WebGpuEngine } from '../../src/engine/webgpu/webgpu_engine';
import { decodeBaseCheckpoint } from '../../src/model/checkpoint';
import { pretrainInPage, type PretrainEvent } from '../../src/pretrain/page';

const MICRO: SftConfig = {
  preset: 'tiny',
  steps: 12,
  batchSize: 4,
  lr: 1e-2,
  seed: 5,
  demos: 4,
  blackbox: null,
  mix: 'procedural:1',
  maxTier: 1,
  // maxT 512: every procedural opening fits whole (the cut never drops the instruction).
  actionReserve: 40,
  warmupSteps: 2,
  modelOverride: { C: 16, L: 1, NH: 2, maxT: 512 },
};

/** Loss curves of the WebGPU engine's SFT trainer and the reference trainer over the same 12 batches. */
export async function gpuVsCpu(): Promise<{ gpu: number[]; cpu: number[]; rows: number }> {
  const tok = await loadTokenizer();
  const p = prepareSft(tok, MICRO);
  const gpu = await createGpu();
  const g = await trainSft(
    p.rows,
    p.cfg,
    new WebGpuEngine(gpu, 'test').createSftTrainer(p.cfg.model, p.init, p.cfg, p.cfg.batchSize, p.cfg.model.maxT),
    tok.padId,
  );
  const c = await trainSft(p.rows, p.cfg, refSftTrainer(p.cfg.model, p.init, p.cfg), tok.padId);
  if (gpu.errors.length) throw new Error(gpu.errors.join('; '));
  return { gpu: g.losses, cpu: c.losses, rows: p.rows.length };
}

/** `hlab pretrain` page side at toy size; the checkpoint is decoded and verified here, its progress events returned. */
export async function toyPretrain(): Promise<{
  backend: string;
  steps: number;
  losses: number[];
  digest: string;
  verified: string;
  evalEpisodes: number;
  passAt1: number;
  events: PretrainEvent[];
}> {
  const events: PretrainEvent[] = [];
  const r = await pretrainInPage({ ...MICRO, steps: 3, logEvery: 2, evalTasks: 1, evalHarnesses: 1, command: 'test' }, (ev) =>
    events.push(ev),
  );
  const bin = atob(r.checkpointBase64);
  const bytes = Uint8Array.from(bin, (ch) => ch.charCodeAt(0));
  const ck = await decodeBaseCheckpoint(bytes);
  return {
    backend: r.backend,
    steps: r.steps,
    losses: r.losses,
    digest: r.digest,
    verified: ck.header.digest,
    evalEpisodes: r.eval?.episodes.length ?? 0,
    passAt1: r.eval?.passAt1 ?? -1,
    events,
  };
}

/**
 * Page-side pretraining (run by `hlab pretrain` through withBrowser, and by the browser test):
 * demonstrations → rows → SFT on the WebGPU engine when WebGPU works (the CPU engine otherwise,
 * reported; src/engine) → checkpoint bytes (base64) → a quick greedy evaluation (the engine's
 * policy at τ = 0) on train tasks under a few training harnesses. Progress goes to `onEvent` as
 * `PretrainEvent`s (the page entry sends them to the CLI, which prints them; src/page/protocol.ts).
 * Returns a JSON-safe summary.
 */
import { chooseEngine } from '../engine/choose';
import type { Engine } from '../engine/engine_api';
import { loadTokenizer, TOKENIZER_FORMAT_VERSION } from '../model/tokenizer';
import { paramCount } from '../model/layout';
import { selectTrainingOA } from '../design/selection';
import { encodeBaseCheckpoint } from '../model/checkpoint';
import { evalTaskList, pretrainSummary, type PretrainPageResult } from './drivers';
import { evaluateGreedy } from './eval_greedy';
import { describeDropped } from '../episode/demonstrations';
import { prepareSft, trainSft, type SftConfig, type SftProgress } from './sft';
import { mixMetadata } from './mix';

export interface PretrainPageOptions extends SftConfig {
  /** Log a progress line every this many steps. */
  logEvery: number;
  /** Evaluation: this many train tasks (tier 1 first) × `evalHarnesses` training harnesses (0 = skip). */
  evalTasks: number;
  evalHarnesses: number;
  /** Force the CPU engine even when WebGPU works. */
  cpu?: boolean;
  /** Command line recorded in the checkpoint metadata. */
  command: string;
}

/** What pretrainInPage reports while it works: every `logEvery`-th step (and the first and last), and notes of one line each. */
export type PretrainEvent = { type: 'pretrainStep'; steps: number; progress: SftProgress } | { type: 'pretrainNote'; message: string };

/**
 * Pretrain in the page (module doc).
 * @param onEvent progress (not awaited; the CLI prints it)
 * @throws Error when WebGPU reported errors during training, or on bad options (prepareSft)
 */
export async function pretrainInPage(o: PretrainPageOptions, onEvent: (ev: PretrainEvent) => void = () => {}): Promise<PretrainPageResult> {
  const t0 = performance.now();
  const note = (message: string) => onEvent({ type: 'pretrainNote', message });
  const tok = await loadTokenizer();
  const p = prepareSft(tok, o);
  const cfg = p.cfg;
  const rowTokens = p.rows.reduce((a, r) => a + r.ids.length, 0);
  note(
    `${p.demos.episodes.length} expert episodes (${p.demos.source}, ${describeDropped(p.demos)}) → ${p.rows.length} rows, mean ${(rowTokens / Math.max(1, p.rows.length)).toFixed(0)} tokens; model ${cfg.preset} P=${paramCount(cfg.model)} maxT=${cfg.model.maxT}`,
  );
  let gpuEngine: Engine | null = null;
  let fallbackReason: string | null = null;
  if (o.cpu) fallbackReason = '--cpu given';
  else {
    try {
      gpuEngine = await chooseEngine('webgpu');
    } catch (e) {
      fallbackReason = (e as Error).message.split('\n')[0];
    }
  }
  const engine = gpuEngine ?? (await chooseEngine('wasm'));
  if (fallbackReason) note(`training on the ${engine.describe} instead of WebGPU: ${fallbackReason}`);
  const trainer = engine.createSftTrainer(cfg.model, p.init, cfg, cfg.batchSize, cfg.model.maxT);
  const prepMs = performance.now() - t0;
  const res = await trainSft(p.rows, cfg, trainer, tok.padId, (s) => {
    if (s.step === 1 || s.step % o.logEvery === 0 || s.step === cfg.steps) onEvent({ type: 'pretrainStep', steps: cfg.steps, progress: s });
  });
  if (engine.errors().length) throw new Error(`WebGPU errors during training: ${engine.errors().join('; ')}`);
  const meta = {
    command: o.command,
    seed: cfg.seed,
    steps: cfg.steps,
    batchSize: cfg.batchSize,
    lr: cfg.lr,
    demos: cfg.demos,
    source: p.demos.source,
    actionReserve: cfg.actionReserve,
    budgetMaxT: cfg.model.maxT,
    maxTier: cfg.maxTier,
    contextLossWeight: cfg.contextLossWeight,
    finalLoss: res.finalLoss,
    backend: res.trainer,
    ...(cfg.mix ? mixMetadata(cfg.mix) : {}),
  };
  const { bytes, digest } = await encodeBaseCheckpoint(
    cfg.model,
    res.params,
    { name: tok.name, vocabSize: tok.vocabSize, formatVersion: TOKENIZER_FORMAT_VERSION },
    meta,
  );
  let evalOut: PretrainPageResult['eval'] = null;
  if (o.evalTasks > 0 && o.evalHarnesses > 0) {
    const e0 = performance.now();
    const harnesses = o.blackbox ? [o.blackbox] : selectTrainingOA().training.slice(0, o.evalHarnesses);
    const tasks = evalTaskList(o.evalTasks, cfg.seed, cfg.suites);
    note(`greedy evaluation: ${tasks.length} train tasks × ${harnesses.length} harnesses (${harnesses.join(', ')})`);
    const policy = engine.createPolicy(cfg.model, res.params, Math.min(32, tasks.length * harnesses.length));
    const rep = await evaluateGreedy(tok, policy, tasks, harnesses, { maxT: cfg.model.maxT, actionReserve: cfg.actionReserve }, 8);
    policy.destroy();
    evalOut = { ...rep, ms: performance.now() - e0, harnesses, tasks: tasks.map((t) => t.id) };
    note(`greedy pass@1 ${rep.passAt1.toFixed(3)}, valid actions ${(100 * rep.validActionRate).toFixed(1)}%`);
  }
  engine.destroy();
  return pretrainSummary(cfg, p.demos, p.rows, res, {
    backend: engine.kind === 'webgpu' ? 'gpu' : 'wasm',
    fallbackReason,
    adapter: engine.describe,
    prepMs,
    digest,
    eval: evalOut,
    bytes,
  });
}

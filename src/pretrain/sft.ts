/**
 * Supervised fine-tuning on expert demonstrations (docs/ARCHITECTURE.md "Pretraining", docs/PRETRAIN.md):
 *  - the base model: demonstrations of train tasks rendered under the pretraining harness mix
 *    (mix.ts: the base harness, its one-factor variants, a share of random configurations outside
 *    OA-18, procedural harnesses), never a black-box harness;
 *  - the black-box SFT baseline: demonstrations through one black-box harness (default
 *    'bb-coding-cli').
 *
 * Objective: token-mean cross-entropy of the expert's action tokens (`<|end|>` included) given
 * the context (rows.ts), AdamW with global-norm clipping, linear warm-up then cosine decay to
 * `minLrRatio`·lr. Every step sees a fixed-size batch from a seeded per-epoch shuffle, so a
 * (config, seed) pair reproduces the run; every SFT trainer (the engines', src/engine, and the
 * reference `refSftTrainer`) consumes the identical batch sequence.
 */
import { ADAMW_MOMENTS } from '../model/optimizer';
import { presetConfig, type ModelConfig, type PresetName, PRESET_NAMES } from '../model/config';
import { cpuAdamwStep, cpuBackward, cpuForward, sftLoss, sftTargets } from '../model/cpu_model';
import { initParams } from '../model/init';
import type { Tokenizer } from '../model/tokenizer';
import { runExpertEpisode } from '../harness/expert';
import { isBlackboxId } from '../harness/registry';
import { getSuite, taskSet } from '../tasks';
import type { SuiteName, Task, Tier } from '../tasks/types';
import { Rng } from '../util/rng';
import { runProceduralExpert } from '../corpus/procedural_harness';
import { batchIndices, cutView, packBatch, tokenCounter, type Row, type RowBatch } from '../episode/rows';
import { demonstrationRows, expertDemonstrations, keepPassed, type DemoEpisodes } from '../episode/demonstrations';
import type { SftTrainer } from '../engine/engine_api';
import { DEFAULT_MIX_SPEC, drawMixHarness, MixSpecError, resolveMix, type PretrainMix } from './mix';

/** Knobs of one SFT run. */
export interface SftConfig {
  preset: PresetName;
  /** Optimizer steps (≥ 1). */
  steps: number;
  /** Rows per step B (≥ 1). */
  batchSize: number;
  /** Peak learning rate. */
  lr: number;
  /** Seeds tasks, harness draws, init and batch order. */
  seed: number;
  /** Expert episodes to collect (split evenly over the two suites). */
  demos: number;
  /** null: the base model, demonstrations under `mix`; a black-box id: the black-box SFT baseline. */
  blackbox: string | null;
  /** The base model's harness mix spec (mix.ts grammar; default DEFAULT_MIX_SPEC); must be absent with `blackbox`. */
  mix?: string;
  /** Tokens reserved for the action (rows.ts); default maxT/4 rounded to 8, at least 48. */
  actionReserve?: number;
  /** Only tasks of tier ≤ maxTier (curriculum; default 3 = all). */
  maxTier?: Tier;
  /** Suites the demonstrations come from (default both; a preset's base model may use only its own). */
  suites?: SuiteName[];
  /** Linear warm-up steps (default min(100, ⌈steps/10⌉)). */
  warmupSteps?: number;
  /** Final lr as a fraction of lr (default 0.1). */
  minLrRatio?: number;
  weightDecay?: number;
  maxNorm?: number;
  /**
   * Weight in [0, 1] of the next-token loss on context tokens (system prompt, task,
   * observations) beside weight 1 on action tokens (default 0: actions only, the SFT rule).
   * A model trained from scratch learns copying (induction) from every token; the masked SFT
   * objective scores ~15 % of them. The held-out curves stay action-only.
   */
  contextLossWeight?: number;
  /** Override the preset's config (tests use a micro model). */
  modelOverride?: Partial<Omit<ModelConfig, 'vocabSize'>>;
}

/** Defaults of the optional fields. */
export function resolveSftConfig(
  c: SftConfig,
  vocabSize: number,
): Required<Omit<SftConfig, 'modelOverride' | 'mix'>> & { model: ModelConfig; mix: PretrainMix | null } {
  if (!(PRESET_NAMES as readonly string[]).includes(c.preset))
    throw new Error(`SftConfig.preset must be one of ${PRESET_NAMES.join(', ')}, got '${c.preset}'`);
  for (const k of ['steps', 'batchSize', 'demos'] as const) {
    if (!Number.isInteger(c[k]) || c[k] < 1) throw new Error(`SftConfig.${k} must be an integer ≥ 1, got ${c[k]}`);
  }
  if (!Number.isInteger(c.seed)) throw new Error(`SftConfig.seed must be an integer, got ${c.seed}`);
  if (!(c.lr > 0 && c.lr < 1)) throw new Error(`SftConfig.lr must be in (0, 1), got ${c.lr}`);
  if (c.blackbox !== null && !isBlackboxId(c.blackbox))
    throw new Error(`SftConfig.blackbox must be null or a black-box harness id (bb-coding-cli, bb-assistant), got '${c.blackbox}'`);
  const model = { ...presetConfig(c.preset, vocabSize), ...(c.modelOverride ?? {}) };
  const actionReserve = c.actionReserve ?? Math.max(48, Math.round(model.maxT / 4 / 8) * 8);
  const maxTier = c.maxTier ?? 3;
  const suites = c.suites ?? ['workspace', 'errands'];
  if (suites.length === 0 || suites.some((x) => x !== 'workspace' && x !== 'errands'))
    throw new Error(`SftConfig.suites must be a non-empty list of workspace, errands; got ${JSON.stringify(suites)}`);
  if (![1, 2, 3].includes(maxTier)) throw new Error(`SftConfig.maxTier must be 1, 2 or 3, got ${maxTier}`);
  if (c.blackbox !== null && c.mix !== undefined)
    throw new Error(`SftConfig.mix applies to the base model only; got mix '${c.mix}' with blackbox '${c.blackbox}'`);
  let mix: PretrainMix | null = null;
  if (c.blackbox === null) {
    try {
      mix = resolveMix(c.mix ?? DEFAULT_MIX_SPEC, c.seed);
    } catch (e) {
      if (e instanceof MixSpecError) throw new Error(`SftConfig.mix: ${e.message}`);
      throw e;
    }
  }
  const contextLossWeight = c.contextLossWeight ?? 0;
  if (!(contextLossWeight >= 0 && contextLossWeight <= 1))
    throw new Error(`SftConfig.contextLossWeight must be in [0, 1], got ${c.contextLossWeight}`);
  return {
    ...c,
    model,
    mix,
    actionReserve,
    maxTier,
    suites,
    warmupSteps: c.warmupSteps ?? Math.min(100, Math.ceil(c.steps / 10)),
    minLrRatio: c.minLrRatio ?? 0.1,
    weightDecay: c.weightDecay ?? 0.01,
    maxNorm: c.maxNorm ?? 1,
    contextLossWeight,
  };
}

/**
 * The batch with loss weight `w` on its context tokens: mask 1 stays 1 (action tokens), 0
 * becomes w at positions 1 … length−1 of each row (position 0, `<bos>`, is never a target;
 * padding stays 0). sftTargets then scores position t with weight mask[t+1]; every trainer
 * normalizes by Σ weights.
 * @returns `batch` itself when w = 0
 */
function withContextWeight(batch: RowBatch, w: number): RowBatch {
  if (w === 0) return batch;
  const mask = new Float32Array(batch.mask.length);
  for (let b = 0; b < batch.B; b++) {
    for (let t = 1; t < batch.lengths[b]; t++) {
      const i = b * batch.T + t;
      mask[i] = batch.mask[i] > 0 ? batch.mask[i] : w;
    }
  }
  return { ...batch, mask };
}

/**
 * Learning rate at 1-based `step`: linear warm-up to lr over `warmup` steps, then cosine decay
 * to minRatio·lr at `total` (Loshchilov & Hutter 2017, as in nanoGPT).
 */
function lrAt(step: number, total: number, lr: number, warmup: number, minRatio: number): number {
  if (step <= warmup) return (lr * step) / Math.max(1, warmup);
  const p = Math.min(1, (step - warmup) / Math.max(1, total - warmup));
  return lr * (minRatio + (1 - minRatio) * 0.5 * (1 + Math.cos(Math.PI * p)));
}

/** Train tasks of `suites` (an equal share each), tier ≤ maxTier, deterministic in seed. */
export function demoTasks(n: number, seed: number, maxTier: Tier = 3, suites: readonly SuiteName[] = ['workspace', 'errands']): Task[] {
  const out: Task[] = [];
  const k = suites.length;
  suites.forEach((s, i) => {
    const want = Math.floor(n / k) + (i < n % k ? 1 : 0);
    // taskSet is balanced over family × tier (any prefix within one per cell): drawing
    // 3·want + 3·families tasks leaves at least `want` of tier ≤ maxTier.
    const draw = maxTier === 3 ? want : 3 * want + 3 * getSuite(s).families.length;
    const pool = taskSet(s, 'train', draw, Rng.derive(seed, 'demo-tasks', s).int(2 ** 31)).filter((t) => t.tier <= maxTier);
    out.push(...pool.slice(0, want));
  });
  return out;
}

/** Demonstrations and where they came from. */
export interface DemoSet extends DemoEpisodes {
  /** 'mix <spec>' or the black-box id. */
  source: string;
}

/** Where demonstrations come from: the base model's harness mix, or one black-box harness. */
type DemoSource = { mix: PretrainMix } | { blackbox: string };

/**
 * Expert demonstrations: each task under a harness drawn from the mix (stream
 * `Rng.derive(seed, 'demo-harness')`: one draw per task, then a procedural seed when the draw is
 * 'procedural' or 'procedural-envelope'), or every task under one black-box harness.
 * @param view the text the model will see of a context (rows.ts `cutView`): the expert acts only on it
 * @param tokenLength token counter of the harnesses' context policies (C2 summaries, compaction),
 *   as a rollout counts (rows.ts `tokenCounter`); default ⌈chars/4⌉
 */
function collectDemonstrations(
  n: number,
  seed: number,
  source: DemoSource,
  maxTier: Tier = 3,
  suites?: readonly SuiteName[],
  view?: (context: string, action?: string) => string,
  tokenLength?: (text: string) => number,
): DemoSet {
  return demonstrationsOf(demoTasks(n, seed, maxTier, suites), seed, source, view, tokenLength);
}

/**
 * Expert demonstrations of the given tasks (collectDemonstrations draws them): harness choice,
 * view and token counter as collectDemonstrations documents; failed episodes dropped and
 * counted. Under one black-box harness they are episode/demonstrations.ts `expertDemonstrations`,
 * which an episode host serves to the in-run SFT phase.
 */
function demonstrationsOf(
  tasks: readonly Task[],
  seed: number,
  source: DemoSource,
  view?: (context: string, action?: string) => string,
  tokenLength?: (text: string) => number,
): DemoSet {
  if ('blackbox' in source) return { ...expertDemonstrations(tasks, source.blackbox, view, tokenLength), source: source.blackbox };
  const hr = Rng.derive(seed, 'demo-harness');
  const opts = { view, ...(tokenLength ? { tokenLength } : {}) };
  const runs = tasks.map((t) => {
    const h = drawMixHarness(source.mix, hr);
    if (h === 'procedural') return runProceduralExpert(t, hr.int(2 ** 31), { view });
    if (h === 'procedural-envelope') return runProceduralExpert(t, hr.int(2 ** 31), { view, syntax: 'envelope' });
    return runExpertEpisode(t, h, opts);
  });
  return { ...keepPassed(runs), source: `mix ${source.mix.spec}` };
}

/**
 * The reference SFT trainer in plain TypeScript (tests, and the checks of both engines' SFT
 * steps): cpuForward → sftLoss → cpuBackward → cpuAdamwStep (f32).
 */
export function refSftTrainer(model: ModelConfig, init: Float32Array, hp: { weightDecay: number; maxNorm: number }): SftTrainer {
  const params = init.slice();
  const m = new Float32Array(params.length);
  const v = new Float32Array(params.length);
  return {
    name: 'reference',
    async step(batch, lr, step) {
      const dims = { B: batch.B, T: batch.T };
      const { targets, mask } = sftTargets(batch.ids, batch.lengths, dims, batch.mask);
      const fwd = cpuForward(model, params, batch.ids, batch.lengths, dims);
      const { loss, dlogits } = sftLoss(model, fwd.logits, targets, mask);
      const grads = cpuBackward(params, fwd.cache, dlogits, null);
      const { norm } = cpuAdamwStep(params, grads, m, v, { lr, ...ADAMW_MOMENTS, weightDecay: hp.weightDecay, maxNorm: hp.maxNorm, step });
      let tokens = 0;
      for (let i = 0; i < mask.length; i++) tokens += mask[i];
      return { loss, gradNorm: norm, tokens };
    },
    params: async () => params.slice(),
  };
}

export interface SftProgress {
  step: number;
  loss: number;
  gradNorm: number;
  lr: number;
  /** Action tokens scored in this step. */
  tokens: number;
  /** Tokens (context + action, padding excluded) processed per second so far. */
  tokensPerSec: number;
  elapsedMs: number;
}

export interface SftResult {
  params: Float32Array;
  model: ModelConfig;
  /** Loss of every step (nats/token). */
  losses: number[];
  /** Mean loss of the last min(10, steps) steps. */
  finalLoss: number;
  rows: number;
  /** Rows whose context was cut by the truncation rule, and the context tokens it dropped (all rows). */
  truncatedRows: number;
  droppedContextTokens: number;
  /** Tokens processed (valid, not padding) and wall time of the steps. */
  tokens: number;
  ms: number;
  /** The SFT trainer's name. */
  trainer: string;
}

/**
 * Run SFT over `rows` with `trainer` (module doc).
 * @param onProgress called after every step
 * @param onParams called with the parameters after every `paramsEvery`-th step (intermediate checkpoints)
 * @throws Error when there are no rows, or a trainer step fails (a non-finite gradient norm
 *   throws from the CPU step; the GPU step's loss is checked here).
 */
export async function trainSft(
  rows: readonly Row[],
  cfg: ReturnType<typeof resolveSftConfig>,
  trainer: SftTrainer,
  padId: number,
  onProgress?: (p: SftProgress) => void,
  onParams?: (step: number, params: Float32Array) => Promise<void>,
  paramsEvery = 0,
): Promise<SftResult> {
  if (rows.length === 0) throw new Error('trainSft: no demonstration rows');
  const losses: number[] = [];
  let tokens = 0;
  const t0 = performance.now();
  for (let s = 1; s <= cfg.steps; s++) {
    const idx = batchIndices(rows.length, cfg.batchSize, cfg.seed, s - 1);
    const batch = withContextWeight(
      packBatch(
        idx.map((i) => rows[i]),
        cfg.batchSize,
        padId,
        { maxT: cfg.model.maxT },
      ),
      cfg.contextLossWeight,
    );
    const lr = lrAt(s, cfg.steps, cfg.lr, cfg.warmupSteps, cfg.minLrRatio);
    const r = await trainer.step(batch, lr, s);
    if (!Number.isFinite(r.loss)) throw new Error(`trainSft: step ${s} loss is ${r.loss}`);
    losses.push(r.loss);
    for (let b = 0; b < batch.B; b++) tokens += batch.lengths[b];
    const elapsedMs = performance.now() - t0;
    onProgress?.({
      step: s,
      loss: r.loss,
      gradNorm: r.gradNorm,
      lr,
      tokens: r.tokens,
      tokensPerSec: tokens / (elapsedMs / 1000),
      elapsedMs,
    });
    if (onParams && paramsEvery > 0 && s % paramsEvery === 0) await onParams(s, await trainer.params());
  }
  const ms = performance.now() - t0;
  const tail = losses.slice(-Math.min(10, losses.length));
  return {
    params: await trainer.params(),
    model: cfg.model,
    losses,
    finalLoss: tail.reduce((a, b) => a + b, 0) / tail.length,
    rows: rows.length,
    truncatedRows: rows.filter((r) => r.droppedContextTokens > 0).length,
    droppedContextTokens: rows.reduce((a, r) => a + r.droppedContextTokens, 0),
    tokens,
    ms,
    trainer: trainer.name,
  };
}

/**
 * Everything before training: demonstrations → rows, config resolved, fresh parameters.
 * Base model when `cfg.blackbox` is null, black-box SFT baseline otherwise.
 */
export function prepareSft(tok: Tokenizer, cfg: SftConfig) {
  const rc = resolveSftConfig(cfg, tok.vocabSize);
  const limits = { maxT: rc.model.maxT, actionReserve: rc.actionReserve };
  // The expert acts on what the cut rows will show (it re-reads what the cut drops).
  const source: DemoSource = rc.blackbox !== null ? { blackbox: rc.blackbox } : { mix: rc.mix! };
  const demos = collectDemonstrations(rc.demos, rc.seed, source, rc.maxTier, rc.suites, cutView(tok, limits), tokenCounter(tok));
  const stats = { longActionTurns: 0 };
  const rows = demonstrationRows(tok, demos.episodes, limits, { stats });
  const init = initParams(rc.model, Rng.derive(rc.seed, 'sft-init').int(2 ** 31));
  return { cfg: rc, demos, rows, init, longActionTurns: stats.longActionTurns };
}

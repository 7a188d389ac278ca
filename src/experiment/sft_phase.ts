/**
 * The in-run SFT phase of a method (spec.ts MethodSpec.sft; issue 28): supervised fine-tuning
 * through the method's black-box harness, run by the runner (runner.ts "SFT phase") after the
 * 'before' evaluation and before any RL step, so a run's gain covers SFT and RL together.
 *
 *   demonstrations → rows → SFT steps → parameters (the runner writes them into the RL trainer)
 *
 * Demonstrations: one expert episode (src/harness/expert.ts) per task of the run's train-task
 * pool (plan.ts trainPool, train seeds; never a test or validation task), or a seeded subset of
 * `demos` of them (stream Rng.derive(seed, 'sft-demos')), under `method.blackbox`; the expert
 * acts on what the run's context cut shows (rows.ts cutView at the run's budget, model/budget.ts
 * runBudget) and failed episodes are dropped. Rows: src/pretrain/sft.ts demonstrationRows.
 * Training: src/pretrain/sft.ts trainSft (the recipe of `hlab pretrain`: AdamW, linear warm-up
 * then cosine decay to 0.1·lr, global-norm clip 1, weight decay 0.01) on the engine's SFT trainer
 * (Engine.createSftTrainer), batch order from Rng.derive(seed, 'sft-batches').
 *
 * Determinism: every choice derives from the run's seed and the parameters start from the run's
 * starting checkpoint, so a run resumed before its phase finished redoes it and gets the same
 * parameters. A stop request is honoured after the phase (the RL loop polls it), not inside it.
 */
import type { Engine } from '../engine/engine';
import { runExpertEpisode, type ExpertEpisode } from '../harness/expert';
import { runBudget } from '../model/budget';
import type { ModelConfig, PresetName } from '../model/config';
import { cutView, tokenCounter } from '../model/rows';
import type { Tokenizer } from '../model/tokenizer';
import { demoFailureReason, demonstrationRows, describeDropped, resolveSftConfig, trainSft, type DemoFailure } from '../pretrain/sft';
import { taskFromId } from '../tasks';
import { Rng } from '../util/rng';
import type { Emit } from './run_events';
import type { ExperimentSpec, MethodSpec } from './spec';

/** What a finished SFT phase records (run state, RunResult.sft). */
export interface SftRecord {
  /** SFT optimizer steps applied. */
  steps: number;
  /** Mean SFT loss (nats per action token) over the first and the last 10 % of the steps (at least one step each). */
  firstLoss: number;
  lastLoss: number;
  /** Expert episodes kept as demonstrations, and those dropped because the expert failed. */
  demos: number;
  failedDemos: number;
  /** Training rows made of the demonstrations. */
  rows: number;
  /** Wall-clock seconds of the phase (demonstrations and steps). */
  seconds: number;
}

/** One run's SFT phase: what it trains and where it reports. */
export interface SftPhaseRun {
  spec: ExperimentSpec;
  /** A method with `sft` and `blackbox` set (spec.ts checks both). */
  method: MethodSpec;
  seed: number;
  runIndex: number;
  tok: Tokenizer;
  engine: Engine;
  preset: PresetName;
  cfg: ModelConfig;
  /** Starting parameters (P), the run's starting checkpoint; not modified. */
  init: Float32Array;
  /** The run's train-task pool (ids, infeasible cells already left out). */
  pool: readonly string[];
  emit: Emit;
  /** The call's work units (runner.ts), repeated in the phase's progress events; the phase adds none. */
  progress: { done: number; total: number };
}

/** Mean of the first (`last` false) or last 10 % of `xs` (at least one element). */
function tenthMean(xs: readonly number[], last: boolean): number {
  const n = Math.max(1, Math.round(xs.length / 10));
  const part = last ? xs.slice(-n) : xs.slice(0, n);
  return part.reduce((a, b) => a + b, 0) / part.length;
}

/**
 * Run the SFT phase (module doc).
 * @returns the fine-tuned parameters (P) and the phase's record
 * @throws Error when the method has no SFT phase or black-box harness, when no expert
 *   demonstration passed, or a step's loss is not finite (trainSft); ContextBudgetError when an
 *   opening exceeds the run's context budget (demonstrationRows)
 */
export async function runSftPhase(o: SftPhaseRun): Promise<{ params: Float32Array; record: SftRecord }> {
  const { spec, method, seed, tok, emit } = o;
  const sft = method.sft;
  const harness = method.blackbox;
  if (!sft || !harness) throw new Error(`method '${method.name}': an SFT phase needs spec.methods[].sft and a black-box harness`);
  const t0 = performance.now();
  const who = `${method.name}, seed ${seed}`;
  const ids = sft.demos !== undefined && sft.demos < o.pool.length ? Rng.derive(seed, 'sft-demos').shuffle([...o.pool]).slice(0, sft.demos) : [...o.pool];
  const limits = runBudget(o.cfg.maxT, spec.rollout);
  const expertOpts = { view: cutView(tok, limits), tokenLength: tokenCounter(tok) };
  const episodes: ExpertEpisode[] = [];
  const failedBy: Record<DemoFailure, number> = { opening: 0, driver: 0, verifier: 0 };
  for (const id of ids) {
    const ep = runExpertEpisode(taskFromId(id), harness, expertOpts);
    if (ep.pass) episodes.push(ep);
    else failedBy[demoFailureReason(ep)]++;
  }
  const failed = ids.length - episodes.length;
  if (episodes.length === 0) throw new Error(`method '${method.name}', seed ${seed}: SFT phase: the expert passed none of ${ids.length} train tasks under ${harness}`);
  const rows = demonstrationRows(tok, episodes, limits);
  emit({
    type: 'log',
    message: `SFT phase (${who}): ${episodes.length} expert episodes of ${ids.length} train tasks through ${harness} (${describeDropped({ failed, failedBy })}) → ${rows.length} rows; ${sft.steps} steps × ${sft.batchSize} rows, lr ${sft.lr}`,
  });
  const cfg = {
    ...resolveSftConfig(
      { preset: o.preset, steps: sft.steps, batchSize: sft.batchSize, lr: sft.lr, seed: Rng.derive(seed, 'sft-batches').int(2 ** 31), demos: ids.length, blackbox: harness },
      tok.vocabSize,
    ),
    model: o.cfg,
  };
  const trainer = o.engine.createSftTrainer(o.cfg, o.init, cfg, cfg.batchSize, o.cfg.maxT);
  const logEvery = Math.max(1, Math.round(sft.steps / 10));
  const res = await trainSft(rows, cfg, trainer, tok.padId, (p) => {
    if (p.step === 1 || p.step % logEvery === 0 || p.step === sft.steps) {
      emit({ type: 'progress', ...o.progress, phase: `SFT step ${p.step}/${sft.steps} (${who})` });
      emit({ type: 'log', message: `SFT step ${p.step}/${sft.steps} (${who}): loss ${p.loss.toFixed(3)}, lr ${p.lr.toExponential(2)}, ${(p.elapsedMs / p.step).toFixed(0)} ms/step` });
    }
  });
  const record: SftRecord = {
    steps: res.losses.length,
    firstLoss: tenthMean(res.losses, false),
    lastLoss: tenthMean(res.losses, true),
    demos: episodes.length,
    failedDemos: failed,
    rows: rows.length,
    seconds: (performance.now() - t0) / 1000,
  };
  emit({
    type: 'log',
    message: `SFT phase (${who}) done: ${record.steps} steps, loss ${record.firstLoss.toFixed(3)} → ${record.lastLoss.toFixed(3)} (first → last 10 %), ${record.seconds.toFixed(0)} s`,
  });
  return { params: res.params, record };
}

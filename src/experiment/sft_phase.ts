/**
 * The in-run SFT phase of a method (spec.ts MethodSpec.sft): supervised fine-tuning on expert
 * demonstrations of the run's train-task pool under the method's one training harness, after the
 * 'before' evaluation and before any RL step, so a run's gain covers SFT and RL together.
 *
 * Invariant: every choice derives from the run's seed and the phase starts from the run's
 * starting checkpoint, so a run resumed before the phase finished redoes it with the same
 * result, and methods of a seed with an identical phase share it (`SftReuse`). Test and
 * validation tasks are never demonstrated.
 */
import type { Engine, EngineRlTrainer } from '../engine/engine_api';
import { runBudget } from '../episode/budget';
import { presetConfig, type ModelConfig, type PresetName } from '../model/config';
import { cutView, tokenCounter } from '../episode/rows';
import type { Tokenizer } from '../model/tokenizer';
import { demonstrationRows, demonstrationsOf, describeDropped, resolveSftConfig, trainSft } from '../pretrain/sft';
import { taskFromId } from '../tasks';
import { sha256Hex } from '../util/encoding';
import { Rng } from '../util/rng';
import { BASE_HARNESS } from '../design';
import type { Emit } from './run_events';
import type { EnvHost, Policy } from '../rollout/rollout';
import type { ExperimentSpec, MethodSpec } from './spec';
import { measureValidation, type ValidationPlan, type ValidationPoint } from './validation';

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

/** The last SFT phase of a call, for a method of the same seed with an identical phase (module doc). */
export class SftReuse {
  private last: { key: string; method: string; params: Float32Array; record: SftRecord } | null = null;

  /** The phase `key` was run by `method`, giving `params`. */
  remember(key: string, method: string, params: Float32Array, record: SftRecord): void {
    this.last = { key, method, params: params.slice(), record };
  }

  /** The phase of `key` when it was the last one run, else null. */
  find(key: string): { method: string; params: Float32Array; record: SftRecord } | null {
    return this.last?.key === key ? { ...this.last, params: this.last.params.slice() } : null;
  }
}

/** What the phase reads of the runner's call (runner.ts RunContext). */
interface SftPhaseCall {
  spec: ExperimentSpec;
  tok: Tokenizer;
  engine: Engine;
  /** Environments of the validation episodes. */
  env: EnvHost;
  emit: Emit;
  /** The call's work units, repeated in the phase's progress events (the runner counts the phase as one when it ends). */
  progress: { done: number; total: number };
  /** The call's finished phase, reused by an identical one. */
  sftReuse: SftReuse;
}

/** What the phase reads of one run (runner.ts ActiveRun). */
interface SftPhaseRun {
  /** A method with `sft` and harnesses 'blackbox' (with `blackbox`) or 'single' (spec.ts checks both). */
  method: MethodSpec;
  seed: number;
  /** The run's index (runner order), for its events. */
  r: number;
  /** The run's model preset. */
  preset: PresetName;
  /** Starting parameters (P), the run's starting checkpoint; not modified. */
  startParams: Float32Array;
  /** The run's train-task pool (ids, infeasible cells already left out). */
  pool: readonly string[];
  /** The RL trainer receives the fine-tuned parameters with fresh AdamW moments (RL starts its own optimizer); validation samples its policy. */
  stack: { trainer: EngineRlTrainer; policy: Policy };
  /** Whether the run continues from a checkpoint written inside it (then before the phase finished: it is redone). */
  resumed: boolean;
}

/** The harness a method's SFT phase trains through: its black-box harness, or the base harness for 'single'; null for any other method. */
function sftHarness(method: MethodSpec): string | null {
  if (method.harnesses === 'blackbox') return method.blackbox ?? null;
  return method.harnesses === 'single' ? BASE_HARNESS : null;
}

/** Mean of the first (`last` false) or last 10 % of `xs` (at least one element). */
function tenthMean(xs: readonly number[], last: boolean): number {
  const n = Math.max(1, Math.round(xs.length / 10));
  const part = last ? xs.slice(-n) : xs.slice(0, n);
  return part.reduce((a, b) => a + b, 0) / part.length;
}

/** Demonstrations → rows → SFT steps from the run's starting parameters (module doc). */
async function trainPhase(call: SftPhaseCall, run: SftPhaseRun, model: ModelConfig): Promise<{ params: Float32Array; record: SftRecord }> {
  const { spec, tok, emit } = call;
  const { method, seed } = run;
  const sft = method.sft!;
  const harness = sftHarness(method)!;
  const blackbox = method.harnesses === 'blackbox';
  const t0 = performance.now();
  const who = `${method.name}, seed ${seed}`;
  const ids =
    sft.demos !== undefined && sft.demos < run.pool.length
      ? Rng.derive(seed, 'sft-demos')
          .shuffle([...run.pool])
          .slice(0, sft.demos)
      : [...run.pool];
  const limits = runBudget(model.maxT, spec.rollout);
  const demos = demonstrationsOf(ids.map(taskFromId), seed, { blackbox: harness }, cutView(tok, limits), tokenCounter(tok));
  const { episodes, failed } = demos;
  if (episodes.length === 0)
    throw new Error(
      `method '${method.name}', seed ${seed}: SFT phase: the expert passed none of ${ids.length} train tasks under ${harness}`,
    );
  const rows = demonstrationRows(tok, episodes, limits);
  emit({
    type: 'log',
    message: `SFT phase (${who}): ${episodes.length} expert episodes of ${ids.length} train tasks through ${harness} (${describeDropped(demos)}) → ${rows.length} rows; ${sft.steps} steps × ${sft.batchSize} rows, lr ${sft.lr}`,
  });
  const cfg = {
    ...resolveSftConfig(
      {
        preset: run.preset,
        steps: sft.steps,
        batchSize: sft.batchSize,
        lr: sft.lr,
        seed: Rng.derive(seed, 'sft-batches').int(2 ** 31),
        demos: ids.length,
        // The recipe's optimizer settings; demonstrations come from `harness` above. A base-harness
        // phase is resolved as the base model's recipe with the mix of the base harness alone.
        ...(blackbox ? { blackbox: harness } : { blackbox: null, mix: 'base:1' }),
      },
      tok.vocabSize,
    ),
    model,
  };
  const trainer = call.engine.createSftTrainer(model, run.startParams, cfg, cfg.batchSize, model.maxT);
  const logEvery = Math.max(1, Math.round(sft.steps / 10));
  const res = await trainSft(rows, cfg, trainer, tok.padId, (p) => {
    if (p.step === 1 || p.step % logEvery === 0 || p.step === sft.steps) {
      emit({ type: 'progress', ...call.progress, phase: `SFT step ${p.step}/${sft.steps} (${who})` });
      emit({
        type: 'log',
        message: `SFT step ${p.step}/${sft.steps} (${who}): loss ${p.loss.toFixed(3)}, lr ${p.lr.toExponential(2)}, ${(p.elapsedMs / p.step).toFixed(0)} ms/step`,
      });
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

/**
 * Run the SFT phase (module doc): train, write the parameters into `run.stack.trainer` (fresh
 * AdamW moments, Adam step 0), then measure `validation` at step 0 when given.
 * @param validation the run's validation plan (validation.ts), for a run without RL steps
 * @returns the phase's record and the validation point (when measured)
 * @throws Error when the method has no SFT phase or training harness for it, when no expert
 *   demonstration passed, or a step's loss is not finite (trainSft); ContextBudgetError when an
 *   opening exceeds the run's context budget (demonstrationRows)
 */
export async function runSftPhase(
  call: SftPhaseCall,
  run: SftPhaseRun,
  validation?: ValidationPlan,
): Promise<{ record: SftRecord; point: ValidationPoint | null }> {
  const { spec, tok, emit } = call;
  const { method, seed } = run;
  const model = presetConfig(run.preset, tok.vocabSize);
  const sft = method.sft;
  const harness = sftHarness(method);
  if (!sft || !harness)
    throw new Error(`method '${method.name}': an SFT phase needs spec.methods[].sft and harnesses 'blackbox' or 'single'`);
  const t0 = performance.now();
  const who = `${method.name}, seed ${seed}`;
  const key = JSON.stringify([
    await sha256Hex(new Uint8Array(run.startParams.buffer, run.startParams.byteOffset, run.startParams.byteLength)),
    run.preset,
    harness,
    sft,
    seed,
    run.pool,
    spec.rollout,
  ]);
  const found = call.sftReuse.find(key);
  if (run.resumed)
    emit({
      type: 'log',
      message: `run ${run.r + 1} resumed before its SFT phase finished: redoing the phase from the starting parameters (deterministic)`,
    });
  let params: Float32Array;
  let record: SftRecord;
  if (found) {
    params = found.params;
    record = { ...found.record, seconds: (performance.now() - t0) / 1000 };
    emit({
      type: 'log',
      message: `SFT phase (${who}): the same phase as method '${found.method}' (starting parameters, demonstrations, steps, seed): its parameters reused`,
    });
  } else {
    ({ params, record } = await trainPhase(call, run, model));
    call.sftReuse.remember(key, method.name, params, record);
  }
  run.stack.trainer.writeState({ params, m: new Float32Array(params.length), v: new Float32Array(params.length), adamStep: 0 });
  emit({ type: 'sftPhase', runIndex: run.r, method: method.name, seed, seconds: (performance.now() - t0) / 1000, reused: found !== null });
  if (!validation) return { record, point: null };
  const point = await measureValidation(validation, 0, {
    tok,
    policy: run.stack.policy,
    env: call.env,
    maxTurns: spec.rollout.maxTurns,
    maxNewTokens: spec.rollout.maxNewTokens,
    contextTokens: spec.rollout.contextTokens,
    temperature: spec.evaluation.temperature,
    seed,
  });
  emit({ type: 'validation', runIndex: run.r, method: method.name, seed, point });
  emit({
    type: 'log',
    message: `validation after SFT (${who}): pass@1 ${point.passAt1.toFixed(3)}, score ${point.score.toFixed(3)} (${point.episodes} episodes)`,
  });
  return { record, point };
}

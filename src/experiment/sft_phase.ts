/**
 * The in-run SFT phase of a method (spec.ts MethodSpec.sft): supervised fine-tuning on expert
 * demonstrations of the run's train-task pool under the method's one training harness, after the
 * 'before' evaluation and before any RL step, so a run's gain covers SFT and RL together.
 *
 * Every choice is compiled into the run's plan (compile.ts `sftPlan`); the expert's episodes run
 * on the episode host (host.ts EnvApi `demonstrate`), which answers with their rows.
 *
 * Invariant: every choice derives from the run's seed and the phase starts from the run's
 * starting checkpoint, so a run resumed before the phase finished redoes it with the same
 * result, and methods of a seed with an identical phase share it (`SftReuse`). Test and
 * validation tasks are never demonstrated.
 */
import type { Engine, EngineRlTrainer } from '../engine/engine_api';
import { describeDropped, joinDemoRows } from '../episode/demonstrations';
import type { Tokenizer } from '../model/tokenizer';
import { trainSft } from '../pretrain/sft';
import type { Emit } from './run_events';
import type { EnvHost, Policy } from '../rollout/rollout';
import type { RunPlan, SftPlan } from './compile';
import type { ExperimentSpec } from './spec';
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
  /** Environments of the expert's demonstrations and the validation episodes. */
  env: EnvHost;
  emit: Emit;
  /** The call's work units, repeated in the phase's progress events (the runner counts the phase as one when it ends). */
  progress: { done: number; total: number };
  /** The call's finished phase, reused by an identical one. */
  sftReuse: SftReuse;
}

/** What the phase reads of one run (runner.ts ActiveRun). */
interface SftPhaseRun {
  /** The run's plan: its phase in `sft` (compile.ts sftPlan). */
  plan: Pick<RunPlan, 'method' | 'seed' | 'sft'>;
  /** The run's index (runner order), for its events. */
  r: number;
  /** Starting parameters (P), the run's starting checkpoint; not modified. */
  startParams: Float32Array;
  /** Their SHA-256 (runner.ts paramsDigest), part of the phase's reuse key. */
  startDigest: string;
  /** The RL trainer receives the fine-tuned parameters with fresh AdamW moments (RL starts its own optimizer); validation samples its policy. */
  stack: { trainer: EngineRlTrainer; policy: Policy };
  /** Whether the run continues from a checkpoint written inside it (then before the phase finished: it is redone). */
  resumed: boolean;
}

/** Mean of the first (`last` false) or last 10 % of `xs` (at least one element). */
function tenthMean(xs: readonly number[], last: boolean): number {
  const n = Math.max(1, Math.round(xs.length / 10));
  const part = last ? xs.slice(-n) : xs.slice(0, n);
  return part.reduce((a, b) => a + b, 0) / part.length;
}

/** Demonstrations (on the episode host) → rows → SFT steps from the run's starting parameters (module doc). */
async function trainPhase(call: SftPhaseCall, run: SftPhaseRun, sft: SftPlan): Promise<{ params: Float32Array; record: SftRecord }> {
  const { emit } = call;
  const { method, seed } = run.plan;
  const { harness, taskIds, limits, config: cfg } = sft;
  const t0 = performance.now();
  const who = `${method.name}, seed ${seed}`;
  // One job per task: each stays within a worker's watchdog, and a worker pool spreads them.
  const demos = joinDemoRows(
    await Promise.all(taskIds.map((id) => call.env.run(async (api) => api.demonstrate({ taskIds: [id], harnessId: harness, limits })))),
  );
  const { rows } = demos;
  if (demos.demos === 0)
    throw new Error(
      `method '${method.name}', seed ${seed}: SFT phase: the expert passed none of ${taskIds.length} train tasks under ${harness}`,
    );
  emit({
    type: 'log',
    message: `SFT phase (${who}): ${demos.demos} expert episodes of ${taskIds.length} train tasks through ${harness} (${describeDropped(demos)}) → ${rows.length} rows; ${cfg.steps} steps × ${cfg.batchSize} rows, lr ${cfg.lr}`,
  });
  const trainer = call.engine.createSftTrainer(cfg.model, run.startParams, cfg, cfg.batchSize, cfg.model.maxT);
  const logEvery = Math.max(1, Math.round(cfg.steps / 10));
  const res = await trainSft(rows, cfg, trainer, call.tok.padId, (p) => {
    if (p.step === 1 || p.step % logEvery === 0 || p.step === cfg.steps) {
      emit({ type: 'progress', ...call.progress, phase: `SFT step ${p.step}/${cfg.steps} (${who})` });
      emit({
        type: 'log',
        message: `SFT step ${p.step}/${cfg.steps} (${who}): loss ${p.loss.toFixed(3)}, lr ${p.lr.toExponential(2)}, ${(p.elapsedMs / p.step).toFixed(0)} ms/step`,
      });
    }
  });
  const record: SftRecord = {
    steps: res.losses.length,
    firstLoss: tenthMean(res.losses, false),
    lastLoss: tenthMean(res.losses, true),
    demos: demos.demos,
    failedDemos: demos.failed,
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
 * @throws Error when the run's plan has no SFT phase, when no expert demonstration passed, when
 *   an opening exceeds the run's context budget (the host's demonstrationRows), or a step's loss
 *   is not finite (trainSft)
 */
export async function runSftPhase(
  call: SftPhaseCall,
  run: SftPhaseRun,
  validation?: ValidationPlan,
): Promise<{ record: SftRecord; point: ValidationPoint | null }> {
  const { spec, tok, emit } = call;
  const { method, seed, sft } = run.plan;
  if (!sft) throw new Error(`method '${method.name}': the run's plan has no SFT phase (compile.ts sftPlan)`);
  const t0 = performance.now();
  const who = `${method.name}, seed ${seed}`;
  // The plan's phase holds every choice it makes (harness, tasks, budget, optimizer, seeds).
  const key = JSON.stringify([run.startDigest, sft]);
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
    ({ params, record } = await trainPhase(call, run, sft));
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

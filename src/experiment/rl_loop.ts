/**
 * The RL loop of one (seed, method) run, top to bottom in the manner of CleanRL: for each RL
 * step s = state.step + 1 … runSteps,
 *
 *   schedule → rollout → advantages + update → record → checkpoint
 *
 * The runner (runner.ts) prepares everything this needs (engine stack, environments, the
 * train-task pool, the round-robin schedule restored from a checkpoint, the save function) and
 * does what comes before and after (resume decoding, starting parameters, the evaluations,
 * results). Helpers live below the loop; each stage is short.
 *
 * Validation (validation.ts): with a plan, the loop measures the validation split at step 0
 * (before the first step), after every `every`-th step and after the last one — between the
 * record and the checkpoint, so a saved step carries its point — and a resumed run measures a
 * point its checkpoint lacks (step 0 after the 'before' evaluation's save) before going on.
 *
 * Determinism: the step's tasks (plan.ts stepTasks, and dynamic sampling's extra rounds) and the
 * sampler seeds derive from (seed, step, round), the harness of each task from the round-robin schedule, and the minibatch
 * shuffles inside the update from (seed, step, epoch); the loop itself draws nothing, so a run
 * resumed at step s continues exactly as an uninterrupted one.
 */
import { rewardOf } from '../rl/reward';
import type { Tokenizer } from '../model/tokenizer';
import { trajectoryAdvantages, type AppliedAdvantages } from '../rl/advantages';
import type { RlUpdateMetrics } from '../rl/update';
import { runEpisodes, type EnvHost, type EpisodeRequest } from '../rollout/rollout';
import type { RolloutStats, Trajectory } from '../rollout/trajectory';
import type { RoundRobinSchedule } from '../design';
import { Rng } from '../util/rng';
import type { MeteredPolicy, EngineRlTrainer } from '../engine/engine_api';
import { stepTasks } from './plan';
import { DynamicStep } from './dynamic_sampling';
import type { Emit, StepRecord } from './run_events';
import type { ExperimentSpec, MethodSpec } from './spec';
import { sampleTrajectories, type TrajectorySample } from './trajectory_sample';
import { isValidationStep, measureValidation, validationSummary, type ValidationPlan, type ValidationPoint } from './validation';

/** Rollouts of each RL step kept in ExperimentOutput.trajectories. */
const TRAJECTORIES_PER_STEP = 2;

/**
 * Test seams of the loop: supplied only by tests (never the CLI or the app), so no production
 * option carries a test hook.
 */
export interface RlLoopHooks {
  /**
   * Called with each step's rollouts before the update; may change them in place (a synthetic
   * reward, poisoned log-probs). What it leaves is what the update, the record and the samples see.
   */
  afterRollout?: (step: number, trajectories: Trajectory[]) => void;
}

/** The part of the run state the loop advances (runner.ts RunState). */
interface LoopState {
  /** RL steps done. */
  step: number;
  history: StepRecord[];
  /** Optimizer steps skipped as non-finite, over the run. */
  skippedSteps: number;
  /** Validation points measured so far, ascending by step (absent: none yet). */
  validation?: ValidationPoint[];
}

/** Everything one run's loop reads and writes. */
interface RlLoopRun {
  spec: ExperimentSpec;
  method: MethodSpec;
  seed: number;
  runIndex: number;
  /** Last RL step of the run (0: no training). */
  runSteps: number;
  tok: Tokenizer;
  policy: MeteredPolicy;
  trainer: EngineRlTrainer;
  env: EnvHost;
  /** Train-task pool (plan.ts trainPool). */
  pool: readonly string[];
  /** Harness per draw of a task; restored from the checkpoint on resume. */
  schedule: RoundRobinSchedule;
  /** Advanced in place after every step. */
  state: LoopState;
  /** Each step's trajectory samples are appended here. */
  trajectories: TrajectorySample[];
  /** Save a checkpoint every this many steps (the last step and a stop always save). */
  checkpointEvery: number;
  /** Work units of the whole call (an RL step is one); `done` is advanced per step. */
  progress: { done: number; total: number };
  /** Polled before each step and after it: true = checkpoint and return 'interrupted'. */
  stopRequested: () => boolean;
  /** Commit a checkpoint of the run as it stands. */
  save: () => Promise<void>;
  emit: Emit;
  hooks?: RlLoopHooks;
  /** The validation split and cadence (validation.ts); absent = no validation curve. */
  validation?: ValidationPlan;
}

/**
 * Run RL steps state.step + 1 … runSteps (module doc).
 * @returns whether a stop request ended the loop before runSteps, and the steps run in this call
 * @throws what the rollout or the update throws (an unknown id, a context that does not fit,
 *   a row longer than maxT); a failure to record the display samples only warns.
 */
export async function rlLoop(r: RlLoopRun): Promise<{ interrupted: boolean; stepsRun: number }> {
  const { policy, trainer, env, state: st } = r;
  let stepsRun = 0;
  // The point of the step the run stands at, when its checkpoint lacks it (step 0: before RL).
  if (!r.stopRequested()) await validateIfDue(r);
  for (let step = st.step + 1; step <= r.runSteps; step++) {
    if (r.stopRequested()) return { interrupted: true, stepsRun };

    // ── schedule + rollout: the step's tasks from (seed, step), each task's harness by round
    // robin, groupSize episodes each at spec.rl.temperature; with rl.dynamicSampling, more rounds
    // of fresh tasks until the step holds tasksPerStep informative groups (dynamic_sampling.ts) ──
    const t0 = performance.now();
    const before = counters(policy, env);
    const ro = await rolloutStep(r, step);
    const rolloutMs = performance.now() - t0;

    // ── advantages + update: one trainer call. The estimator (src/rl/advantages.ts) runs inside
    // it (on WebGPU as kernels in the first optimizer step's submit), so the update returns the
    // advantages its loss read along with its metrics.
    const up = await trainer.update(ro.trajectories, step);

    // ── record: trajectory samples with the applied advantages, the step's metrics ────────────
    recordSamples(r, step, ro.trajectories, up.applied);
    const rec = stepRecord(step, ro, up.metrics, before, counters(policy, env), st.history[st.history.length - 1], rolloutMs);
    st.history.push(rec);
    st.skippedSteps += up.metrics.skippedSteps;
    st.step = step;
    stepsRun++;
    r.progress.done++;
    const point = await validateIfDue(r);
    reportStep(r, rec, point);

    // ── checkpoint: every `checkpointEvery` steps, at the last step, and before a stop ────────
    if (step % r.checkpointEvery === 0 || step === r.runSteps || r.stopRequested()) await r.save();
  }
  return { interrupted: false, stepsRun };
}

/** A step's rollouts as the update takes them, and what sampling them took. */
interface StepRollout {
  trajectories: Trajectory[];
  stats: RolloutStats;
  /** Groups given to the update. */
  groups: number;
  /** Dynamic sampling only: generation rounds, groups and episodes sampled over them. */
  dynamic?: { rounds: number; sampledGroups: number; sampledEpisodes: number };
}

/**
 * Roll out the step (the loop's "schedule + rollout" stage): round 0 the epoch sampler's tasks;
 * with rl.dynamicSampling, rounds 1, 2, … draw tasksPerStep fresh pool tasks each
 * (Rng.derive(seed, 'rl-resample', step, round)) until tasksPerStep informative groups or
 * maxRounds. Each round's rewards are set (src/rl/reward.ts) and the test seam sees them before
 * the informative groups are chosen.
 */
async function rolloutStep(r: RlLoopRun, step: number): Promise<StepRollout> {
  const { spec, seed } = r;
  const ds = spec.rl.dynamicSampling;
  const acc = ds ? new DynamicStep(spec.rl.tasksPerStep, ds.maxRounds) : null;
  let stats: RolloutStats | null = null;
  let tasks = stepTasks(r.pool, spec.rl.tasksPerStep, seed, step);
  for (;;) {
    const round = acc?.rounds ?? 0;
    const reqs = episodeRequests(tasks, (taskId) => r.schedule.next(taskId), spec.rl.groupSize);
    const ro = await runEpisodes(reqs, {
      ...episodeLimits(r),
      temperature: spec.rl.temperature,
      // Round 0 keeps the (seed, step) stream of a run without dynamic sampling.
      seed: (round === 0 ? Rng.derive(seed, 'rollout', step) : Rng.derive(seed, 'rollout', step, round)).int(2 ** 31),
    });
    // The spec's reward (src/rl/reward.ts): verifier pass (0/1) or partial-credit score.
    for (const t of ro.trajectories) t.reward = rewardOf(t, spec.rl.reward);
    r.hooks?.afterRollout?.(step, ro.trajectories);
    stats = stats ? addStats(stats, ro.stats) : ro.stats;
    if (!acc) return { trajectories: ro.trajectories, stats, groups: tasks.length };
    acc.add(ro.trajectories);
    if (!acc.needsMore()) break;
    tasks = Rng.derive(seed, 'rl-resample', step, acc.rounds)
      .shuffle([...r.pool])
      .slice(0, spec.rl.tasksPerStep);
  }
  const d = acc.result();
  const trajectories = d.trajectories.map((t, i) => ({ ...t, index: i }));
  return {
    trajectories,
    stats,
    groups: d.groups,
    dynamic: { rounds: d.rounds, sampledGroups: d.sampledGroups, sampledEpisodes: d.sampledEpisodes },
  };
}

/** What every episode of the run is rolled out with: tokenizer, policy, environments and the spec's budgets. */
function episodeLimits(r: RlLoopRun) {
  const { maxTurns, maxNewTokens, contextTokens } = r.spec.rollout;
  return { tok: r.tok, policy: r.policy, env: r.env, maxTurns, maxNewTokens, contextTokens };
}

/** Rollout counters of two rounds added field by field. */
function addStats(a: RolloutStats, b: RolloutStats): RolloutStats {
  return Object.fromEntries(Object.entries(a).map(([k, v]) => [k, v + b[k as keyof RolloutStats]])) as unknown as RolloutStats;
}

/** One request per (task, rollout): `groupSize` consecutive rollouts of each task form its GRPO group. */
function episodeRequests(tasks: readonly string[], harnessOf: (taskId: string) => string, groupSize: number): EpisodeRequest[] {
  const reqs: EpisodeRequest[] = [];
  tasks.forEach((taskId, g) => {
    const harnessId = harnessOf(taskId);
    for (let k = 0; k < groupSize; k++) reqs.push({ taskId, harnessId, group: g });
  });
  return reqs;
}

interface Counters {
  tokens: number;
  ms: number;
  retries: number;
}

/** The cumulative throughput and retry counters a step record takes differences of. */
function counters(policy: MeteredPolicy, env: EnvHost): Counters {
  return { tokens: policy.tokens, ms: policy.ms, retries: env.retries() };
}

/**
 * A few of the step's rollouts with the advantages the update applied, for the Trajectories
 * view. Display only: a failure is a warning, never the end of training.
 */
function recordSamples(r: RlLoopRun, step: number, trajs: readonly Trajectory[], applied: AppliedAdvantages): void {
  try {
    const adv = trajectoryAdvantages(trajs.length, applied);
    r.trajectories.push(
      ...sampleTrajectories(
        trajs,
        adv,
        { method: r.method.name, seed: r.seed, step },
        { perStep: TRAJECTORIES_PER_STEP, seed: Rng.derive(r.seed, 'trajectory-sample', step).int(2 ** 31) },
      ),
    );
  } catch (e) {
    r.emit({ type: 'warn', message: `step ${step}: trajectories not recorded (${(e as Error).message.split('\n')[0]})` });
  }
}

/**
 * The step's StepRecord: reward and pass rate per harness of the rollouts, the update's
 * metrics, sampler throughput, and retries / environment failures accumulated over the run.
 * @param prev the previous step's record (null at the run's first step)
 */
function stepRecord(
  step: number,
  ro: StepRollout,
  up: RlUpdateMetrics,
  c0: Counters,
  c1: Counters,
  prev: StepRecord | undefined,
  rolloutMs: number,
): StepRecord {
  const trajs = ro.trajectories;
  const passByHarness: Record<string, number> = {};
  for (const h of new Set(trajs.map((t) => t.harnessId))) {
    const of = trajs.filter((t) => t.harnessId === h);
    passByHarness[h] = of.filter((t) => t.pass).length / of.length;
  }
  return {
    step,
    reward: trajs.reduce((a, t) => a + t.reward, 0) / trajs.length,
    passByHarness,
    groups: ro.groups,
    sampledEpisodes: ro.dynamic?.sampledEpisodes ?? trajs.length,
    ...(ro.dynamic ? { generationRounds: ro.dynamic.rounds, sampledGroups: ro.dynamic.sampledGroups } : {}),
    policyLoss: up.policyLoss,
    valueLoss: up.valueLoss,
    clipFrac: up.clipFrac,
    approxKl: up.approxKl,
    klRef: up.klRef,
    entropy: up.entropy,
    gradNorm: up.gradNorm,
    optimizerSteps: up.optimizerSteps,
    skippedSteps: up.skippedSteps,
    rows: up.rows,
    tokens: up.tokens,
    droppedGroups: up.droppedGroups,
    tokensPerSec: (c1.tokens - c0.tokens) / Math.max(1e-9, (c1.ms - c0.ms) / 1000),
    workerRetries: (prev?.workerRetries ?? 0) + (c1.retries - c0.retries),
    envFailures: (prev?.envFailures ?? 0) + ro.stats.envFailures,
    droppedContextTokens: ro.stats.droppedContextTokens,
    cutContexts: ro.stats.cutContexts,
    rolloutMs,
    updateMs: up.ms,
  };
}

/**
 * Measure the validation point of the step the run stands at (state.step) when it is a
 * validation step and not yet measured; record it in the state and report it.
 * @returns the new point, or null when none was due
 */
async function validateIfDue(r: RlLoopRun): Promise<ValidationPoint | null> {
  const { state: st, spec } = r;
  const plan = r.validation;
  if (!plan || !isValidationStep(st.step, r.runSteps, plan.every)) return null;
  const points = (st.validation ??= []);
  if (points.some((p) => p.step === st.step)) return null;
  r.emit({
    type: 'progress',
    done: r.progress.done,
    total: r.progress.total,
    phase: `validation ${r.method.name} seed ${r.seed} at step ${st.step}/${r.runSteps}`,
  });
  const point = await measureValidation(plan, st.step, {
    ...episodeLimits(r),
    temperature: spec.evaluation.temperature,
    seed: r.seed,
  });
  points.push(point);
  r.emit({ type: 'validation', runIndex: r.runIndex, method: r.method.name, seed: r.seed, point });
  r.emit({
    type: 'log',
    message: `validation at step ${point.step}: ${validationSummary(point)}`,
  });
  return point;
}

/** "0.123", or "n/a" for a metric that was not measured (NaN). */
const fmt = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : 'n/a');

/**
 * The step's events: a note when nothing was applied, the record, and progress — its phase
 * (the console line) with reward, entropy, dropped-group share and the latest validation pass@1.
 */
function reportStep(r: RlLoopRun, rec: StepRecord, point: ValidationPoint | null): void {
  const { method, seed } = r;
  const groups = rec.groups ?? 0;
  if (rec.optimizerSteps === rec.skippedSteps) {
    r.emit({
      type: 'log',
      message:
        groups === 0 && rec.generationRounds !== undefined
          ? `step ${rec.step}: no update applied (dynamic sampling found no group with unequal rewards in ${rec.generationRounds} generation rounds, ${rec.sampledGroups ?? 0} groups sampled)`
          : `step ${rec.step}: no update applied (${rec.droppedGroups} of ${groups} groups had equal rewards${rec.skippedSteps ? `, ${rec.skippedSteps} optimizer steps skipped as non-finite` : ''})`,
    });
  }
  r.emit({ type: 'step', runIndex: r.runIndex, method: method.name, seed, record: rec });
  const last = point ?? r.state.validation?.[r.state.validation.length - 1] ?? null;
  const val = last ? ` · val pass@1 ${fmt(last.passAt1)} @${last.step}` : '';
  r.emit({
    type: 'progress',
    done: r.progress.done,
    total: r.progress.total,
    phase: `RL ${method.name} seed ${seed} step ${rec.step}/${r.runSteps} · reward ${fmt(rec.reward)} · entropy ${fmt(rec.entropy)} · dropped ${rec.droppedGroups}/${groups}${val}`,
  });
}

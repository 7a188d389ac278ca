// The learning sanity check shared by tests/unit/rl_learns.test.ts (CPU engine, Node) and
// tests/browser/rl_learns.spec.ts (WebGPU): a one-turn choice a fresh micro policy answers right
// ≈ 20 % of the time, trained by the real RL loop (src/experiment/rl_loop.ts: sampler, rollout
// engine, reward, rows, advantages, GRPO/PPO update) on either engine. The task enters only
// through the loop's seams (an EnvHost and the spec), so nothing in src/ knows about it.
// Pure TS: runs in Node and in the page.
import type { Engine } from '../../../src/engine/engine_api';
import { makeSchedule } from '../../../src/experiment/plan';
import { rlLoop, type RlLoopHooks } from '../../../src/experiment/rl_loop';
import type { ValidationPlan } from '../../../src/experiment/validation';
import { parseSpec } from '../../../src/experiment/spec';
import type { ModelConfig } from '../../../src/model/config';
import { initParams } from '../../../src/model/init';
import type { Tokenizer } from '../../../src/model/tokenizer';
import { rlLossConfig, type RlLossConfig } from '../../../src/rl/config';
import { inProcessEnv } from '../../../src/rollout/rollout';
import type { EnvApi, EnvStepOut } from '../../../src/episode/host';
import { computeTags } from '../../../src/harness/tags';

/** The RL loop's state (what a checkpoint keeps of it). */
type LoopState = Parameters<typeof rlLoop>[0]['state'];

/** Answer classes of the choice: a fresh policy (≈ uniform over ~1000 ids) is right ≈ 1/CLASSES of the time. */
export const CLASSES = 5;

/** The prompt of every episode (role markers as the harnesses render them). */
export const CHOICE_PROMPT = '<|user|>Answer with one token.<|end|><|assistant|>';

/**
 * The class of an action text: FNV-1a (32-bit) of its UTF-16 code units mod CLASSES. An
 * arbitrary but fixed partition of the texts, so a fresh policy's success rate is the share of
 * its probability mass on class-0 texts (≈ 1/CLASSES), and learning means moving mass there.
 */
export function choiceClass(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % CLASSES;
}

/** The environment of the choice: one turn; reward 1 (pass) iff the action's text is of class 0. */
export function choiceEnv(): EnvApi {
  return {
    reset: () => ({ context: CHOICE_PROMPT, messages: [] }),
    step: (_spec, history): EnvStepOut => {
      const pass = choiceClass(history[history.length - 1].text) === 0;
      const r = pass ? 1 : 0;
      return {
        context: null,
        messages: [],
        observation: '',
        kind: 'message',
        done: true,
        terminated: true,
        truncated: false,
        truncationReason: null,
        reward: r,
        score: r,
        pass,
        tags: computeTags([], { terminated: true, truncation: null, pass }),
        replayed: false,
      };
    },
    close: () => {},
    demonstrate: () => {
      throw new Error('choice env: the choice has no expert');
    },
  };
}

/** Settings of one learning run. */
export interface ChoiceRunOptions {
  algorithm: 'grpo' | 'ppo';
  /** RL steps. */
  steps: number;
  seed: number;
  lr: number;
  tasksPerStep: number;
  groupSize: number;
  epochs: number;
  minibatches: number;
  /** Sampled tokens per action. */
  maxNewTokens: number;
  /** Rollout sampling temperature τ (spec.rl.temperature; the trainer scores at the same τ). Absent: 1. */
  temperature?: number;
  /** Loss overrides (aggregation, clip ranges…). */
  loss?: Partial<RlLossConfig>;
  /** The loop's seams (e.g. a transformed reward for a negative control). */
  hooks?: RlLoopHooks;
}

export const CHOICE_DEFAULTS: ChoiceRunOptions = {
  algorithm: 'grpo',
  steps: 16,
  seed: 1,
  lr: 0.02,
  tasksPerStep: 4,
  groupSize: 8,
  epochs: 2,
  minibatches: 2,
  maxNewTokens: 1,
};

/** The micro policy: one block of width 16 over the tokenizer's vocabulary. */
export function choiceModel(tok: Tokenizer): ModelConfig {
  return { vocabSize: tok.vocabSize, maxT: 32, C: 16, L: 1, NH: 2 };
}

/** Per-step record of a learning run (from the loop's StepRecord). */
export interface ChoiceStep {
  reward: number;
  optimizerSteps: number;
  skippedSteps: number;
  droppedGroups: number;
  entropy: number;
}

/** Parameters, AdamW moments and step counter of a stack (StackTrainer.readState). */
export interface ChoiceTensors {
  params: Float32Array;
  m: Float32Array;
  v: Float32Array;
  adamStep: number;
}

/** A segment of a choice run: the loop's state and the trainer's tensors where it stopped. */
export interface ChoiceSegment {
  state: LoopState;
  tensors: ChoiceTensors;
}

/**
 * Train a micro policy on the choice with the RL loop on `engine`: fresh, or continuing a
 * segment (its state and tensors, as a resume restores them from a run checkpoint).
 * @param seg.validation the loop's validation plan (validation.ts)
 * @param seg.stopAfter stop once this many RL steps are done (a Ctrl-C), as the runner's stop request
 * @param seg.from continue from this segment
 * @returns the loop's state and the trainer's tensors at the end
 * @throws what the loop throws (a bad option, a row longer than maxT)
 */
export async function runChoiceLoop(
  engine: Engine,
  tok: Tokenizer,
  o: Partial<ChoiceRunOptions> = {},
  seg: { validation?: ValidationPlan; stopAfter?: number; from?: ChoiceSegment } = {},
): Promise<ChoiceSegment> {
  const opt = { ...CHOICE_DEFAULTS, ...o };
  const cfg = choiceModel(tok);
  const spec = parseSpec(
    {
      specVersion: 1,
      name: 'choice',
      seeds: [opt.seed],
      suites: ['workspace'],
      // Required by the schema, not read by the loop: the policy is choiceModel's.
      model: { preset: 'tiny', init: 'scratch' },
      design: { method: 'oa', seed: 0 },
      methods: [{ name: 'choice', harnesses: 'single', algorithm: opt.algorithm }],
      rl: {
        steps: opt.steps,
        tasksPerStep: opt.tasksPerStep,
        groupSize: opt.groupSize,
        epochs: opt.epochs,
        minibatches: opt.minibatches,
        lr: opt.lr,
        weightDecay: 0,
        maxGradNorm: 1,
        clipLow: 0.2,
        clipHigh: 0.28,
        dualClip: null,
        aggregation: 'token-mean',
        klCoef: 0,
        klEstimator: 'k3',
        entCoef: 0,
        vfCoef: 0.5,
        vfClip: 0.2,
        gamma: 1,
        lambda: 0.95,
        stdFloor: 1e-6,
        noStdDivision: false,
        temperature: opt.temperature ?? 1,
      },
      rollout: { workers: 1, maxTurns: 1, maxNewTokens: opt.maxNewTokens, contextTokens: cfg.maxT, watchdogMs: 30000 },
      evaluation: { testTasks: 1, samples: 1, inSpace: { mode: 'all' }, blackbox: [] },
    },
    'choice',
  );
  const r = spec.rl;
  const loss = rlLossConfig({
    algorithm: opt.algorithm,
    clipLow: r.clipLow,
    clipHigh: r.clipHigh,
    aggregation: r.aggregation,
    gamma: r.gamma,
    lambda: r.lambda,
    tokenSumNorm: opt.maxNewTokens,
    temperature: r.temperature,
    ...opt.loss,
  });
  // One sampler call per step (all 32 episodes), two optimizer steps per epoch.
  const maxB = opt.tasksPerStep * opt.groupSize;
  const stack = engine.createRlStack(cfg, initParams(cfg, opt.seed), maxB, {
    cfg: loss,
    lr: r.lr,
    weightDecay: r.weightDecay,
    maxGradNorm: r.maxGradNorm,
    epochs: r.epochs,
    minibatches: r.minibatches,
    padId: tok.padId,
    seed: opt.seed,
    dropZeroVarianceGroups: r.dropZeroVarianceGroups,
  });
  // Distinct task ids, so each step's groups are distinct GRPO groups of the same prompt.
  const pool = Array.from({ length: opt.tasksPerStep }, (_, i) => `choice/${i}`);
  const state: LoopState = seg.from ? seg.from.state : { step: 0, history: [], skippedSteps: 0 };
  if (seg.from) stack.trainer.writeState(seg.from.tensors);
  try {
    await rlLoop({
      spec,
      method: spec.methods[0],
      seed: opt.seed,
      runIndex: 0,
      runSteps: opt.steps,
      tok,
      policy: stack.policy,
      trainer: stack.trainer,
      env: inProcessEnv(choiceEnv()),
      pool,
      schedule: makeSchedule(pool.map((task) => ({ task, harnesses: ['choice'], distances: [0] }))),
      state,
      trajectories: [],
      checkpointEvery: opt.steps + 1,
      progress: { done: 0, total: opt.steps },
      stopRequested: () => seg.stopAfter !== undefined && state.step >= seg.stopAfter,
      save: async () => {},
      emit: () => {},
      ...(opt.hooks ? { hooks: opt.hooks } : {}),
      ...(seg.validation ? { validation: seg.validation } : {}),
    });
    return { state, tensors: await stack.trainer.readState() };
  } finally {
    stack.destroy();
  }
}

/**
 * Train a fresh micro policy on the choice with the RL loop on `engine`.
 * @returns every step's training reward (the mean reward of its rollouts, at the rollout τ) and update counters
 * @throws what the loop throws (a bad option, a row longer than maxT)
 */
export async function learnChoice(engine: Engine, tok: Tokenizer, o: Partial<ChoiceRunOptions> = {}): Promise<ChoiceStep[]> {
  const { state } = await runChoiceLoop(engine, tok, o);
  return state.history.map((h) => ({
    reward: h.reward,
    optimizerSteps: h.optimizerSteps,
    skippedSteps: h.skippedSteps,
    droppedGroups: h.droppedGroups,
    entropy: h.entropy,
  }));
}

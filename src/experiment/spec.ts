/**
 * The experiment spec: one typed, versioned, validated description of an experiment
 * (docs/ARCHITECTURE.md "Data flow", "Experiments, evaluation and results"). Presets are JSON
 * files in public/presets/ checked by this schema; a bad spec gets an error naming the field and
 * the allowed values.
 *
 * Pure module (zod and the RL loss schema of src/rl/config.ts): runs in the page, workers and Node.
 */
import { z } from 'zod';
import { RlLossSpec } from '../rl/config';
import { SUITES } from '../tasks';
import type { SuiteName } from '../tasks/types';

const SPEC_VERSION = 1;

const int = (min: number, max = Number.MAX_SAFE_INTEGER) => z.number().int().min(min).max(max);

/** How a method picks the harnesses it trains through. */
const HarnessStrategy = z.enum([
  'single', // the base harness S0-T0-O0-C0-W0 only
  'scaling', // orthogonal-array training set + locality-aware assignment (K per task)
  'random-k', // k configurations drawn uniformly (selection ablation) + locality assignment
  'random-assignment', // orthogonal-array training set + random assignment (assignment ablation)
  'blackbox', // one black-box harness (black-box SFT / RL baselines)
  'none', // no training: evaluate the starting checkpoint
]);

const BlackBoxId = z.enum(['bb-coding-cli', 'bb-assistant']);

/**
 * A base checkpoint's pretraining exposure (src/pretrain/mix.ts): 'broad' the shipped mix (the
 * base harness, its one-factor variants and 48 random configurations), 'narrow' the base harness
 * and its one-factor variants, 'base-only' the base harness alone.
 */
const Exposure = z.enum(['broad', 'narrow', 'base-only']);

/**
 * The in-space set also leaves out the pretraining mixes of these exposures' bases (of every
 * model preset the spec trains), so runs that start from different bases are scored on the same
 * configurations, none of which any of those bases saw. Absent: only the starting base's mix.
 */
const LeaveOutMixOf = z.array(Exposure).min(1).optional();

/**
 * An in-run SFT phase (sft_phase.ts): supervised fine-tuning on expert demonstrations of the
 * run's train tasks through the method's black-box harness, before any RL step; recipe of
 * src/pretrain/sft.ts (AdamW, warm-up then cosine decay to 0.1·lr, global-norm clip 1).
 */
const SftPhaseSpec = z
  .object({
    /** SFT optimizer steps (one batch each). */
    steps: int(1, 100_000),
    /** Peak learning rate, in (0, 1). */
    lr: z.number().positive().lt(1),
    /** Rows per step (default 8, as `hlab pretrain --batch`). */
    batchSize: int(1, 256).default(8),
    /** Train-pool tasks demonstrated (a seeded subset of the run's pool); absent: every pool task. */
    demos: int(1, 100_000).optional(),
  })
  .strict();

export const MethodSpec = z
  .object({
    /** Row label in the results table, e.g. 'harness scaling (GRPO)'. */
    name: z.string().min(1).max(80),
    /** Which harnesses this method trains through. */
    harnesses: HarnessStrategy,
    /** Per-task harness diversity K: the anchor plus K−1 nearest (1 ≤ K ≤ training-set size). */
    K: int(1, 243).default(4),
    /**
     * Harness-count ablation: train through N harnesses of the design, the first N of its balanced
     * order (design/selection.ts selectBalancedSubset: from the base harness, every level of
     * every component as evenly as the design allows; nested in N). Harnesses 'scaling' or
     * 'random-assignment' only; absent: the whole design.
     */
    harnessCount: int(1, 243).optional(),
    /** Training algorithm: RL (GRPO, PPO) or supervised fine-tuning on expert demonstrations. */
    algorithm: z.enum(['grpo', 'ppo', 'sft']).default('grpo'),
    /** The black-box harness trained through when harnesses = 'blackbox'. */
    blackbox: BlackBoxId.optional(),
    /** Model preset override for the model-size ablation (default: spec.model.preset). */
    modelPreset: z.enum(['tiny', 'mini', 'small', 'base']).optional(),
    /**
     * An SFT phase run before RL (sft_phase.ts), through the method's one training harness (its
     * black-box harness, or the base harness for 'single'): with algorithm 'sft' it is the whole
     * training (black-box SFT, or the SFT-through-the-base-harness control); with 'grpo' or 'ppo'
     * RL then continues from its parameters (black-box RL = SFT then RL). Requires harnesses
     * 'blackbox' or 'single'; required with algorithm 'sft' (hlab run trains an SFT method only
     * through this phase).
     */
    sft: SftPhaseSpec.optional(),
  })
  .strict()
  .superRefine((m, ctx) => {
    if (m.harnesses === 'blackbox' && !m.blackbox) {
      ctx.addIssue({ code: 'custom', path: ['blackbox'], message: "required when harnesses is 'blackbox'" });
    }
    if (m.sft && m.harnesses !== 'blackbox' && m.harnesses !== 'single') {
      ctx.addIssue({
        code: 'custom',
        path: ['sft'],
        message: `an SFT phase trains through the method's one training harness: needs harnesses 'blackbox' or 'single', got '${m.harnesses}'`,
      });
    }
    if (m.harnessCount !== undefined && m.harnesses !== 'scaling' && m.harnesses !== 'random-assignment') {
      ctx.addIssue({
        code: 'custom',
        path: ['harnessCount'],
        message: `draws N harnesses of the design: needs harnesses 'scaling' or 'random-assignment', got '${m.harnesses}'`,
      });
    }
    if (m.algorithm === 'sft' && !m.sft) {
      ctx.addIssue({
        code: 'custom',
        path: ['sft'],
        message: "required when algorithm is 'sft' (the in-run SFT phase { steps, lr }, through the method's training harness)",
      });
    }
  });

const RlSpec = z
  .object({
    /** Optimizer steps of RL per method and seed. */
    steps: int(0, 100_000),
    /** Distinct (task, harness) pairs per step; each is rolled out groupSize times. */
    tasksPerStep: int(1, 4096),
    /**
     * Train tasks per suite in the run's RL pool (plan.ts trainPool; default TRAIN_POOL_PER_SUITE = 16).
     * A pool smaller than steps × tasksPerStep is revisited: training reward then rises on memorized
     * tasks while the validation split does not (docs/RESULTS.md).
     */
    trainTasks: int(1, 100_000).optional(),
    /** GRPO group size G (rollouts of one task under one harness); PPO uses it as samples per task. */
    groupSize: int(1, 256),
    /** Passes over each step's rollouts. */
    epochs: int(1, 64),
    /** Minibatches per epoch (one optimizer step each). */
    minibatches: int(1, 1024),
    /** AdamW learning rate. */
    lr: z.number().positive().max(1),
    /** AdamW decoupled weight decay. */
    weightDecay: z.number().min(0).max(1),
    /** Global gradient-norm clip. */
    maxGradNorm: z.number().positive(),
    /** The loss hyper-parameters: one schema, src/rl/config.ts (clipLow … noStdDivision, in this order). */
    ...RlLossSpec.shape,
    /**
     * GRPO with klCoef = entCoef = 0: leave groups whose rewards are all equal (zero advantage,
     * zero gradient) out of the update, and skip the update when none is left (DAPO dynamic sampling).
     */
    dropZeroVarianceGroups: z.boolean().default(true),
    /**
     * Dynamic sampling (DAPO §3.2; dynamic_sampling.ts): keep sampling tasksPerStep fresh tasks per
     * round until the step holds tasksPerStep informative groups (rewards not all equal), at most
     * `maxRounds` rounds; the curves record rounds, informative groups and episodes sampled.
     * GRPO only. Absent: one round per step.
     */
    dynamicSampling: z
      .object({ maxRounds: int(1, 64) })
      .strict()
      .optional(),
    /**
     * Sampling temperature τ ∈ (0, 10] of training rollouts. The trainer scores log-probs,
     * the entropy bonus and the KL reference at the same τ (log softmax(z/τ), as verl), so the
     * ratio is on-policy at the first minibatch for any τ. Validation and the before/after
     * evaluation sample at evaluation.temperature instead.
     */
    temperature: z.number().positive().max(10),
    /**
     * The reward of an episode (src/rl/reward.ts): 'pass' (verifier pass, 0/1) or 'score' (the
     * verifier's partial credit, which pays nothing for inaction). pass@1 stays the evaluation metric.
     */
    reward: z.enum(['pass', 'score']).default('pass'),
  })
  .strict();

const RolloutSpec = z
  .object({
    /** Web Workers owning sandboxes and harness runtimes. */
    workers: int(1, 64),
    /**
     * Tool-call turns per episode. Each episode's cap is this plus the turns its harness's
     * workflow requires (src/harness/turn_budget.ts `turnCap`: W1 + 1 for the plan, W2 + 2 for
     * the todo list and its checked-off copy + 1 per file the task writes and must re-read,
     * bb-coding-cli + 2 for its TodoWrite lists, W0 and bb-assistant + 0); past the cap the
     * episode is truncated. Rollouts, evaluation and the feasibility check use the same cap.
     */
    maxTurns: int(1, 200),
    /** New tokens per action before it is cut off (truncated, not a format error). */
    maxNewTokens: int(1, 4096),
    /** Context budget in tokens; the model's maxT bounds it. */
    contextTokens: int(16, 8192),
    /**
     * Run although the base checkpoint's context budget (maxT − action reserve, recorded in its
     * metadata) differs from this run's (min(maxT, contextTokens) − maxNewTokens): rollouts then
     * cut contexts differently from the rows the base learned on (src/episode/budget.ts).
     * Absent = false: a mismatch is an error.
     */
    allowBudgetMismatch: z.boolean().optional(),
    /** A worker that does not answer within this many ms is replaced and its episode retried. */
    watchdogMs: int(100, 600_000),
  })
  .strict();

const EvalSpec = z
  .object({
    /** Test tasks per suite (drawn from the test seed range, balanced over families × tiers). */
    testTasks: int(1, 100_000),
    /** Samples per test task for pass@1. */
    samples: int(1, 64),
    /**
     * Sampling temperature τ ∈ (0, 10] of the before/after evaluation (when samples > 1; one
     * sample is greedy) and of the validation split, independent of the rollouts' rl.temperature
     * so a run can train at τ = 1.5 and still measure at τ = 1. Absent: 1.
     */
    temperature: z.number().positive().max(10).default(1),
    /**
     * Held-out in-space configurations: all of them, or a seeded sample stratified by Hamming
     * distance — to the design's training set (`by: 'training'`, the default: bands 1–2 for OA-18)
     * or to the base harness (`by: 'base'`: bands 1–5, the distance single-harness RL transfers
     * over). `tasksPerConfig`: each configuration is evaluated on that many test tasks per suite,
     * a rotation over the test tasks (plan.ts inSpaceTasks), so many configurations cost what a
     * few did; absent: every test task.
     */
    inSpace: z.union([
      z.object({ mode: z.literal('all'), tasksPerConfig: int(1, 100_000).optional(), leaveOutMixOf: LeaveOutMixOf }).strict(),
      z
        .object({
          mode: z.literal('stratified'),
          by: z.enum(['training', 'base']).default('training'),
          perDistance: int(1, 243),
          seed: int(0),
          tasksPerConfig: int(1, 100_000).optional(),
          leaveOutMixOf: LeaveOutMixOf,
        })
        .strict(),
    ]),
    /** Black-box harnesses evaluated (held out from training unless a method trains on one). */
    blackbox: z.array(BlackBoxId),
    /**
     * The validation split (plan.ts validationTasks, validation.ts): `tasks` train-seed tasks per
     * suite, disjoint from the RL train-task pool, evaluated under the method's training
     * harnesses at step 0, every `every` RL steps and at the last step, `samples` episodes per
     * task at evaluation.temperature (not rl.temperature) — the curve hyper-parameters are tuned on, never the test
     * tasks. Absent or tasks = 0: off.
     */
    validation: z
      .object({
        /** Validation tasks per suite (0 = off). */
        tasks: int(0, 10_000),
        /** Evaluate every this many RL steps (plus step 0 and the last step). */
        every: int(1, 100_000),
        /** Episodes per validation task. */
        samples: int(1, 64).default(1),
        /**
         * The harnesses the split is measured under (validation.ts): 'training' each task under
         * its anchor training harness (the curve hyper-parameters are chosen on; required),
         * 'base' under the base harness, 'inSpace' under one held-out in-space configuration
         * each (a rotation over the run's in-space set) — so a curve shows RL that plateaus or
         * overfits its harnesses. Absent: ['training'] (no default, so older specs parse and
         * digest as before).
         */
        sets: z
          .array(z.enum(['training', 'base', 'inSpace']))
          .min(1)
          .refine((xs) => new Set(xs).size === xs.length, 'a set is listed twice')
          .refine((xs) => xs.includes('training'), "must include 'training' (the curve hyper-parameters are chosen on)")
          .optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export const ExperimentSpec = z
  .object({
    /** Schema version; a spec from a newer Harness Lab is refused. */
    specVersion: z.literal(SPEC_VERSION),
    /** Preset or experiment name, e.g. 'quick'. */
    name: z.string().min(1).max(64),
    /** One line shown in the app and the results header. */
    description: z.string().max(500).default(''),
    /**
     * Policy engine: 'auto' takes WebGPU on a hardware adapter and the CPU engine (WebAssembly
     * SIMD, threaded) when the adapter is software (SwiftShader) or WebGPU is missing;
     * 'webgpu' and 'wasm' force one. Every output says which ran and why.
     */
    backend: z.enum(['auto', 'webgpu', 'wasm']).default('auto'),
    /** Independent repetitions; results report mean ± std over them. */
    seeds: z
      .array(int(0, 2 ** 31 - 1))
      .min(1)
      .max(32),
    /** Task suites trained and evaluated on. */
    suites: z.array(z.enum(['workspace', 'errands'])).min(1),
    /** Only tasks of tier ≤ maxTier are trained and evaluated (1 = 2–3 tool calls; CPU-sized presets). */
    maxTier: int(1, 3).default(3),
    /**
     * Only these task families ('suite/family', e.g. 'workspace/organize') are trained, validated
     * and evaluated; absent: every family of the suites. Each suite of `suites` must keep one.
     */
    families: z
      .array(z.string().regex(/^[a-z]+\/[a-z0-9-]+$/, "expected 'suite/family', e.g. 'workspace/organize'"))
      .min(1)
      .optional(),
    model: z
      .object({
        /** Transformer size preset (tiny for tests, small ≈ 1M params, base ≈ 5M). */
        preset: z.enum(['tiny', 'mini', 'small', 'base']),
        /** Start from the pretrained base checkpoint, or from a seeded random init. */
        init: z.enum(['base', 'scratch']),
        /**
         * Which base checkpoint of the preset (with init 'base'): the pretraining exposure its
         * demonstrations had (docs/PRETRAIN.md "Bases by exposure"). Absent: 'broad', the shipped
         * public/base-<preset>.ckpt; otherwise public/base-<preset>-<exposure>.ckpt.
         */
        exposure: Exposure.optional(),
      })
      .strict(),
    design: z
      .object({
        /** Training-set selection: strength-2 orthogonal array, or k random configurations. */
        method: z.enum(['oa', 'random']),
        /** k for random selection (ignored for oa). */
        k: int(1, 243).default(18),
        /** Seed of random selection and of assignment. */
        seed: int(0),
      })
      .strict(),
    /** The rows of the results table. */
    methods: z.array(MethodSpec).min(1),
    rl: RlSpec,
    rollout: RolloutSpec,
    evaluation: EvalSpec,
  })
  .strict()
  .superRefine((s, ctx) => {
    if (!s.families) return;
    s.families.forEach((id, i) => {
      const [suite, family] = id.split('/');
      if (!(s.suites as string[]).includes(suite))
        ctx.addIssue({
          code: 'custom',
          path: ['families', i],
          message: `'${id}': suite '${suite}' is not in spec.suites (${s.suites.join(', ')})`,
        });
      else if (!SUITES[suite as SuiteName].families.some((f) => f.name === family))
        ctx.addIssue({
          code: 'custom',
          path: ['families', i],
          message: `'${id}': no family '${family}' in suite '${suite}' (${SUITES[suite as SuiteName].families.map((f) => f.name).join(', ')})`,
        });
    });
    for (const suite of s.suites)
      if (!s.families.some((id) => id.startsWith(`${suite}/`)))
        ctx.addIssue({
          code: 'custom',
          path: ['families'],
          message: `keeps no family of suite '${suite}' (drop the suite from spec.suites, or list one of its families)`,
        });
  });

export type ExperimentSpec = z.infer<typeof ExperimentSpec>;
export type MethodSpec = z.infer<typeof MethodSpec>;

/** Thrown for an invalid spec; `.issues` are one line each: `path: what is wrong`. */
export class SpecError extends Error {
  constructor(
    public readonly source: string,
    public readonly issues: string[],
  ) {
    // One problem is one line; several are one line each under a header.
    super(
      issues.length === 1
        ? `${source}: invalid experiment spec: ${issues[0]}`
        : `${source}: invalid experiment spec:\n  ${issues.join('\n  ')}`,
    );
    this.name = 'SpecError';
  }
}

function formatPath(path: readonly PropertyKey[]): string {
  let s = 'spec';
  for (const p of path) s += typeof p === 'number' ? `[${p}]` : `.${String(p)}`;
  return s;
}

/** A bad input value for a message: JSON, cut to 40 characters. */
function showValue(v: unknown): string {
  if (v === undefined) return 'nothing';
  let t: string;
  try {
    t = JSON.stringify(v) ?? String(v);
  } catch {
    t = String(v);
  }
  return t.length > 40 ? t.slice(0, 39) + '…' : t;
}

/**
 * Validate unknown JSON as an ExperimentSpec (defaults filled in).
 * @param source  where it came from, for the message (file name or preset name)
 * @throws SpecError listing each bad field with the allowed values or range.
 */
export function parseSpec(json: unknown, source = 'spec'): ExperimentSpec {
  const r = ExperimentSpec.safeParse(json, { reportInput: true });
  if (r.success) return r.data;
  const issues = r.error.issues.map((i) => {
    const where = formatPath(i.path);
    if (i.code === 'invalid_value' && 'values' in i) {
      // The bad value itself, so a typo is visible next to the choices.
      return `${where}: expected one of ${(i.values as unknown[]).map((v) => JSON.stringify(v)).join(', ')}, got ${showValue((i as { input?: unknown }).input)}`;
    }
    if (i.code === 'unrecognized_keys' && 'keys' in i) {
      return `${where}: unknown field(s) ${(i.keys as string[]).map((k) => `'${k}'`).join(', ')}`;
    }
    // A number out of range or of the wrong type: show the value beside the rule.
    const input = (i as { input?: unknown }).input;
    if (
      (i.code === 'too_small' || i.code === 'too_big' || i.code === 'invalid_type') &&
      (input === undefined || typeof input !== 'object' || input === null)
    )
      return `${where}: ${i.message}, got ${showValue(input)}`;
    return `${where}: ${i.message}`;
  });
  throw new SpecError(source, issues);
}

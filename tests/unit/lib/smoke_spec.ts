/**
 * A fixed, valid smoke-size experiment spec for tests: harness scaling (GRPO, K = 4) through the
 * OA-18 on tier-1 workspace tasks, 12 RL steps × 2 tasks × groups of 8 (a frozen copy of an
 * earlier `quick` preset). Tests that need "a spec" start from this, so re-tuning a preset never changes
 * what they test; tests about a preset itself load the preset.
 */
import { expect } from 'vitest';
import { parseSpec, SpecError, type ExperimentSpec } from '../../../src/experiment/spec';

/** The spec as JSON (clone before mutating: `structuredClone(SMOKE_SPEC_JSON)`). */
export const SMOKE_SPEC_JSON = {
  specVersion: 1,
  name: 'smoke',
  description: 'A fixed smoke-size spec for tests (the quick preset as of session 8).',
  seeds: [0],
  suites: ['workspace'],
  maxTier: 1,
  model: {
    preset: 'mini',
    init: 'base',
  },
  design: {
    method: 'oa',
    k: 18,
    seed: 0,
  },
  methods: [
    {
      name: 'harness scaling (GRPO, K=4)',
      harnesses: 'scaling',
      K: 4,
      algorithm: 'grpo',
    },
  ],
  rl: {
    steps: 12,
    tasksPerStep: 2,
    groupSize: 8,
    epochs: 1,
    minibatches: 2,
    lr: 0.0001,
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
    temperature: 1,
  },
  rollout: {
    workers: 2,
    maxTurns: 6,
    maxNewTokens: 96,
    contextTokens: 480,
    watchdogMs: 30000,
  },
  evaluation: {
    testTasks: 6,
    samples: 1,
    inSpace: {
      mode: 'stratified',
      perDistance: 2,
      seed: 0,
    },
    blackbox: ['bb-coding-cli', 'bb-assistant'],
    validation: {
      tasks: 24,
      every: 6,
    },
  },
};

/** The smoke spec, validated, defaults filled in (a fresh object each call). */
export function smokeSpec(): ExperimentSpec {
  return parseSpec(structuredClone(SMOKE_SPEC_JSON), 'smoke spec');
}

/**
 * The message parseSpec throws for `json` (source 'test.json'), checking it is a SpecError.
 * @throws Error when the spec is accepted
 */
export function specErrorMessage(json: unknown): string {
  try {
    parseSpec(json, 'test.json');
  } catch (e) {
    expect(e).toBeInstanceOf(SpecError);
    return (e as Error).message;
  }
  throw new Error('spec was accepted');
}

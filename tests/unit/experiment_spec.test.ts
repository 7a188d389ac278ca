import { describe, it, expect } from 'vitest';
import { ExperimentSpec, parseSpec } from '../../src/experiment/spec';
import { getPreset, PRESET_NAMES } from '../../src/experiment/presets';
import { specConsistencyIssues } from '../../src/experiment/plan';
import { RlLossSpec, rlLossConfig } from '../../src/rl/config';
import { trainerOptions } from '../../src/experiment/compile';
import { smokeSpec, specErrorMessage } from './lib/smoke_spec';

/** The spec's rl section schema. */
const RlSpec = ExperimentSpec.shape.rl;

describe('experiment spec', () => {
  it('every preset validates', () => {
    for (const n of PRESET_NAMES) expect(getPreset(n).name).toBe(n);
  });
  it('unknown preset names the allowed ones', () => {
    expect(() => getPreset('fast')).toThrow(/unknown preset 'fast'.*quick, lesson, main/);
  });
  function bad(mutate: (s: Record<string, any>) => void): string {
    const s = structuredClone(smokeSpec()) as Record<string, any>;
    mutate(s);
    return specErrorMessage(s);
  }
  it('names the field and allowed values', () => {
    expect(bad((s) => (s.methods[0].algorithm = 'ppo2'))).toMatch(/spec\.methods\[0\]\.algorithm: expected one of "grpo", "ppo", "sft"/);
    expect(bad((s) => (s.rl.groupSize = 0))).toMatch(/spec\.rl\.groupSize: .*>=1/);
    expect(bad((s) => (s.rl.clipHihg = 0.3))).toMatch(/spec\.rl: unknown field\(s\) 'clipHihg'/);
    expect(bad((s) => (s.specVersion = 2))).toMatch(/spec\.specVersion/);
    expect(bad((s) => (s.methods[0] = { name: 'bb', harnesses: 'blackbox' }))).toMatch(/spec\.methods\[0\]\.blackbox: required/);
    expect(bad((s) => (s.evaluation.inSpace = { mode: 'some' }))).toMatch(/spec\.evaluation\.inSpace/);
  });
  it("an 'sft' method must carry its in-run SFT phase: without one it is one line naming spec.methods[i].sft", () => {
    const bb = { name: 'bb SFT', harnesses: 'blackbox', blackbox: 'bb-coding-cli', K: 1, algorithm: 'sft' };
    expect(bad((s) => (s.methods[1] = bb))).toBe(
      "test.json: invalid experiment spec: spec.methods[1].sft: required when algorithm is 'sft' (the in-run SFT phase { steps, lr }, through the method's training harness)",
    );
    expect(() => parseSpec({ ...smokeSpec(), methods: [{ ...bb, sft: { steps: 5, lr: 1e-3 } }] }, 'ok')).not.toThrow();
    // Through the base harness (the control of black-box SFT) it is accepted; through several harnesses it is refused.
    expect(() =>
      parseSpec(
        { ...smokeSpec(), methods: [{ name: 'x', harnesses: 'single', K: 1, algorithm: 'sft', sft: { steps: 5, lr: 1e-3 } }] },
        'ok',
      ),
    ).not.toThrow();
    expect(bad((s) => (s.methods[0] = { name: 'x', harnesses: 'scaling', algorithm: 'sft', sft: { steps: 5, lr: 1e-3 } }))).toMatch(
      /spec\.methods\[0\]\.sft: .*needs harnesses 'blackbox' or 'single', got 'scaling'$/,
    );
    // A method names no starting checkpoint of its own (the in-run SFT phase replaces a shipped SFT checkpoint).
    expect(bad((s) => (s.methods[0].init = 'base'))).toBe("test.json: invalid experiment spec: spec.methods[0]: unknown field(s) 'init'");
  });
  it('blackbox preset: black-box SFT and RL train through an in-run SFT phase from the spec-level base', () => {
    const spec = getPreset('blackbox');
    expect(spec.model.init).toBe('base');
    const starts = Object.fromEntries(spec.methods.map((m) => [m.name, [m.algorithm, m.sft?.steps ?? 0]]));
    expect(starts).toEqual({
      'harness scaling (GRPO)': ['grpo', 0],
      'black-box SFT (coding-cli)': ['sft', 600],
      'SFT through the base harness (control)': ['sft', 600],
      'black-box RL (coding-cli)': ['grpo', 600],
    });
    // The control trains the black-box SFT's recipe (steps, lr) through the base harness.
    const [bb, control] = ['black-box SFT (coding-cli)', 'SFT through the base harness (control)'].map(
      (n) => spec.methods.find((m) => m.name === n)!,
    );
    expect(control.harnesses).toBe('single');
    expect(control.sft).toEqual(bb.sft);
  });
  it('an enum error echoes the bad value', () => {
    expect(bad((s) => (s.methods[0].algorithm = 'grop'))).toContain(
      'spec.methods[0].algorithm: expected one of "grpo", "ppo", "sft", got "grop"',
    );
    expect(bad((s) => (s.model.preset = 'huge'))).toContain('got "huge"');
    expect(bad((s) => (s.suites = ['workspce']))).toContain('spec.suites[0]: expected one of "workspace", "errands", got "workspce"');
    expect(bad((s) => (s.evaluation.blackbox = ['bb-x']))).toContain('got "bb-x"');
    expect(bad((s) => (s.specVersion = 2))).toContain('spec.specVersion: expected one of 1, got 2');
  });
  it('embeds the one RL loss schema (src/rl/config.ts): vfClip is null (no value clipping) or > 0 in both', () => {
    for (const k of Object.keys(RlLossSpec.shape))
      expect(RlSpec.shape[k as keyof typeof RlSpec.shape]).toBe(RlLossSpec.shape[k as keyof typeof RlLossSpec.shape]);
    const s = structuredClone(smokeSpec()) as Record<string, any>;
    s.rl.vfClip = null;
    expect(parseSpec(s).rl.vfClip).toBeNull();
    expect(rlLossConfig({ vfClip: null }).vfClip).toBeNull();
    expect(bad((x) => (x.rl.vfClip = 0))).toMatch(/spec\.rl\.vfClip/);
    expect(() => rlLossConfig({ vfClip: 0 })).toThrow(/vfClip = 0/);
  });
  it('rl.temperature and evaluation.temperature: τ in (0, 10], one line naming the field; evaluation.temperature defaults to 1', () => {
    expect(parseSpec(smokeSpec()).evaluation.temperature).toBe(1);
    const s = structuredClone(smokeSpec()) as Record<string, any>;
    s.rl.temperature = 1.5;
    s.evaluation.temperature = 1;
    const p = parseSpec(s);
    expect([p.rl.temperature, p.evaluation.temperature]).toEqual([1.5, 1]);
    for (const t of [0, -1, 10.5]) {
      for (const [field, set] of [
        ['spec.rl.temperature', (x: Record<string, any>) => (x.rl.temperature = t)],
        ['spec.evaluation.temperature', (x: Record<string, any>) => (x.evaluation.temperature = t)],
      ] as const) {
        const m = bad(set);
        expect(m.split('\n'), m).toHaveLength(1);
        expect(m).toContain(`${field}:`);
      }
    }
    expect(bad((x) => (x.rl.temperature = 'hot'))).toMatch(/spec\.rl\.temperature: /);
    expect(() => rlLossConfig({ temperature: 0 })).toThrow(/RlLossConfig\.temperature = 0 /);
    expect(() => rlLossConfig({ temperature: Infinity })).toThrow(/RlLossConfig\.temperature = Infinity /);
  });
  it("the run's trainer scores at rl.temperature (trainerOptions)", () => {
    const s = structuredClone(smokeSpec()) as Record<string, any>;
    s.rl.temperature = 1.5;
    expect(trainerOptions(parseSpec(s), 'grpo', 0, 0).cfg.temperature).toBe(1.5);
    expect(trainerOptions(smokeSpec(), 'ppo', 0, 0).cfg.temperature).toBe(1);
  });
  it('one bad field is one line', () => {
    expect(bad((s) => (s.methods[0].algorithm = 'grop')).split('\n')).toHaveLength(1);
  });
});

describe('experiment spec: cross-field consistency', () => {
  const spec = (mutate: (s: Record<string, any>) => void) => {
    const s = structuredClone(smokeSpec()) as Record<string, any>;
    mutate(s);
    return parseSpec(s);
  };
  it('every preset is consistent', () => {
    for (const n of PRESET_NAMES) expect(specConsistencyIssues(getPreset(n)), n).toEqual([]);
  });
  it('K above the training-set size is named with the size', () => {
    const issues = specConsistencyIssues(spec((s) => (s.methods[0].K = 99)));
    expect(issues).toEqual([expect.stringMatching(/^spec\.methods\[0\]\.K: 99 exceeds the training-set size 18 /)]);
    const random = specConsistencyIssues(spec((s) => ((s.methods[0].harnesses = 'random-k'), (s.design.k = 3), (s.methods[0].K = 4))));
    expect(random).toEqual([expect.stringMatching(/^spec\.methods\[0\]\.K: 4 exceeds the training-set size 3 \(design\.k = 3/)]);
    expect(specConsistencyIssues(spec((s) => (s.methods[0].K = 18)))).toEqual([]);
  });
  it('any rollout temperature in (0, 10] is consistent (the trainer scores at that τ)', () => {
    for (const t of [0.7, 1.5, 10]) expect(specConsistencyIssues(spec((s) => (s.rl.temperature = t)))).toEqual([]);
  });
  it('action and context budgets, stray blackbox', () => {
    expect(specConsistencyIssues(spec((s) => (s.rollout.maxNewTokens = s.rollout.contextTokens)))).toContainEqual(
      expect.stringMatching(/^spec\.rollout\.maxNewTokens: \d+ must be below spec\.rollout\.contextTokens/),
    );
    expect(specConsistencyIssues(spec((s) => (s.rollout.maxNewTokens = 4096)))).toContainEqual(
      expect.stringMatching(/must be below the context length maxT = \d+ of model 'mini'/),
    );
    expect(specConsistencyIssues(spec((s) => (s.methods[0].blackbox = 'bb-assistant')))).toEqual([
      expect.stringMatching(/^spec\.methods\[0\]\.blackbox: 'bb-assistant' is only used with harnesses 'blackbox'/),
    ]);
  });
});

import { describe, it, expect } from 'vitest';
import { parseSpec, SpecError } from '../../src/experiment/spec';
import { getPreset, PRESET_NAMES } from '../../src/experiment/presets';

describe('experiment spec', () => {
  it('every preset validates', () => {
    for (const n of PRESET_NAMES) expect(getPreset(n).name).toBe(n);
  });
  it('unknown preset names the allowed ones', () => {
    expect(() => getPreset('fast')).toThrow(/unknown preset 'fast'.*quick, main/);
  });
  function bad(mutate: (s: Record<string, any>) => void): string {
    const s = structuredClone(getPreset('quick')) as Record<string, any>;
    mutate(s);
    try {
      parseSpec(s, 'test.json');
    } catch (e) {
      expect(e).toBeInstanceOf(SpecError);
      return (e as Error).message;
    }
    throw new Error('spec was accepted');
  }
  it('names the field and allowed values', () => {
    expect(bad((s) => (s.methods[0].algorithm = 'ppo2'))).toMatch(/spec\.methods\[0\]\.algorithm: expected one of "grpo", "ppo", "sft"/);
    expect(bad((s) => (s.rl.groupSize = 0))).toMatch(/spec\.rl\.groupSize: .*>=1/);
    expect(bad((s) => (s.rl.clipHihg = 0.3))).toMatch(/spec\.rl: unknown field\(s\) 'clipHihg'/);
    expect(bad((s) => (s.specVersion = 2))).toMatch(/spec\.specVersion/);
    expect(bad((s) => (s.methods[0] = { name: 'bb', harnesses: 'blackbox' }))).toMatch(/spec\.methods\[0\]\.blackbox: required/);
    expect(bad((s) => (s.evaluation.inSpace = { mode: 'some' }))).toMatch(/spec\.evaluation\.inSpace/);
  });
});

import { describe, expect, it } from 'vitest';
import { describeMix, mixUnion, NO_MIX, pretrainMixOf } from '../../src/pretrain/mix';

describe('pretrainMixOf (the mix a base checkpoint records)', () => {
  it('reads the three metadata fields, and an older checkpoint as no mix', () => {
    const m = pretrainMixOf({
      command: 'x',
      pretrainMix: 'base:0.5,one-factor:0.5',
      pretrainMixHarnesses: ['S0-T0-O0-C0-W0', 'S1-T0-O0-C0-W0'],
      pretrainMixWeights: [0.5, 0.5],
    });
    expect(m).toEqual({ spec: 'base:0.5,one-factor:0.5', harnesses: ['S0-T0-O0-C0-W0', 'S1-T0-O0-C0-W0'], weights: [0.5, 0.5] });
    expect(describeMix(m)).toBe("mix 'base:0.5,one-factor:0.5' (2 harnesses)");
    expect(pretrainMixOf({ command: 'hlab pretrain' })).toEqual(NO_MIX);
    expect(describeMix(pretrainMixOf({}))).toBe('no mix recorded');
  });

  it('names the field of a malformed mix', () => {
    expect(() => pretrainMixOf({ pretrainMix: 3 })).toThrow(/metadata\.pretrainMix: expected a string, got 3/);
    expect(() => pretrainMixOf({ pretrainMix: 'b', pretrainMixHarnesses: [1], pretrainMixWeights: [1] })).toThrow(/pretrainMixHarnesses/);
    expect(() => pretrainMixOf({ pretrainMix: 'b', pretrainMixHarnesses: ['a'], pretrainMixWeights: [-1] })).toThrow(/pretrainMixWeights/);
    expect(() => pretrainMixOf({ pretrainMix: 'b', pretrainMixHarnesses: ['a', 'b'], pretrainMixWeights: [1] })).toThrow(
      /1 weights for 2 pretrainMixHarnesses/,
    );
  });

  it('unions the mixes of several checkpoints, naming each', () => {
    const a = { spec: 'a', harnesses: ['H1', 'H2'], weights: [1, 1] };
    const b = { spec: 'b', harnesses: ['H2', 'H3'], weights: [1, 1] };
    expect(mixUnion([['mini', a]])).toEqual({ ids: ['H1', 'H2'], label: "mix 'a' (2 harnesses)" });
    expect(
      mixUnion([
        ['mini', a],
        ['small', b],
      ]),
    ).toEqual({ ids: ['H1', 'H2', 'H3'], label: "mini: mix 'a' (2 harnesses); small: mix 'b' (2 harnesses)" });
    expect(mixUnion([])).toEqual({ ids: [], label: 'no mix recorded' });
  });
});

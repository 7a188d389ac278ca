// Whether a spec is a smaller version of another (src/experiment/smaller_version.ts): sizes may
// differ, conditions may not, and every differing condition is named.
import { describe, expect, it } from 'vitest';
import { presetVersionOf, smallerVersion } from '../../src/experiment/smaller_version';
import { getPreset } from '../../src/experiment/presets';
import { parseSpec, type ExperimentSpec } from '../../src/experiment/spec';

const cell = getPreset('map-broad-240');
/** `cell` with a JSON edit, re-validated (so defaults are filled as for any spec). */
const edit = (f: (j: Record<string, any>) => void): ExperimentSpec => {
  const j = JSON.parse(JSON.stringify(cell));
  f(j);
  return parseSpec(j, 'test');
};

describe('smallerVersion', () => {
  it('a spec is a version of itself: no condition and no size differs', () => {
    expect(smallerVersion(cell, cell)).toEqual({ conditions: [], sizes: [] });
  });

  it('seeds, steps, learning rate and evaluation sizes are sizes, listed with both values; names and workers are neither', () => {
    const small = edit((j) => {
      j.name = 'other';
      j.description = 'other';
      j.seeds = [0];
      j.rl.steps = 80;
      j.rl.lr = 3e-4;
      j.rollout.workers = 1;
      j.methods[0].name = 'renamed';
      j.evaluation.blackbox = [];
      j.evaluation.inSpace.tasksPerConfig = 4;
    });
    const v = smallerVersion(small, cell);
    expect(v.conditions).toEqual([]);
    expect(v.sizes).toEqual([
      { field: 'seeds', small: '1', large: '5' },
      { field: 'rl.steps', small: '80', large: '240' },
      { field: 'rl.lr', small: '0.0003', large: '0.0001' },
      { field: 'evaluation.inSpace.tasksPerConfig', small: '4', large: '8' },
      { field: 'evaluation.blackbox', small: 'none', large: 'bb-coding-cli, bb-assistant' },
    ]);
  });

  it('every condition that differs is named: method, base, sampling, design, in-space set kind', () => {
    const other = edit((j) => {
      j.methods[1].K = 2;
      j.model.init = 'scratch';
      delete j.rl.dynamicSampling;
      j.design.seed = 1;
      j.evaluation.inSpace.by = 'training';
      j.rl.groupSize = 4;
    });
    expect(smallerVersion(other, cell).conditions.sort()).toEqual(
      ['design', 'evaluation.inSpace', 'methods', 'model', 'rl.dynamicSampling', 'rl.groupSize'].sort(),
    );
    // Either direction names the same fields.
    expect(smallerVersion(cell, other).conditions.sort()).toEqual(smallerVersion(other, cell).conditions.sort());
  });

  it('the order of object keys does not matter', () => {
    const reordered = edit((j) => {
      j.model = { init: j.model.init, preset: j.model.preset };
    });
    expect(smallerVersion(reordered, cell).conditions).toEqual([]);
  });

  it('presetVersionOf: the preset a spec is one smaller run of (same condition and steps, more seeds)', () => {
    expect(presetVersionOf(getPreset('lesson'))).toBe('map-broad-240');
    expect(presetVersionOf(getPreset('quick'))).toBe('main');
    // A full-size preset is no smaller version; nor is a spec at other steps or in another condition.
    expect(presetVersionOf(cell)).toBeNull();
    const oneSeed = (j: Record<string, any>) => ((j.name = 'one-seed'), (j.seeds = [0]));
    expect(presetVersionOf(edit(oneSeed))).toBe('map-broad-240');
    // A preset is not taken for a smaller version of itself.
    expect(presetVersionOf(edit((j) => (j.seeds = [0])))).toBeNull();
    expect(presetVersionOf(edit((j) => (oneSeed(j), (j.rl.steps = 200))))).toBeNull();
    expect(presetVersionOf(edit((j) => (oneSeed(j), (j.methods[1].K = 2))))).toBeNull();
  });
});

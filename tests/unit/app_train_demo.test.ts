// The Train view's "Demo (small run)" (src/app/views/train_inputs.ts demoText): a merge patch that
// shrinks any preset to a small run, validation included, and stays a valid spec.
import { describe, expect, it } from 'vitest';
import { demoText, TRAIN_DEFAULTS, validateTrainInputs } from '../../src/app/views/train_inputs';
import { PRESET_NAMES } from '../../src/experiment/presets';

describe('the demo setting', () => {
  it('every preset shrinks to a valid 6-step run with a 4-task validation split every 3 steps', () => {
    for (const preset of PRESET_NAMES) {
      const inputs = { ...TRAIN_DEFAULTS, preset };
      const v = validateTrainInputs(inputs, demoText(inputs));
      expect(v.errors.spec, preset).toEqual([]);
      const spec = v.spec!;
      expect(spec.name).toBe(`${preset}-demo`);
      expect(spec.rl.steps).toBe(6);
      expect(spec.evaluation.testTasks).toBe(2);
      expect(spec.evaluation.validation).toMatchObject({ tasks: 4, every: 3, samples: 1 });
    }
  });

  it("the lesson's demo keeps its methods and the sets it validates on", () => {
    const inputs = { ...TRAIN_DEFAULTS };
    const spec = validateTrainInputs(inputs, demoText(inputs)).spec!;
    expect(spec.methods.map((m) => m.harnesses)).toEqual(['single', 'scaling']);
    expect(spec.evaluation.validation?.sets).toEqual(['training', 'base', 'inSpace']);
  });
});

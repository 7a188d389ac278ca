// Links from Design and Inspect into the Train view's lesson (src/app/train_links.ts): the route
// opens the lesson, and a design's edits turn it into a valid harness-scaling spec through that design.
import { describe, expect, it } from 'vitest';
import { lessonRoute, lessonRouteForDesign, lessonScope, trainableLevels } from '../../src/app/train_links';
import { parseRoute } from '../../src/app/route';
import { presetText, TRAIN_DEFAULTS, validateTrainInputs } from '../../src/app/views/train_inputs';
import { APP_DEFAULT_PRESET } from '../../src/experiment/presets';
import { trainingHarnesses } from '../../src/experiment/plan';

const oa: Parameters<typeof lessonRouteForDesign>[0] = {
  levels: [3, 3, 3, 3, 3],
  method: 'oa',
  size: 18,
  seed: 3,
  K: 4,
  assign: 'locality',
};

/** The Train view's validated spec for a route's parameters. */
function specOf(hash: string) {
  const inputs = { ...TRAIN_DEFAULTS, ...parseRoute(hash).params };
  const t = presetText(inputs);
  expect(t.editsError).toBeNull();
  return validateTrainInputs(inputs, t.text);
}

describe('train links', () => {
  it('the plain link opens the lesson, which is the Train view default', () => {
    expect(parseRoute(lessonRoute())).toEqual({ view: 'train', params: { preset: APP_DEFAULT_PRESET } });
    expect(TRAIN_DEFAULTS.preset).toBe(APP_DEFAULT_PRESET);
    expect(specOf(lessonRoute()).spec?.name).toBe(APP_DEFAULT_PRESET);
  });

  it("an orthogonal-array design becomes the lesson's harness scaling through that design's 18 harnesses; its single harness stays", () => {
    const hash = lessonRouteForDesign(oa);
    expect(hash.startsWith(`#/train?preset=${APP_DEFAULT_PRESET}&edits=`)).toBe(true);
    const v = specOf(hash);
    expect(v.errors.spec).toEqual([]);
    const spec = v.spec!;
    const lesson = specOf(lessonRoute()).spec!;
    const single = lesson.methods.filter((m) => m.harnesses === 'single');
    expect(single.length, 'the lesson compares against the single base harness').toBeGreaterThan(0);
    expect(spec.methods).toEqual([...single, { name: 'harness scaling (GRPO, K=4)', harnesses: 'scaling', K: 4, algorithm: 'grpo' }]);
    expect(spec.design).toMatchObject({ method: 'oa', seed: 3 });
    expect(spec.name).toBe(`${APP_DEFAULT_PRESET}-design`);
    expect(trainingHarnesses(spec, spec.methods.at(-1)!, 0)).toHaveLength(18);
    // Everything else is the lesson's.
    expect(spec.rl).toEqual(lesson.rl);
    expect(spec.evaluation).toEqual(lesson.evaluation);
  });

  it('random-k with random assignment carries k, the seed and the ablation method', () => {
    const spec = specOf(lessonRouteForDesign({ ...oa, method: 'random', size: 9, seed: 7, K: 2, assign: 'random' })).spec!;
    expect(spec.design).toEqual({ method: 'random', k: 9, seed: 7 });
    expect(spec.methods.at(-1)).toMatchObject({ harnesses: 'random-assignment', K: 2, name: 'random assignment (GRPO, K=2)' });
    expect(trainingHarnesses(spec, spec.methods.at(-1)!, 0)).toHaveLength(9);
  });

  it("levels other than the experiments' space cannot be trained: one line naming the field", () => {
    expect(trainableLevels([3, 3, 3, 3, 3])).toBe(true);
    expect(trainableLevels([2, 3, 3, 4])).toBe(false);
    expect(() => lessonRouteForDesign({ ...oa, levels: [2, 3, 3, 4] })).toThrow(
      'levels: training runs in the 3,3,3,3,3 space, got 2,3,3,4',
    );
  });

  it("lessonScope reads the lesson's preset", () => {
    const l = lessonScope();
    const spec = specOf(lessonRoute()).spec!;
    expect(l.suites).toEqual(spec.suites);
    expect(l.maxTier).toBe(spec.maxTier);
    expect(l.harness).toBe(spec.methods.every((m) => m.harnesses === 'single') ? 'S0-T0-O0-C0-W0' : null);
  });
});

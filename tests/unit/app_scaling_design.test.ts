/**
 * The harness-scaling panel's in-space distances come from the spec's design, whether or not a
 * method trains through it (plan.ts inSpaceEvalSet holds the design's held-out configurations out
 * for a single-harness run too): so a single-harness lesson and a harness-scaling run of the same
 * design share one reference, and different designs do not.
 */
import { describe, expect, it } from 'vitest';
import { sharedDesignSpec } from '../../src/app/views/scaling';
import { getPreset } from '../../src/experiment/presets';
import { parseSpec } from '../../src/experiment/spec';

describe('sharedDesignSpec', () => {
  it('a single-harness spec names its design; the same design is shared with a harness-scaling spec; a different design is not', () => {
    const lesson = getPreset('lesson');
    expect(lesson.methods.every((m) => m.harnesses === 'single')).toBe(true);
    expect(sharedDesignSpec([lesson])).toBe(lesson);
    const main = getPreset('main');
    expect(sharedDesignSpec([main, lesson])).toBe(main);
    const random = parseSpec({ ...structuredClone(lesson), design: { method: 'random', k: 18, seed: 3 } }, 'random design');
    expect(sharedDesignSpec([main, random])).toBeNull();
    expect(sharedDesignSpec([main, null])).toBeNull();
  });
});

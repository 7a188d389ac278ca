/**
 * The harness-scaling panel's in-space distances are the ones the spec stratifies by
 * (plan.ts inSpaceDistance): to the base harness, or to the design's training set whether or not
 * a method trains through it. Outputs share a row only when every configuration has the same
 * distance under each of their specs: one meaning of distance on a page.
 */
import { describe, expect, it } from 'vitest';
import { sharedDesignSpec } from '../../src/app/views/scaling';
import { getPreset } from '../../src/experiment/presets';
import { parseSpec } from '../../src/experiment/spec';
import { inSpaceDistance, inSpaceEvalSet } from '../../src/experiment/plan';
import { harnessRoles } from '../../src/app/views/results_tables';
import { selectTraining } from '../../src/design';

/** A single-harness spec whose in-space set is drawn by distance to the OA training set (the default `by`). */
function singleByTraining() {
  const j = structuredClone(getPreset('lesson')) as Record<string, any>;
  j.name = 'single-by-training';
  j.methods = j.methods.filter((m: { harnesses: string }) => m.harnesses === 'single');
  j.evaluation.inSpace = { mode: 'stratified', perDistance: 1, seed: 0 };
  return parseSpec(j, 'single by training');
}

describe('sharedDesignSpec', () => {
  it('a single-harness spec names its design; the same design is shared with a harness-scaling spec; a different design is not', () => {
    const byTraining = singleByTraining();
    expect(byTraining.methods.every((m) => m.harnesses === 'single')).toBe(true);
    expect(sharedDesignSpec([byTraining])).toBe(byTraining);
    const main = getPreset('main');
    expect(main.evaluation.inSpace).toMatchObject({ by: 'base' });
    // The one measures distance to the OA training set, main to the base harness: no shared row.
    expect(sharedDesignSpec([main, byTraining])).toBeNull();
    expect(sharedDesignSpec([main, getPreset('quick')])).toBe(main);
    const random = parseSpec({ ...structuredClone(byTraining), design: { method: 'random', k: 18, seed: 3 } }, 'random design');
    expect(sharedDesignSpec([byTraining, random])).toBeNull();
    expect(sharedDesignSpec([byTraining, structuredClone(byTraining)])).toBe(byTraining);
    // Distance to the base harness does not depend on the design.
    const mainRandom = parseSpec({ ...structuredClone(main), design: { method: 'random', k: 18, seed: 3 } }, 'random design, by base');
    expect(sharedDesignSpec([main, mainRandom])).toBe(main);
    expect(sharedDesignSpec([main, null])).toBeNull();
  });
});

describe('inSpaceDistance and the roles of harnesses: the distance the in-space set was drawn by', () => {
  it('main (by base): its in-space set (no pretraining mix known here) has 6 configurations at each base distance 1…5; a single-harness spec by training: each held-out id at its design distance', () => {
    const main = getPreset('main');
    const dm = inSpaceDistance(main);
    expect(dm.to).toBe('base harness');
    const counts = new Map<number, number>();
    for (const id of inSpaceEvalSet(main).ids) counts.set(dm.of(id), (counts.get(dm.of(id)) ?? 0) + 1);
    expect([...counts].sort((a, b) => a[0] - b[0])).toEqual([
      [1, 6],
      [2, 6],
      [3, 6],
      [4, 6],
      [5, 6],
    ]);
    const byTraining = singleByTraining();
    const dl = inSpaceDistance(byTraining);
    expect(dl.to).toBe('OA training set');
    const design = selectTraining(undefined, { method: 'oa' });
    for (const h of design.heldOut.slice(0, 40)) expect(dl.of(h.id)).toBe(h.distance);
    for (const t of design.training) expect(dl.of(t)).toBe(0);
  });

  it('harnessRoles names the same distance the scaling panel splits by, and says what it is measured to', () => {
    // S1-T1-O1-C2-W2: 5 components from the base, 2 from the nearest OA harness (S1-T1-O1-C1-W1).
    const ids = ['S0-T0-O0-C0-W0', 'S0-T0-O0-C0-W1', 'S1-T1-O1-C2-W2', 'bb-assistant'];
    const main = harnessRoles(ids, getPreset('main'));
    expect(main.get('S0-T0-O0-C0-W0')).toBe('base · training');
    expect(main.get('S1-T1-O1-C2-W2')).toBe('held-out · d=5 to the base harness');
    expect(main.get('bb-assistant')).toBe('black-box');
    const byTraining = singleByTraining();
    const roles = harnessRoles(ids, byTraining);
    expect(roles.get('S1-T1-O1-C2-W2')).toBe('held-out · d=2 to the OA training set');
    expect(harnessRoles(ids, null).get('S0-T0-O0-C0-W1')).toBe('in-space');
  });
});

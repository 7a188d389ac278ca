// The lesson follows the answer (docs/APP.md "The lesson"): where the committed map of conditions
// has a cell in which harness scaling is ahead of the single harness beyond noise, the app's lesson
// is a smaller version of the leading cell — same base, harnesses, algorithm and sampling, fewer
// seeds and steps — so a class sees the condition where harness scaling pays.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { leadingCell, type MapCell } from '../../src/experiment/conditions_map';
import { APP_DEFAULT_PRESET, getPreset } from '../../src/experiment/presets';
import { smallerVersion } from '../../src/experiment/smaller_version';

const cells = (JSON.parse(readFileSync('docs/results/map.json', 'utf8')) as { cells: MapCell[] }).cells;

describe('the lesson follows the map', () => {
  it("the lesson is a smaller version of the map's leading cell, and compares its two methods", () => {
    const leader = leadingCell(cells);
    expect(leader, 'no cell leads: the lesson must then say what the map found instead (docs/APP.md)').not.toBeNull();
    const lesson = getPreset(APP_DEFAULT_PRESET);
    const v = smallerVersion(lesson, getPreset(leader!.preset));
    expect(v.conditions, `the lesson differs from ${leader!.preset} in condition`).toEqual([]);
    expect(lesson.methods.map((m) => m.harnesses)).toEqual(['single', 'scaling']);
    // Smaller (fewer seeds or steps, never more), with its measured time in the description.
    const cell = getPreset(leader!.preset);
    expect(v.sizes.some((d) => d.field === 'seeds' || d.field === 'rl.steps')).toBe(true);
    expect(lesson.seeds.length).toBeLessThanOrEqual(cell.seeds.length);
    expect(lesson.rl.steps).toBeLessThanOrEqual(cell.rl.steps);
    expect(lesson.description).toMatch(/Time: [\d,]+ s/);
  });
});

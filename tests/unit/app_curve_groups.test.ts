// Many runs on one chart (src/app/curve_groups.ts): each method's mean over its runs per step,
// the faint colour of a grouped run, and dash patterns once a palette's colours repeat.
import { describe, expect, it } from 'vitest';
import { dashesByColor, groupMeans, withAlpha } from '../../src/app/curve_groups';

describe('groupMeans', () => {
  it('one mean per group, in order of first appearance, over the runs with a value at each step', () => {
    const means = groupMeans([
      {
        group: 'scaling',
        points: [
          [0, 0.2],
          [1, 0.4],
          [2, 0.6],
        ],
      },
      {
        group: 'single',
        points: [
          [0, 0.1],
          [1, null],
        ],
      },
      {
        group: 'scaling',
        points: [
          [0, 0.4],
          [1, null],
          [2, 0.8],
          [3, 1],
        ],
      },
      {
        group: 'single',
        points: [
          [0, 0.3],
          [1, Number.NaN],
        ],
      },
    ]);
    expect(means.map((m) => [m.group, m.runs])).toEqual([
      ['scaling', 2],
      ['single', 2],
    ]);
    const [scaling, single] = means;
    // Step 1: only the first scaling run has a value; step 3 only the second.
    expect(scaling.points.map(([x]) => x)).toEqual([0, 1, 2, 3]);
    expect(scaling.points[0][1]).toBeCloseTo(0.3, 12);
    expect(scaling.points[1][1]).toBeCloseTo(0.4, 12);
    expect(scaling.points[2][1]).toBeCloseTo(0.7, 12);
    expect(scaling.points[3][1]).toBe(1);
    // A step where no run of the group has a finite value is a gap, not 0.
    expect(single.points[0][1]).toBeCloseTo(0.2, 12);
    expect(single.points[1]).toEqual([1, null]);
  });

  it('20 runs of 2 methods: 2 means, each over its 10 seeds', () => {
    const series = Array.from({ length: 20 }, (_, i) => ({ group: i % 2 ? 'b' : 'a', points: [[5, i] as const] }));
    const means = groupMeans(series);
    expect(means).toEqual([
      { group: 'a', runs: 10, points: [[5, 9]] },
      { group: 'b', runs: 10, points: [[5, 10]] },
    ]);
  });
});

describe('withAlpha', () => {
  it('appends the opacity to a #rrggbb colour and leaves any other colour as it is', () => {
    expect(withAlpha('#2f6db5', 0.35)).toBe('#2f6db559');
    expect(withAlpha('#2f6db5', 1)).toBe('#2f6db5ff');
    expect(withAlpha('#2f6db5', 0)).toBe('#2f6db500');
    expect(withAlpha('rebeccapurple', 0.5)).toBe('rebeccapurple');
  });
});

describe('dashesByColor', () => {
  it('a colour used again is dashed, then dotted, then solid again; distinct colours stay solid', () => {
    const palette = ['#111111', '#222222'];
    const colors = Array.from({ length: 7 }, (_, i) => palette[i % 2]);
    expect(dashesByColor(colors).map((d) => d.border)).toEqual(['solid', 'solid', 'dashed', 'dashed', 'dotted', 'dotted', 'solid']);
    expect(dashesByColor(colors)[0].dash).toBeUndefined();
    expect(dashesByColor(colors)[2].dash?.length).toBe(2);
    // 20 runs in 8 colours: every (colour, line) pair is different.
    const eight = Array.from({ length: 8 }, (_, i) => `#00000${i}`);
    const twenty = Array.from({ length: 20 }, (_, i) => eight[i % 8]);
    const keys = dashesByColor(twenty).map((d, i) => `${twenty[i]} ${d.border}`);
    expect(new Set(keys).size).toBe(20);
  });
});

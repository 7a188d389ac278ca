// The map of conditions (conditions_map.ts, conditions_map_svg.ts): each map preset is a cell
// placed by its spec (exposure, budget, dynamic sampling) and read as harness scaling − single
// harness under the RESULTS rule. Synthetic experiments with a known effect, drawn from explicit
// seeds: a wrong sign, a wrong arm or a wrong place fails.
import { describe, expect, it } from 'vitest';
import {
  cellProgress,
  cellVerdict,
  familywiseInSpace,
  leadingCell,
  conditionsMap,
  mapMarkdown,
  mapWord,
  missingPlaces,
  rowSentences,
  type MapCell,
} from '../../src/experiment/conditions_map';
import { conditionsMapSvg } from '../../src/experiment/conditions_map_svg';
import type { CommittedResults } from '../../src/experiment/claims';
import { cellOf, experiment, SINGLE } from './lib/map_experiment';

/** The fill the figure gives `cell`, its in-space difference set to `diff` (null: no in-space verdict). */
function fillOf(cell: MapCell, diff: number | null): string | undefined {
  const verdicts = cell.verdicts.flatMap((v) =>
    v.set.key !== 'inSpace' ? [v] : diff === null ? [] : [{ ...v, comparison: { ...v.comparison, pass: { ...v.comparison.pass, diff } } }],
  );
  const svg = conditionsMapSvg([{ ...cell, verdicts }]);
  // The cell's label names its preset; its rect is the last one drawn before it.
  const before = svg.slice(0, svg.indexOf(`· ${cell.preset}<`));
  return [...before.matchAll(/<rect [^>]*fill="([^"]*)" stroke=/g)].at(-1)?.[1];
}

describe('map of conditions', () => {
  it('places each map preset by its spec, compares HS − single with the right sign, and ignores presets outside the map', () => {
    const results = new Map<string, CommittedResults>([
      ['map-narrow-240', experiment({ exposure: 'narrow', steps: 240, dynamicSampling: true }, 8, 0.25)],
      ['main', experiment({ steps: 60 }, 8, -0.25)],
      ['algorithms', experiment({ steps: 60 }, 8, 0.25)],
    ]);
    const map = conditionsMap(results);
    expect(map.map((c) => [c.preset, c.exposure, c.steps, c.dynamicSampling])).toEqual([
      ['main', 'broad', 60, false],
      ['map-narrow-240', 'narrow', 240, true],
    ]);
    expect(cellVerdict(map[0], 'inSpace')?.direction).toBe('behind');
    expect(cellVerdict(map[1], 'inSpace')?.direction).toBe('ahead');
    expect(cellVerdict(map[1], 'bb-assistant')?.direction).toBe('not measurable');
    expect(map[1].sampled).toEqual({ single: 64 * 240, scaling: 2 * 64 * 240 });
    expect(map[0].sampled).toEqual({ single: null, scaling: null });
    expect(map[1].seeds).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const md = mapMarkdown(map);
    expect(md).toContain('| narrow | 240 steps, dynamic sampling | `map-narrow-240` | 8 |');
    expect(md).toContain('2.00× (30720 / 15360)');
    expect(md).toMatch(
      /\*\*narrow base:\*\* harness scaling pays at 240 steps, dynamic sampling \(\+\d+\.\d \[\+\d+\.\d, \+\d+\.\d\]; holds over the map's 2 cells, Bonferroni \[/,
    );
    expect(md).toMatch(/\*\*broad base:\*\* harness scaling costs at 60 steps/);
    expect(md).toContain('Not run yet: broad base at 60 steps, dynamic sampling;');
    expect(md).not.toContain('`algorithms`');
  });

  it('leadingCell: the cell furthest ahead beyond noise; none when no cell is ahead', () => {
    const map = conditionsMap(
      new Map<string, CommittedResults>([
        ['map-broad-60', experiment({ exposure: 'broad', steps: 60, dynamicSampling: true }, 8, 0.15, undefined, 3)],
        ['map-narrow-240', experiment({ exposure: 'narrow', steps: 240, dynamicSampling: true }, 8, 0.3)],
        ['map-narrow-60', experiment({ exposure: 'narrow', steps: 60, dynamicSampling: true }, 8, -0.3)],
      ]),
    );
    expect(map.map((c) => cellVerdict(c, 'inSpace')?.direction)).toEqual(['ahead', 'behind', 'ahead']);
    expect(leadingCell(map)?.preset).toBe('map-narrow-240');
    expect(leadingCell(map.filter((c) => c.preset !== 'map-narrow-240'))?.preset).toBe('map-broad-60');
    expect(leadingCell(map.filter((c) => c.preset === 'map-narrow-60'))).toBeNull();
    expect(leadingCell([])).toBeNull();
  });

  it('splits in-space by distance to the base harness: an effect only at d = 5 shows only there', () => {
    const res = experiment(
      { exposure: 'base-only', steps: 60, dynamicSampling: true },
      8,
      0.3,
      (h) => h.startsWith('S1-T1-O1') || h.startsWith('S2'),
    );
    const cell = cellOf('map-base-only-60', res)!;
    expect(cell.bands.map((b) => b.distance)).toEqual([2, 5]);
    const [d2, d5] = cell.bands;
    expect(Math.abs(d2.verdict.comparison.pass.diff)).toBeLessThan(0.08);
    expect(d5.verdict.comparison.pass.diff).toBeGreaterThan(0.2);
    expect(d5.verdict.comparison.pass.configs).toBe(2);
  });

  it('a cell whose base starts below the floor reads "… at the floor" and is not compared in its row sentence; a real effect there still counts', () => {
    const floor = cellOf('map-narrow-60', experiment({ exposure: 'narrow', steps: 60, dynamicSampling: true, level: 0.02 }, 8, 0))!;
    expect(floor.startInSpace).toBeCloseTo(0.02, 10);
    expect(floor.floor).toBe(true);
    const v = cellVerdict(floor, 'inSpace');
    // With 8 seeds at 2 % the interval is within ±2 points or straddles it: either way no comparison of the methods.
    expect(['equivalent', 'undecided']).toContain(v?.direction);
    expect(mapWord(v, floor.floor)).toBe(`${v?.direction} at the floor`);
    const sentence = rowSentences([floor])[0];
    expect(sentence).toContain('is not compared at 60 steps, dynamic sampling');
    expect(sentence).toContain('starting in-space pass@1 2.0 %');
    expect(sentence).not.toContain('makes no difference');
    expect(mapMarkdown([floor])).toContain('| 8 | 2.0 % |');
    const above = cellOf('map-broad-60', experiment({ steps: 60, dynamicSampling: true }, 8, 0))!;
    expect(above.floor).toBe(false);
    expect(mapWord(cellVerdict(above, 'inSpace'), above.floor)).not.toContain('floor');
    const lifted = cellOf('map-narrow-60', experiment({ exposure: 'narrow', steps: 60, dynamicSampling: true, level: 0.02 }, 8, 0.3))!;
    expect(lifted.floor).toBe(true);
    expect(rowSentences([lifted])[0]).toMatch(/harness scaling pays at 60 steps/);
  });

  it('over the map: a cell ahead at 95 % holds only if its Bonferroni interval over the cells with an interval excludes 0', () => {
    const real = cellOf('map-broad-240', experiment({ steps: 240, dynamicSampling: true }, 8, 0.25))!;
    /** `real` renamed, its in-space interval set to Δ ± t·SE with the given SE, df and seeds. */
    const cell = (preset: string, diff: number, se: number, df: number, seeds: number): MapCell => ({
      ...real,
      preset,
      verdicts: real.verdicts.map((v) =>
        v.set.key !== 'inSpace'
          ? v
          : { ...v, direction: 'ahead', comparison: { ...v.comparison, pass: { ...v.comparison.pass, diff, se, df, seeds } } },
      ),
    });
    const modest = cell('map-broad-240', 0.05, 0.015, 4, 5);
    // Alone (m = 1) the interval is the 95 % one: 0.05 ± 2.776 · 0.015.
    const alone = familywiseInSpace([modest]).get('map-broad-240')!;
    expect(alone.m).toBe(1);
    expect(alone.lo).toBeCloseTo(0.05 - 2.7764 * 0.015, 4);
    expect(alone.holds).toBe(true);
    // Beside two more cells with intervals (and one single-seed cell, which has none): m = 3, wider, no longer excludes 0.
    const map = [
      modest,
      cell('map-broad-60', 0.2, 0.01, 9, 10),
      cell('map-narrow-60', 0, 0.01, 4, 5),
      cell('map-narrow-240', 0.3, 0, 0, 1),
    ];
    const fw = familywiseInSpace(map);
    expect([...fw.keys()].sort()).toEqual(['map-broad-240', 'map-broad-60', 'map-narrow-60']);
    expect(fw.get('map-broad-240')).toMatchObject({ m: 3, holds: false });
    expect(fw.get('map-broad-240')!.lo).toBeLessThan(0);
    expect(fw.get('map-broad-60')).toMatchObject({ m: 3, holds: true });
    const sentence = rowSentences(map)[0];
    expect(sentence).toContain("not beyond the map's 3 cells, Bonferroni [");
    expect(sentence).toMatch(/\(\+20\.0 \[[^\]]+\]; holds over the map's 3 cells, Bonferroni \[/);
  });

  it('a spec without both arms is no cell; one seed is undecided, never "pays"', () => {
    const res = experiment({ steps: 60 }, 3, 0.2);
    expect(
      cellOf('map-x', {
        ...res,
        specJson: { ...(res.specJson as object), methods: [{ name: SINGLE, harnesses: 'single', algorithm: 'grpo' }] },
      }),
    ).toBeNull();
    const one = cellOf('map-broad-60', experiment({ steps: 60, dynamicSampling: true }, 1, 0.3))!;
    expect(cellVerdict(one, 'inSpace')?.direction).toBe('undecided');
    expect(rowSentences([one])[0]).toContain('cannot be told apart yet at 60 steps, dynamic sampling');
  });

  it('the figure colours by sign and size, draws every planned place, and says which are not run', () => {
    const cell = cellOf('map-narrow-240', experiment({ exposure: 'narrow', steps: 240, dynamicSampling: true }, 8, 0.25))!;
    expect(fillOf(cell, 0.1)).toBe('rgb(33,102,172)');
    expect(fillOf(cell, -0.1)).toBe('rgb(214,96,77)');
    expect(fillOf(cell, null)).toBe('#eeeeee');
    expect(fillOf(cell, 0.01)).not.toBe(fillOf(cell, 0.05));
    const map = conditionsMap(
      new Map([['map-narrow-240', experiment({ exposure: 'narrow', steps: 240, dynamicSampling: true }, 8, 0.25)]]),
    );
    const svg = conditionsMapSvg(map);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('narrow base');
    expect(svg).toContain('base-only base');
    expect(svg).toContain('240 steps · dynamic sampling');
    expect(svg.match(/not run yet/g)?.length).toBe(missingPlaces(map).length);
    expect(svg).toContain('8 seeds · from 30.0 % · map-narrow-240');
    expect(svg).toContain('helps');
  });

  it('a place running in seed chunks shows each committed seed\'s difference and no verdict, and is neither a cell nor "not run"', () => {
    // Two of five seeds committed: seed 0 with HS ahead by 0.3, seed 1 with HS behind by 0.2.
    const ahead = experiment({ steps: 240, dynamicSampling: true }, 1, 0.3, () => true, 3);
    const behind = experiment({ steps: 240, dynamicSampling: true }, 1, -0.2, () => true, 4);
    const runs = [...ahead.runs, ...behind.runs.map((r) => ({ ...r, seed: 1 }))];
    const p = cellProgress('map-broad-240', ahead.specJson, runs, [4, 3, 2, 1, 0])!;
    expect(p).toMatchObject({ preset: 'map-broad-240', exposure: 'broad', steps: 240, dynamicSampling: true, planned: [0, 1, 2, 3, 4] });
    expect(p.perSeed.map((x) => x.seed)).toEqual([0, 1]);
    expect(p.perSeed[0].inSpace).toBeGreaterThan(0.2);
    expect(p.perSeed[1].inSpace).toBeLessThan(-0.1);
    expect(cellProgress('map-x', { methods: [{ name: SINGLE, harnesses: 'single' }] }, runs, [0])).toBeNull();

    const main = new Map([['main', experiment({ steps: 60 }, 3, 0)]]);
    const cells = conditionsMap(main);
    const md = mapMarkdown(cells, [p]);
    const line = md.split('\n').find((l) => l.startsWith('In progress'))!;
    expect(line).toMatch(
      /broad base at 240 steps, dynamic sampling: 2 of 5 seeds \(in-space HS − single by seed: s0 \+\d+\.\d, s1 −\d+\.\d\)/,
    );
    expect(line).not.toMatch(/helps|hurts|equivalent|undecided/);
    expect(md).not.toMatch(/Not run yet:[^\n]*broad base at 240 steps/);
    expect(missingPlaces(cells, [p])).toHaveLength(missingPlaces(cells).length - 1);
    const svg = conditionsMapSvg(cells, [p]);
    expect(svg).toContain('2 of 5 seeds, no verdict yet');
    expect(svg.match(/not run yet/g)?.length).toBe(missingPlaces(cells, [p]).length);
  });
});

// The map panel's reading of a cell's in-space floor: the committed map.json's startInSpace and
// floor fields under the map's own rule (readsFloor): a floor cell where harness scaling is ahead
// or behind beyond noise still compares the methods.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { MapCell } from '../../src/experiment/conditions_map';
import { floorOf } from '../../src/app/views/map_panel';

const cells = (JSON.parse(readFileSync('docs/results/map.json', 'utf8')) as { cells: MapCell[] }).cells;
const byPreset = (p: string) => cells.find((c) => c.preset === p) as MapCell;

describe('map panel: floor of a cell', () => {
  it('the committed cells: main starts well above the floor, map-narrow-60 at it', () => {
    const main = floorOf(byPreset('main'));
    expect(main.atFloor).toBe(false);
    expect(main.start).toBeGreaterThan(0.1);
    const narrow = floorOf(byPreset('map-narrow-60'));
    expect(narrow.atFloor).toBe(true);
    expect(narrow.start).toBeLessThan(0.05);
  });

  it('a floor cell with a decided direction is a comparison; a missing start reads null', () => {
    const narrow = byPreset('map-narrow-60');
    const ahead = {
      ...narrow,
      verdicts: narrow.verdicts.map((v) => (v.set.key === 'inSpace' ? { ...v, direction: 'ahead' as const } : v)),
    };
    expect(floorOf(ahead).atFloor).toBe(false);
    expect(floorOf({ ...narrow, startInSpace: null as unknown as number }).start).toBeNull();
  });
});

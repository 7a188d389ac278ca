// The map panel's reading of a cell's in-space floor: a field a newer map.json may carry, read
// defensively (absent, a flag, a starting pass@1, or an object of both), and 'not measurable'.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { MapCell } from '../../src/experiment/conditions_map';
import { floorOf } from '../../src/app/views/map_panel';

const cells = (JSON.parse(readFileSync('docs/results/map.json', 'utf8')) as { cells: MapCell[] }).cells;
const cell = cells[0];

describe('map panel: floor of a cell', () => {
  it('a cell without a floor field: not at the floor unless nothing passes under either arm', () => {
    const plain = { ...cell } as MapCell & { floor?: unknown };
    delete plain.floor;
    expect(floorOf(plain)).toEqual({ start: null, atFloor: cellVerdict(plain) === 'not measurable' });
    const none = { ...plain, verdicts: plain.verdicts.map((v) => (v.set.key === 'inSpace' ? { ...v, direction: 'not measurable' as const } : v)) };
    expect(floorOf(none).atFloor).toBe(true);
  });

  it('a flag, a starting pass@1, or both in an object', () => {
    expect(floorOf({ ...cell, floor: true } as MapCell)).toMatchObject({ atFloor: true });
    expect(floorOf({ ...cell, floor: 0.021 } as MapCell)).toMatchObject({ start: 0.021 });
    expect(floorOf({ ...cell, floor: { atFloor: true, startInSpace: 0.02 } } as MapCell)).toEqual({ start: 0.02, atFloor: true });
    expect(floorOf({ ...cell, floor: false, startInSpace: 0.3 } as MapCell)).toEqual({ start: 0.3, atFloor: cellVerdict(cell) === 'not measurable' });
  });
});

function cellVerdict(c: MapCell): string | undefined {
  return c.verdicts.find((v) => v.set.key === 'inSpace')?.direction;
}

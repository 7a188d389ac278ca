// The map's in-space reading by distance band (conditions_map_bands.ts): each cell's HS − single
// per Hamming distance to the base harness, with the Bonferroni check over the cell's bands.
// Synthetic experiments with an effect placed on known configurations: a wrong band, a wrong sign
// or a missing multiplicity check fails.
import { describe, expect, it } from 'vitest';
import { bandSentence, bandsMarkdown, bandTable } from '../../src/experiment/conditions_map_bands';
import type { MapCell } from '../../src/experiment/conditions_map';
import { cellOf, experiment } from './lib/map_experiment';

// lib/map_experiment.ts's in-space set: two configurations at distance 2, two at distance 5.
const atD5 = (h: string) => h.startsWith('S1-T1-O1') || h.startsWith('S2');

describe('map by distance band', () => {
  it('an effect only at d = 5 is ahead there and nowhere else; a negative one is behind there', () => {
    const up = cellOf('map-broad-240', experiment({ steps: 240, dynamicSampling: true }, 8, 0.3, atD5))!;
    const { distances, rows } = bandTable([up]);
    expect(distances).toEqual([2, 5]);
    const [d2, d5] = rows[0].bands;
    expect(d5.verdict.direction).toBe('ahead');
    expect(d5.word).toBe('helps');
    expect(d2.verdict.direction).not.toBe('ahead');
    expect(rows[0].m).toBe(2);
    expect(bandSentence(rows[0])).toMatch(/^`map-broad-240`: harness scaling ahead at d=5(,|;)/);
    expect(bandSentence(rows[0])).not.toContain('d=2');

    const down = cellOf('map-broad-240', experiment({ steps: 240, dynamicSampling: true, level: 0.5 }, 8, -0.3, atD5))!;
    const row = bandTable([down]).rows[0];
    expect(row.bands[1].verdict.direction).toBe('behind');
    expect(row.bands[1].word).toBe('hurts');
    expect(bandSentence(row)).toContain('harness scaling behind at d=5');
  });

  it('a band ahead at 95 % but not at 1 − 0.05/m over the cell\'s bands is marked "not over the bands"', () => {
    const real = cellOf('map-broad-240', experiment({ steps: 240, dynamicSampling: true }, 8, 0.3, atD5))!;
    // d = 5 set to Δ = 0.03, SE 0.013, df 10: 95 % half-width 2.228·0.013 = 0.029 (excludes 0);
    // at 1 − 0.05/2 the half-width is 2.634·0.013 = 0.034 (includes 0).
    const cell: MapCell = {
      ...real,
      bands: real.bands.map((b) =>
        b.distance !== 5
          ? b
          : {
              ...b,
              verdict: {
                ...b.verdict,
                direction: 'ahead',
                comparison: {
                  ...b.verdict.comparison,
                  pass: { ...b.verdict.comparison.pass, diff: 0.03, lo: 0.001, hi: 0.059, se: 0.013, df: 10 },
                },
              },
            },
      ),
    };
    const row = bandTable([cell]).rows[0];
    expect(row.bands[1].holds).toBe(false);
    expect(bandSentence(row)).toContain("none over the cell's 2 bands (Bonferroni)");
    expect(bandsMarkdown([cell])).toContain('+3.0 [+0.1, +5.9] helps (not over the bands)');
    // The real effect (0.3 at d = 5) holds over both bands.
    const realRow = bandTable([real]).rows[0];
    expect(realRow.bands[1].holds).toBe(true);
    expect(bandSentence(realRow)).toContain("each also over the cell's 2 bands (Bonferroni)");
  });

  it('the table: one row per cell, a column per distance, the count of configurations in the header, floor words at the floor', () => {
    const floor = cellOf('map-narrow-60', experiment({ exposure: 'narrow', steps: 60, dynamicSampling: true, level: 0.02 }, 8, 0))!;
    const broad = cellOf('map-broad-60', experiment({ steps: 60, dynamicSampling: true }, 8, 0))!;
    const md = bandsMarkdown([broad, floor]);
    const lines = md.split('\n');
    expect(lines[0]).toBe('| base exposure | budget | preset | d=2 (2 configs) | d=5 (2 configs) |');
    const floorLine = lines.find((l) => l.includes('`map-narrow-60`'))!;
    expect(floorLine).toMatch(/at the floor/);
    expect(lines.find((l) => l.includes('`map-broad-60`'))).not.toMatch(/floor/);
    expect(md).toContain('- `map-broad-60`: no distance band decided.');
    expect(bandsMarkdown([])).toBe('_No map cell yet._');
  });
});

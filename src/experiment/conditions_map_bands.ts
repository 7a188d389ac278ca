/**
 * The map's in-space reading split by Hamming distance to the base harness: for every cell,
 * harness scaling − single harness after RL on the held-out configurations of each distance band
 * (conditions_map.ts MapCell.bands: the RESULTS rule, method_verdict.ts, with the interval over
 * seeds and that band's configurations), so a reader sees where within the space a cell's gain or
 * cost sits.
 *
 * A cell's bands are read together: whoever looks for "the distance where it pays" scans all of a
 * cell's m bands, so each band's direction is also checked at the Bonferroni level 1 − 0.05/m
 * (seed_interval.ts intervalAtLevel; Dunn 1961). The cell's claim stays its whole in-space set;
 * a band is where it sits, not a second claim.
 *
 * Pure and DOM-free: scripts/claims.ts writes RESULTS.md's block from it, the app's map panel the same table.
 */
import type { MethodVerdict } from '../report/method_verdict';
import { intervalAtLevel } from '../report/seed_interval';
import { intervalText, mapWord, type MapCell } from './conditions_map';

/** One band of one cell. */
interface BandReading {
  /** Hamming distance of the band's configurations to the base harness. */
  distance: number;
  verdict: MethodVerdict;
  /** "+7.2 [+3.1, +11.3]" (points), as the map writes an interval; empty when not measurable (both arms fail every cell). */
  text: string;
  /** The map's word for the band (conditions_map.ts mapWord, floor-aware). */
  word: string;
  /**
   * Whether a decided direction (ahead or behind) still excludes 0 at level 1 − 0.05/m over the
   * cell's m bands with an interval; null when the band is not decided or has no interval.
   */
  holds: boolean | null;
}

/** A cell's bands, ascending by distance. */
interface BandRow {
  cell: MapCell;
  bands: BandReading[];
  /** Bands with an interval (≥ 2 seeds): the m of the Bonferroni reading. */
  m: number;
}

/**
 * Every cell's in-space bands, read as above.
 * @param cells the map (conditions_map.ts conditionsMap), in its order
 * @returns one row per cell, its bands ascending by distance; `distances` is the union, ascending
 */
export function bandTable(cells: readonly MapCell[]): { distances: number[]; rows: BandRow[] } {
  const distances = [...new Set(cells.flatMap((c) => c.bands.map((b) => b.distance)))].sort((x, y) => x - y);
  const rows = cells.map((cell) => {
    const m = cell.bands.filter((b) => b.verdict.comparison.pass.seeds >= 2).length;
    const bands = cell.bands.map(({ distance, verdict }): BandReading => {
      const p = verdict.comparison.pass;
      const decided = verdict.direction === 'ahead' || verdict.direction === 'behind';
      let holds: boolean | null = null;
      if (decided && p.seeds >= 2 && m > 0) {
        const { lo, hi } = intervalAtLevel(p, 1 - 0.05 / m);
        holds = lo > 0 || hi < 0;
      }
      const text = verdict.direction === 'not measurable' ? '' : intervalText(verdict);
      return { distance, verdict, text, word: mapWord(verdict, cell.floor), holds };
    });
    return { cell, bands, m };
  });
  return { distances, rows };
}

/** "d=2, d=5" or null. */
const listed = (bs: readonly BandReading[]) => (bs.length ? bs.map((b) => `d=${b.distance}`).join(', ') : null);

/**
 * One sentence on where a cell's in-space difference sits: the bands where harness scaling is
 * ahead or behind beyond noise (and whether each holds over the cell's bands), or that no band is.
 */
export function bandSentence(row: BandRow): string {
  const name = `\`${row.cell.preset}\``;
  if (!row.bands.length) return `${name}: no in-space band evaluated.`;
  const { m } = row;
  const side = (dir: 'ahead' | 'behind') => {
    const hit = row.bands.filter((b) => b.verdict.direction === dir);
    const list = listed(hit);
    if (!list) return null;
    const held = hit.filter((b) => b.holds);
    const over =
      held.length === hit.length
        ? `, each also over the cell's ${m} bands (Bonferroni)`
        : held.length
          ? `; at ${listed(held)} also over the cell's ${m} bands (Bonferroni)`
          : `, none over the cell's ${m} bands (Bonferroni)`;
    return `harness scaling ${dir} at ${list}${over}`;
  };
  const parts = [side('ahead'), side('behind')].filter((p): p is string => p !== null);
  if (!parts.length) return `${name}: no distance band decided.`;
  return `${name}: ${parts.join('; ')}.`;
}

/**
 * The bands as a markdown table (RESULTS.md): one row per cell, one column per distance band
 * ("Δ [lo, hi] word", "—" where the cell has no configuration at that distance), then one
 * sentence per cell with a decided band or none.
 */
export function bandsMarkdown(cells: readonly MapCell[]): string {
  const { distances, rows } = bandTable(cells);
  if (!rows.length) return '_No map cell yet._';
  const line = (xs: string[]) => `| ${xs.join(' | ')} |`;
  // Configurations per band, in the header when every cell has the same count there.
  const configsAt = (d: number) => [
    ...new Set(rows.flatMap((r) => r.bands.filter((b) => b.distance === d).map((b) => b.verdict.comparison.pass.configs))),
  ];
  const header = (d: number) => {
    const n = configsAt(d);
    return n.length === 1 ? `d=${d} (${n[0]} configs)` : `d=${d}`;
  };
  const out = [
    line(['base exposure', 'budget', 'preset', ...distances.map(header)]),
    line(['---', '---', '---', ...distances.map(() => '---:')]),
    ...rows.map(({ cell, bands }) =>
      line([
        cell.exposure,
        `${cell.steps} steps${cell.dynamicSampling ? ', dynamic sampling' : ''}`,
        `\`${cell.preset}\``,
        ...distances.map((d) => {
          const b = bands.find((x) => x.distance === d);
          if (!b) return '—';
          const configs = configsAt(d).length === 1 ? '' : ` · ${b.verdict.comparison.pass.configs} configs`;
          return `${b.text ? `${b.text} ` : ''}${b.word}${b.holds === false ? ' (not over the bands)' : ''}${configs}`;
        }),
      ]),
    ),
  ];
  return [out.join('\n'), '', ...rows.map((r) => `- ${bandSentence(r)}`)].join('\n');
}

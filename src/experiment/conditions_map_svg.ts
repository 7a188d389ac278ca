/**
 * The map of conditions as a figure (SVG): rows are base exposures, columns budgets (RL steps,
 * with or without dynamic sampling); each cell is coloured by the sign and size of harness
 * scaling − single harness on in-space pass@1 (blue: harness scaling ahead, orange: behind,
 * saturating at ±10 points), hatched when the interval cannot tell, and labelled with the
 * difference, its 95 % interval, the verdict and the seeds. Pure string building: the CLI
 * writes it to docs/results/map.svg, the app inlines the same markup.
 */
import { cellVerdict, intervalText, mapWord, PLANNED_PLACES, type CellProgress, type MapCell, type MapPlace } from './conditions_map';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Fill of a cell: the direction's hue, its saturation from |Δ| (full at 10 points); grey when nothing compares. */
function cellFill(diff: number | null): string {
  if (diff === null || !Number.isFinite(diff)) return '#eeeeee';
  const t = Math.min(1, Math.abs(diff) / 0.1);
  const [r, g, b] = diff >= 0 ? [33, 102, 172] : [214, 96, 77];
  const mix = (c: number) => Math.round(255 + (c - 255) * (0.15 + 0.85 * t));
  return `rgb(${mix(r)},${mix(g)},${mix(b)})`;
}

/**
 * The map figure.
 * @param cells the map (conditions_map.ts conditionsMap)
 * @param progress places whose seed chunks are committed but not merged (labelled with their seeds so far, uncoloured)
 * @returns a standalone SVG document (UTF-8 text)
 */
export function conditionsMapSvg(cells: readonly MapCell[], progress: readonly CellProgress[] = []): string {
  // The planned grid first, then any other committed place.
  const places: MapPlace[] = [...PLANNED_PLACES, ...cells];
  const rows = [...new Set(places.map((c) => c.exposure))];
  const colKey = (c: MapPlace) => `${c.steps}|${c.dynamicSampling}`;
  const cols = [...new Set(places.map(colKey))].sort((x, y) => {
    const [sx, dx] = x.split('|');
    const [sy, dy] = y.split('|');
    return Number(sx) - Number(sy) || Number(dx === 'true') - Number(dy === 'true');
  });
  const cw = 190;
  const ch = 92;
  const left = 110;
  const top = 62;
  const width = Math.max(700, left + cols.length * cw + 20);
  const height = top + rows.length * ch + 46;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    '<defs><pattern id="undecided" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="8" height="8" fill="none"/><line x1="0" y1="0" x2="0" y2="8" stroke="#888" stroke-width="1" opacity="0.45"/></pattern></defs>',
    `<text x="${left}" y="18" font-size="14" font-weight="bold">Harness scaling − single harness, in-space pass@1 (points)</text>`,
    `<text x="${left}" y="36" fill="#555">blue: harness scaling ahead · orange: behind · hatched: the 95 % interval cannot tell · "from": in-space pass@1 before RL</text>`,
  ];
  cols.forEach((k, j) => {
    const [steps, dyn] = k.split('|');
    out.push(
      `<text x="${left + j * cw + cw / 2}" y="${top - 8}" text-anchor="middle" font-weight="bold">${steps} steps${dyn === 'true' ? ' · dynamic sampling' : ''}</text>`,
    );
  });
  rows.forEach((exposure, i) => {
    const y = top + i * ch;
    out.push(`<text x="${left - 10}" y="${y + ch / 2 + 4}" text-anchor="end" font-weight="bold">${esc(exposure)} base</text>`);
    cols.forEach((k, j) => {
      const x = left + j * cw;
      const cell = cells.find((c) => c.exposure === exposure && colKey(c) === k);
      const planned = PLANNED_PLACES.some((p) => p.exposure === exposure && colKey(p) === k);
      if (!cell && !planned) return;
      const running = cell ? undefined : progress.find((p) => p.exposure === exposure && colKey(p) === k);
      const v = cell ? cellVerdict(cell, 'inSpace') : null;
      const diff = v ? v.comparison.pass.diff : null;
      out.push(
        `<rect x="${x + 2}" y="${y + 2}" width="${cw - 4}" height="${ch - 4}" fill="${cellFill(diff)}" stroke="#333" stroke-width="0.5"/>`,
      );
      if (v && (v.direction === 'undecided' || v.direction === 'not measurable'))
        out.push(`<rect x="${x + 2}" y="${y + 2}" width="${cw - 4}" height="${ch - 4}" fill="url(#undecided)"/>`);
      const dark = diff !== null && Math.abs(diff) > 0.06;
      const ink = dark ? '#fff' : '#111';
      const lines = cell
        ? [
            intervalText(v),
            mapWord(v, cell.floor),
            `${cell.seeds.length} seed${cell.seeds.length === 1 ? '' : 's'} · from ${(100 * cell.startInSpace).toFixed(1)} % · ${cell.preset}`,
          ]
        : running
          ? ['in progress', `${running.perSeed.length} of ${running.planned.length} seeds, no verdict yet`, running.preset]
          : ['not run yet', '', ''];
      lines.forEach((t, n) => {
        if (t)
          out.push(
            `<text x="${x + cw / 2}" y="${y + 28 + n * 20}" text-anchor="middle" fill="${ink}"${n === 0 ? ' font-size="14" font-weight="bold"' : ''}>${esc(t)}</text>`,
          );
      });
    });
  });
  out.push(
    `<text x="${left}" y="${height - 16}" fill="#555">One committed preset per cell; 95 % interval over seeds, configurations and tasks.</text>`,
  );
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

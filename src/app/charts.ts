/**
 * Charts of the app.
 *
 * - `<hl-bar-chart>`: a (grouped) bar chart over integer categories drawn by uPlot (a small,
 *   maintained canvas charting library). Set its `spec` property; it redraws and follows its
 *   width. The chart is a picture for sighted readers: its `aria-label` states every count,
 *   and the views print the same numbers as text next to it.
 * - `balanceHeatMap`: per pair of components, the s_i × s_j grid of level-pair counts as an
 *   SVG template. uPlot has no heat-map series type, so this is a plain SVG grid: one rect and
 *   one number per cell, shaded by count / expected count.
 */
import { html, svg, nothing, type TemplateResult } from 'lit-html';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { UPlotElement } from './line_chart';

/** One series of a bar chart: `values[i]` is the bar at category `categories[i]`. */
interface BarSeries {
  label: string;
  values: readonly number[];
  /** CSS colour. */
  color: string;
}

interface BarChartSpec {
  /** Integer x categories, e.g. Hamming distances 0..k. */
  categories: readonly number[];
  series: readonly BarSeries[];
  xLabel: string;
  yLabel: string;
  /** Pixel height of the plot (default 220). */
  height?: number;
}

/**
 * Grouped bars on a shared x axis: uPlot wants one aligned x array, so each category c gets
 * one x slot per series at c + offset_j (offsets centred on c) and every series is null in
 * the other series' slots. The bar width follows from the slot spacing.
 */
function alignedData(spec: BarChartSpec): uPlot.AlignedData {
  const n = spec.series.length;
  const width = 0.8 / n;
  const xs: number[] = [];
  const ys: (number | null)[][] = spec.series.map(() => []);
  for (let i = 0; i < spec.categories.length; i++) {
    for (let j = 0; j < n; j++) {
      xs.push(spec.categories[i] + (j - (n - 1) / 2) * width);
      spec.series.forEach((s, k) => ys[k].push(k === j ? s.values[i] : null));
    }
  }
  return [xs, ...ys];
}

class BarChart extends UPlotElement<BarChartSpec> {
  protected override describe(spec: BarChartSpec): string {
    return (
      `${spec.yLabel} by ${spec.xLabel}: ` +
      spec.series.map((s) => `${s.label}: ${spec.categories.map((c, i) => `${c}: ${s.values[i]}`).join(', ')}`).join('; ')
    );
  }

  protected override draw(): void {
    const spec = this.current!;
    this.plot?.destroy();
    const n = spec.series.length;
    const cats = [...spec.categories];
    const lo = Math.min(...cats) - 0.5;
    const hi = Math.max(...cats) + 0.5;
    const ymax = Math.max(1, ...spec.series.flatMap((s) => s.values));
    const opts: uPlot.Options = {
      width: Math.max(240, this.clientWidth || 420),
      height: spec.height ?? 220,
      legend: { show: false },
      cursor: { show: false },
      scales: { x: { time: false, range: [lo, hi] }, y: { range: [0, ymax * 1.1] } },
      axes: [
        { label: spec.xLabel, splits: () => cats, values: (_u, vals) => vals.map((v) => String(v)), grid: { show: false } },
        { label: spec.yLabel, size: 44 },
      ],
      series: [
        {},
        ...spec.series.map((s) => ({
          label: s.label,
          stroke: s.color,
          fill: s.color,
          points: { show: false },
          paths: uPlot.paths.bars!({ size: [n > 1 ? 0.9 : 0.6, 80] }),
        })),
      ],
    };
    this.plot = new uPlot(opts, alignedData(spec), this);
  }
}

if (!customElements.get('hl-bar-chart')) customElements.define('hl-bar-chart', BarChart);

/** A legend for bar series (text, so it reads without the canvas). */
export function legend(series: readonly { label: string; color: string }[]): TemplateResult {
  return html`<ul class="legend">
    ${series.map((s) => html`<li><span class="swatch" style="background:${s.color}"></span>${s.label}</li>`)}
  </ul>`;
}

/** Level-pair counts of one component pair, as in `DesignReport.balance.pairs`. */
interface PairCounts {
  components: [string, string];
  counts: number[][];
  equal: boolean;
}

/**
 * The pairwise-balance heat map: a triangular matrix of small grids, grid (i, j) for
 * components i < j showing counts[a][b] = runs with component i at level a and j at level b.
 * For a strength-2 orthogonal array every cell of a grid equals N / (s_i s_j); a random
 * training set shows uneven cells (darker = more often than expected, light = less, a
 * dashed outline = never).
 * @param keys component keys in order; `pairs` in the order of `verifyStrength2` (i < j, row-major).
 * @param runSize N, for the expected count per cell.
 */
export function balanceHeatMap(keys: readonly string[], pairs: readonly PairCounts[], runSize: number, label: string): TemplateResult {
  const byPair = new Map(pairs.map((p) => [`${p.components[0]}|${p.components[1]}`, p]));
  const cell = 16;
  const gap = 10;
  const levels = keys.map((k) => {
    const p = pairs.find((q) => q.components[0] === k) ?? pairs.find((q) => q.components[1] === k);
    if (!p) return 1;
    return p.components[0] === k ? p.counts.length : p.counts[0].length;
  });
  // Grid (i, j) sits in matrix row i, column j − 1 (upper triangle without the diagonal).
  const colX: number[] = [];
  let x = 38;
  for (let j = 1; j < keys.length; j++) {
    colX[j] = x;
    x += levels[j] * cell + gap;
  }
  const rowY: number[] = [];
  let y = 30;
  for (let i = 0; i < keys.length - 1; i++) {
    rowY[i] = y;
    y += levels[i] * cell + gap;
  }
  const width = x;
  const height = y;
  const grids: TemplateResult[] = [];
  for (let i = 0; i < keys.length - 1; i++) {
    for (let j = i + 1; j < keys.length; j++) {
      const p = byPair.get(`${keys[i]}|${keys[j]}`);
      if (!p) continue;
      const expected = runSize / (p.counts.length * p.counts[0].length);
      p.counts.forEach((row, a) =>
        row.forEach((c, b) => {
          const r = c / expected;
          // One fixed scale for every map, so two maps side by side compare: lightness 96% at
          // count 0, 63% at the expected count (exact balance), 30% at twice it or more.
          const light = 96 - 33 * Math.min(r, 2);
          const cx = colX[j] + b * cell;
          const cy = rowY[i] + a * cell;
          grids.push(svg`<g class="hm-cell" data-pair=${`${keys[i]}${keys[j]}`} data-count=${c}>
            <title>${keys[i]}${a} with ${keys[j]}${b}: ${c} run${c === 1 ? '' : 's'} (expected ${expected.toFixed(expected % 1 ? 2 : 0)})</title>
            <rect x=${cx} y=${cy} width=${cell - 1} height=${cell - 1} fill=${`hsl(214 70% ${light}%)`}
              stroke=${c === 0 ? '#b42318' : 'none'} stroke-dasharray=${c === 0 ? '2 2' : nothing}></rect>
            <text x=${cx + (cell - 1) / 2} y=${cy + cell / 2 + 3.5} text-anchor="middle" class=${light < 55 ? 'on-dark' : ''}>${c}</text>
          </g>`);
        }),
      );
    }
  }
  // Component keys, and each grid's level numbers: columns (level b of the column component) above
  // the first grid row, rows (level a of the row component) left of the first grid column.
  const heads = [
    ...keys
      .slice(1)
      .map((k, jj) => svg`<text class="hm-head" x=${colX[jj + 1] + (levels[jj + 1] * cell) / 2} y=${12} text-anchor="middle">${k}</text>`),
    ...keys
      .slice(0, -1)
      .map((k, i) => svg`<text class="hm-head" x=${10} y=${rowY[i] + (levels[i] * cell) / 2 + 4} text-anchor="middle">${k}</text>`),
    ...keys
      .slice(1)
      .flatMap((_k, jj) =>
        Array.from(
          { length: levels[jj + 1] },
          (_, b) => svg`<text class="hm-level" x=${colX[jj + 1] + b * cell + (cell - 1) / 2} y=${26} text-anchor="middle">${b}</text>`,
        ),
      ),
    ...keys
      .slice(0, -1)
      .flatMap((_k, i) =>
        Array.from(
          { length: levels[i] },
          (_, a) => svg`<text class="hm-level" x=${colX[1] - 5} y=${rowY[i] + a * cell + cell / 2 + 3} text-anchor="end">${a}</text>`,
        ),
      ),
  ];
  return html`<svg class="heatmap" role="img" aria-label=${label} viewBox="0 0 ${width} ${height}" width=${width * 1.5} height=${height * 1.5}>
    ${heads}${grids}
  </svg>
  <p class="heatmap-key"><span>0</span><span class="ramp" aria-hidden="true"><span class="ramp-mid"></span></span><span>2× expected</span>
    <span class="desc">— mid-blue (the mark) = the expected count N / (sᵢ·sⱼ) of a balanced design; small digits = levels</span></p>`;
}

/**
 * `<hl-curve-chart>`: per-step training curves drawn by uPlot, one line per run. Set `spec`;
 * the chart redraws and follows its width. Runs may cover different steps: uPlot wants one
 * aligned x array, so x is the union of steps and a run is null (a gap) where it has no point.
 * The canvas is a picture; its aria-label states the last value of every run, and the Results
 * view's tables carry the numbers.
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { drawNoData, metricAxisSize, metricTicks, metricYRange, STEP_INCRS, UPlotElement } from '../line_chart';

interface CurveSeries {
  label: string;
  color: string;
  /** [step, value] pairs; null/non-finite values are gaps. */
  points: readonly (readonly [number, number | null])[];
}

export interface CurveChartSpec {
  title: string;
  yLabel: string;
  series: readonly CurveSeries[];
  height?: number;
  /**
   * Steps at which this metric was not measured in any run (no update applied: loss, KL, clip
   * fraction and gradient norm do not exist there). Shaded as in the Train view; lines are not
   * drawn across gaps of a chart that has them.
   */
  noData?: readonly number[];
  /** Exponential moving average weight in [0, 1) applied to every series (0 = raw values). */
  smoothing?: number;
  /** Never smoothed (a few sparse points, e.g. the validation curve): the views' smoothing control leaves it raw. */
  raw?: boolean;
}

/**
 * Exponential moving average of a series (TensorBoard-style, debiased: the first points are
 * not pulled toward 0): s_t = w·s_{t−1} + (1 − w)·x_t over the finite values, gaps kept.
 */
function smoothPoints(points: readonly (readonly [number, number | null])[], w: number): [number, number | null][] {
  if (!(w > 0)) return points.map(([x, v]) => [x, v]);
  let acc = 0;
  let n = 0;
  return points.map(([x, v]) => {
    if (v === null || !Number.isFinite(v)) return [x, null];
    acc = w * acc + (1 - w) * v;
    n++;
    return [x, acc / (1 - w ** n)];
  });
}

/** Union of x values and one y array per series aligned to it (null where a series has none). */
function alignCurves(series: readonly CurveSeries[]): uPlot.AlignedData {
  const xs = [...new Set(series.flatMap((s) => s.points.map(([x]) => x)))].sort((a, b) => a - b);
  const at = new Map(xs.map((x, i) => [x, i]));
  const ys = series.map((s) => {
    const y: (number | null)[] = new Array(xs.length).fill(null);
    for (const [x, v] of s.points) y[at.get(x)!] = v !== null && Number.isFinite(v) ? v : null;
    return y;
  });
  return [xs, ...ys];
}

export class CurveChart extends UPlotElement<CurveChartSpec> {
  protected override describe(raw: CurveChartSpec): string {
    // What is drawn: the smoothed values when smoothing is on.
    const spec = raw.smoothing ? { ...raw, series: raw.series.map((s) => ({ ...s, points: smoothPoints(s.points, raw.smoothing!) })) } : raw;
    this.dataset.smoothing = String(raw.smoothing ?? 0);
    const n = spec.series.reduce((a, s) => a + s.points.filter(([, v]) => v !== null && Number.isFinite(v)).length, 0);
    this.dataset.points = String(n);
    if (spec.noData?.length) this.dataset.noData = spec.noData.join(',');
    else delete this.dataset.noData;
    return (
      `${spec.title} per RL step: ` +
      spec.series
        .map((s) => {
          const last = [...s.points].reverse().find(([, v]) => v !== null && Number.isFinite(v));
          return `${s.label}: ${last ? `${last[1]!.toPrecision(3)} at step ${last[0]}` : 'no data'}`;
        })
        .join('; ')
    );
  }

  /** The chart's canvas (for the PNG export), or null before the first draw. */
  get canvas(): HTMLCanvasElement | null {
    return this.querySelector('canvas');
  }

  protected override draw(): void {
    const spec = this.current!;
    this.plot?.destroy();
    const opts: uPlot.Options = {
      title: spec.title,
      width: Math.max(240, this.clientWidth || 380),
      height: spec.height ?? 190,
      // Hover: the legend under the chart shows the step and every run's value under the cursor.
      legend: { show: true, live: true },
      // Zoom: drag across the plot to zoom into those steps; double-click to zoom out.
      cursor: { drag: { x: true, y: false } },
      scales: { x: { time: false }, y: { range: metricYRange } },
      axes: [
        { label: 'RL step', size: 34, labelSize: 16, incrs: STEP_INCRS },
        { label: spec.yLabel, size: metricAxisSize, labelSize: 16, values: metricTicks },
      ],
      series: [{ label: 'RL step' }, ...spec.series.map((s) => ({ label: s.label, stroke: s.color, width: 1.6, spanGaps: spec.noData === undefined, points: { size: 4 } }))],
      hooks: { draw: [(u: uPlot) => drawNoData(u, this.current?.noData ?? [])] },
    };
    const series = spec.smoothing ? spec.series.map((s) => ({ ...s, points: smoothPoints(s.points, spec.smoothing!) })) : spec.series;
    this.plot = new uPlot(opts, alignCurves(series), this);
  }
}

if (!customElements.get('hl-curve-chart')) customElements.define('hl-curve-chart', CurveChart);

declare global {
  interface HTMLElementTagNameMap {
    'hl-curve-chart': CurveChart;
  }
}

/**
 * `<hl-curve-chart>`: per-step training curves drawn by uPlot, one line per run. Set `spec`;
 * the chart redraws and follows its width. Runs may cover different steps: uPlot wants one
 * aligned x array, so x is the union of steps and a run is null (a gap) where it has no point.
 * The canvas is a picture; its aria-label states the last value of every run, and the Results
 * view's tables carry the numbers.
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { metricAxisSize, metricTicks, metricYRange } from '../line_chart';

export interface CurveSeries {
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
}

/** Union of x values and one y array per series aligned to it (null where a series has none). */
export function alignCurves(series: readonly CurveSeries[]): uPlot.AlignedData {
  const xs = [...new Set(series.flatMap((s) => s.points.map(([x]) => x)))].sort((a, b) => a - b);
  const at = new Map(xs.map((x, i) => [x, i]));
  const ys = series.map((s) => {
    const y: (number | null)[] = new Array(xs.length).fill(null);
    for (const [x, v] of s.points) y[at.get(x)!] = v !== null && Number.isFinite(v) ? v : null;
    return y;
  });
  return [xs, ...ys];
}

export class CurveChart extends HTMLElement {
  private plot: uPlot | null = null;
  private current: CurveChartSpec | null = null;
  private resize: ResizeObserver | null = null;

  set spec(spec: CurveChartSpec) {
    // lit-html re-sets the property on every render: keep the chart when nothing changed.
    if (this.current && JSON.stringify(this.current) === JSON.stringify(spec)) return;
    this.current = spec;
    const n = spec.series.reduce((a, s) => a + s.points.filter(([, v]) => v !== null && Number.isFinite(v)).length, 0);
    this.dataset.points = String(n);
    this.setAttribute('role', 'img');
    this.setAttribute(
      'aria-label',
      `${spec.title} per RL step: ` +
        spec.series
          .map((s) => {
            const last = [...s.points].reverse().find(([, v]) => v !== null && Number.isFinite(v));
            return `${s.label}: ${last ? `${last[1]!.toPrecision(3)} at step ${last[0]}` : 'no data'}`;
          })
          .join('; '),
    );
    if (this.isConnected) this.draw();
  }

  get spec(): CurveChartSpec | null {
    return this.current;
  }

  /** The chart's canvas (for the PNG export), or null before the first draw. */
  get canvas(): HTMLCanvasElement | null {
    return this.querySelector('canvas');
  }

  connectedCallback(): void {
    if (this.current) this.draw();
    this.resize = new ResizeObserver(() => {
      if (this.plot && this.clientWidth > 0 && Math.abs(this.plot.width - this.clientWidth) > 2) this.plot.setSize({ width: this.clientWidth, height: this.plot.height });
    });
    this.resize.observe(this);
  }

  disconnectedCallback(): void {
    this.resize?.disconnect();
    this.plot?.destroy();
    this.plot = null;
  }

  private draw(): void {
    const spec = this.current!;
    this.plot?.destroy();
    const opts: uPlot.Options = {
      title: spec.title,
      width: Math.max(240, this.clientWidth || 380),
      height: spec.height ?? 190,
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: false }, y: { range: metricYRange } },
      // Steps are integers: ticks at 1, 2, 5, 10, … only.
      axes: [{ label: 'RL step', size: 34, labelSize: 16, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000] }, { label: spec.yLabel, size: metricAxisSize, labelSize: 16, values: metricTicks }],
      series: [{}, ...spec.series.map((s) => ({ label: s.label, stroke: s.color, width: 1.6, spanGaps: true, points: { size: 4 } }))],
    };
    this.plot = new uPlot(opts, alignCurves(spec.series), this);
  }
}

if (!customElements.get('hl-curve-chart')) customElements.define('hl-curve-chart', CurveChart);

declare global {
  interface HTMLElementTagNameMap {
    'hl-curve-chart': CurveChart;
  }
}

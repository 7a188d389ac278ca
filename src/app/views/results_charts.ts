/**
 * `<hl-curve-chart>`: per-step training curves drawn by uPlot, one line per run. Set `spec`;
 * the chart redraws and follows its width. Runs given a `group` (their method) are drawn thin
 * and faint in the group's colour, with one thick line per group, the mean over its runs
 * (curve_groups.ts), and the hover legend names only those means. Runs may cover different steps: uPlot wants one
 * aligned x array, so x is the union of steps and a run is null (a gap) where it has no point.
 * The canvas is a picture; its aria-label states the last value of every run, and the Results
 * view's tables carry the numbers.
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { drawNoData, metricAxisSize, metricTicks, metricYRange, STEP_INCRS, UPlotElement } from '../line_chart';
import { groupMeans, withAlpha } from '../curve_groups';

interface CurveSeries {
  label: string;
  color: string;
  /** The run's group (its method): a chart whose series have groups draws each group's mean and names only the means in its legend. */
  group?: string;
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
    const spec = raw.smoothing
      ? { ...raw, series: raw.series.map((s) => ({ ...s, points: smoothPoints(s.points, raw.smoothing!) })) }
      : raw;
    this.dataset.smoothing = String(raw.smoothing ?? 0);
    const n = spec.series.reduce((a, s) => a + s.points.filter(([, v]) => v !== null && Number.isFinite(v)).length, 0);
    this.dataset.points = String(n);
    if (spec.noData?.length) this.dataset.noData = spec.noData.join(',');
    else delete this.dataset.noData;
    const means = meansOf(spec.series);
    this.dataset.groups = String(means.length);
    const last = (label: string, points: CurveSeries['points']) => {
      const at = [...points].reverse().find(([, v]) => v !== null && Number.isFinite(v));
      return `${label}: ${at ? `${at[1]!.toPrecision(3)} at step ${at[0]}` : 'no data'}`;
    };
    return `${spec.title} per RL step: ${[...means.map((m) => last(meanLabel(m), m.points)), ...spec.series.map((s) => last(s.label, s.points))].join('; ')}`;
  }

  /** The chart's canvas (for the PNG export), or null before the first draw. */
  get canvas(): HTMLCanvasElement | null {
    return this.querySelector('canvas');
  }

  protected override draw(): void {
    const spec = this.current!;
    this.plot?.destroy();
    const runs = spec.smoothing ? spec.series.map((s) => ({ ...s, points: smoothPoints(s.points, spec.smoothing!) })) : spec.series;
    const means = meansOf(runs);
    const grouped = means.length > 0;
    const spanGaps = spec.noData === undefined;
    const opts: uPlot.Options = {
      title: spec.title,
      width: Math.max(240, this.clientWidth || 380),
      height: spec.height ?? 190,
      // Hover: the legend under the chart shows the step and every run's value under the cursor
      // (grouped runs: every group's mean; the runs' rows are hidden, results.css).
      legend: { show: true, live: true },
      // Zoom: drag across the plot to zoom into those steps; double-click to zoom out.
      cursor: { drag: { x: true, y: false } },
      scales: { x: { time: false }, y: { range: metricYRange } },
      axes: [
        { label: 'RL step', size: 34, labelSize: 16, incrs: STEP_INCRS },
        { label: spec.yLabel, size: metricAxisSize, labelSize: 16, values: metricTicks },
      ],
      series: [
        { label: 'RL step' },
        ...runs.map((s) =>
          grouped
            ? { label: s.label, class: GROUPED_RUN, stroke: withAlpha(s.color, 0.35), width: 1, spanGaps, points: { show: false } }
            : { label: s.label, stroke: s.color, width: 1.6, spanGaps, points: { size: 4 } },
        ),
        ...means.map((m) => ({ label: meanLabel(m), stroke: m.color, width: 2.6, spanGaps, points: { size: 4 } })),
      ],
      hooks: { draw: [(u: uPlot) => drawNoData(u, this.current?.noData ?? [])] },
    };
    this.plot = new uPlot(
      opts,
      alignCurves([...runs, ...means.map((m) => ({ label: meanLabel(m), color: m.color, points: m.points }))]),
      this,
    );
  }
}

/** Class of a grouped run's series: its legend row and hover point are hidden (results.css); its group's mean stands for it. */
const GROUPED_RUN = 'hl-grouped-run';

/** The mean curve of each group of `series` (none when no series has a group), in its first run's colour. */
function meansOf(series: readonly CurveSeries[]): (ReturnType<typeof groupMeans>[number] & { color: string })[] {
  if (!series.some((s) => s.group !== undefined)) return [];
  const colors = new Map<string, string>();
  for (const s of series) if (!colors.has(s.group ?? s.label)) colors.set(s.group ?? s.label, s.color);
  return groupMeans(series.map((s) => ({ group: s.group ?? s.label, points: s.points }))).map((m) => ({
    ...m,
    color: colors.get(m.group)!,
  }));
}

/** A group mean's legend label: 'harness scaling · mean of 10 runs'. */
const meanLabel = (m: { group: string; runs: number }): string => `${m.group} · mean of ${m.runs} run${m.runs === 1 ? '' : 's'}`;

if (!customElements.get('hl-curve-chart')) customElements.define('hl-curve-chart', CurveChart);

declare global {
  interface HTMLElementTagNameMap {
    'hl-curve-chart': CurveChart;
  }
}

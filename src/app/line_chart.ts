/**
 * `<hl-line-chart>`: a live line chart (metric per RL step) drawn by uPlot. Set its `spec`
 * property; when only the data changed (same series) the chart calls uPlot's `setData`
 * (cheap: no DOM rebuilt), otherwise it is recreated — so give it its final series up front.
 * It follows its width. Drawing happens in a task of its own (a 0 ms timer) rather than in the
 * caller's: creating a uPlot costs 30–50 ms on a software canvas, and eight charts updated by
 * one render must not add up to one long main-thread task. The canvas is a
 * picture: the element's `aria-label` states each series' last value, and `data-points` the
 * number of x values (tests read it).
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { dashesByColor } from './curve_groups';

interface LineSeries {
  label: string;
  /** CSS colour. */
  color: string;
  /** One value per x; null = no value at that x (a gap, drawn across). */
  values: readonly (number | null)[];
}

export interface LineChartSpec {
  /** Increasing x values (e.g. RL steps). */
  x: readonly number[];
  series: readonly LineSeries[];
  xLabel: string;
  yLabel: string;
  /** Pixel height of the plot (default 160). */
  height?: number;
  /** Fixed x range [min, max] (e.g. steps 0 … the run's last), so a curve grows across its final axis; default: the data's. */
  xRange?: readonly [number, number];
  /**
   * x values at which nothing was measured for this metric (an RL step that applied no update:
   * its loss, KL, clip fraction and gradient norm do not exist). Drawn as a shaded band with a
   * dashed line; the series' values there should be null, and lines are not drawn across them
   * (a gap, not a zero).
   */
  noData?: readonly number[];
}

const fmt = (v: number | null | undefined) =>
  v === null || v === undefined || !Number.isFinite(v) ? '–' : Math.abs(v) >= 100 ? v.toFixed(0) : v.toPrecision(3);

/**
 * y range of a metric chart for uPlot's `scales.y.range`: uPlot pads a constant series to ±100 %
 * of a magnitude (0..100 for an all-zero reward), so a metric that is constant so far (KL, clip
 * fraction, reward at the first steps) gets [0, 1] when it is 0 and ±10 % otherwise.
 */
export function metricYRange(_u: uPlot, min: number, max: number): uPlot.Range.MinMax {
  if (min === max) return min === 0 ? [0, 1] : [min - Math.abs(min) * 0.1, max + Math.abs(max) * 0.1];
  return uPlot.rangeNum(min, max, 0.1, true);
}

/**
 * Width in px of a y axis's tick-label area (uPlot `axes[i].size`, the axis label not included):
 * the tick, its gap and the longest tick label as the canvas draws it (measured in the axis's
 * font), so no tick label ("30000", "6.9275") runs into the axis label beside it; at least 40 px.
 */
export function metricAxisSize(u: uPlot, values: string[] | null, axisIdx: number): number {
  const axis = u.axes[axisIdx];
  const tick = axis?.ticks?.show === false ? 0 : (axis?.ticks?.size ?? 10);
  const gap = axis?.gap ?? 5;
  // After uPlot's init the font is [font scaled to device pixels, its px size, its CSS px size].
  const font = axis?.font as unknown as string | [string, number, number] | undefined;
  let text = 0;
  if (values?.length) {
    const ctx = u.ctx;
    ctx.save();
    ctx.font = Array.isArray(font) ? font[0] : (font ?? '12px sans-serif');
    const scale = Array.isArray(font) && font[1] > 0 ? font[2] / font[1] : 1;
    text = Math.max(...values.map((v) => ctx.measureText(v).width)) * scale;
    ctx.restore();
  }
  // 3 px more: the axis label's descent ('/', 'g') reaches past its baseline toward the ticks.
  return Math.max(40, Math.ceil(tick + gap + text + 3));
}

/**
 * Tick labels of a y axis with one number of decimals for the whole axis, the fewest that show
 * the tick increment exactly ("0.0 0.5 1.0", "0.25 0.50", "675 700"), not toPrecision per tick
 * ("0.00 0.500 1.00"); an axis whose ticks are all below 1e-3 (a KL of 1e-6) is in exponent form.
 * For uPlot's `axes[i].values`: (self, splits, axisIdx, foundSpace, foundIncr).
 */
export function metricTicks(_u: uPlot, splits: number[], _axis: number, _space: number, incr: number): string[] {
  if (!(incr > 0) || !Number.isFinite(incr)) return splits.map((v) => fmt(v));
  const [mant, exp] = incr.toExponential().split('e');
  const mantDecimals = mant!.split('.')[1]?.replace(/0+$/, '').length ?? 0;
  const decimals = Math.max(0, mantDecimals - Number(exp));
  // Exponent form only when every tick is tiny: an entropy of 6.9275 stepped by 5e-4 stays fixed.
  const largest = Math.max(0, ...splits.map((v) => Math.abs(v)));
  if (largest > 0 && largest < 1e-3) return splits.map((v) => (v === 0 ? '0' : v.toExponential(Math.min(3, mantDecimals + 1))));
  return splits.map((v) => v.toFixed(Math.min(decimals, 6)));
}

/** Tick increments of an RL-step x axis (uPlot `axes[0].incrs`): steps are integers, so no tick at 1.5. */
export const STEP_INCRS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000];

/**
 * What every uPlot chart element of the app shares: the `spec` property (role="img" and an
 * `aria-label` from `describe`, since the canvas is a picture), drawing when connected, following
 * the element's width, and freeing the plot when removed. A subclass builds its uPlot in `draw`
 * (into `this.plot`, from `this.current`).
 * @typeParam S the chart's spec (JSON-serialisable: equal specs are compared by JSON).
 */
export abstract class UPlotElement<S> extends HTMLElement {
  protected plot: uPlot | null = null;
  protected current: S | null = null;
  private resize: ResizeObserver | null = null;
  /**
   * Setting a spec JSON-equal to the current one keeps the chart (lit-html re-sets properties
   * on every render). A chart whose `draw` is cheap for unchanged data may turn this off.
   */
  protected readonly keepSameSpec: boolean = true;

  set spec(spec: S) {
    if (this.keepSameSpec && this.current && JSON.stringify(this.current) === JSON.stringify(spec)) return;
    this.current = spec;
    this.setAttribute('role', 'img');
    this.setAttribute('aria-label', this.describe(spec));
    if (this.isConnected) this.redraw();
  }

  get spec(): S | null {
    return this.current;
  }

  /** The `aria-label` for a spec (may also set data attributes that tests read). */
  protected abstract describe(spec: S): string;

  /** Build the plot from `this.current` (non-null when called). */
  protected abstract draw(): void;

  /** Draw now; a subclass may defer it. */
  protected redraw(): void {
    this.draw();
  }

  connectedCallback(): void {
    // A spec set before this element's class was defined (its module loads after the view's
    // first paint) is an own property hiding the setter: hand it over.
    if (Object.hasOwn(this, 'spec')) {
      const early = (this as { spec?: S }).spec;
      delete (this as { spec?: S }).spec;
      if (early) this.spec = early;
    } else if (this.current) this.redraw();
    this.resize = new ResizeObserver(() => {
      if (this.plot && this.clientWidth > 0 && Math.abs(this.plot.width - this.clientWidth) > 2) {
        this.plot.setSize({ width: this.clientWidth, height: this.plot.height });
      }
    });
    this.resize.observe(this);
  }

  disconnectedCallback(): void {
    this.resize?.disconnect();
    this.plot?.destroy();
    this.plot = null;
  }
}

class LineChart extends UPlotElement<LineChartSpec> {
  private shape = '';
  private pending = false;
  // draw() only calls setData when the series are the same, so every spec is taken.
  protected override readonly keepSameSpec = false;

  protected override describe(spec: LineChartSpec): string {
    this.dataset.points = String(spec.x.length);
    if (spec.noData) this.dataset.noData = spec.noData.join(',');
    else delete this.dataset.noData;
    // Every step so far without a value: the chart says why it is empty (CSS).
    if (spec.noData?.length && spec.series.every((s) => s.values.every((v) => v === null))) this.dataset.allNoData = 'true';
    else delete this.dataset.allNoData;
    return (
      `${spec.yLabel} by ${spec.xLabel}: ` +
      (spec.x.length
        ? spec.series.map((s) => `${s.label} ${fmt(lastValue(s.values))}`).join('; ') + ` at ${spec.xLabel} ${spec.x[spec.x.length - 1]}`
        : 'no data yet')
    );
  }

  protected override redraw(): void {
    if (this.pending) return;
    this.pending = true;
    setTimeout(() => {
      this.pending = false;
      if (this.isConnected && this.current) this.draw();
    }, 0);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.shape = '';
  }

  protected override draw(): void {
    const spec = this.current!;
    const data: uPlot.AlignedData = [
      Float64Array.from(spec.x),
      ...spec.series.map((s) => s.values.map((v) => (v === null || !Number.isFinite(v) ? null : v))),
    ];
    const shape = JSON.stringify([
      spec.xLabel,
      spec.yLabel,
      spec.height,
      spec.xRange,
      spec.noData !== undefined,
      spec.series.map((s) => [s.label, s.color]),
    ]);
    if (this.plot && shape === this.shape) {
      this.plot.setData(data);
      return;
    }
    this.plot?.destroy();
    this.shape = shape;
    // More series than colours (20 runs, 8 colours): a colour's later series are dashed, then dotted, in the legend too.
    const dashes = dashesByColor(spec.series.map((s) => s.color));
    const opts: uPlot.Options = {
      width: Math.max(200, this.clientWidth || 360),
      height: spec.height ?? 160,
      // Hover: the legend shows the step and every series' value under the cursor.
      legend: { show: true, live: true, markers: { dash: (_u: uPlot, i: number) => dashes[i - 1]?.border ?? 'solid' } },
      cursor: { drag: { x: false, y: false } },
      scales: {
        x: spec.xRange ? { time: false, range: [spec.xRange[0], spec.xRange[1]] } : { time: false },
        y: { range: metricYRange },
      },
      axes: [
        { label: spec.xLabel, labelSize: 18, size: 32, incrs: STEP_INCRS },
        { label: spec.yLabel, labelSize: 18, size: metricAxisSize, values: metricTicks },
      ],
      series: [
        { label: spec.xLabel },
        ...spec.series.map((s, i) => ({
          label: s.label,
          stroke: s.color,
          ...(dashes[i].dash ? { dash: dashes[i].dash } : {}),
          width: 2,
          spanGaps: spec.noData === undefined,
          points: { show: true, size: 5 },
          value: (_u: uPlot, v: number | null) => fmt(v),
        })),
      ],
      hooks: { draw: [(u: uPlot) => drawNoData(u, (this.current as LineChartSpec | null)?.noData ?? [])] },
    };
    this.plot = new uPlot(opts, data, this);
  }
}

/** Shade the x positions of `xs` over the plot area (no value measured there), with a dashed centre line (uPlot draw hook). */
export function drawNoData(u: uPlot, xs: readonly number[]): void {
  if (!xs.length) return;
  const { ctx } = u;
  const { top, height, left, width } = u.bbox;
  const px = (x: number) => u.valToPos(x, 'x', true);
  const data = u.data[0];
  const step = data.length > 1 ? Math.abs(px(data[1]) - px(data[0])) : width / 4;
  const band = Math.max(4 * devicePixelRatio, Math.min(step * 0.5, 14 * devicePixelRatio));
  ctx.save();
  for (const x of xs) {
    const c = px(x);
    if (c < left - 1 || c > left + width + 1) continue;
    ctx.fillStyle = 'rgba(180, 35, 24, 0.10)';
    ctx.fillRect(c - band / 2, top, band, height);
    ctx.strokeStyle = 'rgba(180, 35, 24, 0.55)';
    ctx.setLineDash([4 * devicePixelRatio, 3 * devicePixelRatio]);
    ctx.lineWidth = devicePixelRatio;
    ctx.beginPath();
    ctx.moveTo(c, top);
    ctx.lineTo(c, top + height);
    ctx.stroke();
  }
  ctx.restore();
}

function lastValue(vs: readonly (number | null)[]): number | null {
  for (let i = vs.length - 1; i >= 0; i--) if (vs[i] !== null) return vs[i];
  return null;
}

if (!customElements.get('hl-line-chart')) customElements.define('hl-line-chart', LineChart);

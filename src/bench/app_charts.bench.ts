/**
 * Page bench entry (run by `hlab bench`, see src/cli/commands/bench.ts): the main-thread cost
 * of the Train view's live charts per RL step (a duration, so it is reported
 * here, never asserted). Training
 * itself runs in the training worker; what the main thread does per step is update its eight
 * `<hl-line-chart>`s (src/app/line_chart.ts, each redraw deferred to its own task). Measured:
 * for step s = 1 … S, set every chart's spec to s points of 2 series and wait until every
 * deferred draw ran; per step the wall-clock ms (median, max) and the longest single task
 * (PerformanceObserver 'longtask', ≥ 50 ms by definition; 0 when none). Returns plain JSON.
 */
import '../app/line_chart';
import type { LineChartSpec } from '../app/line_chart';

export interface ChartsBench {
  charts: number;
  steps: number;
  /** Per step: set all specs → all draws done, ms. */
  stepMs: { median: number; max: number; last: number };
  /** Longest main-thread task seen during the measurement, ms (0: none ≥ 50 ms). */
  longestTaskMs: number;
  longTasks: number;
}

const nextTask = () => new Promise<void>((r) => setTimeout(r, 0));

/** @param opts.quick 60 steps instead of 300 */
export async function bench(opts: { quick?: boolean } = {}): Promise<ChartsBench> {
  const charts = 8;
  const steps = opts.quick ? 60 : 300;
  const host = document.createElement('div');
  host.style.width = '640px';
  document.body.append(host);
  const els = Array.from({ length: charts }, () => {
    const el = document.createElement('hl-line-chart') as HTMLElement & { spec: LineChartSpec };
    host.append(el);
    return el;
  });
  const long: number[] = [];
  const obs = new PerformanceObserver((l) => {
    for (const e of l.getEntries()) long.push(e.duration);
  });
  try {
    obs.observe({ type: 'longtask' });
  } catch {
    /* longtask unsupported: reported as 0 */
  }
  const ms: number[] = [];
  const x: number[] = [];
  const a: number[] = [];
  const b: number[] = [];
  for (let s = 1; s <= steps; s++) {
    x.push(s);
    a.push(Math.sin(s / 7));
    b.push(Math.cos(s / 11));
    const t0 = performance.now();
    for (const [i, el] of els.entries()) {
      el.spec = {
        x: [...x],
        series: [
          { label: `metric ${i}`, color: '#2f6db5', values: [...a] },
          { label: 'mean', color: '#d9822b', values: [...b] },
        ],
        xLabel: 'RL step',
        yLabel: `metric ${i}`,
      };
    }
    await nextTask(); // every chart's deferred draw was queued before this task
    ms.push(performance.now() - t0);
  }
  obs.disconnect();
  host.remove();
  const sorted = [...ms].sort((p, q) => p - q);
  const r2 = (v: number) => Math.round(v * 100) / 100;
  return {
    charts,
    steps,
    stepMs: { median: r2(sorted[Math.floor(sorted.length / 2)]), max: r2(sorted[sorted.length - 1]), last: r2(ms[ms.length - 1]) },
    longestTaskMs: r2(Math.max(0, ...long)),
    longTasks: long.length,
  };
}

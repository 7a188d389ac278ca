/**
 * The charts a class reads (src/app/line_chart.ts, views/results_charts.ts, curve_groups.ts), in
 * real Chromium: a y axis's tick labels fit the room beside its axis label (the Sampling
 * throughput chart's "30000" ran into "tokens/s"); 20 runs of 2 methods in a curve chart are
 * named in the hover legend as 2 method means, not 20 runs in 8 colours; 20 series of a live
 * chart in 8 colours differ by dash pattern, on the canvas and in the legend's markers.
 */
import { test, expect, type Locator, type Page } from '@playwright/test';

const errors: string[] = [];

test.afterEach(() => {
  expect(errors.splice(0), 'page errors').toEqual([]);
});

async function openTrain(page: Page): Promise<void> {
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  await page.goto('/#/train');
  await expect(page.locator('#chart-tokens canvas').first()).toBeVisible();
}

/**
 * A `<hl-line-chart>` of its own at the top of the page (not one the Train view renders, which a
 * redraw of the view would hand its own spec), `width` px wide.
 */
async function ownLineChart(page: Page, width = 380): Promise<Locator> {
  await page.evaluate((w) => {
    const el = document.createElement('hl-line-chart');
    el.id = 'test-line-chart';
    el.style.display = 'block';
    el.style.width = `${w}px`;
    document.querySelector('#view-root')!.prepend(el);
  }, width);
  return page.locator('#test-line-chart');
}

/** A y axis's room for tick labels (its size less tick and gap) and its widest tick label as drawn, px (uPlot's laid-out axis). */
function yAxisFit(chart: Locator): Promise<{ room: number; text: number; values: string[] }> {
  return chart.evaluate((el) => {
    type Axis = { _size: number; _values: string[]; gap: number; ticks: { size: number }; font: [string, number, number] };
    const u = (el as unknown as { plot: { axes: Axis[]; ctx: CanvasRenderingContext2D } }).plot;
    const ax = u.axes[1];
    u.ctx.save();
    u.ctx.font = ax.font[0];
    const text = Math.max(...ax._values.map((v) => u.ctx.measureText(v).width)) * (ax.font[2] / ax.font[1]);
    u.ctx.restore();
    return { room: ax._size - ax.ticks.size - ax.gap, text, values: ax._values };
  });
}

test('the Sampling throughput axis: wide tick labels keep clear of the axis label (Train and Results charts)', async ({ page }) => {
  await openTrain(page);
  const chart = await ownLineChart(page);
  for (const values of [
    [812.4, 1033.7, 1250.2, 1498.9],
    [21034.5, 25000.1, 31000.7],
    [6.9275, 6.9271, 6.9268],
  ]) {
    await chart.evaluate((el, v) => {
      (el as unknown as { spec: unknown }).spec = {
        x: v.map((_, i) => i + 1),
        xLabel: 'RL step',
        yLabel: 'tokens/s',
        series: [{ label: 'run', color: '#2f6db5', values: v }],
      };
    }, values);
    await expect(chart).toHaveAttribute('data-points', String(values.length));
    await expect.poll(async () => (await yAxisFit(chart)).values.length).toBeGreaterThan(1);
    const fit = await yAxisFit(chart);
    expect(fit.text, `${fit.values.join(' ')}: ${fit.text.toFixed(1)} px of labels in ${fit.room} px`).toBeLessThanOrEqual(fit.room);
  }
  // The Results view's curve chart shares the axis size (line_chart.ts metricAxisSize).
  await page.evaluate(() => import(/* @vite-ignore */ '/src/app/views/results_charts.ts'.toString()));
  const curve = await page.evaluateHandle(() => {
    const el = document.createElement('hl-curve-chart');
    el.style.display = 'block';
    el.style.width = '380px';
    document.querySelector('#view-root')!.prepend(el);
    (el as unknown as { spec: unknown }).spec = {
      title: 'Sampling throughput',
      yLabel: 'tokens/s',
      series: [
        {
          label: 'run',
          color: '#2f6db5',
          points: [
            [1, 21034.5],
            [2, 31000.7],
          ],
        },
      ],
    };
    return el;
  });
  const curveChart = page.locator('#view-root > hl-curve-chart');
  await expect(curveChart.locator('canvas').first()).toBeVisible();
  const fit = await yAxisFit(curveChart);
  expect(fit.text, fit.values.join(' ')).toBeLessThanOrEqual(fit.room);
  await curve.dispose();
});

test('20 runs of 2 methods in a curve chart: the hover legend names the 2 method means, each drawn over its 10 runs', async ({ page }) => {
  await openTrain(page);
  await page.evaluate(() => import(/* @vite-ignore */ '/src/app/views/results_charts.ts'.toString()));
  await page.evaluate(() => {
    const el = document.createElement('hl-curve-chart');
    el.style.display = 'block';
    el.style.width = '420px';
    document.querySelector('#view-root')!.prepend(el);
    const colors: Record<string, string> = { 'single harness': '#2f6db5', 'harness scaling': '#d9822b' };
    const series = Array.from({ length: 20 }, (_, i) => {
      const method = i < 10 ? 'single harness' : 'harness scaling';
      const seed = i % 10;
      return {
        label: `${method} · seed ${seed}`,
        group: method,
        color: colors[method],
        points: [1, 2, 3].map((s) => [s, (i < 10 ? 0.2 : 0.5) + seed / 100 + s / 10]),
      };
    });
    (el as unknown as { spec: unknown }).spec = { title: 'Reward', yLabel: 'reward', series };
  });
  const chart = page.locator('#view-root > hl-curve-chart');
  await expect(chart.locator('canvas').first()).toBeVisible();
  await expect(chart).toHaveAttribute('data-groups', '2');
  await expect(chart).toHaveAttribute('data-points', '60');
  // The legend a reader sees: the x value and one row per method's mean.
  const rows = chart.locator('.u-legend tr.u-series:visible');
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(1).locator('.u-label')).toHaveText('single harness · mean of 10 runs');
  await expect(rows.nth(2).locator('.u-label')).toHaveText('harness scaling · mean of 10 runs');
  // Hover: the means' values at the step under the cursor (step 3: 0.2 + mean seed 0.045 + 0.3).
  const over = chart.locator('.u-over');
  const box = (await over.boundingBox())!;
  await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2);
  await expect(rows.nth(0).locator('.u-value')).toHaveText('3');
  expect(Number(await rows.nth(1).locator('.u-value').textContent())).toBeCloseTo(0.545, 3);
  expect(Number(await rows.nth(2).locator('.u-value').textContent())).toBeCloseTo(0.845, 3);
  // Every run is still in the chart's text alternative.
  await expect(chart).toHaveAttribute(
    'aria-label',
    /single harness · mean of 10 runs: 0\.545 at step 3; .*harness scaling · seed 9: 0\.890 at step 3$/,
  );
});

test('20 runs in 8 colours in a live chart: a colour used again is dashed, then dotted, in the legend too', async ({ page }) => {
  await openTrain(page);
  const chart = await ownLineChart(page, 600);
  await chart.evaluate((el) => {
    const palette = ['#2f6db5', '#d9822b', '#1a7f37', '#b42318', '#7048e8', '#0b7285', '#a61e4d', '#5c940d'];
    const series = Array.from({ length: 20 }, (_, i) => ({ label: `run ${i + 1}`, color: palette[i % 8], values: [i, i + 1] }));
    (el as unknown as { spec: unknown }).spec = { x: [1, 2], xLabel: 'RL step', yLabel: 'tokens/s', series };
  });
  const markers = chart.locator('.u-legend tr.u-series .u-marker');
  await expect(markers).toHaveCount(21);
  const looks = await markers.evaluateAll((ms) =>
    ms.slice(1).map((m) => `${getComputedStyle(m).borderTopColor} ${getComputedStyle(m).borderTopStyle}`),
  );
  expect(new Set(looks).size, looks.join('\n')).toBe(20);
  expect(looks.filter((l) => l.endsWith('dashed'))).toHaveLength(8);
  expect(looks.filter((l) => l.endsWith('dotted'))).toHaveLength(4);
  const dashes = await chart.evaluate((el) =>
    (el as unknown as { plot: { series: { dash?: number[] }[] } }).plot.series.slice(1).map((s) => (s.dash ?? []).length),
  );
  expect(dashes.filter((d) => d > 0)).toHaveLength(12);
});

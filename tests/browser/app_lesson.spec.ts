/**
 * The lesson (docs/APP.md "The lesson"), end to end in real Chromium: a cold load of
 * `#/train` opens the app's default preset, the lesson, unmodified; Start trains it on the
 * engine the app picks (here SwiftShader, so the CPU engine) to the end. Checked: the
 * validation chart gets its step-0 point while the run goes on and ends with a point at the
 * last RL step (at least two points, every one measured); the results table shows the base
 * harness, held-out in-space configurations and the training harnesses before → after as numbers;
 * no page errors. Whether the curve rises is a measurement (docs/APP.md), not asserted here.
 *
 * The lesson takes minutes on a 2-core machine: the timeout is a liveness bound for a full run
 * on a loaded machine, not a speed assertion (speed belongs to `hlab bench`).
 */
import { test, expect } from '@playwright/test';
import type { LineChartSpec } from '../../src/app/line_chart';

/** A whole lesson on a busy 2-core machine, with room to spare (a run of the first-cut lesson took 3.1 min there). */
const LESSON_TIMEOUT_MS = 20 * 60_000;

test('the lesson: cold load of #/train, Start, trained to the end on the CPU engine; the validation curve and the before → after table', async ({
  browser,
}, info) => {
  test.setTimeout(LESSON_TIMEOUT_MS);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  await page.goto('/#/train');
  const editor = page.locator('#train-spec');
  await expect(editor).toHaveValue(/"name": "lesson"/);
  await expect(page.locator('#train-lesson-intro')).toBeVisible();
  const spec = JSON.parse(await editor.inputValue()) as {
    rl: { steps: number };
    evaluation: { validation?: { tasks: number; every: number } };
  };
  const steps = spec.rl.steps;
  expect(steps, 'the lesson has RL steps').toBeGreaterThan(0);
  expect(spec.evaluation.validation?.tasks, 'the lesson measures a validation curve').toBeGreaterThan(0);

  const chart = page.locator('#chart-validation');
  const chartSpec = () => chart.evaluate((el) => (el as unknown as { spec: LineChartSpec | null }).spec);
  // The first chart of the card, empty before Start.
  await expect(page.locator('.train-charts hl-line-chart').first()).toHaveId('chart-validation');
  await expect(chart).toHaveAttribute('data-points', '0');

  await page.locator('#train-start').click();
  await expect(page.locator('#train-phase')).toHaveAttribute('data-phase', 'running');
  // The app's engine choice ('auto') on SwiftShader: the CPU engine.
  await expect(page.getByRole('list', { name: 'Run messages' })).toContainText('engine: CPU engine (WebAssembly SIMD', {
    timeout: 5 * 60_000,
  });
  // Live: the step-0 point (before RL) is drawn while the run is still going.
  await expect(chart).toHaveAttribute('data-points', '1', { timeout: 10 * 60_000 });
  expect((await chartSpec())?.x).toEqual([0]);
  await expect(page.locator('#train-phase')).toHaveAttribute('data-phase', 'running');

  await expect(page.locator('#train-phase')).toHaveAttribute('data-phase', /^(done|failed)$/, { timeout: LESSON_TIMEOUT_MS });
  const failure = page.locator('#train-failure');
  expect((await failure.count()) ? await failure.textContent() : '', 'the run failed').toBe('');

  // The validation curve: step 0 and the last step, every point measured (no gap, no 0 for "missing").
  const drawn = (await chartSpec())!;
  expect(drawn.x.length).toBeGreaterThanOrEqual(2);
  expect(drawn.x[0]).toBe(0);
  expect(drawn.x.at(-1)).toBe(steps);
  await expect(chart).toHaveAttribute('data-points', String(drawn.x.length));
  expect(drawn.series).toHaveLength(1);
  for (const v of drawn.series[0].values) {
    expect(v).not.toBeNull();
    expect(v!).toBeGreaterThanOrEqual(0);
    expect(v!).toBeLessThanOrEqual(1);
  }
  await expect(chart.locator('canvas').first()).toBeVisible();

  // Before → after: base harness, held-out in-space configurations, training harnesses.
  const row = page.locator('#train-results-table tbody tr');
  await expect(row).toHaveCount(1);
  const heads = await page.locator('#train-results-table thead th').allTextContents();
  const cell = (head: RegExp) => row.locator('td').nth(heads.findIndex((h) => head.test(h)));
  const beforeAfter = /^\d+\.\d → \d+\.\d$/;
  await expect(cell(/^pass@1 base/)).toHaveText(beforeAfter);
  await expect(cell(/^in-space/)).toHaveText(beforeAfter);
  await expect(cell(/^training harnesses/)).toHaveText(beforeAfter);
  await expect(page.locator('#train-results-link')).toBeVisible();

  const path = info.outputPath('lesson-done.png');
  await page.screenshot({ path, fullPage: true });
  await info.attach('lesson-done', { path, contentType: 'image/png' });
  expect(errors, 'page errors').toEqual([]);
  await context.close();
});

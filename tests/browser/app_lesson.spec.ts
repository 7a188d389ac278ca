/**
 * The lesson (docs/APP.md "The lesson"), end to end in real Chromium: a cold load of `#/train`
 * opens the app's default preset, the lesson (single harness vs harness scaling, one seed of the
 * map cell where harness scaling pays), unmodified, and says so. The whole lesson takes about half
 * an hour on a 2-core machine (its committed CLI run, docs/results/lesson/), so the run here is
 * the lesson at CI size: the same spec through a merge patch that shrinks steps, tasks and
 * evaluation, nothing else. Start trains it on the engine the app picks (here SwiftShader, so the
 * CPU engine) to the end. Checked: the validation charts on held-out in-space configurations
 * and on the base harness draw both methods, from step 0 (while the run goes on) to the last
 * step; the results table shows both methods before → after as numbers; no page errors.
 *
 * The timeout is a liveness bound on a loaded machine, not a speed assertion (speed belongs to
 * `hlab bench`).
 */
import { test, expect } from '@playwright/test';
import type { LineChartSpec } from '../../src/app/line_chart';

/** The lesson at CI size on a busy 2-core machine, with room to spare. */
const LESSON_TIMEOUT_MS = 15 * 60_000;

/** The merge patch to CI size: 4 RL steps of 2 tasks, 2 test tasks, 4 in-space configurations of 1 task, validation of 2 tasks. */
const CI_SIZE = {
  name: 'lesson-ci',
  rl: { steps: 4, tasksPerStep: 2 },
  evaluation: {
    testTasks: 2,
    samples: 1,
    inSpace: { perDistance: 1, tasksPerConfig: 1 },
    blackbox: [],
    validation: { tasks: 2, every: 2, samples: 1 },
  },
};

test('the lesson: cold load of #/train shows it; at CI size, Start trains both methods to the end; in-space and base validation charts and the before → after table', async ({
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
  const lesson = JSON.parse(await editor.inputValue()) as { methods: { name: string; harnesses: string }[] };
  expect(lesson.methods.map((m) => m.harnesses)).toEqual(['single', 'scaling']);
  await expect(page.locator('#train-lesson-intro')).toContainText('compares 2 methods');
  await expect(page.locator('#train-lesson-intro')).toContainText('held-out in-space configurations');

  await page.goto(`/#/train?preset=lesson&edits=${encodeURIComponent(JSON.stringify(CI_SIZE))}`);
  await expect(editor).toHaveValue(/"name": "lesson-ci"/);
  const spec = JSON.parse(await editor.inputValue()) as { rl: { steps: number }; methods: { name: string }[] };
  const steps = spec.rl.steps;
  expect(steps).toBe(4);
  expect(spec.methods.map((m) => m.name)).toEqual(lesson.methods.map((m) => m.name));

  const inSpace = page.locator('#chart-validation-in-space');
  const base = page.locator('#chart-validation-base');
  const specOf = (c: typeof inSpace) => c.evaluate((el) => (el as unknown as { spec: LineChartSpec | null }).spec);
  // The first chart of the card: in-space, where the methods compare by level; empty before Start.
  await expect(page.locator('.train-charts hl-line-chart').first()).toHaveId('chart-validation-in-space');
  await expect(inSpace).toHaveAttribute('data-points', '0');

  await page.locator('#train-start').click();
  await expect(page.locator('#train-phase')).toHaveAttribute('data-phase', 'running');
  // The app's engine choice ('auto') on SwiftShader: the CPU engine.
  await expect(page.getByRole('list', { name: 'Run messages' })).toContainText('engine: CPU engine (WebAssembly SIMD', {
    timeout: 5 * 60_000,
  });
  // Live: the step-0 point (before RL) is drawn while the run is still going.
  await expect(inSpace).toHaveAttribute('data-points', '1', { timeout: 10 * 60_000 });
  expect((await specOf(inSpace))?.x).toEqual([0]);
  await expect(page.locator('#train-phase')).toHaveAttribute('data-phase', 'running');

  await expect(page.locator('#train-phase')).toHaveAttribute('data-phase', /^(done|failed)$/, { timeout: LESSON_TIMEOUT_MS });
  const failure = page.locator('#train-failure');
  expect((await failure.count()) ? await failure.textContent() : '', 'the run failed').toBe('');

  // In-space and base: both methods on one chart each, step 0 to the last step, every point measured.
  for (const chart of [inSpace, base]) {
    const drawn = (await specOf(chart))!;
    expect(drawn.x).toEqual([0, 2, 4]);
    await expect(chart).toHaveAttribute('data-points', String(drawn.x.length));
    expect(drawn.series.map((x) => x.label)).toEqual(spec.methods.map((m) => `${m.name} · seed 0`));
    for (const v of drawn.series.flatMap((x) => x.values)) {
      expect(v).not.toBeNull();
      expect(v!).toBeGreaterThanOrEqual(0);
      expect(v!).toBeLessThanOrEqual(1);
    }
    await expect(chart.locator('canvas').first()).toBeVisible();
  }
  // Each method on its own training harnesses: a chart each (not comparable by level).
  await expect(page.locator('#chart-validation')).toBeVisible();
  await expect(page.locator('#chart-validation-2')).toBeVisible();

  // Before → after for both methods: base harness, held-out in-space configurations, training harnesses.
  const rows = page.locator('#train-results-table tbody tr');
  await expect(rows).toHaveCount(2);
  const heads = await page.locator('#train-results-table thead th').allTextContents();
  const beforeAfter = /^\d+\.\d → \d+\.\d$/;
  const cellOf = (i: number, head: RegExp) =>
    rows
      .nth(i)
      .locator('td')
      .nth(heads.findIndex((h) => head.test(h)));
  for (let i = 0; i < 2; i++) {
    await expect(cellOf(i, /^pass@1 base/)).toHaveText(beforeAfter);
    await expect(cellOf(i, /^in-space/)).toHaveText(beforeAfter);
    await expect(cellOf(i, /^training harnesses/)).toHaveText(beforeAfter);
  }
  await expect(page.locator('#train-results-link')).toBeVisible();
  // The difference between the methods, harness scaling − single harness, from the same after values.
  const afterInSpace = async (i: number) => Number(((await cellOf(i, /^in-space/).textContent()) ?? '').split('→')[1]);
  const between = page.locator('#train-between');
  await expect(between).toContainText('points in-space');
  await expect(between).toContainText('one seed: a difference, not a verdict');
  const shown = Number((await between.getAttribute('data-in-space'))!.replace('−', '-'));
  expect(Math.abs(shown - ((await afterInSpace(1)) - (await afterInSpace(0))))).toBeLessThanOrEqual(0.11);

  const path = info.outputPath('lesson-done.png');
  await page.screenshot({ path, fullPage: true });
  await info.attach('lesson-done', { path, contentType: 'image/png' });
  expect(errors, 'page errors').toEqual([]);
  await context.close();
});

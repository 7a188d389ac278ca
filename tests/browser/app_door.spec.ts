/**
 * The app's door (docs/APP.md "The door"), as a visitor meets it in real Chromium: `/` opens the
 * lesson with what the lab is, its Start button on the first screen (1280×800 and a 390×844
 * phone, whose controls are ≥ 44 px tall) and the next views; the skip link moves focus to the
 * content without changing the view or the URL; choosing a design or a preset changes the intro
 * and the preset shown; Start and Pause pressed by keyboard keep focus on the button.
 */
import { test, expect, type Browser, type Page } from '@playwright/test';

const errors: string[] = [];

async function openApp(browser: Browser, url: string, viewport: { width: number; height: number }): Promise<Page> {
  const p = await browser.newPage({ viewport });
  p.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  p.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  await p.goto(url);
  return p;
}

test.afterEach(() => {
  expect(errors.splice(0), 'page errors').toEqual([]);
});

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  test(`/ at ${viewport.width}×${viewport.height}: the lesson, what the lab is, Start on the first screen, the next steps`, async ({
    browser,
  }, info) => {
    const page = await openApp(browser, '/', viewport);
    await expect(page).toHaveURL(/#\/train$/);
    await expect(page.locator('#train-door')).toContainText('trains one small policy through many agent harnesses');
    await expect(page.locator('#train-lesson-intro')).toContainText('pass@1');
    await expect(page.locator('#train-lesson-intro')).toContainText('held-out harness configurations');
    // What the committed map of conditions found arrives after the first paint; Start stays on the first screen with it.
    await expect(page.locator('#train-map-finding')).toContainText('What the map of conditions found');
    const start = page.locator('#train-start');
    await expect(start).toHaveText('Start');
    await expect(start).toBeEnabled();
    const box = (await start.boundingBox())!;
    expect(box.y, 'Start starts on the first screen').toBeGreaterThanOrEqual(0);
    expect(box.y + box.height, 'Start ends on the first screen').toBeLessThanOrEqual(viewport.height);
    const next = page.getByRole('navigation', { name: 'Next steps' });
    for (const view of ['design', 'inspect', 'results', 'trajectories']) await expect(next.locator(`a[href="#/${view}"]`)).toBeVisible();
    if (viewport.width < 700) {
      // Tap targets: the run's buttons, the header's links and the first inputs.
      for (const sel of ['#train-start', '#train-pause', '#train-resume', '#train-preset', '.app-header nav a']) {
        for (const el of await page.locator(sel).all()) expect((await el.boundingBox())!.height, sel).toBeGreaterThanOrEqual(44);
      }
    }
    const path = info.outputPath(`door-${viewport.width}.png`);
    await page.screenshot({ path });
    await info.attach(`door-${viewport.width}`, { path, contentType: 'image/png' });
    await page.context().close();
  });
}

test('the skip link moves focus to the content and keeps the view and its URL', async ({ browser }) => {
  const page = await openApp(browser, '/#/train?preset=quick', { width: 1280, height: 800 });
  await expect(page.locator('#train-spec')).toHaveValue(/"name": "quick"/);
  const url = page.url();
  await page.keyboard.press('Tab');
  await expect(page.locator('.skip-link')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.locator('#view-root')).toBeFocused();
  expect(page.url()).toBe(url);
  await expect(page.locator('#view-train')).toBeVisible();
  await expect(page.locator('#view-design')).toHaveCount(0);
  // The next Tab goes into the view, not back to the header.
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => !!document.activeElement?.closest('#view-root'))).toBe(true);
  // A fragment typed into the address bar that is no route does not open another view either.
  await page.evaluate(() => {
    location.hash = '#view-root';
  });
  await expect(page.locator('#view-root')).toBeFocused();
  await expect(page).toHaveURL(url);
  await expect(page.locator('#view-design')).toHaveCount(0);
  await page.context().close();
});

test('choosing a design, then a preset, changes the intro and the preset shown', async ({ browser }) => {
  const page = await openApp(browser, '/#/design', { width: 1280, height: 800 });
  await page.locator('#design-train').click();
  await expect(page).toHaveURL(/#\/train\?preset=lesson&edits=/);
  await expect(page.locator('#train-design-intro')).toContainText('through your design');
  await expect(page.locator('#train-design-intro')).toContainText('K = 4');
  await expect(page.locator('#train-lesson-intro')).toHaveCount(0);
  await expect(page.locator('#train-preset option:checked')).toHaveText('lesson → lesson-design');
  await expect(page.locator('[data-field="train-preset"]')).toContainText('harness scaling (GRPO, K=4)');
  await page.selectOption('#train-preset', 'quick');
  await expect(page.locator('#train-preset-intro')).toContainText('compares 2 methods');
  // Where presets are chosen, not only in the JSON: quick is the one that compares the methods in one run.
  await expect(page.locator('[data-field="train-preset"]')).toContainText('compares 2 methods in one run each (one seed)');
  await page.locator('#train-presets summary').click();
  await expect(page.locator('#train-presets li', { hasText: /^main:/ })).toContainText('over 10 seeds');
  await page.context().close();
});

test('Start and Pause pressed by keyboard keep focus on the button', async ({ browser }) => {
  test.setTimeout(300_000);
  // A CI-sized run: a scratch tiny model, 3 RL steps of 2 × 2 rollouts, a tiny evaluation.
  const edits = {
    methods: [{ name: 'single harness (GRPO)', harnesses: 'single', K: 1, algorithm: 'grpo' }],
    model: { preset: 'tiny', init: 'scratch' },
    rl: { tasksPerStep: 2, groupSize: 2, dropZeroVarianceGroups: false },
    // The smallest budgets under which the expert solves some cells (the plan leaves out the others).
    rollout: { maxTurns: 3, maxNewTokens: 24, contextTokens: 512 },
    evaluation: {
      testTasks: 1,
      inSpace: { mode: 'stratified', perDistance: 1, seed: 0 },
      blackbox: [],
      samples: 1,
      validation: { tasks: 2, every: 3, samples: 1 },
    },
  };
  const page = await openApp(browser, `/#/train?preset=quick&edits=${encodeURIComponent(JSON.stringify(edits))}&steps=3`, {
    width: 1280,
    height: 800,
  });
  const start = page.locator('#train-start');
  const pause = page.locator('#train-pause');
  await expect(start).toBeEnabled();
  await expect(pause).toBeDisabled();
  await start.focus();
  await page.keyboard.press('Enter');
  await expect(page.locator('#train-phase')).toHaveAttribute('data-phase', 'running');
  await expect(start).toBeDisabled();
  await expect(start).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(pause).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.locator('#train-phase')).toHaveAttribute('data-phase', /^(stopping|paused|done)$/);
  await expect(pause).toBeFocused();
  await expect(page.locator('#train-phase')).toHaveAttribute('data-phase', /^(paused|done)$/, { timeout: 240_000 });
  await expect(pause).toBeFocused();
  // With a checkpoint, Start deletes it: a destructive button that says so.
  await expect(start).toHaveText('Start over (delete checkpoints)');
  await expect(start).toHaveClass(/danger/);
  await page.context().close();
});

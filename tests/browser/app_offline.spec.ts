/**
 * The app works offline once loaded, Train included: load the app, wait until the
 * network is idle, go offline, open Train through the nav and run a tiny experiment to its
 * results table. No request may leave the page or any of its workers after going offline (the
 * tokenizer and base checkpoints come from the Cache Storage filled at load, the training
 * worker was started at load), and none may fail.
 */
import { test, expect } from '@playwright/test';

/**
 * A small run: the mini model from its shipped base checkpoint (served from the asset cache, no
 * request), one RL step of 2×2 rollouts, a one-task evaluation. The window 512 − 128 is the base's.
 */
const EDITS = {
  // One method and a small validation split: quick itself compares two methods on a large one.
  methods: [{ name: 'harness scaling (GRPO, K=4)', harnesses: 'scaling', K: 4, algorithm: 'grpo' }],
  model: { preset: 'mini', init: 'base' },
  rl: { steps: 1, tasksPerStep: 2, groupSize: 2 },
  // Three turns: under two the expert solves no cell, and the plan would leave out every one.
  rollout: { maxTurns: 3, maxNewTokens: 128, contextTokens: 512 },
  evaluation: {
    testTasks: 1,
    inSpace: { mode: 'stratified', perDistance: 1, seed: 0 },
    blackbox: [],
    samples: 1,
    validation: { tasks: 24, every: 6, samples: 1 },
  },
};

/** `base` with the fields of `edits` replaced (objects merged key by key, like the view's merge patch). */
function merged(base: unknown, edits: unknown): unknown {
  if (
    typeof base !== 'object' ||
    base === null ||
    Array.isArray(base) ||
    typeof edits !== 'object' ||
    edits === null ||
    Array.isArray(edits)
  )
    return edits;
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [k, v] of Object.entries(edits)) out[k] = merged(out[k], v);
  return out;
}

test('offline after load: a Train run makes no request', async ({ browser }) => {
  test.setTimeout(120_000);
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  await page.goto('/#/design');
  await expect(page.locator('#training-table tbody tr')).toHaveCount(18);
  await page.waitForLoadState('networkidle');
  // The training worker answered and the assets are stored (worker requests are not part of
  // the page's network idle).
  await expect(page.locator('html')).toHaveAttribute('data-offline-ready', 'true', { timeout: 60_000 });
  // What load cached: the tokenizer, and each model preset's base checkpoint or its absence.
  const cachedKeys = () =>
    page.evaluate(async () => {
      const c = await caches.open('hlab-assets-v1');
      return (await c.keys()).map((r) => new URL(r.url).pathname).sort();
    });
  await expect
    .poll(cachedKeys)
    .toEqual(['/base-base.ckpt', '/base-mini.ckpt', '/base-small.ckpt', '/base-tiny.ckpt', '/tokenizer-v2.json']);

  const after: string[] = [];
  const failed: string[] = [];
  // blob: URLs are in-memory (the CPU engine's Web Worker threads are made from one): no network.
  context.on('request', (r) => {
    if (!r.url().startsWith('blob:')) after.push(r.url());
  });
  context.on('requestfailed', (r) => failed.push(`${r.url()} ${r.failure()?.errorText}`));
  await context.setOffline(true);
  // Train through the nav, then the spec editor (what a user does).
  await page.click('nav a[data-view="train"]');
  const editor = page.locator('#train-spec');
  // The nav opens the app's default, the lesson; this small run is an edit of quick.
  await expect(editor).toHaveValue(/"name": "lesson"/);
  await page.selectOption('#train-preset', 'quick');
  await expect(editor).toHaveValue(/"name": "quick"/);
  await editor.fill(JSON.stringify(merged(JSON.parse(await editor.inputValue()), EDITS), null, 2));
  await expect(page.locator('#train-spec-errors')).not.toContainText('spec.');
  await expect(page.locator('#train-step')).toContainText('/1');
  await page.locator('#train-start').click();
  await expect(page.locator('#train-phase')).toHaveAttribute('data-phase', /^(done|failed)$/, { timeout: 90_000 });
  const failure = page.locator('#train-failure');
  expect((await failure.count()) ? await failure.textContent() : '', 'the run failed').toBe('');
  expect(await page.locator('#train-phase').getAttribute('data-phase')).toBe('done');
  await expect(page.locator('#train-results-table tbody tr')).toHaveCount(1);
  await expect(page.getByRole('list', { name: 'Run messages' })).toContainText('offline: environments run in the training worker');
  // backend 'auto' on SwiftShader: the CPU engine, its threads Web Workers made from a Blob (no request).
  await expect(page.getByRole('list', { name: 'Run messages' })).toContainText('engine: CPU engine (WebAssembly SIMD');
  await context.setOffline(false);
  expect(failed, 'failed requests').toEqual([]);
  expect(after, 'requests after going offline').toEqual([]);
  expect(errors, 'page errors').toEqual([]);
  await context.close();
});

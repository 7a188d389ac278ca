/**
 * End-to-end tests of the web app shell and its Design and Inspect views in real
 * Chromium: each view shows its key content, invalid input shows its error next to the field,
 * a URL with parameters reproduces the view, the app works offline after load, the nav is
 * reachable by keyboard, the WebGPU banner explains what to do. A screenshot of every view is
 * saved under test-results/ (testInfo.outputPath) and attached to the report.
 */
import { test, expect, type Browser, type Page, type TestInfo } from '@playwright/test';

/**
 * One page for the whole file: a fresh page costs a full module load from the Vite dev
 * server (seconds on a busy 2-core machine), while moving between views is a same-document
 * hash navigation, exactly what a user does. The tests run in order on that page; each
 * starts from a URL of its own, so none depends on what an earlier one typed.
 */
test.describe.configure({ mode: 'serial' });

let page: Page;
const errors: string[] = [];

/** A page of the app that records uncaught errors and console errors into `errors`. */
async function openApp(browser: Browser, url: string, init?: () => void): Promise<Page> {
  const p = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  p.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  p.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  if (init) await p.addInitScript(init);
  await p.goto(url);
  return p;
}

/** Full-page screenshot kept as a test artefact under test-results/ and attached to the report. */
async function screenshot(p: Page, info: TestInfo, name: string, fullPage = true): Promise<void> {
  const path = info.outputPath(`${name}.png`);
  await p.screenshot({ path, fullPage });
  await info.attach(name, { path, contentType: 'image/png' });
}

test.beforeAll(async ({ browser }) => {
  page = await openApp(browser, '/#/design');
});

test.afterAll(async () => {
  await page?.context().close();
});

test.afterEach(() => {
  const seen = errors.splice(0);
  expect(seen, 'page errors').toEqual([]);
});

test('design view: space, 18 OA training ids, balance heat map, held-out histogram, comparison, assignment', async ({}, info) => {
  await page.goto('/#/design');
  const training = page.locator('#training-table tbody tr');
  await expect(training).toHaveCount(18);
  const ids = await page.locator('#training-table code.hid').allTextContents();
  expect(new Set(ids).size).toBe(18);
  for (const id of ids) expect(id).toMatch(/^S[0-2]-T[0-2]-O[0-2]-C[0-2]-W[0-2]$/);
  // Space: 5 components × 3 realizations with names.
  await expect(page.locator('.space-table tbody tr')).toHaveCount(5);
  await expect(page.locator('.space-table')).toContainText('line-numbered');
  // Heat map of the OA: 10 component pairs × 9 cells, every cell 18 / 9 = 2.
  const cells = page
    .locator('#view-design .card')
    .filter({ has: page.locator('#training-table') })
    .locator('.hm-cell');
  await expect(cells).toHaveCount(90);
  const counts = await cells.evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-count'))));
  expect(new Set(counts)).toEqual(new Set([2]));
  await expect(page.locator('#view-design [data-fact="minDistance"]').first()).toHaveText('3');
  // Held-out histogram: 243 − 18 = 225 configurations, at distance 1 or 2 from the OA.
  const hist = await page
    .locator('#heldout-table tbody tr')
    .evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => Number(td.textContent))));
  expect(hist.map(([d]) => d)).toEqual([0, 1, 2, 3, 4, 5]);
  expect(hist.reduce((a, [, c]) => a + c, 0)).toBe(225);
  await expect(page.locator('#heldout-chart canvas')).toHaveCount(1);
  // Structured vs random-k: the random set of the same size is not strength 2.
  await expect(page.locator('#compare-oa [data-fact="strength2"]')).toHaveText('yes');
  await expect(page.locator('#compare-random [data-fact="strength2"]')).toHaveText('no');
  await expect(page.locator('#compare-random [data-fact="runSize"]')).toHaveText('18');
  // Assignment preview: K = 4 → anchor + 3 others per task, distances non-decreasing.
  const rows = page.locator('#assignment-table tbody tr');
  await expect(rows).toHaveCount(6);
  await expect(rows.first().locator('.chip')).toHaveCount(3);
  await screenshot(page, info, 'design-view');
});

test('design: each fallback is explained, an empty held-out set says so, the assignment note follows the strategy, heat maps label levels', async ({}, info) => {
  await page.goto('/#/design?levels=2,3,3,4');
  await expect(page.locator('#design-fallback')).toContainText('full factorial');
  await expect(page.locator('#design-fallback')).toContainText('force N ≥ 72');
  await expect(page.locator('#heldout-empty')).toContainText('Nothing is held out');
  await expect(page.locator('#heldout-chart')).toHaveCount(0);
  await screenshot(page, info, 'design-full-factorial');
  await page.goto('/#/design?levels=6,6,6,6');
  await expect(page.locator('#design-fallback')).toContainText('would allow N = 36');
  await expect(page.locator('#design-fallback')).toContainText('orthogonal Latin squares of order 6');
  await page.goto('/#/design');
  await expect(page.locator('#design-fallback')).toHaveCount(0);
  const note = page.locator('#assign-mean');
  await expect(note).toContainText('nearest');
  await expect(note).toContainText('at least 3 components apart');
  await expect(note).toContainText('(random: ');
  await page.selectOption('#design-assign', 'random');
  await expect(note).toContainText('Random assignment (the ablation)');
  await expect(note).not.toContainText('nearest');
  await expect(note).toContainText('(locality-aware: 3.00)');
  // Level numbers on the heat-map grids (5 components × 3 levels: 4 column grids × 3 + 4 row grids × 3).
  await expect(page.locator('#view-design .card', { has: page.locator('#training-table') }).locator('.hm-level')).toHaveCount(24);
  await expect(page.locator('.heatmap-key').first()).toContainText('expected count');
});

test('invalid inputs show their error next to the field, and recover', async () => {
  await page.goto('/#/design');
  await expect(page.locator('#training-table tbody tr')).toHaveCount(18);
  await page.fill('#design-levels', '3,1,3');
  await page.press('#design-levels', 'Enter');
  const levelsField = page.locator('[data-field="design-levels"]');
  await expect(levelsField.locator('.error')).toContainText("entry 2 ('1') must be a whole number ≥ 2");
  await expect(page.locator('#design-levels')).toHaveAttribute('aria-invalid', 'true');
  await page.fill('#design-levels', '3,3,3,3,3');
  await page.press('#design-levels', 'Enter');
  await expect(levelsField.locator('.error')).toBeEmpty();
  await page.fill('#design-K', '19');
  await page.press('#design-K', 'Enter');
  await expect(page.locator('[data-field="design-K"] .error')).toContainText('K must be in 1..18, got 19');
  await page.goto('/#/inspect?seed=abc&a=S0-T7-O0-C0-W0');
  await expect(page.locator('[data-field="inspect-seed"] .error')).toContainText("seed must be a whole number, got 'abc'");
  await expect(page.locator('[data-field="inspect-a"] .error')).toContainText('level 7 out of range 0..2');
});

test('inspect view: two contexts with differences, stepping through the expert episode', async ({}, info) => {
  await page.goto('/#/inspect');
  const a = page.locator('#side-a');
  const b = page.locator('#side-b');
  await expect(a.locator('pre.context')).toContainText('<|system|>');
  await expect(b.locator('pre.context')).toContainText('<|system|>');
  // Different harnesses → some lines highlighted on each side.
  expect(await a.locator('.ln.changed').count()).toBeGreaterThan(0);
  expect(await b.locator('.ln.changed').count()).toBeGreaterThan(0);
  await expect(page.locator('#diff-summary')).toContainText('lines differ');
  await screenshot(page, info, 'inspect-view');

  const turn = a.locator('#inspect-ta');
  await expect(turn).toHaveValue('1');
  const action1 = await a.locator('pre.action').textContent();
  await a.locator('button[data-step="next"]').click();
  await expect(turn).toHaveValue('2');
  await expect(page).toHaveURL(/ta=2/);
  expect(await a.locator('pre.action').textContent()).not.toBe(action1);
  await a.locator('button[data-step="prev"]').click();
  await expect(turn).toHaveValue('1');
  // Last turn: the verifier's result; the expert passes.
  await a.locator('button[data-step="last"]').click();
  const n = Number(await a.locator('[data-turn-count]').getAttribute('data-turn-count'));
  await expect(turn).toHaveValue(String(n));
  await expect(a.locator('[data-verdict]')).toHaveAttribute('data-verdict', 'pass');
  await expect(a.locator('button[data-step="next"]')).toBeDisabled();

  // Same harness on both sides → identical contexts, nothing highlighted.
  await page.selectOption('#inspect-b-kind', 'bb-coding-cli');
  await expect(b.locator('pre.context')).toContainText('<|system|>');
  await page.fill('#inspect-b', 'S0-T0-O0-C0-W0');
  await page.press('#inspect-b', 'Enter');
  await a.locator('button[data-step="first"]').click();
  await expect(page.locator('#diff-summary')).toContainText('identical');
  await expect(page.locator('.ln.changed')).toHaveCount(0);
});

test('inspect: menus follow the harness id, focus stays in the stepper, unchanged components are named, real token counts', async ({}, info) => {
  // The stale-menu sequence: a level shown from a URL, another URL, the menu set by hand, then
  // ids typed: the O menu must show each id's level (a `selected` attribute alone does not
  // move a menu the user has touched).
  await page.goto('/#/inspect?a=S1-T1-O2-C1-W1');
  await expect(page.locator('#inspect-a-O')).toHaveValue('2');
  await page.goto('/#/inspect?a=S0-T0-O0-C0-W0&b=S1-T1-O1-C1-W1');
  await expect(page.locator('#inspect-a-O')).toHaveValue('0');
  await page.selectOption('#inspect-a-O', '2');
  await expect(page.locator('#inspect-a')).toHaveValue('S0-T0-O2-C0-W0');
  for (const [id, level] of [
    ['S1-T1-O1-C1-W1', '1'],
    ['S1-T1-O2-C1-W1', '2'],
    ['S1-T1-O0-C1-W1', '0'],
  ] as const) {
    await page.fill('#inspect-a', id);
    await page.press('#inspect-a', 'Enter');
    await expect(page.locator('#side-a h2 code')).toHaveText(id);
    await expect(page.locator('#inspect-a-O')).toHaveValue(level);
    expect(await page.locator('#inspect-a-O').evaluate((el: HTMLSelectElement) => el.selectedOptions[0].textContent)).toMatch(
      new RegExp(`^O${level} `),
    );
  }

  // Next at the second-last turn disables Next: the focus moves to the turn field, not <body>.
  const a = page.locator('#side-a');
  const n = Number(await a.locator('[data-turn-count]').getAttribute('data-turn-count'));
  await page.fill('#inspect-ta', String(n - 1));
  await page.press('#inspect-ta', 'Enter');
  await a.locator('button[data-step="next"]').focus();
  await page.keyboard.press('Enter');
  await expect(page.locator('#inspect-ta')).toHaveValue(String(n));
  await expect(a.locator('button[data-step="next"]')).toBeDisabled();
  await expect(page.locator('#inspect-ta')).toBeFocused();

  // Observation formatting (O) changes nothing before the first observation: said, with the turn where it first shows.
  await page.goto('/#/inspect?a=S0-T0-O0-C0-W0&b=S0-T0-O2-C0-W0');
  await expect(page.locator('#diff-summary')).toContainText('identical');
  const hint = page.locator('#same-hint');
  await expect(hint).toContainText('Component O (');
  await expect(hint).toContainText('changes nothing at turn 1');
  const first = Number((await hint.textContent())!.match(/first differ at turn (\d+)/)![1]);
  expect(first).toBeGreaterThan(1);
  await page.locator('#same-hint-go').click();
  await expect(page.locator('#inspect-ta')).toHaveValue(String(first));
  await expect(page.locator('#inspect-tb')).toHaveValue(String(first));
  await expect(page.locator('#diff-summary')).toContainText('lines differ');
  await expect(hint).toHaveCount(0);

  // Token counts by the real tokenizer, not a chars/4 estimate.
  const sub = page.locator('#side-a h3 .sub[data-tokens]');
  await expect(sub).not.toContainText('≈');
  expect(Number(await sub.getAttribute('data-tokens'))).toBeGreaterThan(0);
  await screenshot(page, info, 'inspect-same-hint');
});

test('Design and Inspect link into the lesson: "Train on this design" opens it with harness scaling through the design shown', async () => {
  await page.goto('/#/design?method=random&k=12&seed=7&K=3&assign=random');
  await expect(page.locator('#training-table tbody tr')).toHaveCount(12);
  await expect(page.locator('#design-train-link')).toContainText('single base harness');
  await page.locator('#design-train').click();
  await expect(page).toHaveURL(/#\/train\?preset=lesson&edits=/);
  const editor = page.locator('#train-spec');
  await expect(editor).toHaveValue(/"name": "lesson-design"/);
  const spec = JSON.parse(await editor.inputValue());
  expect(spec.design).toEqual({ method: 'random', k: 12, seed: 7 });
  // The lesson's single harness stays; its harness scaling goes through the design.
  expect(spec.methods).toEqual([
    { name: 'single harness (GRPO)', harnesses: 'single', K: 1, algorithm: 'grpo' },
    { name: 'random assignment (GRPO, K=3)', harnesses: 'random-assignment', K: 3, algorithm: 'grpo' },
  ]);
  await expect(page.locator('#train-spec-errors')).toContainText('Valid spec');
  await expect(page.locator('#train-start')).toBeEnabled();
  // Only the experiments' space trains: other levels get a note, no link.
  await page.goto('/#/design?levels=2,2,2');
  await expect(page.locator('#design-train-link')).toContainText('levels 3,3,3,3,3');
  await expect(page.locator('#design-train')).toHaveCount(0);
  // Inspect: the lesson as it is; it says what the lesson compares.
  await page.goto('/#/inspect');
  await expect(page.locator('#inspect-train-link')).toContainText('compares single harness (GRPO) with harness scaling (GRPO, K=4)');
  await page.locator('#inspect-train').click();
  await expect(page.locator('#train-spec')).toHaveValue(/"name": "lesson"/);
});

test('a URL with parameters reproduces the view', async () => {
  await page.goto('/#/design?method=random&k=12&seed=7&K=3&assign=random');
  await expect(page.locator('#design-method')).toHaveValue('random');
  await expect(page.locator('#design-k')).toHaveValue('12');
  await expect(page.locator('#design-seed')).toHaveValue('7');
  await expect(page.locator('#design-K')).toHaveValue('3');
  await expect(page.locator('#training-table tbody tr')).toHaveCount(12);
  await expect(page.locator('#assignment-table tbody tr').first().locator('.chip')).toHaveCount(2);
  // Editing writes the URL; reloading it shows the same.
  await page.fill('#design-seed', '8');
  await page.press('#design-seed', 'Enter');
  await expect(page).toHaveURL(/seed=8/);
  const ids = await page.locator('#training-table code.hid').allTextContents();
  await page.reload();
  await expect(page.locator('#design-seed')).toHaveValue('8');
  expect(await page.locator('#training-table code.hid').allTextContents()).toEqual(ids);

  // Another space: 2 × 2 × 2 → the 4-run orthogonal array, every level pair once per grid.
  await page.goto('/#/design?levels=2,2,2');
  await expect(page.locator('#design-levels')).toHaveValue('2,2,2');
  await expect(page.locator('#training-table tbody tr')).toHaveCount(4);
  const cells = page.locator('section', { has: page.locator('#training-table') }).locator('.hm-cell');
  await expect(cells).toHaveCount(12);
  expect(new Set(await cells.evaluateAll((els) => els.map((e) => e.getAttribute('data-count'))))).toEqual(new Set(['1']));

  await page.goto('/#/inspect?task=errands/recall/t2/1000123&a=bb-assistant&b=S2-T2-O2-C2-W2&ta=3&tb=2');
  await expect(page.locator('#task-id')).toHaveText('errands/recall/t2/1000123');
  await expect(page.locator('#inspect-suite')).toHaveValue('errands');
  await expect(page.locator('#inspect-a')).toHaveValue('bb-assistant');
  await expect(page.locator('#inspect-b')).toHaveValue('S2-T2-O2-C2-W2');
  await expect(page.locator('#inspect-b-W')).toHaveValue('2');
  await expect(page.locator('#inspect-ta')).toHaveValue('3');
  await expect(page.locator('#inspect-tb')).toHaveValue('2');
});

test('works offline after load: no request leaves the page', async () => {
  const context = page.context();
  await page.goto('/#/design');
  await expect(page.locator('#training-table tbody tr')).toHaveCount(18);
  await page.waitForLoadState('networkidle');
  // networkidle does not see worker requests: wait for the prewarmed training worker and asset cache.
  await expect(page.locator('html')).toHaveAttribute('data-offline-ready', 'true', { timeout: 60_000 });
  const after: string[] = [];
  const failed: string[] = [];
  page.on('request', (r) => after.push(r.url()));
  page.on('requestfailed', (r) => failed.push(`${r.url()} ${r.failure()?.errorText}`));
  await context.setOffline(true);
  await page.click('nav a[data-view="inspect"]');
  await expect(page.locator('#side-a pre.context')).toContainText('<|system|>');
  // The nav link returns to the inspect parameters left by the previous visit (tb=2).
  await expect(page.locator('#inspect-tb')).toHaveValue('2');
  await page.locator('#side-b button[data-step="next"]').click();
  await expect(page.locator('#inspect-tb')).toHaveValue('3');
  await page.selectOption('#inspect-suite', 'errands');
  await expect(page.locator('#task-id')).toContainText('errands/');
  await page.click('nav a[data-view="design"]');
  await page.fill('#design-seed', '3');
  await page.press('#design-seed', 'Enter');
  await page.selectOption('#design-method', 'random');
  await expect(page.locator('#training-table tbody tr')).toHaveCount(18);
  await context.setOffline(false);
  expect(failed, 'failed requests').toEqual([]);
  expect(after, 'requests after load').toEqual([]);
});

test('keyboard: tab reaches the nav links, Enter follows them; focus is visible', async () => {
  await page.goto('/#/design');
  await expect(page.locator('#training-table tbody tr')).toHaveCount(18);
  // Start sequential focus navigation at the top of the page (a click on the non-focusable brand).
  await page.locator('.brand').click();
  await page.keyboard.press('Tab');
  await expect(page.locator('nav a[data-view="design"]')).toBeFocused();
  await page.keyboard.press('Shift+Tab');
  await expect(page.locator('.skip-link')).toBeFocused();
  await expect(page.locator('.skip-link')).toBeInViewport();
  await page.keyboard.press('Tab');
  await expect(page.locator('nav a[data-view="design"]')).toBeFocused();
  await page.keyboard.press('Tab');
  const inspect = page.locator('nav a[data-view="inspect"]');
  await expect(inspect).toBeFocused();
  const outline = await inspect.evaluate((el) => getComputedStyle(el).outlineStyle);
  expect(outline).not.toBe('none');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/#\/inspect/);
  await expect(inspect).toHaveAttribute('aria-current', 'page');
  await expect(page.locator('#side-a pre.context')).toBeVisible();
  // Stepping is reachable by keyboard too: buttons, not divs.
  await page.locator('#side-a button[data-step="next"]').focus();
  await page.keyboard.press('Enter');
  await expect(page.locator('#inspect-ta')).toHaveValue('2');
});

test('without WebGPU a banner says which browser and flags enable it; the views still work', async ({ browser }, info) => {
  const bare = await openApp(browser, '/#/design', () => {
    Object.defineProperty(Navigator.prototype, 'gpu', { get: () => undefined, configurable: true });
  });
  const banner = bare.locator('#gpu-banner');
  await expect(banner).toBeVisible();
  await expect(banner).toContainText('--enable-unsafe-webgpu');
  await expect(banner).toContainText('Chrome');
  await expect(banner).toContainText('training runs on the CPU engine');
  await expect(bare.locator('#gpu-status')).toHaveText('WebGPU: unavailable');
  await expect(bare.locator('#training-table tbody tr')).toHaveCount(18);
  await screenshot(bare, info, 'design-view-no-webgpu', false);
  await bare.context().close();
  // The shared page has WebGPU (SwiftShader): no banner there.
  await expect(page.locator('#gpu-banner')).toBeHidden();
  await expect(page.locator('#gpu-status')).toContainText('WebGPU: ');
  await expect(page.locator('#gpu-status')).not.toHaveText('WebGPU: unavailable');
});

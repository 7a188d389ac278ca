/**
 * What stands between the page and its first view (src/app/main.ts, shell.ts): on the dev server,
 * where every module is a request, `/` paints the Train view before any other view's module or
 * uPlot is fetched; the other views arrive after it (offline use). A view whose module is still
 * loading says so, and a route asked for meanwhile wins; a live chart drawn before its module
 * (line_chart.ts) arrived is drawn once it does. The time to the first view itself is measured by
 * scripts/first_view_time.ts (dev and production, printed, not asserted: the machine's load decides it).
 */
import { test, expect, type Page, type Route } from '@playwright/test';

const errors: string[] = [];

function watch(page: Page): void {
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
}

test.afterEach(() => {
  expect(errors.splice(0), 'page errors').toEqual([]);
});

/** Hold every request whose path matches `re` until the returned function is called. */
async function hold(page: Page, re: RegExp): Promise<() => void> {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  await page.route(
    (url) => re.test(url.pathname),
    async (route: Route) => {
      await released;
      await route.continue();
    },
  );
  return release;
}

test('/ paints Train before the other views and uPlot are fetched; they follow after it', async ({ page }) => {
  watch(page);
  // The moment the view's heading enters the page (performance.now()), recorded in the page itself.
  await page.addInitScript(() => {
    new MutationObserver((_, obs) => {
      if (!document.querySelector('#view-root h1')) return;
      (window as { firstViewAt?: number }).firstViewAt = performance.now();
      obs.disconnect();
    }).observe(document, { childList: true, subtree: true });
  });
  await page.goto('/');
  await expect(page.locator('#view-train h1')).toBeVisible();
  /** Paths of the requests the page started before (or after) its first view. */
  const requests = (before: boolean) =>
    page.evaluate((b) => {
      const at = (window as { firstViewAt?: number }).firstViewAt!;
      return performance
        .getEntriesByType('resource')
        .filter((e) => e.startTime <= at === b)
        .map((e) => new URL(e.name).pathname);
    }, before);
  const atFirstView = await requests(true);
  expect(atFirstView).toContain('/src/app/views/train.ts');
  for (const later of ['design', 'inspect', 'results', 'compare', 'trajectories'])
    expect(atFirstView, later).not.toContain(`/src/app/views/${later}.ts`);
  // line_chart.ts is asked for as the view is built, not waited for: uPlot comes only with it.
  expect(atFirstView.filter((p) => /uplot/i.test(p))).toEqual([]);
  // After the first view: every view's module (so a view opened offline needs no request) and the chart module.
  await expect(page.locator('html')).toHaveAttribute('data-offline-ready', 'true', { timeout: 60_000 });
  const after = await requests(false);
  for (const later of ['design', 'inspect', 'results', 'compare', 'trajectories'])
    expect(after, later).toContain(`/src/app/views/${later}.ts`);
  expect(after.filter((p) => /uplot/i.test(p)).length).toBeGreaterThan(0);
  await expect(page.locator('#chart-tokens canvas')).toBeVisible();
});

test('a view still loading says so; a route asked for meanwhile wins, with its title, nav and focus', async ({ page }) => {
  watch(page);
  // Held from the start: the views fetched after the first one include Results.
  const release = await hold(page, /\/src\/app\/views\/results\.ts$/);
  await page.goto('/#/design');
  await expect(page.locator('#view-design h1')).toBeVisible();
  await page.locator('.app-header a[data-view="results"]').click();
  await expect(page.locator('#view-results')).toContainText('Loading Results…');
  await expect(page.locator('#view-design')).toBeHidden();
  await expect(page.locator('.app-header a[data-view="results"]')).toHaveAttribute('aria-current', 'page');
  await page.locator('.app-header a[data-view="inspect"]').click();
  await expect(page.locator('#view-inspect h1')).toBeFocused();
  release();
  // Results arrived after Inspect was asked for: it is not shown, and the address stays Inspect's.
  await page.waitForTimeout(500);
  await expect(page.locator('#view-inspect')).toBeVisible();
  await expect(page.locator('#view-results')).toBeHidden();
  await expect(page).toHaveURL(/#\/inspect/);
  await expect(page).toHaveTitle('Inspect · Harness Lab');
  // Opened again, Results shows itself.
  await page.locator('.app-header a[data-view="results"]').click();
  await expect(page.locator('#view-results h1')).toBeVisible();
  await expect(page.locator('#view-results')).not.toContainText('Loading Results…');
});

test('a live chart drawn before its module arrived is drawn once it does', async ({ page }) => {
  watch(page);
  const release = await hold(page, /\/src\/app\/line_chart\.ts$/);
  await page.goto('/');
  const chart = page.locator('#chart-tokens');
  await expect(chart).toHaveCount(1);
  await page.waitForTimeout(300);
  await expect(chart.locator('canvas')).toHaveCount(0);
  release();
  await expect(chart.locator('canvas').first()).toBeVisible();
  await expect(chart).toHaveAttribute('role', 'img');
  await expect(chart).toHaveAttribute('aria-label', /^tokens\/s by RL step/);
});

/**
 * Every view of the app at a phone width (390×844) and at 1280×800: no horizontal
 * scroll at 390 px (the page is never wider than the window: the header wraps, columns
 * collapse, wide tables scroll inside their own box), and a full-page screenshot of each view
 * at both widths kept under test-results/ and attached to the report.
 *
 * Results and Trajectories show the synthetic results file of app_results.fixture.ts, opened
 * through the file input (so the widest content — the paper table, the trajectory list, the
 * token replay — is on the page).
 */
import { test, expect, type Page, type TestInfo } from '@playwright/test';

test.describe.configure({ mode: 'serial' });

let page: Page;
const errors: string[] = [];

async function screenshot(p: Page, info: TestInfo, name: string): Promise<void> {
  const path = info.outputPath(`${name}.png`);
  await p.screenshot({ path, fullPage: true });
  await info.attach(name, { path, contentType: 'image/png' });
}

/** How far the document is wider than the window (0 = no horizontal scroll), and the widest offenders. */
async function overflow(p: Page): Promise<{ excess: number; culprits: string[] }> {
  return p.evaluate(() => {
    const w = document.documentElement.clientWidth;
    const excess = document.documentElement.scrollWidth - w;
    const culprits: string[] = [];
    for (const el of document.querySelectorAll<HTMLElement>('body *')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || el.closest('[hidden]')) continue;
      if (r.right > w + 1) {
        // Inside a box that scrolls or clips it (a wide table in .scroll-x): not page overflow.
        let clipped = false;
        for (let a = el.parentElement; a && !clipped; a = a.parentElement)
          clipped = getComputedStyle(a).overflowX !== 'visible' && a.getBoundingClientRect().right <= w + 1;
        if (clipped) continue;
        // Only the outermost offender.
        const parent = el.parentElement;
        const pr = parent?.getBoundingClientRect();
        if (pr && pr.right > w + 1) continue;
        culprits.push(`${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}.${[...el.classList].join('.')} right=${Math.round(r.right)}`);
      }
    }
    return { excess, culprits: culprits.slice(0, 8) };
  });
}

const VIEWS: { name: string; url: string; ready: (p: Page) => Promise<void> }[] = [
  { name: 'design', url: '/#/design', ready: (p) => expect(p.locator('#training-table tbody tr')).toHaveCount(18) },
  { name: 'inspect', url: '/#/inspect', ready: (p) => expect(p.locator('#side-a pre.context')).toContainText('<|system|>') },
  { name: 'train', url: '/#/train', ready: (p) => expect(p.locator('#train-spec')).toBeVisible() },
  { name: 'results', url: '/#/results?file=narrow-fixture.json', ready: (p) => expect(p.locator('#paper-table tbody tr')).toHaveCount(3) },
  { name: 'compare', url: '/#/compare', ready: (p) => expect(p.locator('#compare-empty')).toBeVisible() },
  {
    name: 'trajectories',
    url: '/#/trajectories?file=narrow-fixture.json',
    ready: (p) => expect(p.locator('.tokens .tok').first()).toBeVisible(),
  },
];

test.beforeAll(async ({ browser }) => {
  page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  await page.goto('/#/results');
  await expect(page.locator('#results-file')).toBeAttached();
  const text = await page.evaluate(async () => {
    const path = '/tests/browser/app_results.fixture.ts';
    const mod = (await import(/* @vite-ignore */ path)) as typeof import('./app_results.fixture');
    return mod.buildFixture();
  });
  await page.setInputFiles('#results-file', { name: 'narrow-fixture.json', mimeType: 'application/json', buffer: Buffer.from(text) });
  await expect(page.locator('#paper-table tbody tr')).toHaveCount(3);
});

test.afterAll(async () => {
  await page?.context().close();
});

test.afterEach(() => {
  expect(errors.splice(0), 'page errors').toEqual([]);
});

for (const v of VIEWS) {
  test(`${v.name} at 390 px: no horizontal scroll; screenshots at 390×844 and 1280×800`, async ({}, info) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(v.url);
    await v.ready(page);
    // The header wraps: every nav link is inside the window.
    for (const a of await page.locator('.app-header nav a').all()) {
      const box = (await a.boundingBox())!;
      expect(box.x + box.width, `nav link ${await a.textContent()}`).toBeLessThanOrEqual(390);
    }
    expect(await overflow(page)).toEqual({ excess: 0, culprits: [] });
    await screenshot(page, info, `${v.name}-390`);
    await page.setViewportSize({ width: 1280, height: 800 });
    await v.ready(page);
    expect((await overflow(page)).excess).toBe(0);
    await screenshot(page, info, `${v.name}-1280`);
  });
}

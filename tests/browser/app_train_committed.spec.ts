/**
 * The lesson shows the point: at `/` the Train view shows, beside the live
 * single-harness run, what the committed experiment `main` found — harness scaling − single-harness
 * RL per harness set with its interval and the generated verdict — labelled as committed results,
 * loaded after the view is up (the view and its Start do not wait for it), "Loading…" while the
 * episodes load, one error line when the fetch fails, no horizontal overflow at 390 px, and no
 * card for a spec that compares harness scaling itself. The expected sentence and rows are
 * computed here in Node with the same rule (method_verdict.ts pairVerdicts) over
 * docs/results/main/results.json, and checked against docs/results/claims.json.
 */
import { readFileSync } from 'node:fs';
import { test, expect, type Browser, type Page } from '@playwright/test';
import { pairVerdicts, type MethodVerdict } from '../../src/report/method_verdict';
import type { RunResult } from '../../src/report/results_schema';

const errors: string[] = [];

async function openApp(
  browser: Browser,
  viewport: { width: number; height: number },
  before?: (p: Page) => Promise<unknown>,
): Promise<Page> {
  const p = await browser.newPage({ viewport });
  p.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  p.on('console', (m) => {
    // A response the test itself fails (the error case) is logged by the browser: not the app's error.
    if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(`console: ${m.text()}`);
  });
  if (before) await before(p);
  await p.goto('/');
  return p;
}

test.afterEach(() => {
  expect(errors.splice(0), 'page errors').toEqual([]);
});

/** What the card must say: the committed runs of main, and the default pair's verdicts (B = second method, A = first). */
function expected(): { runs: RunResult[]; verdicts: MethodVerdict[]; seeds: number } {
  const runs = (JSON.parse(readFileSync('docs/results/main/results.json', 'utf8')) as { runs: RunResult[] }).runs;
  const methods = [...new Set(runs.map((r) => r.method))];
  expect(methods.length, 'main compares two methods').toBeGreaterThanOrEqual(2);
  return { runs, verdicts: pairVerdicts(runs, methods[0], methods[1]), seeds: new Set(runs.map((r) => r.seed)).size };
}

test('/ shows the committed comparison of main beside the lesson: its verdict and rows are the committed data', async ({
  browser,
}, info) => {
  test.setTimeout(180_000);
  const want = expected();
  expect(want.verdicts.length).toBeGreaterThan(0);
  // The claims table's in-space row is the same comparison: the reference for the headline.
  const claim = (
    JSON.parse(readFileSync('docs/results/claims.json', 'utf8')) as {
      rows: { id: string; verdict: string; diff: number; seeds: number; configs: number }[];
    }
  ).rows.find((r) => r.id === 'in-space')!;
  const head = want.verdicts[0];
  expect(head.set.key).toBe('inSpace');
  expect(head.direction).toBe({ reproduced: 'ahead', refuted: 'behind' }[claim.verdict] ?? claim.verdict);
  expect(100 * head.comparison.pass.diff).toBeCloseTo(claim.diff, 0);
  expect(head.sentence).toContain(`over ${claim.seeds} seeds × ${claim.configs} configurations`);

  // Episodes held back until the view is up: it must not wait for them, and says it is loading.
  let release = () => {};
  const held = new Promise<void>((r) => (release = r));
  const page = await openApp(browser, { width: 1280, height: 800 }, (p) =>
    p.route('**/committed/main/episodes.json', async (route) => {
      await held;
      await route.continue();
    }),
  );
  await expect(page.locator('#train-lesson-intro')).toBeVisible();
  await expect(page.locator('#train-start')).toBeEnabled();
  const card = page.locator('#train-committed');
  await expect(card).toBeVisible();
  await expect(card.locator('#train-committed-loading')).toContainText('Loading…');
  await expect(card.locator('#train-committed-verdict')).toHaveCount(0);
  // Marked as committed, with its size from the summary, and the full page one click away.
  await expect(card).toHaveAttribute('data-source', 'committed');
  await expect(card.locator('h2').first()).toContainText('What harness scaling did in the committed experiment');
  await expect(card).toContainText("Committed results, not this browser's run");
  await expect(card.locator('#train-committed-size')).toHaveAttribute('data-seeds', String(want.seeds));
  await expect(card.locator('#train-committed-size')).toContainText(`${want.seeds} seeds, ${want.runs.length} training runs`);
  await expect(card.locator('#train-committed-link')).toHaveAttribute('href', '#/results?preset=main');
  release();

  const verdict = card.locator('#train-committed-verdict');
  await expect(verdict).toHaveText(head.sentence, { timeout: 90_000 });
  await expect(verdict).toHaveAttribute('data-direction', head.direction);
  await expect(card.locator('#train-committed-loading')).toHaveCount(0);
  const rows = card.locator('#train-committed-table tbody tr');
  await expect(rows).toHaveCount(want.verdicts.length);
  for (const [i, v] of want.verdicts.entries()) {
    const row = rows.nth(i);
    await expect(row).toHaveAttribute('data-set', v.set.key);
    await expect(row).toHaveAttribute('data-direction', v.direction);
    for (const k of ['diff', 'lo', 'hi'] as const)
      expect(Number(await row.getAttribute(`data-${k}`)), `${v.set.key} ${k}`).toBeCloseTo(v.comparison.pass[k], 9);
    await expect(row.locator('td[data-label="verdict"]')).toHaveText(v.direction);
  }
  // The live run's own panels are still there.
  await expect(page.locator('#chart-validation')).toBeVisible();
  const path = info.outputPath('train-committed-1280.png');
  await page.screenshot({ path, fullPage: true });
  await info.attach('train-committed-1280', { path, contentType: 'image/png' });
  // A spec that compares harness scaling itself shows no committed card.
  await page.selectOption('#train-preset', 'quick');
  await expect(page.locator('#train-preset-intro')).toContainText('compares 2 methods');
  await expect(page.locator('#train-committed')).toHaveCount(0);
  await page.context().close();
});

test('at 390 px the committed card fits the window and Start stays on the first screen', async ({ browser }, info) => {
  test.setTimeout(180_000);
  const viewport = { width: 390, height: 844 };
  const page = await openApp(browser, viewport);
  const card = page.locator('#train-committed');
  await expect(card.locator('#train-committed-table tbody tr').first()).toBeVisible({ timeout: 90_000 });
  const start = (await page.locator('#train-start').boundingBox())!;
  expect(start.y, 'Start starts on the first screen').toBeGreaterThanOrEqual(0);
  expect(start.y + start.height, 'Start ends on the first screen').toBeLessThanOrEqual(viewport.height);
  const fit = await page.evaluate(() => {
    const el = document.getElementById('train-committed')!;
    const r = el.getBoundingClientRect();
    // What shows past the card's right edge; inside a box that clips or scrolls (a scroll-x
    // wrapper, the visually hidden header of a pivoted table) only that box counts.
    const clipped = (e: Element) => {
      for (let a = e.parentElement; a && a !== el; a = a.parentElement) if (getComputedStyle(a).overflowX !== 'visible') return true;
      return false;
    };
    const wider = [...el.querySelectorAll<HTMLElement>('*')]
      .filter((e) => !clipped(e) && e.getBoundingClientRect().right > r.right + 0.5)
      .map((e) => e.tagName + (e.id ? `#${e.id}` : ''));
    return {
      page: document.documentElement.scrollWidth,
      window: innerWidth,
      left: r.left,
      right: r.right,
      scroll: el.scrollWidth,
      client: el.clientWidth,
      wider,
    };
  });
  expect(fit.page, 'the page scrolls sideways').toBeLessThanOrEqual(fit.window);
  expect(fit.left).toBeGreaterThanOrEqual(0);
  expect(fit.right).toBeLessThanOrEqual(fit.window);
  expect(fit.scroll, 'the card overflows its box').toBeLessThanOrEqual(fit.client);
  expect(fit.wider, 'elements past the card').toEqual([]);
  const path = info.outputPath('train-committed-390.png');
  await card.screenshot({ path });
  await info.attach('train-committed-390', { path, contentType: 'image/png' });
  await page.context().close();
});

test('a committed fetch that fails is one error line; the Train view works on', async ({ browser }) => {
  const page = await openApp(browser, { width: 1280, height: 800 }, (p) =>
    p.route('**/committed/main/summary.json', (route) => route.fulfill({ status: 503, body: 'down' })),
  );
  const err = page.locator('#train-committed-error');
  await expect(err).toContainText('Could not load the committed results');
  await expect(err).toContainText('HTTP 503');
  // One line: under two lines' height of its font.
  const em = await err.evaluate((e) => e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).fontSize));
  expect(em, 'one error line').toBeLessThan(2.5);
  await expect(page.locator('#train-committed-verdict')).toHaveCount(0);
  await expect(page.locator('#train-start')).toBeEnabled();
  await expect(page.locator('#train-lesson-intro')).toBeVisible();
  await page.context().close();
});

/**
 * The lesson shows the point: at `/` the Train view shows, beside the live run of the lesson (one
 * seed of a map cell), what that cell found over all its seeds — harness scaling − single-harness
 * RL per harness set with its interval and the generated verdict — labelled as committed results,
 * loaded after the view is up (the view and its Start do not wait for it), "Loading…" while the
 * episodes load, one error line when the fetch fails, no horizontal overflow at 390 px; `quick`
 * (one seed of `main`) gets `main`'s card and a spec that is no smaller version of a preset gets
 * none. The expected sentence and rows are computed here in Node with the same rule
 * (method_verdict.ts pairVerdicts) over the preset's docs/results/<preset>/results.json, and
 * checked against the map's cell in docs/results/map.json.
 */
import { readFileSync } from 'node:fs';
import { test, expect, type Browser, type Page } from '@playwright/test';
import { pairVerdicts, type MethodVerdict } from '../../src/report/method_verdict';
import type { RunResult } from '../../src/report/results_schema';
import { leadingCell, type MapCell } from '../../src/experiment/conditions_map';

/** The committed map's cells. */
const CELLS = (JSON.parse(readFileSync('docs/results/map.json', 'utf8')) as { cells: MapCell[] }).cells;
/**
 * The map's leading cell, which the lesson is one seed of (tests/unit/lesson_follows_map.test.ts):
 * its card is the one `/` shows.
 */
const PRESET = leadingCell(CELLS)?.preset ?? '';

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

/** What the card must say: the committed runs of PRESET, and the default pair's verdicts (B = second method, A = first). */
function expected(): { runs: RunResult[]; verdicts: MethodVerdict[]; seeds: number } {
  const runs = (JSON.parse(readFileSync(`docs/results/${PRESET}/results.json`, 'utf8')) as { runs: RunResult[] }).runs;
  const methods = [...new Set(runs.map((r) => r.method))];
  expect(methods.length, `${PRESET} compares two methods`).toBeGreaterThanOrEqual(2);
  return { runs, verdicts: pairVerdicts(runs, methods[0], methods[1]), seeds: new Set(runs.map((r) => r.seed)).size };
}

test('/ shows the committed comparison of the cell the lesson is one seed of: its verdict and rows are the committed data', async ({
  browser,
}, info) => {
  test.setTimeout(180_000);
  expect(PRESET, 'the map has a leading cell').not.toBe('');
  const want = expected();
  expect(want.verdicts.length).toBeGreaterThan(0);
  // The map's cell is the same comparison: the reference for the headline.
  const cell = CELLS.find((c) => c.preset === PRESET)!;
  const head = want.verdicts[0];
  expect(head.set.key).toBe('inSpace');
  const mapHead = cell.verdicts.find((v) => v.set.key === 'inSpace')!;
  expect(head.direction).toBe(mapHead.direction);
  expect(head.comparison.pass.diff).toBeCloseTo(mapHead.comparison.pass.diff, 9);

  // Episodes held back until the view is up: it must not wait for them, and says it is loading.
  let release = () => {};
  const held = new Promise<void>((r) => (release = r));
  const page = await openApp(browser, { width: 1280, height: 800 }, (p) =>
    p.route(`**/committed/${PRESET}/episodes.json`, async (route) => {
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
  await expect(card).toHaveAttribute('data-preset', PRESET);
  await expect(card.locator('#train-committed-link')).toHaveAttribute('href', `#/results?preset=${PRESET}`);
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
  await expect(page.locator('#chart-validation-in-space')).toBeVisible();
  const path = info.outputPath('train-committed-1280.png');
  await page.screenshot({ path, fullPage: true });
  await info.attach('train-committed-1280', { path, contentType: 'image/png' });
  // quick is one seed of main: main's card. A spec that is no smaller version of a preset: none.
  await page.selectOption('#train-preset', 'quick');
  await expect(page.locator('#train-preset-intro')).toContainText('compares 2 methods');
  await expect(page.locator('#train-committed')).toHaveAttribute('data-preset', 'main');
  await page.selectOption('#train-preset', 'algorithms');
  await expect(page.locator('#train-preset-intro')).toContainText('compares 4 methods');
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
    p.route(`**/committed/${PRESET}/summary.json`, (route) => route.fulfill({ status: 503, body: 'down' })),
  );
  const err = page.locator('#train-committed-error');
  await expect(err).toContainText('Could not load the committed results');
  await expect(err).toContainText('HTTP 503');
  // One sentence, not a dump: no line breaks of its own, and it wraps at most once at this width
  // (a long preset name in the file's path may wrap it): under three lines' height of its font.
  expect(await err.textContent()).not.toContain('\n');
  // Polled: a re-render between the locator's resolve and the read detaches the element (NaN).
  await expect
    .poll(() => err.evaluate((e) => e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).fontSize)), {
      message: 'one error sentence',
    })
    .toBeLessThan(3.5);
  await expect(page.locator('#train-committed-verdict')).toHaveCount(0);
  await expect(page.locator('#train-start')).toBeEnabled();
  await expect(page.locator('#train-lesson-intro')).toBeVisible();
  await page.context().close();
});

/**
 * The app as shipped (playwright.production.config.ts: `vite build`, then `vite preview`), used
 * like a reader: the first view's time from a fresh profile is measured and printed (not
 * asserted: the machine's load decides it), no JS asset of dist/ is over 3 MB or carries an
 * inline source map, the committed results of `main` open in Results with their curves and in
 * Trajectories with their sample, Compare puts committed `main` beside committed `lesson`, a
 * preset opened once opens again offline from Cache Storage, a part that fails to load is
 * named in an error line, and committed harness-count shows its curve as RESULTS.md reads it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test, expect, type Page } from '@playwright/test';
import { familywiseInSpace, intervalText, progressText, type CellProgress, type MapCell } from '../../src/experiment/conditions_map';
import { bandTable } from '../../src/experiment/conditions_map_bands';
import { sweepCurve } from '../../src/experiment/sweep_curve';
import { loadCommitted } from '../../scripts/claims';

const MAX_JS_BYTES = 3 * 1024 * 1024;

function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  return errors;
}

test('dist: no JS asset over 3 MB, no inline source map', () => {
  const dir = 'dist/assets';
  const js = readdirSync(dir).filter((f) => f.endsWith('.js'));
  expect(js.length).toBeGreaterThan(0);
  const sizes = js.map((f) => ({ f, bytes: statSync(join(dir, f)).size }));
  console.log(`dist JS assets: ${sizes.map((s) => `${s.f} ${(s.bytes / 1e3).toFixed(0)} kB`).join(', ')}`);
  for (const s of sizes) {
    expect(s.bytes, s.f).toBeLessThanOrEqual(MAX_JS_BYTES);
    expect(readFileSync(join(dir, s.f), 'utf8'), s.f).not.toContain('sourceMappingURL=data:');
  }
});

test('first view from a fresh profile (printed), then committed main: Results with curves, Trajectories with its sample', async ({
  browser,
}) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const errors = watchErrors(page);
  const t0 = Date.now();
  await page.goto('/');
  await expect(page.locator('#view-root h1').first()).toBeVisible();
  const ms = Date.now() - t0;
  const nav = await page.evaluate(() => {
    const n = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
    return { domContentLoaded: Math.round(n.domContentLoadedEventEnd), load: Math.round(n.loadEventEnd) };
  });
  console.log(
    `first view (production build, vite preview, fresh profile): ${ms} ms to the view's heading; DOMContentLoaded ${nav.domContentLoaded} ms, load ${nav.load} ms`,
  );
  // The door is the lesson, its Start in the first screen.
  await expect(page.locator('#train-lesson-intro')).toBeVisible();
  await expect(page.locator('#train-start')).toBeInViewport();

  const t1 = Date.now();
  await page.goto('/#/results?preset=main');
  await expect(page.locator('#paper-table tbody tr').first()).toBeVisible();
  const tTable = Date.now() - t1;
  await expect(page.locator('#results-committed-status')).toHaveText(/^\s*Loaded\./);
  console.log(`Results of committed main: table after ${tTable} ms, every part loaded after ${Date.now() - t1} ms`);
  // Plain words behind each harness set's column head.
  await expect(page.locator('#paper-table thead abbr', { hasText: 'in-space' })).toHaveAttribute('title', /no method trained through/);
  await expect(page.locator('#paper-table thead abbr', { hasText: 'base' })).toHaveAttribute('title', /S0-T0-O0-C0-W0/);
  await expect(page.locator('#paper-table tbody tr').first()).toBeVisible();
  // Episodes are in: the paper table's cells carry Wilson intervals.
  await expect(page.locator('#paper-table td[data-col="base"]').first()).not.toHaveAttribute('data-lo', '');
  await expect(page.locator('#curves hl-curve-chart').first()).toBeVisible();
  expect(await page.locator('#curves hl-curve-chart').count()).toBeGreaterThan(1);
  await expect(page.locator('#curves hl-curve-chart canvas').first()).toBeVisible();
  await expect(page.getByText('No RL steps recorded')).toHaveCount(0);
  // Between methods: harness scaling − single in-space, the claims table's numbers and verdict (docs/results/claims.json).
  const claim = (
    JSON.parse(readFileSync('docs/results/claims.json', 'utf8')) as {
      rows: { id: string; verdict: string; diff: number; lo: number; hi: number; seeds: number; configs: number }[];
    }
  ).rows.find((r) => r.id === 'in-space')!;
  const direction = { reproduced: 'ahead', refuted: 'behind' }[claim.verdict] ?? claim.verdict;
  const verdict = page.locator('#between-verdict');
  await expect(verdict).toHaveAttribute('data-direction', direction);
  await expect(verdict).toContainText(`over ${claim.seeds} seeds × ${claim.configs} configurations`);
  const row = page.locator('#between-table tr[data-set="inSpace"]');
  const diff = Number(await row.getAttribute('data-diff'));
  expect(100 * diff).toBeCloseTo(claim.diff, 0);
  // Picking A's method for B swaps the arms: the sign flips.
  await page.selectOption('#between-b', { index: 0 });
  await expect(row).not.toHaveAttribute('data-diff', String(diff));
  expect(Number(await row.getAttribute('data-diff'))).toBeCloseTo(-diff, 9);

  await page.click('#results-traj-link');
  await expect(page.locator('#traj-table tbody tr').first()).toBeVisible();
  await expect(page.locator('#traj-sample-note')).toContainText('a sample of the');
  await page.locator('#traj-table tbody tr button').first().click();
  await expect(page.locator('#traj-tokens .tok').first()).toBeVisible();
  expect(errors).toEqual([]);

  // A second tab of this browser, online while the app loads, then offline: main comes from Cache Storage.
  const page2 = await context.newPage();
  await page2.goto('/#/design');
  await expect(page2.locator('#view-root h1').first()).toBeVisible();
  await context.setOffline(true);
  await page2.evaluate(() => (location.hash = '#/results?preset=main'));
  await expect(page2.locator('#results-committed-status')).toHaveText(/^\s*Loaded\./);
  await expect(page2.locator('#curves hl-curve-chart canvas').first()).toBeVisible();
  await context.setOffline(false);
  await context.close();
});

test('Compare: committed main (A) beside committed lesson (B); a part that fails to load is named', async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto('/#/compare');
  await page.locator('#compare-committed input[data-preset="main"]').check();
  await page.locator('#compare-committed input[data-preset="lesson"]').check();
  await expect(page).toHaveURL(/runs=/);
  await expect(page.locator('#compare-table tr[data-run="A"]').first()).toBeVisible();
  await expect(page.locator('#compare-table tr[data-run="B"]').first()).toBeVisible();
  await expect(page.locator('#compare-curves hl-curve-chart canvas').first()).toBeVisible();
  await expect(page.locator('#compare-scaling-table')).toBeVisible();
  expect(errors).toEqual([]);

  const page2 = await context.newPage();
  // Compare did not fetch lesson's trajectories, so neither the tab nor Cache Storage has them.
  await page2.route('**/committed/lesson/trajectories.json', (r) => r.abort());
  await page2.goto('/#/results?preset=lesson');
  await expect(page2.locator('#results-committed .error-box')).toContainText('Could not load trajectories');
  await expect(page2.locator('#paper-table tbody tr').first()).toBeVisible();
  await context.close();
});

test('the map of conditions: Results shows each committed cell of docs/results/map.json (interval, verdict, figure), fetched; the door says what it found', async ({
  browser,
}) => {
  const map = JSON.parse(readFileSync('docs/results/map.json', 'utf8')) as {
    cells: {
      preset: string;
      verdicts: { set: { key: string }; direction: string; comparison: { pass: { diff: number; lo: number; hi: number } } }[];
    }[];
  };
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const errors = watchErrors(page);
  const mapRequests: string[] = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/committed/map.json')) mapRequests.push(r.url());
  });
  await page.goto('/');
  // The door: what the map found, generated from map.json (no cell is ahead beyond noise: one sentence per base exposure).
  const finding = page.locator('#train-map-finding');
  await expect(finding).toBeVisible();
  const ahead = map.cells.filter((c) => c.verdicts.find((v) => v.set.key === 'inSpace')?.direction === 'ahead');
  if (ahead.length) {
    await expect(finding).toContainText('is ahead of the single harness');
    // Opened, it says how the lesson demonstrates that cell.
    await finding.locator('summary').click();
    await expect(page.locator('#train-map-lesson')).toContainText('The lesson is a smaller version of this cell: 1 seed instead of');
  } else {
    await expect(finding).toContainText('no cell shows harness scaling ahead of the single harness beyond noise yet');
    await expect(finding.locator('li')).toHaveCount(new Set(map.cells.map((c) => (c as unknown as { exposure: string }).exposure)).size);
  }
  await page.goto('/#/results');
  const rows = page.locator('#map-table tbody tr');
  await expect(rows).toHaveCount(map.cells.length);
  // Each cell read together with the others (Bonferroni over the cells with an interval), as RESULTS.md's column.
  const family = familywiseInSpace(map.cells as unknown as MapCell[]);
  for (const c of map.cells) {
    const v = c.verdicts.find((x) => x.set.key === 'inSpace')!;
    const row = page.locator(`#map-table tr[data-preset="${c.preset}"]`);
    await expect(row).toHaveAttribute('data-verdict', v.direction);
    const fw = family.get(c.preset);
    await expect(row.locator('td[data-label="over the map"]')).toHaveAttribute('data-holds', fw ? String(fw.holds) : '');
    if (fw?.holds) await expect(row.locator('td[data-label="over the map"]')).toContainText('holds');
    const cell = row.locator('td[data-label="in-space: HS − single"]');
    await expect(cell).toHaveAttribute('data-diff', String(v.comparison.pass.diff));
    await expect(cell).toHaveAttribute('data-lo', String(v.comparison.pass.lo));
    await expect(cell).toHaveAttribute('data-hi', String(v.comparison.pass.hi));
    const points = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;
    await expect(cell).toHaveText(`${points(v.comparison.pass.diff)} [${points(v.comparison.pass.lo)}, ${points(v.comparison.pass.hi)}]`);
    // The note: the cell's starting in-space pass@1 (its committed runs' before-training mean); at the floor it says so.
    const runs = (JSON.parse(readFileSync(`docs/results/${c.preset}/results.json`, 'utf8')) as { runs: { before: { inSpace: number } }[] })
      .runs;
    const start = runs.reduce((a, r) => a + r.before.inSpace, 0) / runs.length;
    await expect(row.locator('td[data-label="note"]')).toContainText(`in-space pass@1 starts at ${(100 * start).toFixed(1)} %`);
    if (v.direction === 'not measurable') await expect(row.locator('td[data-label="note"]')).toContainText('in-space floor');
  }
  // Folded below: each cell by distance band, as RESULTS.md's bands block (conditions_map_bands.ts).
  await page.locator('#map-bands summary').click();
  const bands = bandTable(map.cells as unknown as MapCell[]);
  await expect(page.locator('#map-bands-table tbody tr')).toHaveCount(bands.rows.length);
  for (const r of bands.rows)
    for (const b of r.bands) {
      const td = page.locator(`#map-bands-table tr[data-preset="${r.cell.preset}"] td[data-label="d=${b.distance}"]`);
      await expect(td).toHaveAttribute('data-direction', b.verdict.direction);
      await expect(td).toContainText(b.word);
    }
  await expect(page.locator('#map-figure svg > rect').first()).toBeVisible();
  await expect(page.locator('#map-sentences li')).not.toHaveCount(0);
  // Places running in seed chunks: each named with its seeds so far, no verdict (as RESULTS.md says).
  const running = (JSON.parse(readFileSync('docs/results/map.json', 'utf8')) as { inProgress?: CellProgress[] }).inProgress ?? [];
  if (running.length) for (const p of running) await expect(page.locator('#map-progress')).toContainText(progressText(p));
  else await expect(page.locator('#map-progress')).toHaveCount(0);
  // A cell links to its committed results.
  await rows.first().locator('a').click();
  await expect(page).toHaveURL(new RegExp(`preset=${map.cells[0].preset}`));
  await expect(page.locator('#paper-table tbody tr').first()).toBeVisible();
  expect(mapRequests.length).toBeGreaterThan(0);
  expect(errors).toEqual([]);
  await context.close();
});

test('the harness-count curve: Results of committed harness-count shows pass@1 against N, each N against N = 1 as RESULTS.md reads it; main has no such section; diversity reads K', async ({
  browser,
}) => {
  const committed = loadCommitted();
  const curve = sweepCurve(committed.get('harness-count')!)!;
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto('/#/results?preset=harness-count');
  await expect(page.locator('#results-committed-status')).toHaveText(/^\s*Loaded\./);
  await expect(page.locator('#sweep')).toHaveAttribute('data-axis', 'N');
  const rows = page.locator('#sweep-table tbody tr');
  await expect(rows).toHaveCount(curve.points.length);
  expect(await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-x'))))).toEqual(curve.points.map((p) => p.value));
  for (const p of curve.points) {
    const row = page.locator(`#sweep-table tr[data-x="${p.value}"]`);
    for (const set of ['inSpace', 'base'] as const) {
      const label = set === 'inSpace' ? 'in-space' : 'base';
      const v = p.vsOne[set];
      const cell = row.locator(`td[data-label="${label}: N − (N = 1)"]`);
      await expect(cell).toHaveAttribute('data-direction', v?.direction ?? '');
      if (v) await expect(cell).toContainText(intervalText(v));
    }
  }
  const decided = curve.points
    .flatMap((p) => [p.vsOne.inSpace, p.vsOne.base])
    .filter((v) => v?.direction === 'ahead' || v?.direction === 'behind');
  await expect(page.locator('#sweep-figure svg circle')).toHaveCount(2 * curve.points.length);
  await expect(page.locator('#sweep-figure svg circle[fill="#1f77b4"]')).toHaveCount(decided.length);
  await page.goto('/#/results?preset=main');
  await expect(page.locator('#paper-table tbody tr').first()).toBeVisible();
  await expect(page.locator('#sweep')).toHaveCount(0);
  // diversity's arms vary K: the same section reads K against K = 1.
  await page.goto('/#/results?preset=diversity');
  await expect(page.locator('#results-committed-status')).toHaveText(/^\s*Loaded\./);
  await expect(page.locator('#sweep')).toHaveAttribute('data-axis', 'K');
  expect(await page.locator('#sweep-table tbody tr').evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-x'))))).toEqual(
    sweepCurve(committed.get('diversity')!)!.points.map((p) => p.value),
  );
  // Time counts every segment of the runs: map-base-only-60's chunks were resumed, so their last calls' page time is less.
  const cut = JSON.parse(readFileSync('docs/results/map-base-only-60/results.json', 'utf8')) as {
    seconds: number;
    runs: { seconds: number }[];
  };
  const fmt = (x: number) => `${Math.round(x).toLocaleString('en-US')} s`;
  await page.goto('/#/results?preset=map-base-only-60');
  await expect(page.locator('#results-committed-status')).toHaveText(/^\s*Loaded\./);
  await expect(page.locator('#results-time')).toHaveText(
    `${fmt(cut.runs.reduce((a, r) => a + r.seconds, 0))} over every segment of its runs (${fmt(cut.seconds)} of them in the chunks' last calls)`,
  );
  expect(errors).toEqual([]);
  await context.close();
});

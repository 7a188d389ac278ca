/**
 * The Compare view in real Chromium: two outputs saved in the results store (the
 * synthetic results file of app_results.fixture.ts, the second with other numbers and another
 * spec) are picked from the list; the curves are overlaid (one series per run × method × seed,
 * hover shows values), the pass@1 tables are side by side (checked against the files), the
 * harness-scaling panel has one column per run × method (split by Hamming distance when the runs
 * share a design), and the spec diff lists exactly the fields that differ. No horizontal scroll at 390 px; screenshots at
 * 1280×800 and 390×844 under test-results/. Between methods: committed main beside
 * committed lesson, its numbers checked against pairVerdicts in Node over the same files; a pair
 * that shares no episode says so and shows no number; picking the other arm swaps the sign.
 */
import { readFileSync } from 'node:fs';
import { test, expect, type Page } from '@playwright/test';
import { pairReport, pairVerdicts } from '../../src/report/method_verdict';
import type { RunResult } from '../../src/report/results_schema';
import { screenshots } from './lib/screenshots';

test.describe.configure({ mode: 'serial' });

let page: Page;
const errors: string[] = [];
const A = 'compare-test A';
const B = 'compare-test B';

test.beforeAll(async ({ browser }) => {
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  await page.goto('/#/compare');
  await expect(page.locator('h1')).toHaveText('Compare runs');
  await page.evaluate(
    async ([a, b]) => {
      const fx = (await import(
        /* @vite-ignore */ '/tests/browser/app_results.fixture.ts'.toString()
      )) as typeof import('./app_results.fixture');
      const store = (await import(
        /* @vite-ignore */ '/src/app/results_store.ts'.toString()
      )) as typeof import('../../src/app/results_store');
      // The app's form (what Train saves: ExperimentResults under `results`), which keeps extra fields such as specJson.
      const cli = JSON.parse(await fx.buildFixture());
      const out = {
        status: 'done' as const,
        results: { resultsVersion: cli.resultsVersion, spec: cli.spec, evalSet: cli.evalSet, machine: cli.machine, runs: cli.runs },
        curves: cli.curves,
        warnings: cli.warnings,
      };
      const spec = {
        specVersion: 1,
        name: 'fixture',
        seeds: [0, 1],
        rl: { steps: 3, lr: 0.0001 },
        model: { preset: 'mini', init: 'base' },
      };
      await store.saveRunOutput(a, { ...out, specJson: spec });
      // B: other numbers (every after pass@1 halved) and another spec (steps, lr, init).
      const outB = JSON.parse(JSON.stringify(out));
      for (const r of outB.results.runs) r.after.base /= 2;
      await store.saveRunOutput(b, {
        ...outB,
        specJson: { ...spec, rl: { steps: 6, lr: 0.0003 }, model: { preset: 'mini', init: 'scratch' } },
      });
    },
    [A, B],
  );
});

test.afterAll(async () => {
  await page?.context().close();
});

test.afterEach(() => {
  expect(errors.splice(0), 'page errors').toEqual([]);
});

test('two saved runs: overlaid curves with hover values, side-by-side tables, spec diff', async ({}, info) => {
  await page.goto('/#/compare');
  await page.reload();
  await page.locator(`#compare-list input[data-run="${A}"]`).check();
  await page.locator(`#compare-list input[data-run="${B}"]`).check();
  await expect(page).toHaveURL(/#\/compare\?runs=/);
  // 2 runs × 4 curves (2 methods × 2 seeds) on every chart.
  const charts = page.locator('#compare-curves hl-curve-chart');
  await expect(charts).toHaveCount(6);
  const label = (await charts.first().getAttribute('aria-label'))!;
  for (const s of ['A · oa · s0', 'A · random · s1', 'B · oa · s0', 'B · random · s1']) expect(label).toContain(s);
  expect(label.match(/ · s\d: /g)).toHaveLength(8);
  // Hover: the legend shows the values under the cursor.
  const over = charts.first().locator('.u-over');
  // The list of saved and committed runs above the charts grows with docs/results: scroll first.
  await over.scrollIntoViewIfNeeded();
  const box = (await over.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await expect(charts.first().locator('.u-legend .u-series').nth(1).locator('.u-value')).toHaveText(/^-?\d/);

  // Smoothing (EMA): the charts draw the smoothed values (their labels state them).
  const raw = (await charts.first().getAttribute('aria-label'))!;
  await page.selectOption('#compare-smoothing', '0.9');
  await expect(charts.first()).toHaveAttribute('data-smoothing', '0.9');
  expect(await charts.first().getAttribute('aria-label')).not.toBe(raw);
  await page.selectOption('#compare-smoothing', '0');
  await expect(charts.first()).toHaveAttribute('aria-label', raw);

  // Side by side: one row per run × method; B's after base is A's halved.
  const rows = page.locator('#compare-table tbody tr');
  await expect(rows).toHaveCount(4);
  const meanOf = async (run: string, method: string) =>
    Number(
      await page.locator(`#compare-table tr[data-run="${run}"][data-method="${method}"] td[data-col="base"]`).getAttribute('data-mean'),
    );
  for (const m of ['oa', 'random']) expect(await meanOf('B', m)).toBeCloseTo((await meanOf('A', m)) / 2, 10);

  // Harness scaling: the Results view's panel, one column per run × method, one row per harness set.
  const heads = await page.locator('#compare-scaling-table thead th').allTextContents();
  expect(heads).toEqual(['harness set', 'A · oa', 'A · random', 'B · oa', 'B · random']);
  const scalingRows = page.locator('#compare-scaling-table tbody tr');
  expect(await scalingRows.evaluateAll((rs) => rs.map((r) => r.getAttribute('data-set')))).toEqual([
    'base',
    'train',
    'inSpace',
    'bb-assistant',
    'bb-coding-cli',
  ]);
  const cell = (set: string, col: number) => page.locator(`#compare-scaling-table tr[data-set="${set}"] td`).nth(col);
  // 'oa' runs carry episodes (the same in A and B): pooled over 2 seeds × 24 episodes, with an interval.
  await expect(cell('base', 0)).toHaveAttribute('data-episodes', '48');
  expect(await cell('base', 2).getAttribute('data-rate')).toBe(await cell('base', 0).getAttribute('data-rate'));
  // 'random' has none: the mean over seeds, and B's is A's halved.
  await expect(cell('base', 1)).toContainText('no per-episode outcomes');
  expect(Number(await cell('base', 3).getAttribute('data-rate'))).toBeCloseTo(
    Number(await cell('base', 1).getAttribute('data-rate')) / 2,
    10,
  );
  // Specs without a design shared by both runs: in-space is one row, and the panel says why.
  await expect(page.locator('#compare-scaling-no-distance')).toBeVisible();

  // Spec diff: exactly the fields that differ.
  const diff = page.locator('#compare-diff tbody tr');
  await expect(diff).toHaveCount(3);
  expect(await diff.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-path')))).toEqual(['model.init', 'rl.lr', 'rl.steps']);
  await expect(page.locator('#compare-diff tr[data-path="rl.steps"]')).toContainText('36');
  await screenshots(page, info, 'compare');

  // 390 px: no horizontal scroll.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(0);
  await page.setViewportSize({ width: 1280, height: 800 });
});

test('two runs of one design (quick): the harness-scaling panel splits held-out in-space configurations by Hamming distance', async () => {
  const names = ['scaling-test A', 'scaling-test B'];
  await page.evaluate(async (ns) => {
    const fx = (await import(
      /* @vite-ignore */ '/tests/browser/app_results.fixture.ts'.toString()
    )) as typeof import('./app_results.fixture');
    const store = (await import(/* @vite-ignore */ '/src/app/results_store.ts'.toString())) as typeof import('../../src/app/results_store');
    const presets = (await import(
      /* @vite-ignore */ '/src/experiment/presets.ts'.toString()
    )) as typeof import('../../src/experiment/presets');
    const cli = JSON.parse(await fx.buildFixture());
    // The 'oa' runs' in-space episodes: the base cells under S0-T0-O0-C0-W1, one component from S0-T0-O0-C0-W0 of quick's L18 (d = 1).
    for (const r of cli.runs.filter((x: { episodes?: unknown }) => x.episodes)) {
      for (const k of ['before', 'after'] as const)
        r.episodes[k].inSpace = r.episodes[k].base.map((e: object) => ({ ...e, harnessId: 'S0-T0-O0-C0-W1' }));
    }
    const out = {
      status: 'done' as const,
      results: { resultsVersion: cli.resultsVersion, spec: 'quick', evalSet: cli.evalSet, machine: cli.machine, runs: cli.runs },
      curves: cli.curves,
      warnings: [],
    };
    for (const n of ns) await store.saveRunOutput(n, { ...out, specJson: presets.getPreset('quick') });
  }, names);
  await page.goto(`/#/compare?runs=${encodeURIComponent(JSON.stringify(names))}`);
  const rows = page.locator('#compare-scaling-table tbody tr');
  await expect(rows).toHaveCount(5);
  expect(await rows.evaluateAll((rs) => rs.map((r) => r.getAttribute('data-set')))).toEqual([
    'base',
    'train',
    'inSpace-d1',
    'bb-assistant',
    'bb-coding-cli',
  ]);
  await expect(page.locator('#compare-scaling-table tr[data-set="inSpace-d1"] th')).toHaveText('in-space, d = 1 to the base harness');
  await expect(page.locator('#compare-scaling-table tr[data-set="inSpace-d1"] td').first()).toHaveAttribute('data-episodes', '48');
  await expect(page.locator('#compare-scaling-no-distance')).toHaveCount(0);
});

test('results of a run saved with its spec: each harness has its role (training, held-out with its distance, black-box); the spec is shown', async ({}, info) => {
  const name = 'roles-test';
  await page.evaluate(async (n) => {
    const fx = (await import(
      /* @vite-ignore */ '/tests/browser/app_results.fixture.ts'.toString()
    )) as typeof import('./app_results.fixture');
    const store = (await import(/* @vite-ignore */ '/src/app/results_store.ts'.toString())) as typeof import('../../src/app/results_store');
    const presets = (await import(
      /* @vite-ignore */ '/src/experiment/presets.ts'.toString()
    )) as typeof import('../../src/experiment/presets');
    const cli = JSON.parse(await fx.buildFixture());
    // quick trains the L18 orthogonal array: S0-T0-O0-C0-W0 and S1-T1-O1-C1-W1 are in it, S0-T0-O0-C0-W1 is not (one component from the base).
    for (const r of cli.runs) r.perHarness = { 'S0-T0-O0-C0-W0': 0.5, 'S1-T1-O1-C1-W1': 0.25, 'S0-T0-O0-C0-W1': 0.75, 'bb-assistant': 0 };
    const out = {
      status: 'done' as const,
      results: { resultsVersion: cli.resultsVersion, spec: 'quick', evalSet: cli.evalSet, machine: cli.machine, runs: cli.runs },
      curves: cli.curves,
      warnings: [],
    };
    await store.saveRunOutput(n, { ...out, specJson: presets.getPreset('quick') });
  }, name);
  await page.goto(`/#/results?run=${encodeURIComponent(name)}`);
  const role = (h: string) => page.locator(`#harness-table tr[data-harness="${h}"] td.role`);
  await expect(role('S0-T0-O0-C0-W0')).toHaveText('base · training');
  await expect(role('S1-T1-O1-C1-W1')).toHaveText('training');
  await expect(role('S0-T0-O0-C0-W1')).toHaveText('held-out · d=1 to the base harness');
  await expect(role('bb-assistant')).toHaveText('black-box');
  await page.locator('#results-spec summary').click();
  await expect(page.locator('#results-spec pre')).toContainText('"name": "quick"');
  await screenshots(page, info, 'results-roles');
  // With saved runs listed (long names), Results and Compare still have no horizontal scroll at 390 px.
  await page.setViewportSize({ width: 390, height: 844 });
  for (const url of [`/#/results?run=${encodeURIComponent(name)}`, '/#/compare']) {
    await page.goto(url);
    await expect(page.locator('.view:not([hidden]) h1')).toBeVisible();
    await expect(page.locator('.view:not([hidden]) :is(table, #compare-list)').first()).toBeVisible();
    await expect
      .poll(() => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), { message: url })
      .toBe(0);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
});

/** Every committed output's runs as Compare names them (`<tag> · <method>`), read in Node from docs/results. */
const committedRuns = (picks: readonly [tag: string, preset: string][]): RunResult[] =>
  picks.flatMap(([tag, preset]) =>
    (JSON.parse(readFileSync(`docs/results/${preset}/results.json`, 'utf8')) as { runs: RunResult[] }).runs.map((r) => ({
      ...r,
      method: `${tag} · ${r.method}`,
    })),
  );

/** The panel's rows equal pairVerdicts' in Node for the pair picked: one row per set either arm was evaluated on, "not paired" where nothing pairs. */
async function expectRowsMatchNode(runs: readonly RunResult[], a: string, b: string): Promise<void> {
  await expect(page.locator('#compare-between-a')).toHaveValue(a);
  await expect(page.locator('#compare-between-b')).toHaveValue(b);
  const verdicts = pairVerdicts(runs, a, b);
  expect(verdicts.length).toBeGreaterThan(0);
  const sets = pairReport(runs, a, b).map((r) => r.coverage.set.key);
  const rows = page.locator('#compare-between-table tbody tr');
  await expect(rows).toHaveCount(sets.length);
  expect(await rows.evaluateAll((rs) => rs.map((r) => r.getAttribute('data-set')))).toEqual(sets);
  for (const key of sets) {
    const row = page.locator(`#compare-between-table tr[data-set="${key}"]`);
    const v = verdicts.find((x) => x.set.key === key);
    if (!v) {
      await expect(row).toHaveAttribute('data-direction', 'not paired');
      continue;
    }
    await expect(row).toHaveAttribute('data-direction', v.direction);
    const p = v.comparison.pass;
    for (const [attr, want] of [
      ['data-diff', p.diff],
      ['data-lo', p.lo],
      ['data-hi', p.hi],
    ] as const) {
      // One seed has no interval: lo and hi are NaN in both.
      const got = Number(await row.getAttribute(attr));
      if (Number.isNaN(want)) expect(got, `${key} ${attr}`).toBeNaN();
      else expect(got, `${key} ${attr}`).toBeCloseTo(want, 12);
    }
    await expect(row).toHaveAttribute('data-seeds', String(p.seeds));
    await expect(row).toHaveAttribute('data-configs', String(p.configs));
  }
  await expect(page.locator('#compare-between-verdict')).toHaveText(verdicts[0].sentence);
}

test('Between methods over committed main (A) and committed lesson (B): within main in full, across them on the shared episodes only, numbers as pairVerdicts in Node; the other arm swaps the sign', async () => {
  test.setTimeout(300_000);
  const runs = committedRuns([
    ['A', 'main'],
    ['B', 'lesson'],
  ]);
  const single = 'A · single harness (GRPO)';
  const scaling = 'A · harness scaling (GRPO, K=4)';
  const lesson = 'B · single harness (GRPO)';
  await page.goto(`/#/compare?runs=${encodeURIComponent(JSON.stringify([{ preset: 'main' }, { preset: 'lesson' }]))}`);
  // main's episodes take a while to arrive: the panel says it is loading, then shows the pair within main (the default).
  await expect(page.locator('#compare-between-table')).toBeVisible({ timeout: 180_000 });
  await expect(page.locator('#compare-between-loading')).toHaveCount(0);
  await expectRowsMatchNode(runs, single, scaling);
  // Within one output every episode pairs: nothing to warn about.
  await expect(page.locator('#compare-between-pairing')).toHaveCount(0);
  await expect(page.locator('#compare-between-table tr[data-set="inSpace"]')).toHaveAttribute('data-extent', 'full');

  // Across outputs: lesson's single-harness run against main's. Only seed 0 is shared.
  await page.selectOption('#compare-between-b', lesson);
  const hashParams = () => Object.fromEntries(new URLSearchParams(new URL(page.url()).hash.split('?')[1] ?? ''));
  await expect.poll(hashParams).toMatchObject({ a: single, b: lesson });
  const pairing = page.locator('#compare-between-pairing');
  await expect(pairing).toHaveAttribute('data-extent', 'partial');
  await expect(pairing).toContainText('Paired only in part.');
  for (const set of ['inSpace', 'base'])
    await expect(pairing.locator(`li[data-set="${set}"]`)).toContainText(`only seed 0 in common (${lesson}: seed 0; ${single}: seeds 0–9)`);
  await expectRowsMatchNode(runs, single, lesson);
  const base = page.locator('#compare-between-table tr[data-set="base"]');
  await expect(base).toHaveAttribute('data-extent', 'partial');
  await expect(base).toHaveAttribute('data-seeds', '1');
  const diff = Number(await base.getAttribute('data-diff'));
  expect(diff).not.toBe(0);

  // The URL reproduces the view.
  await page.reload();
  await expect(page.locator('#compare-between-table')).toBeVisible({ timeout: 180_000 });
  await expectRowsMatchNode(runs, single, lesson);

  // Picking B's method for A swaps the arms: the sign flips.
  await page.selectOption('#compare-between-a', lesson);
  await expectRowsMatchNode(runs, lesson, single);
  expect(Number(await base.getAttribute('data-diff'))).toBeCloseTo(-diff, 12);
  await page.setViewportSize({ width: 390, height: 844 });
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(0);
  await page.setViewportSize({ width: 1280, height: 800 });
});

test('Between methods: a pair that shares no episode says why and shows no number', async () => {
  test.setTimeout(180_000);
  await page.goto(`/#/compare?runs=${encodeURIComponent(JSON.stringify([A, { preset: 'lesson' }]))}`);
  // Default: within the saved output (oa vs random); random has no per-episode outcomes, and the panel says so.
  await expect(page.locator('#compare-between-a')).toHaveValue('A · oa');
  await expect(page.locator('#compare-between-b')).toHaveValue('A · random');
  await expect(page.locator('#compare-between-none')).toContainText('A · random has no per-episode outcomes');
  // The fixture's oa runs (seeds 0 and 1, csv-sum tasks on the base harness) against lesson (seed 0, other tasks): nothing pairs.
  await page.selectOption('#compare-between-b', 'B · single harness (GRPO)');
  const pairing = page.locator('#compare-between-pairing');
  await expect(pairing).toHaveAttribute('data-extent', 'none');
  await expect(pairing).toContainText('These two methods cannot be paired.');
  await expect(pairing.locator('li[data-set="base"]')).toContainText('only seed 0 in common');
  // The lesson's test tasks under the base harness, from its committed episodes.
  const lessonRun = (JSON.parse(readFileSync('docs/results/lesson/results.json', 'utf8')) as { runs: RunResult[] }).runs[0];
  const lessonTasks = new Set(lessonRun.episodes!.after.base!.map((c) => c.taskId)).size;
  await expect(pairing.locator('li[data-set="base"]')).toContainText(
    `no test task in common (B · single harness (GRPO): ${lessonTasks} tasks; A · oa: 12 tasks)`,
  );
  await expect(pairing.locator('li[data-set="inSpace"]')).toContainText('A · oa has no per-episode outcomes there');
  await expect(page.locator('#compare-between-verdict')).toHaveCount(0);
  await expect(page.locator('#compare-between-table')).toHaveCount(0);
});

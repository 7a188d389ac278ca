/**
 * The Results and Trajectories views in real Chromium: a synthetic results.json
 * (2 methods × 2 seeds, curves, trajectories; built in the page from the real tokenizer, expert
 * episodes and trajectory sampler — app_results.fixture.ts) is opened through the file input;
 * the paper table shows mean ± std over seeds (checked against numbers computed here from the
 * file), CSV / JSON / PNG exports download the right content, an invalid file names its bad
 * field, a run saved in IndexedDB opens from the list and deletes; the Trajectories view
 * filters, steps tokens and colours action tokens apart from context tokens. Screenshots of both
 * views are kept under test-results/ and attached to the report.
 *
 * The app is opened through its shell (index.html, src/app/main.ts) from the Vite dev server;
 * the fixture module is imported into the same page.
 */
import { readFileSync } from 'node:fs';
import { test, expect, type Page, type TestInfo } from '@playwright/test';

test.describe.configure({ mode: 'serial' });

let page: Page;
let fixtureText = '';
// eslint-disable-next-line @typescript-eslint/no-explicit-any
let fixture: any;
const errors: string[] = [];

async function screenshot(p: Page, info: TestInfo, name: string): Promise<void> {
  const path = info.outputPath(`${name}.png`);
  await p.screenshot({ path, fullPage: true });
  await info.attach(name, { path, contentType: 'image/png' });
}

/** Mean and sample std (n − 1), computed here independently of src/report/results_table.ts. */
function pct(xs: number[]): string {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  const s = Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1));
  return `${(100 * m).toFixed(1)} ± ${(100 * s).toFixed(1)}`;
}

async function openFile(name: string, text: string, input = '#results-file'): Promise<void> {
  await page.setInputFiles(input, { name, mimeType: 'application/json', buffer: Buffer.from(text) });
}

test.beforeAll(async ({ browser }) => {
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('dialog', (d) => void d.accept());
  await page.goto('/#/results');
  await expect(page.locator('#results-file')).toBeVisible();
  // The app prewarms the training worker and precaches assets at load; wait until that is over
  // so the worker's module loads are not counted as "requests after load" below.
  await expect(page.locator('html')).toHaveAttribute('data-offline-ready', 'true', { timeout: 60_000 });
  fixtureText = await page.evaluate(async () => {
    const path = '/tests/browser/app_results.fixture.ts';
    const mod = (await import(/* @vite-ignore */ path)) as typeof import('./app_results.fixture');
    return mod.buildFixture();
  });
  fixture = JSON.parse(fixtureText);
});

test.afterAll(async () => {
  await page?.context().close();
});

test.afterEach(() => {
  expect(errors.splice(0), 'page errors').toEqual([]);
});

test('results: the paper table shows mean ± std over seeds per method, charts and sections', async ({}, info) => {
  expect(fixture.runs).toHaveLength(4);
  await openFile('fixture-results.json', fixtureText);
  await expect(page.locator('#paper-table tbody tr')).toHaveCount(3);
  expect(page.url()).toContain('file=fixture-results.json');
  for (const method of ['oa', 'random']) {
    const runs = fixture.runs.filter((r: { method: string }) => r.method === method);
    const row = page.locator(`#paper-table tr[data-method="${method}"]`);
    await expect(row.locator('td').first()).toHaveText('2');
    await expect(row.locator('td[data-col="base"] .after')).toHaveText(pct(runs.map((r: { after: { base: number } }) => r.after.base)));
    await expect(row.locator('td[data-col="inSpace"] .after')).toHaveText(
      pct(runs.map((r: { after: { inSpace: number } }) => r.after.inSpace)),
    );
    await expect(row.locator('td[data-col="bb-coding-cli"] .after')).toHaveText(
      pct(runs.map((r: { after: { blackbox: Record<string, number> } }) => r.after.blackbox['bb-coding-cli'])),
    );
    const before = runs.map((r: { before: { base: number } }) => r.before.base);
    await expect(row.locator('td[data-col="base"] .before')).toHaveText(
      ((100 * before.reduce((a: number, b: number) => a + b, 0)) / before.length).toFixed(1),
    );
  }
  // Intervals and paired differences where the runs carry per-episode outcomes ('oa'), n/a where not.
  const oa = page.locator('#paper-table tr[data-method="oa"] td[data-col="base"]');
  await expect(oa.locator('.ci')).toHaveText(/^\[\d+\.\d, \d+\.\d\] n=48$/);
  await expect(oa.locator('.delta')).toContainText(/2 seeds, decided/);
  await expect(oa).toHaveAttribute('data-decided', 'true');
  await expect(oa).toHaveAttribute('data-episodes', '48');
  const rnd = page.locator('#paper-table tr[data-method="random"] td[data-col="base"]');
  await expect(rnd.locator('.ci')).toHaveText('[n/a]');
  await expect(rnd.locator('.delta')).toHaveText('Δ n/a');
  await expect(rnd.locator('.score')).toHaveText('score n/a');
  await expect(page.locator('#results-no-episodes')).toHaveCount(0);
  // Starting checkpoint: one evaluation per seed (the first run of each seed; methods of a seed share it).
  const firstPerSeed = new Map<number, number>();
  for (const r of fixture.runs as { seed: number; before: { base: number } }[])
    if (!firstPerSeed.has(r.seed)) firstPerSeed.set(r.seed, r.before.base);
  await expect(page.locator('#paper-table tr[data-method="starting checkpoint"] td[data-col="base"] .after')).toHaveText(
    pct([...firstPerSeed.values()]),
  );
  // Behaviour and per-harness tables.
  await expect(page.locator('#behaviour-table tbody tr')).toHaveCount(2);
  await expect(page.locator('#harness-table tbody tr')).toHaveCount(2);
  // Six charts, each with 4 runs × 3 steps of points, drawn on a canvas.
  const charts = page.locator('#curves hl-curve-chart');
  await expect(charts).toHaveCount(6);
  await expect(charts.locator('canvas')).toHaveCount(6);
  expect(await charts.evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.points))).toEqual(Array(6).fill('12'));
  await expect(page.locator('.run-facts')).toContainText('hlab run --spec fixture.json');
  await screenshot(page, info, 'results-view');
});

test('results: the claims panel shows every claim of docs/results/claims.json with its interval and verdict', async () => {
  const claims = JSON.parse(readFileSync(new URL('../../docs/results/claims.json', import.meta.url), 'utf8')) as {
    rows: { id: string; verdict: string; diff: number | null; lo: number | null; hi: number | null }[];
  };
  const rows = page.locator('#claims-table tbody tr');
  await expect(rows).toHaveCount(claims.rows.length);
  for (const c of claims.rows) {
    const row = page.locator(`#claims-table tr[data-claim="${c.id}"]`);
    await expect(row).toHaveAttribute('data-verdict', c.verdict);
    await expect(row.locator('td[data-label="verdict"]')).toHaveText(c.verdict);
    if (c.lo !== null && c.hi !== null && c.diff !== null)
      await expect(row.locator('td[data-label="B − A"]')).toHaveAttribute('data-lo', String(c.lo));
  }
});

test('results: an RL step without an update is a shaded gap in the update charts, not 0; step counts and infeasible cells are listed', async () => {
  // Step 2 of every run applied no update (its loss, KL, clip fraction, gradient norm written as 0, as the runner does); one cell infeasible.
  const f = JSON.parse(fixtureText);
  for (const c of f.curves)
    Object.assign(c.steps[1], { optimizerSteps: 0, skippedSteps: 0, policyLoss: 0, clipFrac: 0, approxKl: 0, gradNorm: 0 });
  f.infeasibleCells = [
    {
      taskId: 'workspace/csv-sum/t1/1000000',
      harnessId: 'bb-assistant',
      reason: 'turns',
      detail: 'the expert needs 9 turns, the budget is 8',
    },
  ];
  await openFile('gaps.json', JSON.stringify(f));
  const charts = page.locator('#curves hl-curve-chart');
  await expect(charts).toHaveCount(6);
  const runs = f.curves.length;
  // Charts in CURVE_METRICS order: reward, policy loss, clip fraction, KL, entropy, gradient norm.
  for (const i of [1, 2, 3, 5]) {
    await expect(charts.nth(i)).toHaveAttribute('data-no-data', '2');
    await expect(charts.nth(i)).toHaveAttribute('data-points', String(2 * runs));
  }
  for (const i of [0, 4]) {
    await expect(charts.nth(i)).not.toHaveAttribute('data-no-data', /./);
    await expect(charts.nth(i)).toHaveAttribute('data-points', String(3 * runs));
  }
  await expect(page.locator('#results-step-counts li').first()).toContainText(
    '3 RL steps · 2 optimizer steps · 0 skipped optimizer steps · 1 RL step without an update',
  );
  await expect(page.locator('#infeasible-table tbody tr')).toHaveCount(1);
  await expect(page.locator('#infeasible-summary')).toContainText('bb-assistant: 1');
  await expect(page.locator('#infeasible-table')).toContainText('the expert needs 9 turns');
});

test("results: a 'before' evaluation reused across methods is said once in a note; without reuse there is none", async () => {
  await openFile('no-reuse.json', fixtureText);
  await expect(page.locator('#paper-table')).toBeVisible();
  await expect(page.locator('#results-before-reused')).toHaveCount(0);
  // The second method of each seed reused the first's shared batch (RunResult.beforeReusedFrom).
  const f = JSON.parse(fixtureText);
  for (const r of f.runs) if (r.method === 'random') r.beforeReusedFrom = { method: 'oa', seed: r.seed, episodes: 12 };
  await openFile('reuse.json', JSON.stringify(f));
  const n = page.locator('#results-before-reused');
  await expect(n).toHaveCount(1);
  await expect(n).toContainText('- random, seed 0: reused from oa, 12 episodes - random, seed 1: reused from oa, 12 episodes');
});

test("results: a run's validation points are the first chart (pass@1 per measured step), left raw by the smoothing", async () => {
  const f = JSON.parse(fixtureText);
  // Two points per run (step 0 = before RL, and step 3), as the runner records them.
  f.curves.forEach((c: { validation?: unknown[] }, i: number) => {
    c.validation = [3, 0].map((step) => ({ step, passAt1: 0.1 * (i + 1) + step / 100, score: 0.5, episodes: 4, ms: 10, cells: [] }));
  });
  await openFile('validation.json', JSON.stringify(f));
  const charts = page.locator('#curves hl-curve-chart');
  await expect(charts).toHaveCount(7);
  const first = charts.first();
  await expect(first).toHaveAttribute('data-points', String(2 * f.curves.length));
  await expect(first).toHaveAttribute('aria-label', /^Validation pass@1 \(train-seed tasks\) per RL step: .*0\.130 at step 3/);
  await page.selectOption('#results-smoothing', { index: 2 });
  await expect(charts.nth(1)).not.toHaveAttribute('data-smoothing', '0');
  await expect(first).toHaveAttribute('data-smoothing', '0');
  await page.selectOption('#results-smoothing', { index: 0 });
});

test('results: harness scaling at a glance — per harness set and method, pooled pass@1 with its Wilson interval and the paired Δ', async () => {
  await openFile('scaling.json', fixtureText);
  const rows = page.locator('#scaling-table tbody tr');
  await expect(rows).toHaveCount(5);
  expect(await rows.evaluateAll((rs) => rs.map((r) => r.getAttribute('data-set')))).toEqual([
    'base',
    'train',
    'inSpace',
    'bb-assistant',
    'bb-coding-cli',
  ]);
  // 'oa' carries episodes in its base column: 2 seeds × 24, Wilson interval computed here.
  const eps = fixture.runs
    .filter((r: { method: string }) => r.method === 'oa')
    .flatMap((r: { episodes: { after: { base: { pass: boolean }[] } } }) => r.episodes.after.base);
  const k = eps.filter((e: { pass: boolean }) => e.pass).length;
  const n = eps.length;
  const z = 1.959963984540054;
  const p = k / n;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z / (1 + (z * z) / n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  const cell = page.locator('#scaling-table tr[data-set="base"] td').first();
  await expect(cell).toHaveAttribute('data-episodes', String(n));
  expect(Number(await cell.getAttribute('data-lo'))).toBeCloseTo(Math.max(0, centre - half), 9);
  expect(Number(await cell.getAttribute('data-hi'))).toBeCloseTo(Math.min(1, centre + half), 9);
  await expect(cell).toContainText('Δ +');
  // 'random' has no per-episode outcomes: the mean over seeds, said to be without an interval.
  await expect(page.locator('#scaling-table tr[data-set="base"] td').nth(1)).toContainText('no per-episode outcomes');
  // No spec is known for a file: in-space is not split by distance, and the view says why.
  await expect(page.locator('#scaling-no-distance')).toBeVisible();
});

test('results: CSV, JSON and PNG exports download the right content', async ({}, info) => {
  const grab = async (button: string) => {
    const [d] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
    const path = info.outputPath(d.suggestedFilename());
    await d.saveAs(path);
    return { name: d.suggestedFilename(), bytes: readFileSync(path) };
  };
  const csv = await grab('#export-csv');
  expect(csv.name).toBe('fixture-results.csv');
  const lines = csv.bytes.toString('utf8').trim().split('\n');
  expect(lines).toHaveLength(5);
  const head = lines[0].split(',');
  expect(head.slice(0, 3)).toEqual(['method', 'algorithm', 'seed']);
  const first = lines[1].split(',');
  expect(first[0]).toBe('oa');
  expect(Number(first[head.indexOf('base_after')])).toBeCloseTo(fixture.runs[0].after.base, 12);
  expect(Number(first[head.indexOf('bb-assistant_after')])).toBeCloseTo(fixture.runs[0].after.blackbox['bb-assistant'], 12);

  const json = await grab('#export-json');
  expect(json.name).toBe('fixture-results.json');
  const out = JSON.parse(json.bytes.toString('utf8'));
  expect(out.results.runs).toEqual(fixture.runs);
  expect(out.curves).toHaveLength(4);
  expect(out.trajectories).toHaveLength(fixture.trajectories.length);

  const png = await grab('#export-png');
  expect(png.name).toBe('fixture-results.png');
  expect([...png.bytes.subarray(1, 4)].map((b) => String.fromCharCode(b)).join('')).toBe('PNG');
  // Table + 6 charts: far larger than an empty canvas.
  expect(png.bytes.length).toBeGreaterThan(20_000);
});

test('results: an invalid file shows the bad field; a saved run opens from the list and deletes', async () => {
  const bad = JSON.parse(fixtureText);
  bad.runs[1].after.base = 'high';
  await openFile('bad.json', JSON.stringify(bad));
  await expect(page.locator('#results-file-error')).toBeVisible();
  await expect(page.locator('#results-file-error')).toContainText('bad.json: runs[1].after.base');
  await openFile('broken.json', '{"runs": [');
  await expect(page.locator('#results-file-error')).toContainText('broken.json: not JSON');

  // Save through the store (as the Train view does) and open it from the list.
  await page.evaluate(async (text) => {
    const path = '/src/app/results_store.ts';
    const store = (await import(/* @vite-ignore */ path)) as typeof import('../../src/app/results_store');
    await store.saveRunOutput('fixture-run', store.parseResultsText(text));
  }, fixtureText);
  await page.reload();
  const open = page.locator('#results-saved button[data-open="fixture-run"]');
  await expect(open).toBeVisible();
  await open.click();
  await expect(page.locator('#paper-table tbody tr')).toHaveCount(3);
  expect(page.url()).toContain('run=fixture-run');
  await page.locator('#results-saved button[data-delete="fixture-run"]').click();
  await expect(page.locator('#results-saved-empty')).toBeVisible();
  await expect(page.locator('#paper-table')).toHaveCount(0);
});

test('results: an hlab evaluate --json report opens as a file and shows its per-family table and entropy, without run sections', async ({}, info) => {
  const report = await page.evaluate(async () => {
    const path = '/src/report/evaluate_report.ts';
    const m = (await import(/* @vite-ignore */ path)) as typeof import('../../src/report/evaluate_report');
    const plan = m.resolveEvalHarnesses('base,bb-assistant,blackbox');
    const ep = (taskId: string, harnessId: string, pass: boolean) => ({
      taskId,
      harnessId,
      pass,
      score: pass ? 1 : 0,
      turns: [{ entropies: [0.5, 1.5] }],
      tags: null,
    });
    const eps = [
      ep('workspace/cleanup/t1/1000001', 'S0-T0-O0-C0-W0', true),
      ep('workspace/cleanup/t1/1000002', 'S0-T0-O0-C0-W0', false),
      ep('errands/recall/t1/1000003', 'S0-T0-O0-C0-W0', false),
      ep('errands/recall/t1/1000003', 'bb-assistant', true),
    ];
    return JSON.stringify(m.evalReport(plan, eps, { source: 'base-mini.ckpt', machine: 'test page' }));
  });
  await openFile('eval.json', report);
  const table = page.locator('#family-table');
  await expect(table).toBeVisible();
  await expect(table.locator('thead th')).toHaveText(['suite/family', 'base', 'bb-coding-cli', 'bb-assistant']);
  await expect(table.locator('tr[data-family="workspace/cleanup"] td[data-col="base"]')).toHaveText('0.50 (2)');
  await expect(table.locator('tr[data-family="errands/recall"] td[data-col="bb-assistant"]')).toHaveText('1.00 (1)');
  await expect(table.locator('tr[data-family="errands/recall"] td[data-col="bb-coding-cli"]')).toHaveText('—');
  await expect(page.locator('#family-entropy')).toContainText('all 1.000');
  await expect(page.locator('#paper-table')).toHaveCount(0);
  await expect(page.locator('#harness-table')).toHaveCount(0);
  await screenshot(page, info, 'results-evaluation-report');
  // A results file: per method with per-episode outcomes ('oa': workspace/csv-sum under base, 2 seeds × 24), pooled over seeds.
  await openFile('fixture-results.json', fixtureText);
  await expect(page.locator('#paper-table')).toBeVisible();
  const oaCells = fixture.runs
    .filter((r: { method: string }) => r.method === 'oa')
    .flatMap((r: { episodes: { after: { base: { pass: boolean }[] } } }) => r.episodes.after.base);
  const passes = oaCells.filter((c: { pass: boolean }) => c.pass).length;
  await expect(page.locator('#family-table-oa tr[data-family="workspace/csv-sum"] td[data-col="base"]')).toHaveText(
    `${(passes / oaCells.length).toFixed(2)} (${oaCells.length})`,
  );
  await expect(page.locator('#family-table-random')).toHaveCount(0);
});

test('trajectories: filters, token-by-token replay, mask and advantage colours', async ({}, info) => {
  await openFile('fixture-results.json', fixtureText, '#results-file');
  // No network after load: the vocabulary was fetched while the app loaded.
  // An earlier test may have reloaded the page: wait again for the prewarmed worker and cache.
  await expect(page.locator('html')).toHaveAttribute('data-offline-ready', 'true', { timeout: 60_000 });
  const requests: string[] = [];
  const onRequest = (r: { url(): string }) => requests.push(r.url());
  page.on('request', onRequest);
  await page.context().setOffline(true);
  // A same-document navigation, as a user following a link: the opened file stays in memory.
  await page.evaluate(() => (location.hash = '#/trajectories?file=fixture-results.json'));
  const total = fixture.trajectories.length;
  expect(total).toBe(2 * 2 * 3 * 2);
  await expect(page.locator('#traj-count')).toHaveText(`${total} of ${total} trajectories`);
  // Filters: outcome pass → only passing rows; then method.
  await page.selectOption('#traj-outcome', 'pass');
  const passing = fixture.trajectories.filter((t: { pass: boolean }) => t.pass).length;
  await expect(page.locator('#traj-count')).toHaveText(`${passing} of ${total} trajectories`);
  expect(await page.locator('#traj-table tbody tr td.yes').count()).toBe(passing);
  expect(await page.locator('#traj-table tbody tr td.no').count()).toBe(0);
  await page.selectOption('#traj-method', 'random');
  const both = fixture.trajectories.filter((t: { pass: boolean; method: string }) => t.pass && t.method === 'random').length;
  await expect(page.locator('#traj-count')).toHaveText(`${both} of ${total} trajectories`);
  expect(page.url()).toContain('outcome=pass');
  expect(page.url()).toContain('method=random');
  await expect(page.locator('#traj-result')).toHaveText(/^pass/);
  // Replay starts with the whole context shown and the first action token still to come.
  const cursor = page.locator('#traj-cursor');
  await expect(cursor).toContainText('context (mask 0)');
  const before = await page.locator('#traj-tokens .tok.future').count();
  await page.click('.replay-controls button[data-step="next"]');
  await expect(cursor).toContainText('action');
  await expect(page.locator('#traj-tokens .tok.future')).toHaveCount(before - 1);
  // Keyboard: → steps one more token, ← steps back.
  await page.focus('#traj-tokens');
  await page.keyboard.press('ArrowRight');
  await expect(page.locator('#traj-tokens .tok.future')).toHaveCount(before - 2);
  await page.keyboard.press('ArrowLeft');
  await expect(page.locator('#traj-tokens .tok.future')).toHaveCount(before - 1);
  // Special tokens are shown literally: role markers in the context, <|end|> closing the action.
  const ctxTexts = await page.locator('#traj-tokens .tok.ctx').allTextContents();
  expect(ctxTexts.filter((t) => /^<\|(system|user|assistant|tool|end)\|>$/.test(t)).length).toBeGreaterThan(0);
  // The stored context is the last 96 ids; the dropped head is announced.
  await expect(page.locator('#traj-tokens .dropped')).toContainText('earlier context tokens not stored');
  await expect(page.locator('#traj-tokens .tok.act').last()).toHaveText('<|end|>');
  // Mask colouring: context and action tokens differ.
  const bg = (sel: string) =>
    page
      .locator(sel)
      .first()
      .evaluate((e) => getComputedStyle(e).backgroundColor);
  const ctxBg = await bg('#traj-tokens .tok.ctx');
  const actBg = await bg('#traj-tokens .tok.act');
  expect(ctxBg).not.toBe(actBg);
  expect(
    await page.locator('#traj-tokens .tok.act').evaluateAll((els) => new Set(els.map((e) => getComputedStyle(e).backgroundColor)).size),
  ).toBe(1);
  // Advantage colouring: a passing GRPO rollout of a group with one failure has A > 0 → blue.
  await page.selectOption('#traj-color', 'adv');
  await expect(page.locator('#traj-legend')).toContainText('blue');
  const advBg = await bg('#traj-tokens .tok.act');
  const [r, , b] = advBg.match(/\d+/g)!.map(Number);
  expect(b).toBeGreaterThan(r);
  expect(await bg('#traj-tokens .tok.ctx')).toBe(ctxBg);
  // Jump to the last turn; play runs to the end and stops.
  const turns = await page.locator('#traj-turn option').count();
  await page.selectOption('#traj-turn', String(turns));
  await expect(cursor).toContainText(`Turn ${turns} of ${turns}`);
  await page.selectOption('#traj-speed', '100');
  await page.click('.replay-controls button[data-step="play"]');
  await expect(page.locator('.replay-controls button[data-step="play"]')).toHaveText(/Play/, { timeout: 30_000 });
  await expect(page.locator('#traj-tokens .tok.future')).toHaveCount(0);
  expect(page.url()).toContain(`turn=${turns}`);
  await page.context().setOffline(false);
  page.off('request', onRequest);
  expect(requests, 'requests after load').toEqual([]);
  await screenshot(page, info, 'trajectories-view');
});

test('trajectories: a token holding part of a multi-byte character shows its bytes, not "�"', async () => {
  const shown = await page.evaluate(async () => {
    const path = '/src/app/views/trajectories.ts';
    const mod = (await import(/* @vite-ignore */ path)) as typeof import('../../src/app/views/trajectories');
    const enc = new TextEncoder();
    return [
      mod.readableToken(enc.encode('é')),
      mod.readableToken(enc.encode('—').slice(0, 2)),
      mod.readableToken(Uint8Array.of(0x80)),
      mod.readableToken(enc.encode('<|end|>'), '<|end|>'),
    ];
  });
  expect(shown).toEqual(['é', '⟨e2 80⟩', '⟨80⟩', '<|end|>']);
});

test('results: a paired Δ where every episode fails before and after says "not measurable", as the between-methods panel does', async () => {
  // 'oa' fails every episode of bb-assistant before and after RL (a black-box harness at 0 → 0).
  const f = JSON.parse(fixtureText);
  for (const r of f.runs.filter((x: { method: string }) => x.method === 'oa')) {
    const fails = r.episodes.before.base.map((e: { pass: boolean }) => ({ ...e, harnessId: 'bb-assistant', pass: false, score: 0 }));
    r.episodes.before['bb-assistant'] = fails;
    r.episodes.after['bb-assistant'] = fails;
    r.before.blackbox['bb-assistant'] = 0;
    r.after.blackbox['bb-assistant'] = 0;
  }
  await openFile('floor.json', JSON.stringify(f));
  const delta = page.locator('#paper-table tr[data-method="oa"] td[data-col="bb-assistant"] .delta');
  await expect(delta).toHaveText('Δ not measurable: every episode fails under both, before and after training (a floor, not a null)');
  await expect(delta).toHaveAttribute('data-measurable', 'false');
  // A column where episodes pass keeps its interval over seeds.
  await expect(page.locator('#paper-table tr[data-method="oa"] td[data-col="base"] .delta')).toHaveText(/^Δ \+\d+\.\d \[/);
});

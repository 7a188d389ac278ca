/**
 * Tables that fit: at 1280×800 and 390×844, every table of the Results, Compare and
 * Design views either fits its box, or scrolls inside a box of its own that lies inside the
 * window with a sticky first column — nothing is cut off. Measured in real Chromium against
 * the laid-out page: each table's width against its box, each scroll box against the window,
 * and every element of a table that clips its content (overflow hidden/clip with more content
 * than room).
 *
 * Below 600 px a table marked .cards-narrow is one card per row: every cell of a card spans it,
 * left-aligned, with no sticky column's side line (which drew an empty bordered half row beside
 * the row's title), in Results, Compare, Design and the door's committed card.
 *
 * Results shows the synthetic results file of app_results.fixture.ts (its widest table is the
 * paper table: 7 columns of before → after, interval, score and paired Δ); Compare two saved
 * copies of it; Design its defaults (OA L18, K = 4: the assignment preview is on the page).
 */
import { test, expect, type Page } from '@playwright/test';

let page: Page;
const errors: string[] = [];
const RUNS = ['tables-test A', 'tables-test B'];

/** One finding: a table whose content a reader cannot reach. */
interface Cut {
  table: string;
  why: string;
}

/**
 * Every visible table of the page, measured: returns the ones cut off (empty = all fit or scroll)
 * and how many tables were measured.
 */
async function measureTables(p: Page): Promise<{ measured: number; cut: Cut[]; scrolling: string[]; widths: string[] }> {
  return p.evaluate(() => {
    const vw = document.documentElement.clientWidth;
    const cut: { table: string; why: string }[] = [];
    const scrolling: string[] = [];
    let measured = 0;
    const widths: string[] = [];
    const name = (t: HTMLElement) => `${t.id ? '#' + t.id : 'table.' + [...t.classList].join('.')}`;
    const clips = (v: string) => v === 'hidden' || v === 'clip';
    for (const t of document.querySelectorAll<HTMLTableElement>('main table')) {
      const r = t.getBoundingClientRect();
      if (r.width === 0 || t.closest('[hidden], .visually-hidden, details:not([open])')) continue;
      measured++;
      const id = name(t);
      // The nearest ancestor that scrolls or clips horizontally (the table's own box when it scrolls).
      let box: HTMLElement | null = null;
      for (let a = t.parentElement; a && a !== document.body; a = a.parentElement) {
        if (getComputedStyle(a).overflowX !== 'visible') {
          box = a;
          break;
        }
      }
      const width = t.scrollWidth;
      widths.push(`${id} ${width} in ${box ? box.clientWidth : t.parentElement!.clientWidth}`);
      if (!box) {
        const parent = t.parentElement!;
        if (r.right > parent.getBoundingClientRect().right + 1 || r.right > vw + 1)
          cut.push({ table: id, why: `${Math.round(r.width)} px wide in a ${parent.clientWidth} px box that does not scroll` });
      } else {
        const cs = getComputedStyle(box);
        const b = box.getBoundingClientRect();
        if (b.right > vw + 1) cut.push({ table: id, why: `its scroll box ends at ${Math.round(b.right)} px, past the window (${vw} px)` });
        if (width > box.clientWidth + 1) {
          if (clips(cs.overflowX))
            cut.push({ table: id, why: `${width} px of content in a ${box.clientWidth} px box with overflow-x ${cs.overflowX}` });
          else {
            scrolling.push(id);
            // Scrolls: the first column stays in view so a scrolled-to cell still says whose it is.
            const first = [...t.rows].map((row) => row.cells[0]).filter((c): c is HTMLTableCellElement => !!c);
            const loose = first.filter((c) => getComputedStyle(c).position !== 'sticky');
            if (loose.length)
              cut.push({
                table: id,
                why: `scrolls (${width} px in ${box.clientWidth} px) but ${loose.length} first-column cells are not sticky`,
              });
          }
        }
        if (clips(cs.overflowY) && box.scrollHeight > box.clientHeight + 1)
          cut.push({ table: id, why: `${box.scrollHeight} px of rows in a ${box.clientHeight} px box with overflow-y ${cs.overflowY}` });
      }
      // Inside the table: nothing clips its own text.
      for (const el of t.querySelectorAll<HTMLElement>('*')) {
        // Visually hidden on purpose (a cards table's header row, read by screen readers): 1 px boxes.
        if (el.classList.contains('visually-hidden') || (el.clientWidth <= 1 && el.clientHeight <= 1)) continue;
        const cs = getComputedStyle(el);
        if (
          (clips(cs.overflowX) && el.scrollWidth > el.clientWidth + 1) ||
          (clips(cs.overflowY) && el.scrollHeight > el.clientHeight + 1) ||
          cs.textOverflow === 'ellipsis'
        ) {
          cut.push({ table: id, why: `<${el.tagName.toLowerCase()}> "${(el.textContent ?? '').trim().slice(0, 30)}" clips its content` });
          break;
        }
      }
    }
    return { measured, cut, scrolling, widths };
  });
}

/** Cells of a table pivoted to cards (.cards-narrow below 600 px) that do not span their card, or keep a sticky column's look. */
async function pivotFaults(p: Page): Promise<{ rows: number; faults: string[] }> {
  return p.evaluate(() => {
    const faults: string[] = [];
    let rows = 0;
    for (const t of document.querySelectorAll<HTMLTableElement>('main table.cards-narrow')) {
      if (t.getBoundingClientRect().width === 0 || t.closest('[hidden], details:not([open])')) continue;
      const id = t.id ? `#${t.id}` : 'table.cards-narrow';
      for (const row of t.tBodies[0]?.rows ?? []) {
        rows++;
        const rs = getComputedStyle(row);
        const room = row.clientWidth - Number.parseFloat(rs.paddingLeft) - Number.parseFloat(rs.paddingRight);
        for (const c of row.cells) {
          const cs = getComputedStyle(c);
          const what = `${id} <${c.tagName.toLowerCase()}> "${(c.textContent ?? '').trim().slice(0, 24)}"`;
          const w = c.getBoundingClientRect().width;
          if (w < room - 1) faults.push(`${what}: ${Math.round(w)} px of its card's ${Math.round(room)} px`);
          if (cs.position === 'sticky' || cs.boxShadow !== 'none')
            faults.push(`${what}: position ${cs.position}, box-shadow ${cs.boxShadow}`);
          if (cs.textAlign === 'right') faults.push(`${what}: right-aligned`);
        }
      }
    }
    return { rows, faults };
  });
}

const VIEWS: { name: string; url: string; ready: (p: Page) => Promise<void>; tables: number }[] = [
  {
    name: 'results',
    url: '/#/results?file=tables-fixture.json',
    ready: async (p) => {
      await expect(p.locator('#paper-table tbody tr')).toHaveCount(3);
      // The map of conditions (committed map.json, fetched when the view is shown) is measured too.
      await expect(p.locator('#map-table tbody tr').first()).toBeVisible();
    },
    tables: 6,
  },
  {
    name: 'compare',
    url: `/#/compare?runs=${encodeURIComponent(JSON.stringify(RUNS))}`,
    ready: (p) => expect(p.locator('#compare-table tbody tr')).toHaveCount(4),
    tables: 3,
  },
  { name: 'design', url: '/#/design', ready: (p) => expect(p.locator('#assignment-table tbody tr')).toHaveCount(6), tables: 4 },
];

test.beforeAll(async ({ browser }) => {
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  await page.goto('/#/results');
  await expect(page.locator('#results-file')).toBeAttached();
  const text = await page.evaluate(async (names) => {
    const fx = (await import(
      /* @vite-ignore */ '/tests/browser/app_results.fixture.ts'.toString()
    )) as typeof import('./app_results.fixture');
    const store = (await import(/* @vite-ignore */ '/src/app/results_store.ts'.toString())) as typeof import('../../src/app/results_store');
    const cli = JSON.parse(await fx.buildFixture());
    // The main preset's method names: as long as a real table's row labels.
    const long: Record<string, string> = { oa: 'harness scaling (GRPO, K=4)', random: 'single harness (GRPO)' };
    for (const x of [...cli.runs, ...cli.curves, ...cli.trajectories]) x.method = long[x.method] ?? x.method;
    const text = JSON.stringify(cli);
    const out = {
      status: 'done' as const,
      results: { resultsVersion: 1 as const, spec: cli.spec, evalSet: cli.evalSet, machine: cli.machine, runs: cli.runs },
      curves: cli.curves,
      warnings: [],
    };
    for (const n of names) await store.saveRunOutput(n, out);
    return text;
  }, RUNS);
  await page.setInputFiles('#results-file', { name: 'tables-fixture.json', mimeType: 'application/json', buffer: Buffer.from(text) });
  await expect(page.locator('#paper-table tbody tr')).toHaveCount(3);
});

test.afterAll(async () => {
  await page?.context().close();
});

test.afterEach(() => {
  expect(errors.splice(0), 'page errors').toEqual([]);
});

for (const [w, h] of [
  [1280, 800],
  [390, 844],
] as const) {
  for (const v of VIEWS) {
    test(`${v.name} at ${w}×${h}: every table fits its box or scrolls in its own box with a sticky first column`, async () => {
      await page.setViewportSize({ width: w, height: h });
      await page.goto(v.url);
      await v.ready(page);
      const m = await measureTables(page);
      expect(m.measured, 'tables measured').toBeGreaterThanOrEqual(v.tables);
      expect(m.cut).toEqual([]);
      console.log(`${v.name} ${w}px: ${m.measured} tables (${m.widths.join('; ')}); scrolling: ${m.scrolling.join(', ') || 'none'}`);
    });
  }
}

test('at 390×844 every table pivoted to cards spans its cards: no half-width title beside an empty bordered cell', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  const door = {
    name: 'door',
    url: '/#/train',
    ready: (p: Page) => expect(p.locator('#train-committed table tbody tr').first()).toBeVisible(),
  };
  let rows = 0;
  for (const v of [...VIEWS, door]) {
    await page.goto(v.url);
    await v.ready(page);
    const m = await pivotFaults(page);
    expect(m.faults, v.name).toEqual([]);
    rows += m.rows;
  }
  expect(rows, 'rows pivoted to cards').toBeGreaterThan(10);
});

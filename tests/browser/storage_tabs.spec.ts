// Two tabs (two pages of one browser context, one origin) against one checkpoint database and
// one results database: concurrent saves for different runs and for the same run name, schema
// upgrades while the other tab holds the database open. Page-side code: storage_tabs.entry.ts.
import type { BrowserContext, Page } from '@playwright/test';
import { test, expect } from './fixtures';
import type { Err } from './checkpoint_store.assert';

const ENTRY = '/tests/browser/storage_tabs.entry.ts';

interface Loaded {
  runId: string;
  step: number;
  seed: number;
  bitExact: boolean;
}

/** A second tab on the test page; fails the test on an uncaught page error. */
async function openTab(context: BrowserContext, errors: string[]) {
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('/tests/browser/page.html');
  await page.waitForFunction(() => window.hlabReady === true);
  return page;
}

function run<T>(page: Page, fn: string, ...args: unknown[]): Promise<T> {
  return page.evaluate(([f, a]) => window.hlabRun('/tests/browser/storage_tabs.entry.ts', f as string, ...(a as unknown[])), [
    fn,
    args,
  ] as const) as Promise<T>;
}

test('two tabs saving checkpoints and run outputs at once: no torn record, every load is a fully written checkpoint', async ({
  gpuPage,
  page,
  context,
}) => {
  const errors: string[] = [];
  const other = await openTab(context, errors);
  const ck = 'hlab-test-tabs';
  const out = 'hlab-test-tabs-results';
  await gpuPage.run(ENTRY, 'resetDbs', ck, out);
  const rounds = 8;
  type Tab = {
    saved: { runId: string; step: number; seed: number }[];
    loaded: Loaded[];
    missed: unknown[];
    outputs: { spec: string; status: string; warnings: number }[];
  };
  // Both tabs at once: the IndexedDB transactions of the two pages interleave however the browser schedules them.
  const [a, b] = await Promise.all([run<Tab>(page, 'trainTab', ck, out, 'A', rounds), run<Tab>(other, 'trainTab', ck, out, 'B', rounds)]);
  const written = new Set([...a.saved, ...b.saved].map((s) => `${s.runId}/${s.step}/${s.seed}`));
  // Every checkpoint a tab resumed from verified, is bit-exact, and is one that some tab wrote whole.
  for (const l of [...a.loaded, ...b.loaded]) {
    expect(l.bitExact, JSON.stringify(l)).toBe(true);
    expect(written.has(`${l.runId}/${l.step}/${l.seed}`), JSON.stringify(l)).toBe(true);
  }
  expect(a.loaded.filter((l) => l.runId === 'shared')).toHaveLength(rounds);
  expect(b.loaded.filter((l) => l.runId === 'shared')).toHaveLength(rounds);
  // No resume skipped a checkpoint or found nothing where a checkpoint was committed.
  expect(a.missed).toEqual([]);
  expect(b.missed).toEqual([]);
  // A shared output read back is one tab's whole write: spec, status and bulk agree.
  for (const o of [...a.outputs, ...b.outputs]) {
    expect(o.spec, JSON.stringify(o)).toMatch(/^tab [AB] round \d+$/);
    expect(o.status).toBe(o.spec.startsWith('tab A') ? 'done' : 'interrupted');
    expect(o.warnings).toBe(2000);
  }

  const v = await gpuPage.run<{
    runs: { runId: string; latestStep: number; steps: number[] }[];
    checkpoints: Loaded[];
    perCheckpointChunks: number[];
    orphanChunks: number;
    outputs: { name: string; summarySpec: string; summaryStatus: string; spec: string; status: string; warnings: number }[];
  }>(ENTRY, 'verifyAll', ck, out);
  const all = Array.from({ length: rounds }, (_, i) => i + 1);
  expect(v.runs.map((r) => [r.runId, r.latestStep, r.steps])).toEqual([
    ['run-A', rounds, all],
    ['run-B', rounds, all],
    ['shared', rounds, [rounds - 2, rounds - 1, rounds]],
  ]);
  for (const c of v.checkpoints) {
    expect(c.bitExact, JSON.stringify(c)).toBe(true);
    expect(written.has(`${c.runId}/${c.step}/${c.seed}`), JSON.stringify(c)).toBe(true);
  }
  // Each checkpoint has exactly its 60 + 1 chunks; none is left of a replaced or deleted one.
  expect(v.perCheckpointChunks).toEqual([61]);
  expect(v.orphanChunks).toBe(0);
  // The summary (listing) and the output (loading) of a name come from the same write.
  expect(v.outputs.map((o) => o.name).sort()).toEqual(['out-A', 'out-B', 'out-shared']);
  for (const o of v.outputs) {
    expect(o.spec, JSON.stringify(o)).toBe(o.summarySpec);
    expect(o.status).toBe(o.summaryStatus);
    expect(o.warnings).toBe(2000);
  }
  expect(v.outputs.find((o) => o.name === 'out-A')?.spec).toBe(`tab A round ${rounds}`);
  expect(v.outputs.find((o) => o.name === 'out-B')?.spec).toBe(`tab B round ${rounds}`);
  expect(errors).toEqual([]);
});

test('a resume in one tab while the other deletes and applies retention finds the checkpoint that is now the latest', async ({
  gpuPage,
}) => {
  const r = await gpuPage.run<{ wasDeleted: boolean; removed: number[]; latest: Loaded | null; skipped: unknown[]; steps: number[] }>(
    ENTRY,
    'resumeWhileOtherTabDeletes',
    'hlab-test-tabs-resume',
  );
  expect(r.wasDeleted).toBe(true);
  expect(r.removed).toEqual([1]);
  expect(r.steps).toEqual([3]);
  expect(r.latest, JSON.stringify(r)).toEqual({ runId: 'shared', step: 3, seed: 2003, bitExact: true });
  expect(r.skipped).toEqual([]);
});

test('a tab training on the old schema steps aside when another tab upgrades: clear message, no hang, nothing torn', async ({
  gpuPage,
  context,
}) => {
  const errors: string[] = [];
  const other = await openTab(context, errors);
  const ck = 'hlab-test-tabs-upgrade';
  const started = await gpuPage.run<{ schemaVersion: number; saved: number }>(ENTRY, 'trainOnOldSchema', ck, 3, 500);
  expect(started.schemaVersion).toBe(1);
  expect(started.saved).toBeGreaterThanOrEqual(3);
  const up = await run<{ schemaVersion: number; latest: Loaded | null; skipped: unknown[]; steps: number[]; saved: number }>(
    other,
    'upgradeFromOtherTab',
    ck,
  );
  const old = await gpuPage.run<{ saved: number[]; error: Err | null; closeReasons: string[]; closeReason: string; reopen: Err }>(
    ENTRY,
    'trainResult',
    ck,
  );
  expect(up.schemaVersion).toBe(2);
  // The old tab stopped with 'closed' (a save in flight when the upgrade came finished first).
  expect(old.error?.code, JSON.stringify(old)).toBe('closed');
  expect(old.error?.message).toContain('upgrading');
  expect(old.error?.message).toContain('reload this page');
  expect(old.closeReasons).toEqual([old.closeReason]);
  // Reopening with the old build is refused with a message, not a hang.
  expect(old.reopen.code).toBe('newer-schema');
  expect(old.reopen.message).toContain('reload');
  // The new tab sees exactly the old tab's committed saves, the newest bit-exact.
  expect(up.steps).toEqual(old.saved);
  expect(up.skipped).toEqual([]);
  expect(up.latest).toEqual({
    runId: 'train',
    step: old.saved[old.saved.length - 1],
    seed: 1000 + old.saved[old.saved.length - 1],
    bitExact: true,
  });
  expect(up.saved).toBe(10_000);
  expect(errors).toEqual([]);
});

test('an upgrade blocked by a tab that never lets go fails with a clear message; after that tab closes it goes through', async ({
  gpuPage,
  context,
}) => {
  const errors: string[] = [];
  const other = await openTab(context, errors);
  const ck = 'hlab-test-tabs-blocked';
  expect(await gpuPage.run<number>(ENTRY, 'holdForeignConnection', ck)).toBe(1);
  const blocked = await run<{ opened: boolean; error: Err }>(other, 'tryOpen', ck, 500);
  expect(blocked.opened).toBe(false);
  expect(blocked.error.code).toBe('upgrade-blocked');
  expect(blocked.error.message).toContain('from schema 1 to 2 is blocked');
  expect(blocked.error.message).toContain('close or reload the other tabs');
  await gpuPage.run(ENTRY, 'releaseForeignConnection');
  const opened = await run<{ opened: boolean; schemaVersion: number; latest: Loaded }>(other, 'tryOpen', ck, 10_000);
  expect(opened).toEqual({ opened: true, schemaVersion: 2, latest: { runId: 'train', step: 1, seed: 1001, bitExact: true } });
  expect(errors).toEqual([]);
});

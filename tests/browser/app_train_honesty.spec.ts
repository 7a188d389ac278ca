/**
 * The Train view tells what happened, in real Chromium + WebGPU (SwiftShader):
 * a scratch model fails every rollout, so every GRPO group has equal rewards and no update is
 * applied — the view says "no learning signal … 0 updates", the update metrics are gaps (shaded,
 * `data-no-data`) rather than zeros, and the applied optimizer steps and dropped groups are
 * listed. The run is paused after its first steps: the pause message names the checkpoint the
 * table lists; after a reload the stored history (charts, step counter, evaluations) is shown
 * before Resume. Resume finishes the run; its duration counts both segments; Start over asks
 * for confirmation; the black-box harness has its column in the evaluation table. Without
 * WebGPU, Start is disabled and says why. Screenshots at 1280×800 and 390×844 under test-results/.
 */
import { test, expect, type Browser, type Page } from '@playwright/test';
import { screenshots } from './lib/screenshots';

const STEPS = 8;
/** A scratch tiny model (rewards all 0: no learning signal), 2 groups of 2 per step, a tiny evaluation with one black-box harness. */
const EDITS = {
  // One method and a small validation split: quick itself compares two methods on a large one.
  methods: [{ name: 'harness scaling (GRPO, K=4)', harnesses: 'scaling', K: 4, algorithm: 'grpo' }],
  name: 'honesty',
  // The WGSL engine: the pause, reload and evaluation-in-progress states need a run slower than
  // the CPU engine's (app_offline trains on the CPU engine).
  backend: 'webgpu',
  model: { preset: 'tiny', init: 'scratch' },
  rl: { tasksPerStep: 2, groupSize: 2, dropZeroVarianceGroups: true },
  // The smallest budgets under which the expert solves some cells (the plan leaves out the others).
  rollout: { maxTurns: 3, maxNewTokens: 24, contextTokens: 512 },
  evaluation: {
    testTasks: 1,
    inSpace: { mode: 'stratified', perDistance: 1, seed: 0 },
    blackbox: ['bb-assistant'],
    samples: 1,
    validation: { tasks: 24, every: 6, samples: 1 },
  },
};
const URL = `/#/train?preset=quick&edits=${encodeURIComponent(JSON.stringify(EDITS))}&steps=${STEPS}`;

const errors: string[] = [];
const dialogs: string[] = [];
/** Whether the next confirm() dialogs are accepted. */
let acceptDialogs = true;

async function openApp(browser: Browser, url: string, init?: () => void): Promise<Page> {
  const p = await browser.newPage({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  p.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  p.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  p.on('dialog', (d) => {
    dialogs.push(d.message());
    void (acceptDialogs ? d.accept() : d.dismiss());
  });
  if (init) await p.addInitScript(init);
  await p.goto(url);
  return p;
}

const points = async (p: Page, id: string) => Number(await p.locator(`#${id}`).getAttribute('data-points'));
const stepShown = async (p: Page) => Number(await p.locator('#train-step').getAttribute('data-step'));

test.afterEach(() => {
  expect(errors.splice(0), 'page errors').toEqual([]);
});

test('no learning signal is said, not drawn as zeros; pause names its checkpoint; history after reload; resume; durations', async ({
  browser,
}, info) => {
  test.setTimeout(420_000);
  const page = await openApp(browser, URL);
  await expect(page.locator('#train-spec')).toHaveValue(/"name": "honesty"/);
  await expect(page.locator('#train-ckpt-empty')).toHaveText('No checkpoints yet.');
  // Steps take well under a second here: Pause is pressed by the page itself as soon as step 1 is shown.
  await page.evaluate(() => {
    const obs = new MutationObserver(() => {
      const shown = Number(document.querySelector('#train-step')?.getAttribute('data-step'));
      const pause = document.querySelector<HTMLButtonElement>('#train-pause');
      if (shown >= 1 && pause && !pause.disabled) {
        obs.disconnect();
        pause.click();
      }
    });
    obs.observe(document.body, { subtree: true, childList: true, attributes: true });
  });
  await page.locator('#train-start').click();
  await expect(page.locator('#train-phase')).toHaveAttribute('data-phase', 'running');
  // During the first evaluation: its size and running time.
  await expect(page.locator('#train-eval-now')).toContainText(/\d+ episodes \(\d+ harnesses × \d+ test tasks? × 1 sample\), running for/, {
    timeout: 60_000,
  });
  // … and the episodes finished so far, out of the same total (after the resets and every round).
  await expect(page.locator('#train-eval-done')).toContainText(/^\d+ \/ \d+ episodes done$/, { timeout: 60_000 });
  const [doneNow, totalNow] = (await page.locator('#train-eval-done').textContent())!.match(/\d+/g)!.map(Number);
  expect(doneNow).toBeLessThanOrEqual(totalNow);
  expect(totalNow).toBe(Number((await page.locator('#train-eval-now').textContent())!.match(/of (\d+) episodes/)![1]));

  await expect(page.locator('#train-phase')).toHaveAttribute('data-phase', 'paused', { timeout: 120_000 });
  const k = await stepShown(page);
  expect(k).toBeGreaterThanOrEqual(1);
  expect(k).toBeLessThan(STEPS);
  // The pause message names the checkpoint that was written, the one the table lists as latest.
  await expect(page.locator('#train-phase')).toContainText(`checkpoint: run 1, step ${k})`);
  const latest = page.locator('#train-ckpt-table tr.this-spec', { has: page.locator('.tag', { hasText: 'latest' }) });
  await expect(latest.locator('td').nth(1)).toContainText(`run 1, step ${k}`);

  // No update: said in words, and the update metrics are gaps at every step, not zeros.
  await expect(page.locator('#train-no-signal')).toContainText('No learning signal: all groups had equal rewards, 0 updates');
  await expect(page.locator('#train-updates')).toContainText(
    k === 1
      ? '1 RL step · 0 optimizer steps · 0 skipped optimizer steps · 1 RL step without an update'
      : `${k} RL steps · 0 optimizer steps · 0 skipped optimizer steps · ${k} RL steps without an update`,
  );
  await expect(page.locator('#train-updates')).toContainText(`dropped groups (equal rewards): ${2 * k} of ${2 * k}`);
  const all = Array.from({ length: k }, (_, i) => i + 1).join(',');
  for (const id of ['chart-policy-loss', 'chart-clip-frac', 'chart-approx-kl', 'chart-grad-norm'])
    await expect(page.locator(`#${id}`)).toHaveAttribute('data-no-data', all);
  // Measured metrics keep their points: reward and entropy exist without an update.
  await expect(page.locator('#chart-reward')).not.toHaveAttribute('data-no-data', /./);
  expect(await points(page, 'chart-entropy')).toBe(k);
  // The before evaluation, with the black-box harness in its own column.
  await expect(page.locator('#train-evals thead th[data-bb="bb-assistant"]')).toHaveText('bb-assistant');
  await expect(page.locator('#train-evals tbody tr')).toHaveCount(1);
  await screenshots(page, info, 'train-paused-no-signal');

  // The checkpoint keeps the time of the segment it ends (the run's duration counts every segment).
  const runId = (await page.locator('#train-spec-errors code').textContent())!;
  const storedSeconds = await page.evaluate(async (id) => {
    const path = '/src/storage/checkpoint_store.ts';
    const mod = (await import(/* @vite-ignore */ path)) as typeof import('../../src/storage/checkpoint_store');
    const store = await mod.CheckpointStore.open();
    try {
      const lg = await store.loadLatestGood(id);
      return (lg.checkpoint!.meta.metricHistory as { state: { seconds: number } }).state.seconds;
    } finally {
      store.close();
    }
  }, runId);
  expect(storedSeconds).toBeGreaterThan(0);

  // Reload: the stored history is shown before Resume.
  await page.reload();
  await expect(page.locator('#train-phase')).toHaveAttribute('data-phase', 'idle');
  await expect(page.locator('#train-phase')).toContainText(`A checkpoint of this spec exists (run 1, step ${k})`);
  await expect.poll(() => points(page, 'chart-reward'), { timeout: 30_000 }).toBe(k);
  await expect(page.locator('#train-step')).toHaveAttribute('data-step', String(k));
  await expect(page.locator('#train-evals tbody tr')).toHaveCount(1);
  await expect(page.locator('#train-evals tbody tr')).toContainText('before (stored)');
  await expect(page.locator('#train-no-signal')).toBeVisible();
  await expect(page.locator('#train-units')).toHaveText(`${1 + k}/${STEPS + 2} units`);
  await screenshots(page, info, 'train-stored-history');

  // Resume to the end: the duration counts both segments (the one before the pause too).
  await page.locator('#train-resume').click();
  await expect(page.locator('#train-phase')).toHaveAttribute('data-phase', 'done', { timeout: 240_000 });
  await expect(page.locator('#chart-reward')).toHaveAttribute('data-points', String(STEPS));
  await expect(page.locator('#train-evals tbody tr')).toHaveCount(2);
  const savedAs = (await page.locator('#train-results strong').first().textContent())!;
  const runSeconds = await page.evaluate(async (name) => {
    const path = '/src/app/results_store.ts';
    const mod = (await import(/* @vite-ignore */ path)) as typeof import('../../src/app/results_store');
    const out = await mod.loadRunOutput(name);
    return out!.results.runs.map((r) => r.seconds ?? 0);
  }, savedAs);
  expect(runSeconds).toHaveLength(1);
  expect(runSeconds[0]).toBeGreaterThan(storedSeconds);
  await screenshots(page, info, 'train-done-no-signal');

  // Start over and Delete ask first; dismissed, nothing happens.
  dialogs.length = 0;
  acceptDialogs = false;
  const rows = await page.locator('#train-ckpt-table tr.this-spec').count();
  await page.locator('#train-start').click();
  await page.locator('#train-ckpt-table tr.this-spec button', { hasText: 'Delete' }).first().click();
  expect(dialogs).toHaveLength(2);
  expect(dialogs[0]).toContain('Start over? This deletes the checkpoints');
  expect(dialogs[1]).toContain('Delete the checkpoint of');
  await expect(page.locator('#train-phase')).toHaveAttribute('data-phase', 'done');
  await expect(page.locator('#train-ckpt-table tr.this-spec')).toHaveCount(rows);
  acceptDialogs = true;
  await page.context().close();
});

test('without WebGPU the CPU engine trains (Engine auto or wasm); Engine webgpu disables Start and says why', async ({ browser }, info) => {
  const page = await openApp(browser, URL, () => {
    Object.defineProperty(Navigator.prototype, 'gpu', { get: () => undefined, configurable: true });
  });
  await expect(page.locator('#train-spec-errors')).toContainText('Valid spec');
  // This file's spec pins backend 'webgpu'.
  await expect(page.locator('#knob-backend')).toHaveValue('webgpu');
  await expect(page.locator('#train-no-engine')).toContainText('asks for WebGPU');
  await expect(page.locator('#train-start')).toBeDisabled();
  await expect(page.locator('#train-resume')).toBeDisabled();
  await screenshots(page, info, 'train-no-webgpu');
  for (const engine of ['auto', 'wasm']) {
    await page.selectOption('#knob-backend', engine);
    await expect(page.locator('#train-no-engine')).toHaveCount(0);
    await expect(page.locator('#train-start')).toBeEnabled();
  }
  await page.context().close();
});

test('common knobs edit the spec (which gets its own name and description); the demo setting', async ({ browser }, info) => {
  const page = await openApp(browser, '/#/train?preset=quick');
  const spec = page.locator('#train-spec');
  await expect(spec).toHaveValue(/"name": "quick"/);
  await page.selectOption('#knob-model', 'tiny');
  await expect(spec).toHaveValue(/"preset": "tiny"/);
  await expect(spec).toHaveValue(/"name": "quick-edited"/);
  await expect(spec).toHaveValue(/Preset 'quick' edited in the app: model.preset = \\"tiny\\"/);
  await page.fill('#knob-group', '4');
  await page.press('#knob-group', 'Tab');
  await expect(spec).toHaveValue(/"groupSize": 4/);
  await expect(page.locator('#knob-model')).toHaveValue('tiny');
  await expect(page).toHaveURL(/edits=/);
  await expect(page.locator('#train-spec-errors')).toContainText('Run id app-quick-edited-');
  await page.locator('#train-demo').click();
  await expect(page.locator('#train-demo')).toHaveText('Demo (small run)');
  await expect(spec).toHaveValue(/"name": "quick-demo"/);
  await expect(spec).toHaveValue(/"steps": 6/);
  await expect(page.locator('#knob-model')).toHaveValue('mini');
  await expect(page.locator('#knob-group')).toHaveValue('8');
  await expect(page.locator('#train-spec-errors')).toContainText('Valid spec');
  await screenshots(page, info, 'train-knobs-demo');
  await page.context().close();
});

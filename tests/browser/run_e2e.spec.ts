// End-to-end experiment runs in real Chromium + WebGPU (SwiftShader): every stage of
// `hlab run` on a tiny model, resume equivalence across a page reload, a killed worker; resume
// and PPO also on the CPU engine (WebAssembly threads in Web Workers of the page).
import { test, expect, note } from './fixtures';

const ENTRY = '/tests/browser/run_e2e.entry.ts';

/**
 * Vite's dependency optimizer reloads the page the first time a fresh server sees the runner's
 * bare imports (comlink, idb, zod); import the entry once and wait out that reload.
 */
async function warmUp(page: import('@playwright/test').Page): Promise<void> {
  for (let i = 0; i < 3; i++) {
    try {
      await page.evaluate((p) => import(/* @vite-ignore */ p).then(() => true), ENTRY);
      await page.waitForTimeout(500);
      await page.waitForFunction(() => (window as any).hlabReady === true);
      await page.evaluate((p) => import(/* @vite-ignore */ p).then(() => true), ENTRY);
      return;
    } catch {
      await page.waitForLoadState('load');
    }
  }
}

test('tiny end-to-end GRPO run: eval before/after, RL steps, a worker killed mid-episode is retried and counted', async ({
  gpuPage,
  page,
}) => {
  test.setTimeout(180_000);
  await warmUp(page);
  // Job 6 is the second env step of the first RL step (jobs 1–4 reset its 4 episodes).
  const r = await gpuPage.run<any>(ENTRY, 'tinyEndToEnd', 'grpo', 6);
  note('run', { seconds: r.seconds, run: r.run, last: r.steps.at(-1) });
  expect(r.status).toBe('done');
  // init 'scratch' (no tiny base ships, and 'base' never falls back to a random init).
  expect(r.starts).toEqual(['scratch (seeded random init)']);
  expect(r.steps).toHaveLength(2);
  for (const s of r.steps) {
    // The zero-variance filter is off in this run (spec.rl.dropZeroVarianceGroups = false).
    expect(s.droppedGroups).toBe(0);
    expect(s.optimizerSteps).toBeGreaterThanOrEqual(2);
    expect(s.rows).toBeGreaterThan(0);
    expect(s.tokens).toBeGreaterThan(0);
    expect(Number.isFinite(s.policyLoss)).toBe(true);
    expect(s.gradNorm).toBeGreaterThanOrEqual(0);
    expect(s.entropy).toBeGreaterThan(0);
  }
  // The killed worker: one retry on a fresh worker, no episode lost.
  expect(r.steps[0].workerRetries).toBe(1);
  expect(r.steps[0].envFailures).toBe(0);
  const run = r.run;
  // The step vocabulary of results (results_file.ts): 2 RL steps, every optimizer step applied.
  expect(run.rlSteps).toBe(2);
  expect(run.optimizerSteps).toBe(r.steps[0].optimizerSteps + r.steps[1].optimizerSteps);
  expect(run.skippedOptimizerSteps).toBe(0);
  expect(run.rlStepsWithoutUpdate).toBe(0);
  for (const k of ['base', 'inSpace']) {
    expect(run.before[k]).toBeGreaterThanOrEqual(0);
    expect(run.after[k]).toBeGreaterThanOrEqual(0);
  }
  expect(Object.keys(run.after.blackbox)).toEqual(['bb-coding-cli']);
  expect(Object.keys(run.perHarness)).toContain('S0-T0-O0-C0-W0');
  expect(r.evalSet).toContain('stratified');
});

for (const backend of ['webgpu', 'wasm'] as const) {
  test(`resume equivalence on ${backend}: N steps straight = N/2, page reload, N/2 more (same parameters and metrics)`, async ({
    gpuPage,
    page,
  }) => {
    test.setTimeout(180_000);
    await warmUp(page);
    const db = `hlab-resume-${backend}-${Date.now()}`;
    const a = await gpuPage.run<any>(ENTRY, 'straight', db + '-a', 4, backend);
    // Non-trivial updates (synthetic reward): gradients flow and the policy moves every step.
    expect(a.engine).toBe(backend);
    expect(a.steps).toHaveLength(4);
    for (const s of a.steps) expect(s.gradNorm).toBeGreaterThan(0);
    // Filter on (the default), but every synthetic group has rewards 0 and 1: nothing dropped.
    for (const s of a.steps) expect(s.droppedGroups).toBe(0);
    expect(a.steps.some((s: any) => s.approxKl > 0 || s.clipFrac > 0)).toBe(true);
    // The validation split (3 train-seed tasks, every 3 steps): points at 0, 3 and the last step.
    expect(a.validation.map((p: any) => p.step)).toEqual([0, 3, 4]);
    const p1 = await gpuPage.run<any>(ENTRY, 'resumePart1', db + '-b', 2, backend);
    expect(p1).toEqual({ status: 'interrupted', steps: 2, validationSteps: [0] });
    await page.reload();
    await page.waitForFunction(() => (window as any).hlabReady === true);
    const b = await gpuPage.run<any>(ENTRY, 'resumePart2', db + '-b', 2, backend);
    expect(b.status).toBe('done');
    expect(b.steps).toEqual(a.steps);
    expect(b.digest).toBe(a.digest);
    // The point measured before the stop came back from the checkpoint; the curve is the uninterrupted one.
    expect(b.validation).toEqual(a.validation);
  });
}

test('a checkpoint written on WebGPU continues on the CPU engine (same layout; history and AdamW state carried over)', async ({
  gpuPage,
  page,
}) => {
  test.setTimeout(180_000);
  await warmUp(page);
  const db = `hlab-cross-${Date.now()}`;
  const a = await gpuPage.run<any>(ENTRY, 'straight', db + '-a', 4, 'webgpu');
  const p1 = await gpuPage.run<any>(ENTRY, 'resumePart1', db + '-b', 2, 'webgpu');
  expect(p1).toEqual({ status: 'interrupted', steps: 2, validationSteps: [0] });
  const b = await gpuPage.run<any>(ENTRY, 'resumePart2', db + '-b', 2, 'wasm');
  expect(b.status).toBe('done');
  expect(b.engine).toBe('wasm');
  // Both segments are recorded, not only the last engine.
  expect(b.segments.map((g: { engine: string; from: object; to: object }) => [g.engine, g.from, g.to])).toEqual([
    ['webgpu', { runIndex: 0, step: 0 }, { runIndex: 0, step: 2 }],
    ['wasm', { runIndex: 0, step: 2 }, { runIndex: 1, step: 0 }],
  ]);
  expect(b.segments[1].start).toBe('the run checkpoint at run 1, step 2');
  expect(b.steps).toHaveLength(4);
  expect(b.steps.slice(0, 2)).toEqual(a.steps.slice(0, 2));
  // Steps 3–4 ran on the other engine: the same update up to f32 rounding.
  for (const k of [2, 3]) {
    expect(b.steps[k].optimizerSteps).toBe(a.steps[k].optimizerSteps);
    expect(Math.abs(b.steps[k].gradNorm - a.steps[k].gradNorm)).toBeLessThan(1e-3 * a.steps[k].gradNorm + 1e-6);
  }
});

test('a stop during the last RL step is honoured before the final evaluation; resume runs only the evaluation', async ({
  gpuPage,
  page,
}) => {
  test.setTimeout(180_000);
  await warmUp(page);
  const r = await gpuPage.run<any>(ENTRY, 'stopAtLastStep', 2);
  expect(r.a).toEqual({ status: 'interrupted', runs: 0, steps: 2 });
  // The finished 'before' evaluation was reported as an event (hlab run keeps it in results.md).
  const evals: Array<{ when: string; runIndex: number; base: number }> = r.evals;
  expect(evals.filter((e) => e.when === 'before' && e.runIndex === 0).length).toBeGreaterThanOrEqual(1);
  expect(typeof evals[0].base).toBe('number');
  expect(r.b.status).toBe('done');
  expect(r.b.runs).toBe(1);
  expect(r.b.steps).toBe(2); // the history came from the checkpoint: no RL step was redone
  expect(r.b.stepsApplied).toBeGreaterThan(0);
});

for (const backend of ['webgpu', 'wasm'] as const) {
  test(`PPO on ${backend} trains the value head; a step with NaN log-probs is skipped and never applied`, async ({ gpuPage, page }) => {
    test.setTimeout(180_000);
    await warmUp(page);
    const one = await gpuPage.run<any>(ENTRY, 'ppoAndPoison', 1, undefined, backend);
    expect(one.steps[0].valueLoss).toBeGreaterThan(0);
    expect(one.steps[0].gradNorm).toBeGreaterThan(0);
    expect(one.skipped).toBe(0);
    // The step's sampled trajectories carry PPO's per-token advantages (CPU GAE from the update's V_old).
    expect(one.traj.length).toBeGreaterThan(0);
    for (const t of one.traj) {
      expect(t.advantages).toBe(t.actionTokens);
      expect(t.finite).toBe(true);
    }
    expect(one.traj.some((t: any) => t.nonzero)).toBe(true);
    const two = await gpuPage.run<any>(ENTRY, 'ppoAndPoison', 2, 2, backend);
    expect(two.status).toBe('done');
    expect(two.steps[0]).toEqual(one.steps[0]);
    expect(two.steps[1].skippedSteps).toBe(two.steps[1].optimizerSteps);
    expect(two.skipped).toBeGreaterThanOrEqual(1);
    expect(two.applied).toBe(one.steps[0].optimizerSteps);
    // The poisoned RL step applied nothing: counted as an RL step without an update.
    expect(two.rlSteps).toBe(2);
    expect(two.withoutUpdate).toBe(1);
    // Nothing of the poisoned step reached the parameters.
    expect(two.digest).toBe(one.digest);
  });
}

test('the runner refuses an inconsistent spec (K > training-set size) before any GPU work', async ({ gpuPage, page }) => {
  await warmUp(page);
  const r = await gpuPage.run<{ error: string; adapterRequests: number }>(ENTRY, 'inconsistentSpec');
  expect(r.error).toBe(
    'spec: invalid experiment spec: spec.methods[0].K: 99 exceeds the training-set size 18 (the orthogonal-array design); K must be in 1..18',
  );
  expect(r.adapterRequests).toBe(0);
});

test("methods of a seed with the same starting parameters evaluate the shared 'before' batch once, and the same training harnesses once; another model evaluates its own", async ({
  gpuPage,
  page,
}) => {
  test.setTimeout(180_000);
  await warmUp(page);
  const r = await gpuPage.run<any>(ENTRY, 'beforeReuse', `hlab-reuse-${Date.now()}`);
  note('before reuse', { evaluated: r.evaluated, logs: r.logs });
  expect(r.status).toBe('done');
  const [single, scaling, ppo, mini, scalingPpo] = r.runs;
  const shared = ['base', 'inSpace', 'bb-coding-cli'];
  const sharedHarnesses = new Set(shared.flatMap((k) => single.cells[k].map((c: { harnessId: string }) => c.harnessId)));
  const sharedEpisodes = new Set(shared.flatMap((k) => single.cells[k].map((c: any) => `${c.taskId}|${c.harnessId}|${c.sample}`))).size;
  // The first method and the other model evaluate everything.
  expect(r.evaluated['0/before']).toBe(sharedEpisodes);
  expect(r.evaluated['3/before']).toBe(sharedEpisodes);
  expect(single.beforeReusedFrom).toBeNull();
  expect(mini.beforeReusedFrom).toBeNull();
  // Harness scaling runs only its training harnesses outside the shared batch.
  const own = scaling.cells.train.filter((c: { harnessId: string }) => !sharedHarnesses.has(c.harnessId)).length;
  expect(own).toBeGreaterThan(0);
  expect(r.evaluated['1/before']).toBe(own);
  expect(scaling.beforeReusedFrom).toEqual({ method: 'single', seed: 0, episodes: sharedEpisodes });
  // Same training set as 'single': nothing is evaluated again.
  expect(r.evaluated['2/before']).toBeUndefined();
  expect(ppo.beforeReusedFrom).toEqual({ method: 'single', seed: 0, episodes: sharedEpisodes });
  // The reused cells are the first method's, literally.
  for (const k of shared) {
    expect(scaling.cells[k]).toEqual(single.cells[k]);
    expect(ppo.cells[k]).toEqual(single.cells[k]);
  }
  expect(ppo.cells.train).toEqual(single.cells.train);
  expect(ppo.before).toEqual(single.before);
  expect(ppo.behaviour).toEqual(single.behaviour);
  // Harness scaling under PPO: the same training harnesses as 'scaling', so nothing is evaluated again.
  expect(r.evaluated['4/before']).toBeUndefined();
  expect(scalingPpo.beforeReusedFrom).toEqual({ method: 'single', seed: 0, episodes: sharedEpisodes });
  expect(scalingPpo.beforeTrainReusedFrom).toEqual({ method: 'scaling', seed: 0, episodes: own });
  expect(scaling.beforeTrainReusedFrom).toBeNull();
  expect(scalingPpo.cells.train).toEqual(scaling.cells.train);
  expect(scalingPpo.before).toEqual(scaling.before);
  expect(r.logs.filter((l: string) => l.includes("reused from method 'single', seed 0"))).toHaveLength(3);
  expect(r.logs.filter((l: string) => l.includes("of the training harnesses reused from method 'scaling', seed 0"))).toHaveLength(1);
});

test("resume and the shared 'before' batch: a resumed run keeps its reused 'before'; one whose source finished in an earlier call evaluates it again", async ({
  gpuPage,
  page,
}) => {
  test.setTimeout(180_000);
  await warmUp(page);
  // Stopped during run 2's only RL step (after its reused 'before'): the resumed run keeps it and its provenance.
  const kept = await gpuPage.run<any>(ENTRY, 'beforeReuseResume', `hlab-reuse-resume-a-${Date.now()}`, 2);
  expect(kept.a.status).toBe('interrupted');
  expect(Object.keys(kept.a.evaluated)).toEqual(['0']);
  expect(kept.b.status).toBe('done');
  expect(kept.b.restored).toEqual([1]);
  expect(kept.b.evaluated).toEqual({});
  expect(kept.b.reusedFrom).toEqual([null, { method: 'single', seed: 0, episodes: kept.a.evaluated['0'] }]);
  // Stopped during run 1's step: run 2's 'before' comes after the restart, whose memory has no shared batch.
  const again = await gpuPage.run<any>(ENTRY, 'beforeReuseResume', `hlab-reuse-resume-b-${Date.now()}`, 1);
  expect(again.a.status).toBe('interrupted');
  expect(again.b.status).toBe('done');
  expect(again.b.restored).toEqual([0]);
  expect(again.b.evaluated).toEqual({ 1: again.a.evaluated['0'] });
  expect(again.b.reusedFrom).toEqual([null, null]);
});

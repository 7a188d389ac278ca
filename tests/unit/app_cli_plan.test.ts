// One spec is one experiment: the plan `hlab run` makes (src/cli/commands/run.ts planRun, in Node,
// base checkpoints read from public/) equals the plan the app's train worker makes
// (src/app/train_plan.ts, in the page, through the asset cache) for a spec with infeasible cells —
// same training pools (infeasible cells left out by both), evaluation sets, validation split and
// trainer options.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shippedTokenizer } from '../../src/cli/cli_util';
import { loadSpec, planRun } from '../../src/cli/commands/run';
import { trainPlan } from '../../src/app/train_plan';
import { cellKey, taskAssignments, trainPool } from '../../src/experiment/plan';
import { SMOKE_SPEC_JSON } from './lib/smoke_spec';

const PUBLIC = new URL('../../public', import.meta.url).pathname;

/** The smoke spec with a second method, a validation split and budgets that make some (task, harness) cells infeasible. */
const specJson = (() => {
  const s = structuredClone(SMOKE_SPEC_JSON);
  return {
    ...s,
    methods: [...s.methods, { name: 'single harness (GRPO)', harnesses: 'single', K: 1, algorithm: 'grpo' }],
    rollout: { ...s.rollout, maxTurns: 3, maxNewTokens: 32, allowBudgetMismatch: true },
    evaluation: { ...s.evaluation, validation: { tasks: 2, every: 4, sets: ['training', 'base'] } },
  };
})();

describe('the app and the CLI plan one experiment per spec', () => {
  // The page's fetch of same-origin assets (the tokenizer, base checkpoints), served from public/.
  beforeAll(() => {
    vi.stubGlobal('fetch', async (url: string) => {
      const path = join(PUBLIC, url);
      return existsSync(path) ? new Response(readFileSync(path)) : new Response(null, { status: 404 });
    });
  });
  afterAll(() => {
    vi.unstubAllGlobals();
  });

  it('same pools without the infeasible cells, evaluation sets and trainer options', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'hlab-plan-')), 'spec.json');
    writeFileSync(file, JSON.stringify(specJson));
    const { spec, json } = loadSpec({ spec: file });
    const cli = (await planRun(spec, json, shippedTokenizer(), { steps: 6 })).plan;
    const app = (await trainPlan(specJson, 6)).plan;

    expect(app).toEqual(cli);
    // The spec does have infeasible cells, and both plans train on none of them.
    expect(cli.infeasible.length).toBeGreaterThan(0);
    const excluded = new Set(cli.infeasible.map((c) => cellKey(c.taskId, c.harnessId)));
    let dropped = 0;
    for (const run of cli.runs) {
      for (const a of run.assignments) for (const h of a.harnesses) expect(excluded.has(cellKey(String(a.task), h))).toBe(false);
      for (const c of run.validation?.cells ?? []) expect(excluded.has(cellKey(c.taskId, c.harnessId))).toBe(false);
      const full = taskAssignments(cli.spec, run.method, trainPool(cli.spec, run.seed), run.seed);
      dropped += full.reduce((n, a) => n + a.harnesses.length, 0) - run.assignments.reduce((n, a) => n + a.harnesses.length, 0);
      expect(run.rlSteps).toBe(6);
      expect(run.trainer.lr).toBe(specJson.rl.lr);
      expect(run.evaluation.inSpace).toEqual(cli.inSpace.ids);
    }
    expect(dropped).toBeGreaterThan(0);
    // The base was cut to another budget: both plans carry the note, and without the spec's leave the plan is refused.
    expect(cli.warnings.filter((w) => w.includes('allowBudgetMismatch'))).toHaveLength(1);
    const strict = { ...specJson, rollout: { ...specJson.rollout, allowBudgetMismatch: false } };
    writeFileSync(file, JSON.stringify(strict));
    const loaded = loadSpec({ spec: file });
    await expect(planRun(loaded.spec, loaded.json, shippedTokenizer(), { steps: 6 })).rejects.toThrow(
      /trained on contexts of ≤ 384 tokens/,
    );
  }, 120_000);
});

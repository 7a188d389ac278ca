// The in-run SFT phase (src/experiment/sft_phase.ts, spec.ts MethodSpec.sft,
// run_result.ts, results_file.ts, results.ts runStepsLine): a spec's `sft` field is validated
// with one line naming the field and value; on the CPU engine a handful of SFT steps through
// bb-coding-cli on demonstrations of the run's train pool lowers the SFT loss and changes the
// parameters (deterministically); an 'sft' run records its SFT optimizer steps in RunResult and
// results.json, and its steps line says so.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CpuEngine } from '../../src/engine/wasm/wasm_engine';
import { trainPool, testTasks } from '../../src/experiment/plan';
import { runStepsLine } from '../../src/report/results_markdown';
import { maxRows } from '../../src/model/config';
import { compilePlan, trainerOptions, type RunPlan } from '../../src/experiment/compile';
import { baseMix } from '../../src/experiment/run_start';
import { demonstrationRows, expertDemonstrations, joinDemoRows } from '../../src/episode/demonstrations';
import { envWorkerApi, localEnvApi } from '../../src/episode/host';
import { cutView, tokenCounter } from '../../src/episode/rows';
import { inProcessEnv } from '../../src/rollout/rollout';
import { taskFromId } from '../../src/tasks';
import { RunResultSchema } from '../../src/report/results_schema';
import type { RunState } from '../../src/experiment/run_checkpoint';
import type { RunEvent } from '../../src/experiment/run_events';
import { runResult } from '../../src/experiment/run_result';
import { sha256Hex } from '../../src/util/encoding';
import { runSftPhase, SftReuse, type SftRecord } from '../../src/experiment/sft_phase';
import { parseSpec, type MethodSpec } from '../../src/experiment/spec';
import { presetConfig } from '../../src/model/config';
import { initParams } from '../../src/model/init';
import { Tokenizer, type TokenizerFile } from '../../src/model/tokenizer';
import { SMOKE_SPEC_JSON, specErrorMessage } from './lib/smoke_spec';

const tok = Tokenizer.fromJSON(
  JSON.parse(readFileSync(new URL('../../public/tokenizer-v2.json', import.meta.url), 'utf8')) as TokenizerFile,
);

/** The smoke spec with one black-box SFT method carrying `sft` (tiny model). */
function sftSpecJson(sft: unknown, extra: Record<string, unknown> = {}) {
  const j = structuredClone(SMOKE_SPEC_JSON) as Record<string, unknown>;
  j.model = { preset: 'tiny', init: 'scratch' };
  j.methods = [{ name: 'bb sft', harnesses: 'blackbox', blackbox: 'bb-coding-cli', K: 1, algorithm: 'sft', sft, ...extra }];
  return j;
}

describe('spec: methods[].sft', () => {
  it('accepts a phase and fills the default batch size', () => {
    const s = parseSpec(sftSpecJson({ steps: 20, lr: 1e-3 }));
    expect(s.methods[0].sft).toEqual({ steps: 20, lr: 1e-3, batchSize: 8 });
  });

  it('names the bad field and its value in one line', () => {
    expect(specErrorMessage(sftSpecJson({ steps: 0, lr: 1e-3 }))).toMatch(
      /^test\.json: invalid experiment spec: spec\.methods\[0\]\.sft\.steps: .*got 0$/,
    );
    expect(specErrorMessage(sftSpecJson({ steps: 10, lr: 1.5 }))).toMatch(
      /^test\.json: invalid experiment spec: spec\.methods\[0\]\.sft\.lr: .*got 1\.5$/,
    );
    expect(specErrorMessage(sftSpecJson({ steps: 10, lr: 1e-3, batchSize: 2.5 }))).toMatch(
      /spec\.methods\[0\]\.sft\.batchSize: .*got 2\.5$/,
    );
    expect(specErrorMessage(sftSpecJson({ steps: 10, lr: 1e-3, epochs: 2 }))).toBe(
      "test.json: invalid experiment spec: spec.methods[0].sft: unknown field(s) 'epochs'",
    );
    expect(specErrorMessage(sftSpecJson({ steps: '10', lr: 1e-3 }))).toMatch(/spec\.methods\[0\]\.sft\.steps: .*got "10"$/);
  });

  it('refuses an SFT phase on a method that does not train through one harness', () => {
    const j = sftSpecJson({ steps: 10, lr: 1e-3 });
    (j.methods as Array<Record<string, unknown>>)[0] = {
      name: 'x',
      harnesses: 'scaling',
      K: 4,
      algorithm: 'grpo',
      sft: { steps: 10, lr: 1e-3 },
    };
    expect(specErrorMessage(j)).toBe(
      "test.json: invalid experiment spec: spec.methods[0].sft: an SFT phase trains through the method's one training harness: needs harnesses 'blackbox' or 'single', got 'scaling'",
    );
  });
});

let engine: CpuEngine;
beforeAll(async () => {
  engine = await CpuEngine.create('test', { threads: 1 });
});
afterAll(() => engine.destroy());

describe('the SFT phase on the CPU engine', () => {
  const specJson = sftSpecJson({ steps: 12, lr: 3e-3, batchSize: 4, demos: 6 });
  (specJson.rl as Record<string, unknown>).trainTasks = 8; // train pools of 8 tasks per suite
  const spec = parseSpec(specJson);
  const method = spec.methods[0];
  const planned = new Map<string, RunPlan>();
  /** Seed 0's run of method `m` as compilePlan plans it (the spec with `m` as its one method). */
  function runPlanOf(m: MethodSpec): RunPlan {
    const key = JSON.stringify(m);
    let run = planned.get(key);
    if (!run) {
      const s = { ...spec, methods: [m] };
      run = compilePlan(s, tok, { specJson, mix: baseMix(s, new Map()), infeasible: [] }).runs.find((r) => r.seed === 0)!;
      planned.set(key, run);
    }
    return run;
  }
  const cfg = presetConfig('tiny', tok.vocabSize);
  const init = initParams(cfg, 11);
  const pool = runPlanOf(method).pool;
  let initDigest: string;
  beforeAll(async () => {
    initDigest = await sha256Hex(new Uint8Array(init.buffer, init.byteOffset, init.byteLength));
  });

  /** The phase into a fresh RL stack over `init`: its record and the stack's parameters and AdamW state afterwards. */
  async function phase(events: RunEvent[] = [], sftReuse = new SftReuse(), name = method.name, m: typeof method = method) {
    const stack = engine.createRlStack(cfg, init, maxRows(cfg), trainerOptions(spec, 'grpo', tok.padId, 0));
    try {
      const call = {
        spec,
        tok,
        engine,
        env: inProcessEnv(localEnvApi(tok)),
        emit: (e: RunEvent) => events.push(e),
        progress: { done: 0, total: 1 },
        sftReuse,
      };
      const plan = { method: { ...m, name }, seed: 0, sft: runPlanOf(m).sft };
      const run = { plan, r: 0, startParams: init, startDigest: initDigest, stack, resumed: false };
      const { record, point } = await runSftPhase(call, run);
      expect(point).toBeNull();
      const state = await stack.trainer.readState();
      return { record, params: await stack.readParams(), state };
    } finally {
      stack.destroy();
    }
  }

  it('the episode host demonstrates what the page did: the same rows and counts, one task per job or all at once, in a worker too', async () => {
    expect(pool).toEqual(trainPool(spec, 0, 8));
    const sft = runPlanOf(method).sft!;
    expect(sft.harness).toBe('bb-coding-cli');
    expect(sft.taskIds).toHaveLength(6);
    expect(JSON.parse(JSON.stringify(sft))).toEqual(sft);
    // The page's path before the host served demonstrations: the expert in-process, then rows.
    const page = expertDemonstrations(sft.taskIds.map(taskFromId), sft.harness, cutView(tok, sft.limits), tokenCounter(tok));
    const want = {
      rows: demonstrationRows(tok, page.episodes, sft.limits),
      demos: page.episodes.length,
      failed: page.failed,
      failedBy: page.failedBy,
    };
    expect(want.demos).toBeGreaterThan(0);
    const req = { taskIds: sft.taskIds, harnessId: sft.harness, limits: sft.limits };
    expect(localEnvApi(tok).demonstrate(req)).toEqual(want);
    const worker = envWorkerApi();
    worker.init(tok.toJSON());
    const parts = await Promise.all(sft.taskIds.map((id) => worker.demonstrate({ ...req, taskIds: [id] })));
    expect(joinDemoRows(parts)).toEqual(want);
  }, 120_000);

  let first: { params: Float32Array; record: SftRecord; state: { m: Float32Array; v: Float32Array; adamStep: number } };
  const events: RunEvent[] = [];

  it('lowers the SFT loss and changes the parameters, on demonstrations of the train pool only', async () => {
    const init0 = init.slice();
    first = await phase(events);
    const { record, params } = first;
    console.log(
      `SFT phase: ${record.demos} demos, ${record.rows} rows, loss ${record.firstLoss.toFixed(3)} → ${record.lastLoss.toFixed(3)}`,
    );
    expect(record.steps).toBe(12);
    expect(record.demos + record.failedDemos).toBe(6);
    expect(record.demos).toBeGreaterThan(0);
    expect(record.lastLoss).toBeLessThan(record.firstLoss - 0.1);
    expect(init).toEqual(init0);
    let changed = 0;
    for (let i = 0; i < params.length; i++) if (params[i] !== init[i]) changed++;
    expect(changed).toBeGreaterThan(params.length / 2);
    // RL starts its own optimizer: fresh AdamW moments in the trainer.
    expect(first.state.adamStep).toBe(0);
    expect(first.state.m.every((x) => x === 0) && first.state.v.every((x) => x === 0)).toBe(true);
    // The demonstrated tasks are pool tasks (train seeds), never test tasks.
    const msg = events.find((e) => e.type === 'log' && e.message.startsWith('SFT phase (bb sft, seed 0):'));
    expect(msg && msg.type === 'log' && msg.message).toContain('of 6 train tasks through bb-coding-cli');
    expect(pool.filter((id) => testTasks(spec, 0).includes(id))).toEqual([]);
    expect(events.some((e) => e.type === 'log' && /^SFT step 12\/12/.test(e.message))).toBe(true);
    // One typed end-of-phase event (the app's ETA prices SFT phases with it).
    const ends = events.filter((e) => e.type === 'sftPhase');
    expect(ends).toEqual([{ type: 'sftPhase', runIndex: 0, method: 'bb sft', seed: 0, seconds: expect.any(Number), reused: false }]);
  }, 120_000);

  it('is deterministic in the run seed (a resumed run redoes it to the same parameters)', async () => {
    const again = await phase();
    expect(again.params).toEqual(first.params);
    expect(again.record.lastLoss).toBe(first.record.lastLoss);
  }, 120_000);

  it('an identical phase of another method in the same call reuses the parameters (said in the log)', async () => {
    const reuse = new SftReuse();
    const ev: RunEvent[] = [];
    const a = await phase([], reuse, 'bb sft');
    const b = await phase(ev, reuse, 'bb rl');
    expect(b.params).toEqual(a.params);
    expect(b.params).toEqual(first.params);
    expect(b.record.steps).toBe(12);
    expect(ev.some((e) => e.type === 'log' && e.message.includes("the same phase as method 'bb sft'"))).toBe(true);
    expect(ev.some((e) => e.type === 'log' && /^SFT step/.test(e.message))).toBe(false);
    expect(ev.filter((e) => e.type === 'sftPhase').map((e) => e.type === 'sftPhase' && [e.method, e.reused])).toEqual([['bb rl', true]]);
  }, 120_000);

  it('the control trains the same recipe through the base harness: other demonstrations, other parameters, not reused as the black-box phase', async () => {
    const ev: RunEvent[] = [];
    const control = { ...method, harnesses: 'single' as const, blackbox: undefined };
    const c = await phase(ev, new SftReuse(), 'base sft', control);
    expect(c.record.steps).toBe(12);
    expect(c.record.lastLoss).toBeLessThan(c.record.firstLoss);
    const msg = ev.find((e) => e.type === 'log' && e.message.startsWith('SFT phase (base sft, seed 0):'));
    expect(msg && msg.type === 'log' && msg.message).toContain('train tasks through S0-T0-O0-C0-W0');
    expect(c.params).not.toEqual(first.params);
  }, 120_000);

  it("an 'sft' run records its SFT optimizer steps in RunResult, results.json and the steps line", () => {
    const st: RunState = { runIndex: 0, step: 0, before: null, history: [], schedule: {}, skippedSteps: 0, seconds: 1, sft: first.record };
    const r = runResult('bb sft', 'sft', 0, st, null, 1, 'scratch');
    expect(r.algorithm).toBe('sft');
    expect(r.rlSteps).toBe(0);
    expect(r.optimizerSteps).toBe(12);
    expect(r.sft).toEqual({ steps: 12, firstLoss: first.record.firstLoss, lastLoss: first.record.lastLoss });
    const read = RunResultSchema.parse(JSON.parse(JSON.stringify(r)));
    expect(read.sft).toEqual(r.sft);
    expect(runStepsLine(read)).toMatch(
      /^bb sft, seed 0: 12 SFT steps \(loss \d+\.\d{3} → \d+\.\d{3}, mean of the first → last 10 %\), then 0 RL steps; 12 optimizer steps in all/,
    );
    // A run without an SFT phase: the plain line, and no sft field.
    const plain = runResult('rl', 'grpo', 0, { ...st, sft: undefined }, null, 1, 'base');
    expect(plain.sft).toBeUndefined();
    expect(plain.optimizerSteps).toBe(0);
    expect(runStepsLine(plain)).toBe('rl, seed 0: 0 RL steps, 0 optimizer steps, 0 skipped optimizer steps, 0 RL steps without an update');
  });
});

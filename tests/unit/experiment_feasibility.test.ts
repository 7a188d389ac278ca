/**
 * Feasibility of an experiment's (task, harness) cells under its own budgets
 * (src/experiment/feasibility.ts), with the real tokenizer. Reproduces measured facts
 * under `main`'s former budgets (8 tool-call turns, 64 new tokens, 512 − 64 context tokens):
 * tier-3 tasks under W1/W2 need more than 8 turns, and the cap adds their workflow turns
 * (src/harness/turn_budget.ts); calendar-add cannot be done under the coding CLI, and only in a
 * few cells under the assistant.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { Tokenizer, type TokenizerFile } from '../../src/model/tokenizer';
import { cellFeasibility, excludedCells, specCells, specFeasibility } from '../../src/experiment/feasibility';

/** What a cell is checked under. */
type CellBudget = Parameters<typeof cellFeasibility>[3];
import { parseSpec } from '../../src/experiment/spec';
import { Rng } from '../../src/util/rng';
import { turnCap } from '../../src/harness/turn_budget';
import { taskFromId } from '../../src/tasks';
import { smokeSpec } from './lib/smoke_spec';

const tok = Tokenizer.fromJSON(
  JSON.parse(readFileSync(new URL('../../public/tokenizer-v2.json', import.meta.url), 'utf8')) as TokenizerFile,
);
const MAIN: CellBudget = { maxTurns: 8, limits: { maxT: 512, actionReserve: 64 } };

describe('cellFeasibility', () => {
  it('a plain cell under a roomy budget is feasible, with its turns and longest action', () => {
    const f = cellFeasibility(tok, 'workspace/csv-sum/t1/1000017', 'S0-T0-O0-C0-W0', {
      maxTurns: 40,
      limits: { maxT: 2048, actionReserve: 256 },
    });
    expect(f).toMatchObject({ feasible: true, turns: 3 });
    expect(f.maxActionTokens).toBeGreaterThan(5);
    expect(f.maxActionTokens).toBeLessThanOrEqual(256);
  });

  it('names each reason with its numbers: turns, action, opening', () => {
    const turns = cellFeasibility(tok, 'workspace/csv-sum/t3/1000017', 'S0-T0-O0-C0-W1', MAIN);
    expect(turns).toMatchObject({ feasible: false, reason: 'turns' });
    expect(turns.turns).toBeGreaterThan(8);
    // 8 tool-call turns + W1's plan.
    expect(turns.turns).toBeGreaterThan(9);
    expect(turns.detail).toBe(`the expert needs ${turns.turns} turns, the budget is 9 (8 + 1 workflow)`);
    const action = cellFeasibility(tok, 'errands/calendar-add/t1/1450266', 'bb-coding-cli', MAIN);
    expect(action).toMatchObject({ feasible: false, reason: 'action' });
    expect(action.maxActionTokens).toBeGreaterThan(64);
    expect(action.detail).toMatch(/^an action takes \d+ tokens \(turn \d+: .*\), more than maxNewTokens 64$/);
    const opening = cellFeasibility(tok, 'workspace/csv-sum/t1/1000017', 'S0-T0-O0-C0-W0', {
      maxTurns: 8,
      limits: { maxT: 96, actionReserve: 64 },
    });
    expect(opening).toMatchObject({ feasible: false, reason: 'opening', turns: 0 });
    expect(opening.detail).toMatch(/^the opening takes \d+ tokens, more than the context budget 32$/);
    expect(() => cellFeasibility(tok, 'workspace/csv-sum/t1/1', 'S9-T0-O0-C0-W0', MAIN)).toThrow(/unknown harness id/);
  });
});

/** A frozen copy of an earlier main preset (tier ≤ 2, every family, 10 turns): a fixed spec, so re-tuning the preset never changes these tests. */
const MAIN_S8 = parseSpec(JSON.parse(readFileSync(new URL('./lib/main_session8.json', import.meta.url), 'utf8')), 'main (session 8)');

describe('under tight budgets (main before it was CPU-sized: all tiers, small, 8 turns, 64 new tokens, 512 context)', () => {
  const main = MAIN_S8;
  const spec = {
    ...main,
    maxTier: 3 as const,
    model: { ...main.model, preset: 'small' as const },
    rollout: { ...main.rollout, maxTurns: 8, maxNewTokens: 64, contextTokens: 512 },
    evaluation: { ...main.evaluation, inSpace: { ...main.evaluation.inSpace, perDistance: 4 } },
  };
  const cells = specCells(spec, tok.vocabSize);

  it('enumerates the trained and evaluated cells once each, with the spec budget', () => {
    expect(cells.length).toBeGreaterThan(4000);
    expect(new Set(cells.map((c) => `${c.taskId} ${c.harnessId}`)).size).toBe(cells.length);
    expect(cells.every((c) => c.budget.maxTurns === 8 && c.budget.limits.actionReserve === 64 && c.budget.limits.maxT === 512)).toBe(true);
    expect(cells.some((c) => c.roles.includes('train'))).toBe(true);
    expect(cells.some((c) => c.harnessId === 'bb-assistant' && c.roles.includes('eval'))).toBe(true);
  });

  it('every tier-3 task under a W1 or W2 harness needs more than 8 turns; the cap adds the workflow turns (a sample of 40 cells)', () => {
    const t3w = cells.filter((c) => c.taskId.includes('/t3/') && /-W[12]$/.test(c.harnessId));
    expect(t3w.length).toBeGreaterThan(500);
    let rescued = 0;
    for (const c of Rng.derive(1, 'feasibility-test').shuffle(t3w).slice(0, 40)) {
      const f = cellFeasibility(tok, c.taskId, c.harnessId, c.budget);
      const cap = turnCap(8, c.harnessId, taskFromId(c.taskId));
      expect(f.turns, `${c.harnessId} ${c.taskId}`).toBeGreaterThan(8);
      expect(cap).toBeGreaterThan(8);
      expect(f.reason === 'turns', `${c.harnessId} ${c.taskId}: ${f.turns} turns, cap ${cap}`).toBe(f.turns > cap);
      if (f.feasible) rescued++;
    }
    // Without the overhead all 40 were infeasible; with it, some fit.
    expect(rescued).toBeGreaterThan(0);
  });

  it('calendar-add cannot be done under the coding CLI; under the assistant only a few cells fit (its append edits the tail)', () => {
    const cal = cells.filter((c) => c.taskId.includes('/calendar-add/') && c.harnessId.startsWith('bb-'));
    expect(new Set(cal.map((c) => c.harnessId))).toEqual(new Set(['bb-coding-cli', 'bb-assistant']));
    const f = cal.map((c) => ({ c, f: cellFeasibility(tok, c.taskId, c.harnessId, c.budget) }));
    for (const { c, f: r } of f.filter((x) => x.c.harnessId === 'bb-coding-cli'))
      expect(r.feasible, `${c.harnessId} ${c.taskId}`).toBe(false);
    const assistant = f.filter((x) => x.c.harnessId === 'bb-assistant');
    const fit = assistant.filter((x) => x.f.feasible).length;
    // None would fit if the assistant rewrote the whole calendar in one action.
    expect(fit).toBeGreaterThan(0);
    expect(fit).toBeLessThan(assistant.length / 2);
    for (const { f: r } of assistant.filter((x) => !x.f.feasible)) expect(['action', 'turns']).toContain(r.reason);
  });
});

describe("the frozen main preset's budgets", () => {
  it('a sample of 60 tier-2 cells under W1/W2 harnesses: almost all feasible with 10 turns + the workflow turns', () => {
    const spec = MAIN_S8;
    const t2w = specCells(spec, tok.vocabSize).filter((c) => c.taskId.includes('/t2/') && /-W[12]$/.test(c.harnessId));
    expect(t2w.length).toBeGreaterThan(200);
    const sample = Rng.derive(2, 'feasibility-main').shuffle(t2w).slice(0, 60);
    const feasible = sample.filter((c) => cellFeasibility(tok, c.taskId, c.harnessId, c.budget).feasible).length;
    // 53 of 60 since the cut keeps a C2 summary with the opening (fewer old turns stay visible, so the
    // honest expert re-reads more); the 7 left are C2 cells over their turn budget, excluded and listed by the runner.
    expect(feasible).toBeGreaterThanOrEqual(52);
    // Under fewer turns without workflow turns, fewer fit.
    const tight = sample.filter((c) => cellFeasibility(tok, c.taskId, c.harnessId, { ...c.budget, maxTurns: 6 }).feasible).length;
    expect(tight).toBeLessThan(feasible);
  });
});

/** The smoke spec (tier 1 only) with 2 tool-call turns and 24 new tokens: some of its cells no longer fit. */
const TIGHT_QUICK = (() => {
  const q = smokeSpec();
  return { ...q, rollout: { ...q.rollout, maxTurns: 2, maxNewTokens: 24 } };
})();

describe('the smoke spec: the excluded cells a runner would drop', () => {
  it('under its own budgets every tier-1 cell is feasible (docs/TASKS.md: 2–3 calls, short actions)', () => {
    expect(excludedCells(smokeSpec(), tok)).toEqual([]);
  });

  it('lists every infeasible cell once, sorted, with reason and detail', () => {
    const spec = TIGHT_QUICK;
    const rep = specFeasibility(spec, tok);
    const ex = excludedCells(spec, tok);
    expect(ex.length).toBe(rep.infeasible.length);
    expect(ex.length).toBeGreaterThan(0);
    expect(ex.map((e) => `${e.harnessId} ${e.taskId}`)).toEqual(ex.map((e) => `${e.harnessId} ${e.taskId}`).sort());
    for (const e of ex) {
      expect(['opening', 'expert', 'turns', 'action']).toContain(e.reason);
      expect(e.detail.length).toBeGreaterThan(10);
    }
    expect(Object.values(rep.byReason).reduce((a, b) => a + b, 0)).toBe(ex.length);
    // More turns and new tokens (the model's maxT 512 still bounds the window) exclude nothing.
    const roomy = { ...spec, rollout: { ...spec.rollout, maxTurns: 60, maxNewTokens: 128, contextTokens: 4096 } };
    expect(excludedCells(roomy, tok)).toEqual([]);
  });
});

describe('hlab expert --preset/--spec (in-process)', () => {
  it('prints the report; --json has the excluded cells; --strict sets exit 1; --suite with --spec is a usage error', async () => {
    const { Command } = await import('commander');
    const { registerExpert } = await import('../../src/cli/commands/expert');
    const { vi } = await import('vitest');
    const run = async (...args: string[]) => {
      const program = new Command().exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
      registerExpert(program);
      for (const cmd of program.commands) cmd.exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
      let out = '';
      const a = vi.spyOn(process.stdout, 'write').mockImplementation((c: string | Uint8Array) => ((out += String(c)), true));
      const b = vi.spyOn(console, 'log').mockImplementation((...xs: unknown[]) => void (out += xs.join(' ') + '\n'));
      try {
        await program.parseAsync(['node', 'hlab', ...args]);
        return { out };
      } catch (e) {
        return { out, error: e as Error };
      } finally {
        a.mockRestore();
        b.mockRestore();
      }
    };
    // A spec file with the smoke spec's tier-1 cells under budgets some of them exceed (under its own, none).
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const file = join(mkdtempSync(join(tmpdir(), 'hlab-feas-')), 'tight.json');
    writeFileSync(file, JSON.stringify(TIGHT_QUICK));
    const text = await run('expert', '--spec', file);
    expect(text.out).toMatch(/^spec smoke: \d+ \(task, harness\) cells trained or evaluated; infeasible under the spec's budgets: \d+ \(/);
    expect(text.out).toContain('by reason: ');
    const prev = process.exitCode;
    const json = await run('expert', '--spec', file, '--json', '--strict');
    expect(process.exitCode).toBe(1);
    process.exitCode = prev;
    const r = JSON.parse(json.out);
    const q = TIGHT_QUICK.rollout;
    expect(r.budgets).toEqual({ maxTurns: q.maxTurns, maxNewTokens: q.maxNewTokens, contextTokens: q.contextTokens });
    expect(r.excluded.length).toBe(r.infeasible.length);
    expect(r.excluded[0]).toEqual({
      taskId: expect.any(String),
      harnessId: expect.any(String),
      reason: expect.any(String),
      detail: expect.any(String),
    });
    expect((await run('expert', '--preset', 'quick', '--suite', 'workspace')).error?.message).toMatch(/give one of them/);
    expect((await run('expert')).error?.message).toMatch(/give --suite NAME/);
  });
});

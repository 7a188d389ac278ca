import { describe, expect, it } from 'vitest';
import { SUITES, TIERS, runSolver, SEED_RANGES } from '../../src/tasks/index';
import { Sandbox } from '../../src/sandbox/sandbox';
import type { Tier } from '../../src/tasks/types';

/** Required tool calls per tier (finish included), the difficulty tiers of docs/ARCHITECTURE.md "Sandbox, tasks and behaviour tags". */
const TIER_CALLS: Record<Tier, [number, number]> = { 1: [2, 3], 2: [4, 6], 3: [7, 10] };
const SEEDS = [0, 1, 2, 3, 4, 77, 4242, SEED_RANGES.test.from, SEED_RANGES.test.from + 9, SEED_RANGES.test.to];

describe.each(Object.values(SUITES).map((s) => [s.name, s] as const))('suite %s: canonical solver', (_, suite) => {
  it.each(suite.families.map((f) => [f.name, f] as const))('%s: passes every tier on 10 seeds, within the tier call budget', (_n, fam) => {
    for (const tier of TIERS) {
      const calls: number[] = [];
      for (const seed of SEEDS) {
        const task = suite.generate(fam.name, tier, seed);
        const run = runSolver(suite, task);
        const failed = run.verification.checks.filter((c) => !c.pass);
        expect(failed, `${task.id}: ${task.instruction}`).toEqual([]);
        expect(run.verification.score).toBe(1);
        expect(run.verification.checks.length).toBeGreaterThanOrEqual(3);
        expect(run.transcript.steps.at(-1)!.call!.tool).toBe('finish');
        calls.push(run.calls);

        if (fam.hasRecoverableError) {
          // The instruction's path fails first; the solver recovers by searching.
          const codes = run.transcript.steps.map((s) => s.result?.error?.code ?? 'ok');
          expect(codes[0]).toBe('not_found');
          expect(run.transcript.steps[1].call!.tool).toBe('search');
        }
        if (fam.needsStateTracking && tier === 3) {
          // Information from the first read is needed ≥ 5 observations later (beyond a window of 3).
          const firstRead = run.transcript.steps.findIndex((s) => s.call!.tool === 'read');
          expect(run.transcript.steps.length - 1 - firstRead).toBeGreaterThanOrEqual(5);
        }
      }
      const [lo, hi] = TIER_CALLS[tier];
      expect(Math.min(...calls), `${fam.name} t${tier}`).toBeGreaterThanOrEqual(lo);
      expect(Math.max(...calls), `${fam.name} t${tier}`).toBeLessThanOrEqual(hi);
    }
  });
});

describe('canonical solvers adapt to observations', () => {
  it('misplaced/find-contact: when the file is where the instruction says, no search is made', () => {
    for (const [suite, fam] of [
      [SUITES.workspace, 'misplaced'],
      [SUITES.errands, 'find-contact'],
    ] as const) {
      for (const tier of TIERS) {
        const task = suite.generate(fam, tier, 11);
        // Put each misplaced file at the path the instruction names (first quoted /docs or service path).
        const files = { ...task.initial.files };
        for (const stated of task.instruction.match(/\/(docs|tables|calendar)\/[a-z]+\.(txt|csv)/g) ?? []) {
          const base = stated.slice(stated.lastIndexOf('/'));
          const actual = Object.keys(files).find((p) => p.endsWith(base) && p !== stated)!;
          files[stated] = files[actual];
          delete files[actual];
        }
        const sb = Sandbox.fromState({ version: 1, files: {}, dirs: ['/'] });
        for (const [p, c] of Object.entries(files)) sb.exec({ tool: 'write', args: { path: p, content: c } });
        const moved = { ...task, initial: sb.state() };
        const run = runSolver(suite, moved);
        expect(run.verification.pass, `${task.id}`).toBe(true);
        expect(run.transcript.steps.some((s) => s.call!.tool === 'search')).toBe(false);
      }
    }
  });

  it('csv-sum: the solver sums what it reads, not a hidden answer', () => {
    const suite = SUITES.workspace;
    const task = suite.generate('csv-sum', 1, 5);
    const path = Object.keys(task.initial.files).find((p) => p.endsWith('.csv'))!;
    const altered = { ...task, initial: { ...task.initial, files: { ...task.initial.files, [path]: 'item,qty\nlamp,1000\n' } } };
    const run = runSolver(suite, altered);
    const out = Object.entries(run.final.files).find(([p]) => p.startsWith('/out/'))!;
    expect(out[1]).toBe('1000\n');
    expect(run.verification.checks.find((c) => c.name === 'total_correct')!.pass).toBe(false);
  });
});

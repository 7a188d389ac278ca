import { describe, expect, it } from 'vitest';
import { SUITES, SUITE_NAMES, TIERS, getSuite, splitOf, taskFromId, taskSet, SEED_RANGES } from '../../src/tasks/index';
import { Sandbox } from '../../src/sandbox/sandbox';
import { registerTasks } from '../../src/cli/commands/tasks';
import { cliJson } from './lib/cli_in_process';

describe('task generation', () => {
  it('each suite has ≥ 6 families with descriptions; some need state tracking, some have a recoverable error', () => {
    for (const s of Object.values(SUITES)) {
      expect(s.families.length).toBeGreaterThanOrEqual(6);
      expect(new Set(s.families.map((f) => f.name)).size).toBe(s.families.length);
      for (const f of s.families) expect(f.description.length).toBeGreaterThan(20);
      expect(s.families.some((f) => f.needsStateTracking)).toBe(true);
      expect(s.families.some((f) => f.hasRecoverableError)).toBe(true);
    }
  });

  it('deterministic per (family, tier, seed), different across seeds, small enough for a 512-token context', () => {
    for (const s of Object.values(SUITES)) {
      for (const f of s.families) {
        for (const tier of TIERS) {
          const a = s.generate(f.name, tier, 123);
          expect(JSON.stringify(s.generate(f.name, tier, 123))).toBe(JSON.stringify(a));
          const variants = new Set(
            [123, 124, 125, 126, 127].map((seed) =>
              JSON.stringify([s.generate(f.name, tier, seed).instruction, s.generate(f.name, tier, seed).initial]),
            ),
          );
          expect(variants.size, `${f.name} t${tier}`).toBeGreaterThanOrEqual(4);
          expect(a.id).toBe(`${s.name}/${f.name}/t${tier}/123`);
          expect(a.needsStateTracking).toBe(f.needsStateTracking);
          // Small: short instruction, files of a few short lines, a valid sandbox state.
          expect(a.instruction.length).toBeLessThanOrEqual(200);
          expect(a.instruction.split(/[.?!](\s|$)/).filter((x) => x && x.trim()).length).toBeLessThanOrEqual(3);
          for (const [p, c] of Object.entries(a.initial.files)) {
            expect(c.length, p).toBeLessThanOrEqual(200);
            expect(c.split('\n').length, p).toBeLessThanOrEqual(9);
          }
          expect(Sandbox.fromState(a.initial).state()).toEqual(a.initial);
        }
      }
    }
  });

  it('generate rejects unknown families, tiers and seeds by name', () => {
    expect(() => SUITES.workspace.generate('nope', 1, 0)).toThrow(/unknown family 'nope'.*csv-sum/);
    expect(() => SUITES.errands.generate('recall', 4 as never, 0)).toThrow(/tier must be 1, 2 or 3, got 4/);
    expect(() => SUITES.errands.generate('recall', 1, -1)).toThrow(/seed/);
    expect(() =>
      SUITES.errands.verify(
        SUITES.workspace.generate('csv-sum', 1, 0),
        { version: 1, files: {}, dirs: ['/'] },
        { steps: [], answer: null },
      ),
    ).toThrow(/belongs to suite 'workspace'/);
  });

  it('getSuite names the unknown suite and the allowed ones; taskFromId inverts Task.id', () => {
    expect(getSuite('errands')).toBe(SUITES.errands);
    expect(() => getSuite('chess')).toThrow("unknown suite 'chess'; suites: workspace, errands");
    const t = SUITES.errands.generate('todo-update', 2, 1_000_017);
    expect(taskFromId(t.id)).toEqual(t);
    expect(() => taskFromId('workspace/csv-sum/t9/1')).toThrow(/suite\/family\/tN\/seed/);
  });

  it('train and test seed ranges are disjoint; taskSet draws from its split only', () => {
    expect(SEED_RANGES.train.to).toBeLessThan(SEED_RANGES.test.from);
    expect(splitOf(SEED_RANGES.train.to)).toBe('train');
    expect(splitOf(SEED_RANGES.test.from)).toBe('test');
    expect(() => splitOf(SEED_RANGES.test.to + 1)).toThrow(/neither/);
    for (const name of SUITE_NAMES) {
      const train = taskSet(name, 'train', 90, 3);
      const test = taskSet(name, 'test', 90, 3);
      expect(train.every((t) => splitOf(t.seed) === 'train')).toBe(true);
      expect(test.every((t) => splitOf(t.seed) === 'test')).toBe(true);
      const trainIds = new Set(train.map((t) => t.id));
      expect(test.some((t) => trainIds.has(t.id))).toBe(false);
      expect(new Set(train.map((t) => t.seed)).size).toBe(90);
    }
  });

  it('taskSet is deterministic, balanced over families × tiers at every prefix, and prefix-stable', () => {
    const a = taskSet('workspace', 'train', 40, 9);
    expect(taskSet('workspace', 'train', 40, 9).map((t) => t.id)).toEqual(a.map((t) => t.id));
    expect(taskSet('workspace', 'train', 25, 9).map((t) => t.id)).toEqual(a.slice(0, 25).map((t) => t.id));
    expect(taskSet('workspace', 'train', 40, 10).map((t) => t.id)).not.toEqual(a.map((t) => t.id));
    for (const n of [7, 18, 40]) {
      const counts = new Map<string, number>();
      for (const f of SUITES.workspace.families) for (const tier of TIERS) counts.set(`${f.name}/${tier}`, 0);
      for (const t of a.slice(0, n)) counts.set(`${t.family}/${t.tier}`, counts.get(`${t.family}/${t.tier}`)! + 1);
      const v = [...counts.values()];
      expect(Math.max(...v) - Math.min(...v)).toBeLessThanOrEqual(1);
      expect(v.reduce((x, y) => x + y, 0)).toBe(n);
    }
    expect(() => taskSet('workspace', 'dev' as never, 1, 0)).toThrow(/split/);
    expect(() => taskSet('workspace', 'train', -1, 0)).toThrow(/n must be/);
  });

  it('hlab tasks report: families, tiers with increasing solver calls, draw counts that sum up', async () => {
    type Tier = { solverCalls: number; train: number; test: number };
    const r = await cliJson<{ totals: object; families: { name: string; tiers: Tier[] }[] }>(
      [registerTasks],
      'tasks',
      '--suite',
      'errands',
      '--train',
      '36',
      '--test',
      '18',
    );
    expect(r.families.map((f) => f.name)).toEqual(SUITES.errands.families.map((f) => f.name));
    expect(r.totals).toEqual({ families: 6, tiers: 3, train: 36, test: 18 });
    let train = 0;
    for (const f of r.families) {
      const calls = f.tiers.map((t) => t.solverCalls);
      expect(calls[0]).toBeLessThan(calls[1]);
      expect(calls[1]).toBeLessThan(calls[2]);
      for (const t of f.tiers) expect(t.train).toBe(2), expect(t.test).toBe(1), (train += t.train);
    }
    expect(train).toBe(36);
  });
});

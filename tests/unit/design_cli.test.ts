import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CommanderError } from 'commander';
import { parseHarnessId } from '../../src/design';
import { registerDesign } from '../../src/cli/commands/design';
import { registerAssign } from '../../src/cli/commands/assign';
import { UsageError } from '../../src/cli/cli_util';
import { runCli } from './lib/cli_in_process';
import { hlabChild } from './lib/cli_child';

/** The design commands in-process (tests/unit/lib/cli_in_process.ts). */
const inProcess = (...args: string[]) => runCli([registerDesign, registerAssign], ...args);

afterEach(() => vi.restoreAllMocks());

describe('hlab design / hlab assign (child process)', () => {
  type R = { code: number | null; stdout: string; stderr: string };
  let design: R, kAbc: R, levelsX: R;
  beforeAll(async () => {
    // Three spawns only (each costs ~1–3 s of CPU); everything else runs in process below.
    [design, kAbc, levelsX] = await Promise.all([
      hlabChild('design', '--json'),
      hlabChild('design', '--k', 'abc'),
      hlabChild('design', '--levels', '3,x'),
    ]);
  }, 300_000); // generous: on a loaded 2-core machine each tsx start takes tens of seconds

  it('design --json prints the report alone: 18 balanced harnesses at minimum distance ≥ 3, 225 held out', () => {
    expect(design.code).toBe(0);
    const j = JSON.parse(design.stdout); // stdout is JSON alone
    expect(j.training).toHaveLength(18);
    for (const id of j.training) expect(() => parseHarnessId(id)).not.toThrow();
    expect(j.runSize).toBe(18);
    expect(j.raoBound).toBe(11);
    expect(j.minPairwiseDistance).toBeGreaterThanOrEqual(3);
    expect(j.heldOut).toHaveLength(225);
    expect(j.heldOut[0]).toEqual({ id: expect.any(String), distance: expect.any(Number) });
    expect(j.balance.balanced).toBe(true);
    expect(j.balance.strength2).toBe(true);
    expect(j.balance.columns).toHaveLength(5);
    expect(j.balance.pairs).toHaveLength(10);
    expect(j.balance.columns[0]).toEqual({ component: 'S', counts: [6, 6, 6], equal: true });
  });

  it('bad values exit 2 with one line naming the flag', () => {
    for (const [r, flag] of [
      [kAbc, '--k'],
      [levelsX, '--levels'],
    ] as const) {
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(flag);
    }
  });
});

describe('hlab design / hlab assign (in process)', () => {
  it('design --method random is seeded and reports the same fields', async () => {
    const [a, b, c] = [
      await inProcess('design', '--method', 'random', '--k', '12', '--seed', '4', '--json'),
      await inProcess('design', '--method', 'random', '--k', '12', '--seed', '4', '--json'),
      await inProcess('design', '--method', 'random', '--k', '12', '--seed', '5', '--json'),
    ];
    for (const r of [a, b, c]) expect(r.error).toBeUndefined();
    const ja = JSON.parse(a.stdout);
    expect(ja.method).toBe('random');
    expect(ja.training).toHaveLength(12);
    expect(ja.heldOut).toHaveLength(231);
    expect(ja.seed).toBe(4);
    expect(JSON.parse(b.stdout).training).toEqual(ja.training);
    expect(JSON.parse(c.stdout).training).not.toEqual(ja.training);
  });

  it('the human-readable report shows run size, bounds, balance, distances and the training ids', async () => {
    const r = await inProcess('design');
    expect(r.error).toBeUndefined();
    expect(r.stdout).toMatch(/Run size\s+N = 18\s+\(Rao bound 11, divisibility bound 9 → smallest admissible 18: minimal\)/);
    expect(r.stdout).toMatch(/Min distance\s+3/);
    expect(r.stdout).toContain('S0-T0-O0-C0-W0');
    expect(r.stdout).toMatch(/d = 1\s+180/);
    expect(r.stdout).toMatch(/d = 2\s+45/);
  });

  it('assign --json prints per task its K harness ids, anchor first, with distances', async () => {
    const assign = await inProcess('assign', '--K', '4', '--tasks', '5', '--seed', '2', '--json');
    expect(assign.error).toBeUndefined();
    const j = JSON.parse(assign.stdout);
    expect(j.assignments).toHaveLength(5);
    for (const a of j.assignments) {
      expect(a.harnesses).toHaveLength(4);
      expect(new Set(a.harnesses).size).toBe(4);
      for (const h of a.harnesses) expect(j.training).toContain(h);
      expect(a.distances[0]).toBe(0);
      for (let i = 1; i < 4; i++) expect(a.distances[i]).toBeGreaterThanOrEqual(a.distances[i - 1]);
    }
  });
  it('other levels: --levels 2,3,3,3 gives 18 runs', async () => {
    const r = await inProcess('design', '--levels', '2,3,3,3', '--json');
    expect(r.error).toBeUndefined();
    const j = JSON.parse(r.stdout);
    expect(j.runSize).toBe(18);
    expect(j.training[0]).toMatch(/^A\d-B\d-C\d-D\d$/);
  });

  it('bad values and cross-field errors name the flag (usage errors, exit 2 in main.ts)', async () => {
    const cases: [string[], RegExp][] = [
      [['design', '--method', 'latin'], /--method/],
      [['design', '--levels', '3,1'], /--levels/],
      [['design', '--seed', '-1'], /--seed/],
      [['design', '--k', '5'], /--k applies only to --method random/],
      [['design', '--method', 'random', '--k', '999'], /--k 999 exceeds the space size 243/],
      [['assign', '--K', '19'], /--K 19 is out of range.*1\.\.18/],
      [['assign', '--K', '0'], /--K/],
      [['assign', '--tasks', 'many'], /--tasks/],
      [['assign', '--strategy', 'nearest'], /--strategy/],
    ];
    for (const [args, re] of cases) {
      const r = await inProcess(...args);
      expect(r.error, args.join(' ')).toBeDefined();
      expect(r.error instanceof UsageError || r.error instanceof CommanderError, args.join(' ')).toBe(true);
      expect(r.error!.message.split('\n')).toHaveLength(1);
      expect(r.error!.message, args.join(' ')).toMatch(re);
      expect(r.stdout).toBe('');
    }
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLAIMS, claimsTable, verdictOf, withBlocks, type CommittedResults } from '../../src/experiment/claims';
import type { RunResult } from '../../src/report/results_schema';
import type { Comparison } from '../../src/report/seed_stats';
import type { SeedInterval } from '../../src/report/seed_interval';
import {
  CLAIMS_JSON,
  loadCommitted,
  MAP_JSON,
  MAP_SVG,
  regenerated,
  regeneratedJson,
  regeneratedMap,
  RESULTS_DOC,
} from '../../scripts/claims';

const interval = (diff: number, lo: number, hi: number, seeds = 5): SeedInterval => ({
  diff,
  lo,
  hi,
  seeds,
  configs: 24,
  cells: 100,
  perSeed: [],
  seedSd: 0.02,
  configSe: 0.005,
  se: 0.01,
  df: seeds - 1,
  decided: lo > 0 || hi < 0,
});
const cmp = (diff: number, lo: number, hi: number, seeds = 5): Comparison => ({
  pass: interval(diff, lo, hi, seeds),
  score: interval(diff, lo, hi, seeds),
  needed: { exclude: 8, power80: 14 },
});

describe('claims: verdicts computed from the committed data', () => {
  it('docs/RESULTS.md holds exactly the tables the committed results give (run `npx tsx scripts/claims.ts` after new results)', () => {
    const doc = readFileSync(RESULTS_DOC, 'utf8');
    expect(doc).toContain('<!-- claims:begin -->');
    const results = loadCommitted();
    expect(regenerated(doc, results)).toBe(doc);
    // The app's copies and the map figure too.
    expect(readFileSync(CLAIMS_JSON, 'utf8')).toBe(regeneratedJson(results));
    const map = regeneratedMap(results);
    expect(readFileSync(MAP_JSON, 'utf8')).toBe(map.json);
    expect(readFileSync(MAP_SVG, 'utf8')).toBe(map.svg);
    expect(doc).toContain('<!-- map:begin -->');
  }, 240_000);

  it('a changed result changes the table, so stale text fails the check', () => {
    const results = loadCommitted();
    const doc = readFileSync(RESULTS_DOC, 'utf8');
    const main = results.get('main')!;
    // Drop the last seed of main: the in-space row's numbers move.
    const lastSeed = Math.max(...main.runs.map((r) => r.seed));
    const fewer = new Map(results);
    fewer.set('main', { ...main, runs: main.runs.filter((r) => r.seed !== lastSeed) });
    expect(regenerated(doc, fewer)).not.toBe(doc);
  }, 240_000);

  it('verdicts: reproduced, refuted, equivalent (inside ±2 points), undecided; one seed never decides', () => {
    expect(verdictOf(cmp(0.05, 0.01, 0.09))).toBe('reproduced');
    expect(verdictOf(cmp(-0.05, -0.09, -0.01))).toBe('refuted');
    expect(verdictOf(cmp(0.001, -0.015, 0.018))).toBe('equivalent');
    expect(verdictOf(cmp(0.01, -0.03, 0.05))).toBe('undecided');
    expect(verdictOf(cmp(0.2, Number.NaN, Number.NaN, 1))).toBe('undecided');
  });

  it('a preset without results is "not run", and arms that fail every cell are "not measurable", not a null', () => {
    const cell = (taskId: string, pass: boolean, harnessId = 'bb-assistant') => ({
      taskId,
      harnessId,
      sample: 0,
      pass,
      score: pass ? 1 : 0,
    });
    const run = (method: string, seed: number, pass: boolean): RunResult =>
      ({
        method,
        seed,
        episodes: {
          before: {},
          after: { 'bb-assistant': [cell('a', pass), cell('b', false)], 'bb-coding-cli': [cell('a', false, 'bb-coding-cli')] },
        },
      }) as unknown as RunResult;
    const floor: CommittedResults = {
      resultsVersion: 1,
      spec: 'main',
      evalSet: 'x',
      machine: 'm',
      runs: [0, 1, 2].flatMap((s) => [run('single harness (GRPO)', s, false), run('harness scaling (GRPO, K=4)', s, false)]),
    };
    const rows = claimsTable(new Map([['main', floor]]));
    expect(rows.find((r) => r.spec.id === 'black-box')!.verdict).toBe('not measurable');
    expect(rows.find((r) => r.spec.id === 'locality')!.verdict).toBe('not run');
    expect(rows.find((r) => r.spec.id === 'sizes')!.note).toMatch(/small' base/);
    expect(rows).toHaveLength(CLAIMS.length);
  });

  it('withBlocks replaces between markers and names a missing pair', () => {
    expect(withBlocks('a\n<!-- x:begin -->\nold\n<!-- x:end -->\nb', { x: 'new' })).toBe('a\n<!-- x:begin -->\nnew\n<!-- x:end -->\nb');
    expect(() => withBlocks('no markers', { x: 'new' })).toThrow(/<!-- x:begin -->/);
  });
});

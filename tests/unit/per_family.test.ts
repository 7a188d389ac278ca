import { describe, expect, it } from 'vitest';
import { familyCellText, familyMatrix, familyTable, familyTablesOfRuns, meanTokenEntropy } from '../../src/report/per_family';

const cell = (taskId: string, pass: boolean, score: number) => ({ taskId, harnessId: 'H', sample: 0, pass, score });

describe('per-family tables', () => {
  it('groups episodes by suite/family with pass@1, mean score and count, keys sorted', () => {
    expect(Object.keys(familyTable([cell('workspace/csv-sum/t2/1000017', true, 1)]))).toEqual(['workspace/csv-sum']);
    expect(() => familyTable([cell('csv-sum', true, 1)])).toThrow(/task id 'csv-sum' is not of the form suite\/family\/tN\/seed/);
    const t = familyTable([
      cell('workspace/organize/t1/1', true, 1),
      cell('errands/recall/t1/2', false, 0.25),
      cell('workspace/organize/t1/3', false, 0.5),
    ]);
    expect(Object.keys(t)).toEqual(['errands/recall', 'workspace/organize']);
    expect(t['workspace/organize']).toEqual({ passAt1: 0.5, score: 0.75, episodes: 2 });
    expect(t['errands/recall']).toEqual({ passAt1: 0, score: 0.25, episodes: 1 });
  });

  it('lays several sets out as one matrix (— where a set has no episode of a family)', () => {
    const m = familyMatrix({
      base: { 'a/x': { passAt1: 0.5, score: 0.5, episodes: 4 } },
      'bb-assistant': { 'a/y': { passAt1: 0, score: 0, episodes: 2 } },
    });
    expect(m.columns).toEqual(['base', 'bb-assistant']);
    expect(m.rows.map((r) => [r.family, r.cells.map(familyCellText)])).toEqual([
      ['a/x', ['0.50 (4)', '—']],
      ['a/y', ['—', '0.00 (2)']],
    ]);
  });

  it('derives per-method tables from a results file: after-training episodes pooled over seeds, runs without episodes left out', () => {
    const run = (method: string, after: Record<string, ReturnType<typeof cell>[]>) => ({ method, episodes: { before: {}, after } });
    const tables = familyTablesOfRuns([
      run('oa', { base: [cell('a/x/t1/1', true, 1)], inSpace: [] }),
      run('oa', { base: [cell('a/x/t1/1', false, 0)] }),
      { method: 'old' },
      run('single', { train: [cell('a/y/t1/2', true, 1)] }),
    ]);
    expect(tables).toEqual([
      { method: 'oa', tables: { base: { 'a/x': { passAt1: 0.5, score: 0.5, episodes: 2 } } } },
      { method: 'single', tables: { train: { 'a/y': { passAt1: 1, score: 1, episodes: 1 } } } },
    ]);
  });

  it('mean entropy is per sampled token over all turns; null when nothing reports it', () => {
    expect(meanTokenEntropy([{ turns: [{ entropies: [1, 1, 1] }, {}] }, { turns: [{ entropies: [3] }] }])).toBe(1.5);
    expect(meanTokenEntropy([{ turns: [{}, {}] }])).toBeNull();
    expect(meanTokenEntropy([])).toBeNull();
  });
});

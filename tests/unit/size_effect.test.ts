// The main comparison at two model sizes (size_effect.ts over paired_conditions.ts): `main` (mini)
// and `sizes` (small) paired cell by cell on their shared seeds. Synthetic experiments whose pass
// rates are set exactly per (size, method), so every difference is known: a swapped side, a wrong
// sign or a mispaired seed fails.
import { describe, expect, it } from 'vitest';
import type { CommittedResults } from '../../src/experiment/claims';
import { sizeEffect, sizeMarkdown } from '../../src/experiment/size_effect';
import type { RunResult } from '../../src/report/results_schema';
import { exactCells as cells } from './lib/exact_cells';

const SINGLE = 'single harness (GRPO)';
const HS = 'harness scaling (GRPO, K=4)';
const BASE = 'S0-T0-O0-C0-W0';
const CONFIGS = ['S1-T1-O0-C0-W0', 'S0-T0-O2-C1-W0', 'S1-T1-O1-C1-W1', 'S2-T2-O2-C2-W2'];
const TRAIN = ['S1-T0-O1-C2-W1', 'S2-T1-O0-C1-W2'];

/** After-RL rates per method: in-space, base. */
type Rates = Record<string, { inSpace: number; base: number }>;

function preset(model: string, seeds: readonly number[], rates: (seed: number) => Rates, steps = 60): CommittedResults {
  const runs = seeds.flatMap((seed) =>
    [SINGLE, HS].map((method) => {
      const r = rates(seed)[method];
      return {
        method,
        seed,
        rlSteps: steps,
        optimizerSteps: 120,
        seconds: model === 'small' ? 900 : 300,
        before: { base: 0.4, inSpace: 0.15, blackbox: {} },
        after: { base: r.base, inSpace: r.inSpace, blackbox: {} },
        episodes: {
          before: {},
          after: {
            inSpace: cells(r.inSpace, CONFIGS, seed),
            base: cells(r.base, [BASE], seed),
            train: cells(r.base, method === SINGLE ? [BASE] : TRAIN, seed),
          },
        },
      } as unknown as RunResult;
    }),
  );
  const specJson = {
    name: model === 'mini' ? 'main' : 'sizes',
    seeds,
    model: { preset: model, init: 'base' },
    rl: { steps, tasksPerStep: 8, groupSize: 8 },
    methods: [
      { name: SINGLE, harnesses: 'single', K: 1, algorithm: 'grpo' },
      { name: HS, harnesses: 'scaling', K: 4, algorithm: 'grpo' },
    ],
  };
  return { runs, specJson } as unknown as CommittedResults;
}

// mini: HS and single tie in-space at 0.2; small: single 0.5, HS 0.7 (± 0.05 by seed parity).
const mini = (_seed: number): Rates => ({ [SINGLE]: { inSpace: 0.2, base: 0.5 }, [HS]: { inSpace: 0.2, base: 0.4 } });
const small = (seed: number): Rates => ({
  [SINGLE]: { inSpace: 0.5, base: 0.7 },
  [HS]: { inSpace: 0.7 + (seed % 2 ? 0.05 : -0.05), base: 0.7 },
});

describe('sizeEffect', () => {
  it('pairs main (mini) with sizes (small) on their shared seeds and reads the gap at each size and its change', () => {
    const e = sizeEffect(
      new Map([
        ['main', preset('mini', [0, 1, 2, 3, 4, 5, 6, 7], mini)],
        ['sizes', preset('small', [0, 1, 2, 3], small)],
      ]),
    )!;
    expect(e).toMatchObject({ a: 'main', b: 'sizes', seeds: [0, 1, 2, 3], models: { a: 'mini', b: 'small' }, alsoDiffer: [] });
    const gap = (k: string) => e.gaps.find((g) => g.key === k)!;
    expect(gap('inSpace').a?.comparison.pass.diff).toBe(0);
    expect(gap('inSpace').b?.comparison.pass.diff).toBeCloseTo(0.2, 10);
    expect(gap('inSpace').b?.direction).toBe('ahead');
    expect(gap('base').a?.comparison.pass.diff).toBeCloseTo(-0.1, 10);
    const effect = (m: string, k: string) => e.effects.find((x) => x.method === m && x.verdict.set.key === k)!.verdict;
    expect(effect(SINGLE, 'inSpace').comparison.pass.diff).toBeCloseTo(0.3, 10);
    expect(effect(HS, 'inSpace').comparison.pass.diff).toBeCloseTo(0.5, 10);
    expect(effect(HS, 'base').comparison.pass.diff).toBeCloseTo(0.3, 10);
    const inter = e.interactions.find((x) => x.key === 'inSpace')!;
    expect(inter.comparison.pass.diff).toBeCloseTo(0.2, 10);
    expect(inter.direction).toBe('ahead');
    expect(e.costs.find((c) => c.method === HS)).toMatchObject({ sampled: [3840, 3840], seconds: [300, 900] });
    const md = sizeMarkdown(e);
    expect(md).toContain('**mini → small model:** `sizes` (small) − `main` (mini), 4 shared seeds');
    expect(md).toMatch(/\| HS − single gap \(interaction\) \| in-space \| \+20\.0 \[[^\]]+\] \| widens it for HS \|/);
    expect(md).toMatch(
      /- HS − single on in-space, these seeds: \+0\.0 \[\+0\.0, \+0\.0\] equivalent \(inside ±2\) \(mini\); \+20\.0 \[[^\]]+\] HS ahead \(small\)\./,
    );
    expect(md).toContain('differ only in the model');
  });

  it('names any spec field beyond the model that differs, and reads nothing without both sides or shared seeds', () => {
    const other = sizeEffect(
      new Map([
        ['main', preset('mini', [0, 1, 2], mini)],
        ['sizes', preset('small', [0, 1, 2], small, 120)],
      ]),
    )!;
    expect(other.alsoDiffer).toEqual(['rl']);
    expect(sizeMarkdown(other)).toContain('also differ in `rl`: the size is not the only change');
    expect(sizeEffect(new Map([['main', preset('mini', [0, 1], mini)]]))).toBeNull();
    expect(
      sizeEffect(
        new Map([
          ['main', preset('mini', [0, 1], mini)],
          ['sizes', preset('small', [2, 3], small)],
        ]),
      ),
    ).toBeNull();
    expect(sizeMarkdown(null)).toMatch(/^_No size pair yet/);
  });
});

// The black-box SFT control (sft_control.ts): each SFT's after − before and black-box SFT − the
// control, paired cell by cell, and the sentence that says whose loss it is. Synthetic `blackbox`
// results with exact pass rates per (arm, set): a swapped arm, a wrong sign or a before/after
// mix-up fails.
import { describe, expect, it } from 'vitest';
import type { CommittedResults } from '../../src/experiment/claims';
import { sftControl, sftControlMarkdown } from '../../src/experiment/sft_control';
import type { RunResult } from '../../src/report/results_schema';
import { exactCells as cells } from './lib/exact_cells';

const BASE = 'S0-T0-O0-C0-W0';
const CONFIGS = ['S1-T1-O0-C0-W0', 'S0-T0-O2-C1-W0', 'S1-T1-O1-C1-W1', 'S2-T2-O2-C2-W2'];

/** Pass rates per set. */
type Rates = { base: number; inSpace: number; bb: number };
// The preset's two SFT arms (public/presets/blackbox.json).
const SFT_CONTROL = { sft: 'black-box SFT (coding-cli)', control: 'SFT through the base harness (control)' };
const BEFORE: Rates = { base: 0.6, inSpace: 0.4, bb: 0.1 };

function blackbox(after: Record<string, (seed: number) => Rates>, seeds = [0, 1, 2, 3]): CommittedResults {
  const episodes = (r: Rates, seed: number, method: string) => ({
    base: cells(r.base, [BASE], seed),
    train: method === SFT_CONTROL.sft ? cells(r.bb, ['bb-coding-cli'], seed) : cells(r.base, [BASE], seed),
    inSpace: cells(r.inSpace, CONFIGS, seed),
    'bb-coding-cli': cells(r.bb, ['bb-coding-cli'], seed),
  });
  const runs = seeds.flatMap((seed) =>
    Object.entries(after).map(
      ([method, rates]) =>
        ({
          method,
          seed,
          before: { base: BEFORE.base, inSpace: BEFORE.inSpace, blackbox: {} },
          after: { base: rates(seed).base, inSpace: rates(seed).inSpace, blackbox: {} },
          episodes: { before: episodes(BEFORE, seed, method), after: episodes(rates(seed), seed, method) },
        }) as unknown as RunResult,
    ),
  );
  return { runs, specJson: {} } as unknown as CommittedResults;
}

const wobble = (seed: number) => (seed % 2 ? 0.05 : -0.05);

describe('sftControl', () => {
  it('both SFTs lose the same in-space: the recipe costs, the foreign harness adds nothing beyond ±2', () => {
    const r = sftControl(
      new Map([
        [
          'blackbox',
          blackbox({
            [SFT_CONTROL.sft]: (s) => ({ base: 0.4, inSpace: 0.2 + wobble(s), bb: 0.5 }),
            [SFT_CONTROL.control]: (s) => ({ base: 0.7, inSpace: 0.2 + wobble(s), bb: 0.1 }),
          }),
        ],
      ]),
    )!;
    expect(r.seeds).toEqual([0, 1, 2, 3]);
    const row = (k: string) => r.rows.find((x) => x.key === k)!;
    expect(row('inSpace').sft?.comparison.pass.diff).toBeCloseTo(-0.2, 10);
    expect(row('inSpace').sft?.direction).toBe('behind');
    expect(row('inSpace').control?.direction).toBe('behind');
    expect(row('inSpace').diff?.comparison.pass.diff).toBe(0);
    expect(row('inSpace').diff?.direction).toBe('equivalent');
    // Where each trains: black-box SFT gains on bb-coding-cli, the control on the base harness.
    expect(row('bb-coding-cli').sft?.comparison.pass.diff).toBeCloseTo(0.4, 10);
    expect(row('bb-coding-cli').diff?.comparison.pass.diff).toBeCloseTo(0.4, 10);
    expect(row('base').control?.comparison.pass.diff).toBeCloseTo(0.1, 10);
    expect(row('base').diff?.comparison.pass.diff).toBeCloseTo(-0.3, 10);
    // Each arm on its own training harness: black-box SFT +0.4 on bb-coding-cli, the control +0.1 on the base harness; no cell pairs between them.
    expect(row('train').sft?.comparison.pass.diff).toBeCloseTo(0.4, 10);
    expect(row('train').control?.comparison.pass.diff).toBeCloseTo(0.1, 10);
    expect(row('train').diff).toBeNull();
    expect(sftControlMarkdown(r).split('\n').at(-1)).toBe(
      "Both SFTs lower in-space pass@1: the recipe costs the base whatever the harness; black-box SFT is within ±2 points of the control (+0.0 [+0.0, +0.0]): no cost of the foreign harness beyond the recipe's.",
    );
    const md = sftControlMarkdown(r);
    expect(md).toMatch(/\| in-space \| −20\.0 \[[^\]]+\] lowers \| −20\.0 \[[^\]]+\] lowers \| \+0\.0 \[\+0\.0, \+0\.0\] within ±2 \|/);
    expect(md).toMatch(
      /\| base harness \(the control trains here\) \| −20\.0 \[[^\]]+\] lowers \| \+10\.0 \[[^\]]+\] raises \| −30\.0 \[[^\]]+\] behind \|/,
    );
  });

  it("black-box SFT losing more than the control in-space reads as the foreign harness's cost", () => {
    const r = sftControl(
      new Map([
        [
          'blackbox',
          blackbox({
            [SFT_CONTROL.sft]: (s) => ({ base: 0.4, inSpace: 0.1 + wobble(s), bb: 0.5 }),
            [SFT_CONTROL.control]: () => ({ base: 0.7, inSpace: 0.4, bb: 0.1 }),
          }),
        ],
      ]),
    )!;
    const inSpace = r.rows.find((x) => x.key === 'inSpace')!;
    expect(inSpace.control?.comparison.pass.diff).toBe(0);
    expect(inSpace.diff?.comparison.pass.diff).toBeCloseTo(-0.3, 10);
    expect(inSpace.diff?.direction).toBe('behind');
    expect(sftControlMarkdown(r).split('\n').at(-1)).toMatch(
      /^Black-box SFT is behind the control beyond noise \(−30\.0 \[[^\]]+\]\): training through one foreign harness costs more/,
    );
  });

  it('nothing to read without the preset or without the control arm', () => {
    expect(sftControl(new Map())).toBeNull();
    const old = blackbox({ [SFT_CONTROL.sft]: () => ({ base: 0.4, inSpace: 0.2, bb: 0.5 }), 'black-box RL (coding-cli)': () => BEFORE });
    expect(sftControl(new Map([['blackbox', old]]))).toBeNull();
    expect(sftControlMarkdown(null)).toMatch(/^_No results of `blackbox` with its control arm yet/);
  });
});

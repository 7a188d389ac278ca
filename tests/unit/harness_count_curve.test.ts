// The harness-count curve (harness_count_curve.ts, harness_count_svg.ts): pass@1 after RL against
// the number N of training harnesses, each N against N = 1 under the RESULTS rule. Synthetic
// experiments whose per-seed pass rates are set exactly, so levels and directions are known: a
// wrong N, a wrong arm or a wrong sign fails.
import { describe, expect, it } from 'vitest';
import type { CommittedResults } from '../../src/experiment/claims';
import { harnessCountCurve, harnessCountMarkdown } from '../../src/experiment/harness_count_curve';
import { harnessCountSvg } from '../../src/experiment/harness_count_svg';
import type { RunResult } from '../../src/report/results_schema';
import { exactCells as cells } from './lib/exact_cells';

const CONFIGS = ['S1-T1-O0-C0-W0', 'S0-T0-O2-C1-W0', 'S1-T1-O1-C1-W1', 'S2-T2-O2-C2-W2'];
const BASE = 'S0-T0-O0-C0-W0';

const METHODS = [
  { name: 'N=18: harness scaling (GRPO, K=4)', harnesses: 'scaling', K: 4 },
  { name: 'N=1: single harness (GRPO)', harnesses: 'single', K: 1 },
  { name: 'N=6 (GRPO, K=4)', harnesses: 'scaling', K: 4, harnessCount: 6 },
];

/** An experiment with the given after-RL rates per method name: [in-space, base]; seeds wobble ±0.05 on in-space. */
function experiment(rates: Record<string, [number, number]>, seeds = 4): CommittedResults {
  const runs = Array.from({ length: seeds }, (_, seed) =>
    METHODS.map((m) => {
      const [inSpace, base] = rates[m.name];
      const wobble = seed % 2 ? 0.05 : -0.05;
      return {
        method: m.name,
        seed,
        before: { base: 0.35, inSpace: 0.15, blackbox: {} },
        after: { base, inSpace: inSpace + wobble, blackbox: {} },
        episodes: { before: {}, after: { inSpace: cells(inSpace + wobble, CONFIGS, seed), base: cells(base, [BASE], seed) } },
      } as unknown as RunResult;
    }),
  ).flat();
  return { runs, specJson: { design: { method: 'oa', k: 18 }, methods: METHODS } } as unknown as CommittedResults;
}

describe('harnessCountCurve', () => {
  const res = experiment({
    'N=1: single harness (GRPO)': [0.2, 0.5],
    'N=6 (GRPO, K=4)': [0.2, 0.4],
    'N=18: harness scaling (GRPO, K=4)': [0.35, 0.3],
  });

  it('orders the arms by N (harnessCount, 1 for single, the design size for all-harness scaling) and reads each level over seeds', () => {
    const curve = harnessCountCurve(res)!;
    expect(curve.points.map((p) => p.n)).toEqual([1, 6, 18]);
    expect(curve.points[2].after.inSpace.mean).toBeCloseTo(0.35, 10);
    expect(curve.points[2].after.base.mean).toBeCloseTo(0.3, 10);
    // ±0.05 around the mean over 4 seeds: sd 0.0577, t(3) 3.182 → half-width 0.0919.
    expect(curve.points[0].after.inSpace.hi - curve.points[0].after.inSpace.mean).toBeCloseTo(0.0919, 3);
    expect(curve.before.inSpace).toBeCloseTo(0.15, 10);
    expect(curve.before.base).toBeCloseTo(0.35, 10);
  });

  it('each N against N = 1 under the RESULTS rule: ahead, behind, equivalent', () => {
    const [one, six, all] = harnessCountCurve(res)!.points;
    expect(one.vsOne.inSpace).toBeNull();
    expect(six.vsOne.inSpace?.comparison.pass.diff).toBeCloseTo(0, 10);
    expect(six.vsOne.inSpace?.direction).toBe('equivalent');
    expect(six.vsOne.base?.direction).toBe('behind');
    expect(all.vsOne.inSpace?.comparison.pass.diff).toBeCloseTo(0.15, 10);
    expect(all.vsOne.inSpace?.direction).toBe('ahead');
    expect(all.vsOne.base?.comparison.pass.diff).toBeCloseTo(-0.2, 10);
    const md = harnessCountMarkdown(harnessCountCurve(res));
    expect(md).toMatch(/\| 18 \| N=18: harness scaling \(GRPO, K=4\) \| 4 \| 35\.0 % \[[^\]]+\] \| \+15\.0 \[[^\]]+\] ahead \|/);
    expect(md).toContain('Before RL (every arm starts from the same base): in-space 15.0 %, base harness 35.0 %.');
  });

  it('no curve without an N = 1 arm; the figure fills exactly the points that differ from N = 1 beyond their interval', () => {
    const noOne = { ...res, specJson: { design: { k: 18 }, methods: METHODS.filter((m) => m.harnesses !== 'single') } };
    expect(harnessCountCurve(noOne as CommittedResults)).toBeNull();
    expect(harnessCountMarkdown(null)).toMatch(/No committed/);
    const svg = harnessCountSvg(harnessCountCurve(res)!);
    // Decided: N=18 in-space (ahead); N=6 and N=18 on the base harness (behind).
    expect(svg.match(/<circle [^>]*fill="#1f77b4"/g)).toHaveLength(3);
    expect(svg.match(/<circle [^>]*fill="white"/g)).toHaveLength(3);
    expect(svg.match(/<polyline /g)).toHaveLength(2);
  });
});

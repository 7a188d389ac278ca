// Sweep curves (sweep_curve.ts, sweep_svg.ts): pass@1 after RL against the number N of training
// harnesses or K of harnesses per task, each value against 1 under the RESULTS rule. Synthetic
// experiments whose per-seed pass rates are set exactly, so levels and directions are known: a
// wrong value, a wrong arm or a wrong sign fails.
import { describe, expect, it } from 'vitest';
import type { CommittedResults } from '../../src/experiment/claims';
import { HARNESS_COUNT, HARNESSES_PER_TASK, kSweepMarkdown, sweepCurve, sweepMarkdown } from '../../src/experiment/sweep_curve';
import { sweepSvg } from '../../src/experiment/sweep_svg';
import type { RunResult } from '../../src/report/results_schema';
import { exactCells as cells } from './lib/exact_cells';

const CONFIGS = ['S1-T1-O0-C0-W0', 'S0-T0-O2-C1-W0', 'S1-T1-O1-C1-W1', 'S2-T2-O2-C2-W2'];
const BASE = 'S0-T0-O0-C0-W0';

const METHODS = [
  { name: 'N=18: harness scaling (GRPO, K=4)', harnesses: 'scaling', K: 4 },
  { name: 'N=1: single harness (GRPO)', harnesses: 'single', K: 1 },
  { name: 'N=6 (GRPO, K=4)', harnesses: 'scaling', K: 4, harnessCount: 6 },
];

type Method = { name: string; harnesses: string; K: number; harnessCount?: number };

/** An experiment with the given after-RL rates per method name: [in-space, base]; seeds wobble ±0.05 on in-space. */
function experiment(rates: Record<string, [number, number]>, seeds = 4, methods: Method[] = METHODS): CommittedResults {
  const runs = Array.from({ length: seeds }, (_, seed) =>
    methods.map((m) => {
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
  return { runs, specJson: { design: { method: 'oa', k: 18 }, methods } } as unknown as CommittedResults;
}

describe('sweepCurve over N (harness-count)', () => {
  const res = experiment({
    'N=1: single harness (GRPO)': [0.2, 0.5],
    'N=6 (GRPO, K=4)': [0.2, 0.4],
    'N=18: harness scaling (GRPO, K=4)': [0.35, 0.3],
  });

  it('orders the arms by N (harnessCount, 1 for single, the design size for all-harness scaling) and reads each level over seeds', () => {
    const curve = sweepCurve(res)!;
    expect(curve.axis).toBe(HARNESS_COUNT);
    expect(curve.points.map((p) => p.value)).toEqual([1, 6, 18]);
    expect(curve.points[2].after.inSpace.mean).toBeCloseTo(0.35, 10);
    expect(curve.points[2].after.base.mean).toBeCloseTo(0.3, 10);
    // ±0.05 around the mean over 4 seeds: sd 0.0577, t(3) 3.182 → half-width 0.0919.
    expect(curve.points[0].after.inSpace.hi - curve.points[0].after.inSpace.mean).toBeCloseTo(0.0919, 3);
    expect(curve.before.inSpace).toBeCloseTo(0.15, 10);
    expect(curve.before.base).toBeCloseTo(0.35, 10);
  });

  it('each N against N = 1 under the RESULTS rule: ahead, behind, equivalent', () => {
    const [one, six, all] = sweepCurve(res)!.points;
    expect(one.vsOne.inSpace).toBeNull();
    expect(six.vsOne.inSpace?.comparison.pass.diff).toBeCloseTo(0, 10);
    expect(six.vsOne.inSpace?.direction).toBe('equivalent');
    expect(six.vsOne.base?.direction).toBe('behind');
    expect(all.vsOne.inSpace?.comparison.pass.diff).toBeCloseTo(0.15, 10);
    expect(all.vsOne.inSpace?.direction).toBe('ahead');
    expect(all.vsOne.base?.comparison.pass.diff).toBeCloseTo(-0.2, 10);
    const md = sweepMarkdown(sweepCurve(res), 'none');
    expect(md).toMatch(/\| 18 \| N=18: harness scaling \(GRPO, K=4\) \| 4 \| 35\.0 % \[[^\]]+\] \| \+15\.0 \[[^\]]+\] ahead \|/);
    expect(md).toContain('Before RL (every arm starts from the same base): in-space 15.0 %, base harness 35.0 %.');
  });

  it('no curve without an N = 1 arm; the figure fills exactly the points that differ from N = 1 beyond their interval', () => {
    const noOne = { ...res, specJson: { design: { k: 18 }, methods: METHODS.filter((m) => m.harnesses !== 'single') } };
    expect(sweepCurve(noOne as CommittedResults)).toBeNull();
    expect(sweepMarkdown(null, '_No committed results._')).toBe('_No committed results._');
    const svg = sweepSvg(sweepCurve(res)!);
    expect(svg).toContain('N training harnesses (log scale)');
    // Decided: N=18 in-space (ahead); N=6 and N=18 on the base harness (behind).
    expect(svg.match(/<circle [^>]*fill="#1f77b4"/g)).toHaveLength(3);
    expect(svg.match(/<circle [^>]*fill="white"/g)).toHaveLength(3);
    expect(svg.match(/<polyline /g)).toHaveLength(2);
  });
});

describe('sweepCurve over K (diversity)', () => {
  const KS: Method[] = [8, 1, 4, 2].map((k) => ({ name: `harness scaling (K=${k})`, harnesses: 'scaling', K: k }));
  const res = experiment(
    {
      'harness scaling (K=1)': [0.2, 0.4],
      'harness scaling (K=2)': [0.2, 0.4],
      'harness scaling (K=4)': [0.3, 0.4],
      'harness scaling (K=8)': [0.3, 0.25],
    },
    4,
    KS,
  );

  it('finds the sweep a spec makes: N with harnessCount, K when every arm is harness scaling with distinct K including 1, else none', () => {
    const axisOf = (methods: Method[]) =>
      sweepCurve({ ...res, specJson: { design: { k: 18 }, methods } } as CommittedResults)?.axis ?? null;
    expect(axisOf(KS)).toBe(HARNESSES_PER_TASK);
    expect(axisOf(METHODS)).toBe(HARNESS_COUNT);
    // main: single + scaling K=4; algorithms: the same under two algorithms (K=4 twice); a K sweep without K = 1.
    expect(axisOf([METHODS[1], METHODS[0]])).toBeNull();
    expect(axisOf([KS[0], { ...KS[1], name: 'harness scaling (K=1) again' }, KS[1]])).toBeNull();
    expect(axisOf(KS.filter((m) => m.K !== 1))).toBeNull();
  });

  it('orders by K and reads each K against K = 1 (ahead, equivalent, behind)', () => {
    const curve = sweepCurve(res)!;
    expect(curve.points.map((p) => p.value)).toEqual([1, 2, 4, 8]);
    const [, two, four, eight] = curve.points;
    expect(two.vsOne.inSpace?.direction).toBe('equivalent');
    expect(four.vsOne.inSpace?.comparison.pass.diff).toBeCloseTo(0.1, 10);
    expect(four.vsOne.inSpace?.direction).toBe('ahead');
    expect(eight.vsOne.base?.direction).toBe('behind');
    const md = sweepMarkdown(curve, 'none');
    expect(md.split('\n')[0]).toBe(
      '| K | method | seeds | in-space after RL | in-space: K − (K = 1) | base harness after RL | base: K − (K = 1) |',
    );
    expect(md).toMatch(/\| 4 \| harness scaling \(K=4\) \| 4 \| 30\.0 % \[[^\]]+\] \| \+10\.0 \[[^\]]+\] ahead \|/);
    expect(sweepSvg(curve)).toContain('K harnesses per task (log scale)');
  });

  it("RESULTS' k-sweep block reads only the current design, and says how far the re-run is otherwise", () => {
    expect(kSweepMarkdown(res, true)).toBe(sweepMarkdown(sweepCurve(res, HARNESSES_PER_TASK), 'none'));
    const old = kSweepMarkdown(res, false, { done: [0, 3], planned: 10 });
    expect(old).toMatch(/^_Not read: committed `diversity` is the old design/);
    expect(old).toContain('2 of 10 seeds committed in seed chunks (s0, s3)');
    expect(kSweepMarkdown(undefined, false)).toContain('no seed committed yet');
  });
});

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  DEFAULT_SPACE,
  RoundRobinSchedule,
  assignHarnesses,
  parseHarnessId,
  selectTrainingOA,
  selectTrainingRandom,
} from '../../src/design';

const TRAINING = selectTrainingOA().training;
const dist = (a: string, b: string) => {
  const x = parseHarnessId(a),
    y = parseHarnessId(b);
  return x.reduce((n, v, i) => n + (v === y[i] ? 0 : 1), 0);
};

describe('assignHarnesses', () => {
  const args = fc.record({
    K: fc.integer({ min: 1, max: 18 }),
    tasks: fc.integer({ min: 1, max: 12 }),
    seed: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
    strategy: fc.constantFrom('locality' as const, 'random' as const),
    randomTraining: fc.option(fc.integer({ min: 0, max: 1000 }), { nil: undefined }),
  });

  it('property: K distinct training harnesses per task, anchor first, correct distances; locality ones are the nearest, non-decreasing', () => {
    fc.assert(
      fc.property(args, ({ K, tasks, seed, strategy, randomTraining }) => {
        const training = randomTraining === undefined ? TRAINING : selectTrainingRandom(DEFAULT_SPACE, 18, randomTraining).training;
        const out = assignHarnesses({ training, K, tasks, seed, strategy });
        expect(out.map((a) => a.task)).toEqual(Array.from({ length: tasks }, (_, i) => i));
        for (const a of out) {
          expect(a.harnesses).toHaveLength(K);
          expect(new Set(a.harnesses).size).toBe(K);
          for (const h of a.harnesses) expect(training).toContain(h);
          const anchor = a.harnesses[0];
          expect(a.distances).toEqual(a.harnesses.map((h) => dist(anchor, h)));
          expect(a.distances[0]).toBe(0);
          if (strategy === 'locality') {
            for (let i = 1; i < K; i++) expect(a.distances[i]).toBeGreaterThanOrEqual(a.distances[i - 1]);
            // The K−1 chosen are the nearest: nothing left out is strictly closer than the farthest chosen.
            const farthest = a.distances[K - 1];
            const left = training.filter((h) => !a.harnesses.includes(h));
            if (K > 1) for (const h of left) expect(dist(anchor, h)).toBeGreaterThanOrEqual(farthest);
          }
        }
        // same seed → same output
        expect(assignHarnesses({ training, K, tasks, seed, strategy })).toEqual(out);
      }),
      { numRuns: 40 },
    );
  });

  it("a task's harnesses do not depend on how many tasks there are", () => {
    const few = assignHarnesses({ training: TRAINING, K: 4, tasks: 3, seed: 5 });
    const many = assignHarnesses({ training: TRAINING, K: 4, tasks: 30, seed: 5 });
    expect(many.slice(0, 3)).toEqual(few);
  });

  it('anchors are spread over the training set; ties at the nearest distance are broken by the seeded shuffle', () => {
    const out = assignHarnesses({ training: TRAINING, K: 2, tasks: 400, seed: 1 });
    const byAnchor = new Map<string, string[]>();
    for (const a of out) byAnchor.set(a.harnesses[0], [...(byAnchor.get(a.harnesses[0]) ?? []), a.harnesses[1]]);
    expect(byAnchor.size).toBe(18); // 400 uniform draws over 18 anchors (≈22 each)
    let anchorsWithTies = 0;
    for (const [anchor, seconds] of byAnchor) {
      const others = TRAINING.filter((h) => h !== anchor);
      const dmin = Math.min(...others.map((h) => dist(anchor, h)));
      const nearest = others.filter((h) => dist(anchor, h) === dmin);
      for (const h of seconds) expect(nearest).toContain(h);
      if (nearest.length > 1) {
        anchorsWithTies++;
        // ~22 draws among ≥ 2 tied candidates: a fixed tie-break would always pick the same one.
        expect(new Set(seconds).size).toBeGreaterThan(1);
      }
    }
    expect(anchorsWithTies).toBeGreaterThan(0);
  });

  it('random strategy differs from locality (it may pick far harnesses)', () => {
    const out = assignHarnesses({ training: TRAINING, K: 18, tasks: 20, seed: 3, strategy: 'random' });
    expect(out.some((a) => a.distances.slice(1).some((d, i, ds) => i > 0 && d < ds[i - 1]))).toBe(true);
  });

  it('errors name K and its range, and other bad fields', () => {
    expect(() => assignHarnesses({ training: TRAINING, K: 0, tasks: 2 })).toThrow(/K = 0 is out of range; K must be an integer in 1\.\.18/);
    expect(() => assignHarnesses({ training: TRAINING, K: 19, tasks: 2 })).toThrow(
      /K = 19 is out of range; K must be an integer in 1\.\.18/,
    );
    expect(() => assignHarnesses({ training: TRAINING, K: 2.5, tasks: 2 })).toThrow(/K = 2.5/);
    expect(() => assignHarnesses({ training: [], K: 1, tasks: 2 })).toThrow(/training set is empty/);
    expect(() => assignHarnesses({ training: [TRAINING[0], TRAINING[0]], K: 1, tasks: 2 })).toThrow(/appears twice/);
    expect(() => assignHarnesses({ training: ['S0-T0-O9-C0-W0'], K: 1, tasks: 2 })).toThrow(/component 3 'O9'/);
    expect(() => assignHarnesses({ training: TRAINING, K: 1, tasks: ['a', 'a'] })).toThrow(/task ids must be distinct/);
    expect(() => assignHarnesses({ training: TRAINING, K: 1, tasks: 2, strategy: 'nearest' as never })).toThrow(
      /strategy must be 'locality' or 'random', got 'nearest'/,
    );
  });
});

describe('RoundRobinSchedule', () => {
  it("the k-th draw of a task uses harness k mod K, per task, independent of other tasks' draws", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 60 }),
        (K, drawOrder) => {
          const assignments = assignHarnesses({ training: TRAINING, K, tasks: 5, seed: 11 });
          const sched = new RoundRobinSchedule(assignments);
          const seen = new Map<number, number>();
          for (const t of drawOrder) {
            const k = seen.get(t) ?? 0;
            expect(sched.peek(t)).toBe(assignments[t].harnesses[k % K]);
            expect(sched.next(t)).toBe(assignments[t].harnesses[k % K]);
            seen.set(t, k + 1);
            expect(sched.drawCount(t)).toBe(k + 1);
          }
        },
      ),
      { numRuns: 50 },
    );
  });

  it('cycles through all K harnesses of a task, anchor first', () => {
    const assignments = assignHarnesses({ training: TRAINING, K: 3, tasks: ['x'], seed: 2 });
    const sched = new RoundRobinSchedule(assignments);
    const used = Array.from({ length: 7 }, () => sched.next('x'));
    const h = assignments[0].harnesses;
    expect(used).toEqual([h[0], h[1], h[2], h[0], h[1], h[2], h[0]]);
  });

  it('state survives a JSON round trip (checkpoint) and resumes the cycle', () => {
    const assignments = assignHarnesses({ training: TRAINING, K: 4, tasks: 3, seed: 9 });
    const a = new RoundRobinSchedule(assignments);
    for (const t of [0, 1, 0, 2, 0]) a.next(t);
    const state = JSON.parse(JSON.stringify(a.state()));
    expect(state).toEqual({ draws: { '0': 3, '1': 1, '2': 1 } });
    const b = RoundRobinSchedule.fromState(assignments, state);
    for (const t of [0, 0, 1, 2, 2]) expect(b.next(t)).toBe(a.next(t));
  });

  it('rejects unknown tasks and bad states', () => {
    const assignments = assignHarnesses({ training: TRAINING, K: 2, tasks: 2, seed: 1 });
    const s = new RoundRobinSchedule(assignments);
    expect(() => s.next(7)).toThrow(/unknown task '7'/);
    expect(() => new RoundRobinSchedule(assignments, { draws: { '9': 1 } })).toThrow(/unknown task '9'/);
    expect(() => new RoundRobinSchedule(assignments, { draws: { '0': -1 } })).toThrow(/state.draws\['0'\] must be a non-negative integer/);
  });
});

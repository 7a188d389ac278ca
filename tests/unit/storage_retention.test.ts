import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { planRetention } from '../../src/storage/retention';
import { CheckpointError } from '../../src/storage/errors';

describe('planRetention', () => {
  it('keeps the last N, every k-th step and the pointer', () => {
    const steps = [10, 20, 30, 40, 50, 60, 70];
    expect(planRetention(steps, [70], { keepLast: 2 })).toEqual({ keep: [60, 70], remove: [10, 20, 30, 40, 50] });
    expect(planRetention(steps, [70], { keepLast: 2, keepEvery: 30 })).toEqual({ keep: [30, 60, 70], remove: [10, 20, 40, 50] });
    // The pointer names an older step (e.g. resumed after a corrupt newer one): it stays.
    expect(planRetention(steps, [20], { keepLast: 1 })).toEqual({ keep: [20, 70], remove: [10, 30, 40, 50, 60] });
    expect(planRetention([], [], { keepLast: 3 })).toEqual({ keep: [], remove: [] });
  });

  it('partitions the steps and removes only what no rule keeps', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 200 }), { maxLength: 30 }),
        fc.integer({ min: 1, max: 6 }),
        fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined }),
        fc.nat(),
        (steps, keepLast, keepEvery, pick) => {
          const pointer = steps.length > 0 ? [steps[pick % steps.length]] : [];
          const { keep, remove } = planRetention(steps, pointer, { keepLast, keepEvery });
          expect([...keep, ...remove].sort((a, b) => a - b)).toEqual([...steps].sort((a, b) => a - b));
          const top = [...steps].sort((a, b) => b - a).slice(0, keepLast);
          for (const s of top) expect(keep).toContain(s);
          for (const s of pointer) expect(keep).toContain(s);
          for (const s of remove) {
            expect(top).not.toContain(s);
            expect(pointer).not.toContain(s);
            if (keepEvery !== undefined) expect(s % keepEvery).not.toBe(0);
          }
        },
      ),
    );
  });

  it('rejects a bad policy, naming the field', () => {
    for (const [policy, field] of [
      [{ keepLast: 0 }, 'retention.keepLast'],
      [{ keepLast: 1.5 }, 'retention.keepLast'],
      [{ keepLast: 2, keepEvery: 0 }, 'retention.keepEvery'],
    ] as const) {
      expect(() => planRetention([1], [], policy)).toThrow(CheckpointError);
      expect(() => planRetention([1], [], policy)).toThrow(field);
    }
  });
});

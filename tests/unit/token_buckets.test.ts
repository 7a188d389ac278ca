import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { tokenBuckets } from '../../src/engine/webgpu/kernels/token_buckets';

describe('tokenBuckets (encoder_backward gather order)', () => {
  it('lists every position of token v once, in increasing order, and nothing else', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.array(fc.nat(), { minLength: 1, maxLength: 200 }), (V, raw) => {
        const ids = Int32Array.from(raw.map((x) => x % V));
        const { start, pos } = tokenBuckets(ids, V);
        expect(start[0]).toBe(0);
        expect(start[V]).toBe(ids.length);
        for (let v = 0; v < V; v++) {
          const got = Array.from(pos.subarray(start[v], start[v + 1]));
          const want = [...ids.keys()].filter((i) => ids[i] === v);
          expect(got).toEqual(want);
        }
      }),
    );
  });

  it('names the first id outside [0, V)', () => {
    expect(() => tokenBuckets(Int32Array.from([0, 3, 5]), 4)).toThrow('ids[2] = 5 is outside [0, 4)');
    expect(() => tokenBuckets(Int32Array.from([-1]), 4)).toThrow('ids[0] = -1');
  });
});

// The RL kernel launchers check every tensor view against the dims before touching the GPU: a
// view too small (or with an offset; the RL shaders bind whole buffers) throws an error naming the
// launcher and the field. Runs in Node with a Gpu that throws on any use, so a check that came
// after a GPU call would show up as 'touched the GPU'. Parity with the CPU references:
// tests/browser/rl_kernels.spec.ts.
import { describe, expect, it } from 'vitest';
import type { Gpu } from '../../src/engine/webgpu/device';
import type { TensorView } from '../../src/engine/webgpu/kernels/dispatch_plan';
import { ROW_STATS, RL_METRICS } from '../../src/reference/rl_metrics';
import { stepNormalizer } from '../../src/reference/rl_math';
import { prepareGrpoAdvantageForward } from '../../src/engine/webgpu/kernels/grpo_advantage_forward';
import { prepareGaeForward } from '../../src/engine/webgpu/kernels/gae_forward';
import { advNormalizeScratchBytes, prepareAdvNormalizeForward } from '../../src/engine/webgpu/kernels/adv_normalize_forward';
import { prepareEntropyBackward } from '../../src/engine/webgpu/kernels/entropy_backward';
import {
  prepareRlAccInit,
  prepareRlAccumulate,
  prepareRlMetricsFinalize,
  prepareRlRowsZero,
} from '../../src/engine/webgpu/kernels/rl_metrics_forward';
import { prepareNonfiniteCheck, prepareNonfiniteClear } from '../../src/engine/webgpu/kernels/nonfinite_check';

const gpu = new Proxy(
  {},
  {
    get: (_, k) => {
      throw new Error(`touched the GPU (gpu.${String(k)})`);
    },
  },
) as Gpu;

/** A view of a fake buffer of `n` f32 elements. */
const tv = (n: number, label = 'buf'): TensorView => ({ buffer: { size: n * 4, label } as GPUBuffer });

const B = 3,
  T = 5,
  V = 7,
  E = 4,
  G = 2;
const norm = stepNormalizer(new Float32Array(B * T).fill(1), B, T, T);

/** A launcher, its correctly sized args, and the fields to shrink one at a time (with their element counts). */
interface Case {
  op: string;
  prepare: (a: Record<string, unknown>) => unknown;
  dims: Record<string, unknown>;
  views: Record<string, number>;
}

const cases: Case[] = [
  {
    op: 'grpo_advantage_forward',
    prepare: (a) => prepareGrpoAdvantageForward(gpu, a as never),
    dims: { E, numGroups: G, B, T, p: { stdFloor: 1e-6, eps: 1e-6, noStdDivision: false } },
    views: { rewards: E, groupOffsets: G + 1, episodeAdvantages: E, rowEpisode: B, mask: B * T, advantages: B * T },
  },
  {
    op: 'gae_forward',
    prepare: (a) => prepareGaeForward(gpu, a as never),
    dims: { B, T, p: { gamma: 0.9, lambda: 0.95 } },
    views: { rewards: B, values: B * T, mask: B * T, nextValue: B, truncated: B, advantages: B * T, returns: B * T },
  },
  {
    op: 'adv_normalize_forward',
    prepare: (a) => prepareAdvNormalizeForward(gpu, a as never),
    dims: { B, T, eps: 1e-6 },
    views: { advantages: B * T, mask: B * T, scratch: advNormalizeScratchBytes(B) / 4 },
  },
  {
    op: 'entropy_backward',
    prepare: (a) => prepareEntropyBackward(gpu, a as never),
    dims: { B, T, V, p: { aggregation: 'token-mean', norm, entCoef: 0.01 } },
    views: { logits: B * T * V, lse: B * T, entropy: B * T, dentropy: B * T, dlogits: B * T * V },
  },
  {
    op: 'rl_metrics_forward.zero_rows',
    prepare: (a) => prepareRlRowsZero(gpu, a as never),
    dims: { B },
    views: { rowStats: B * ROW_STATS },
  },
  { op: 'rl_metrics_forward.init_acc', prepare: (a) => prepareRlAccInit(gpu, a as never), dims: {}, views: { acc: ROW_STATS } },
  {
    op: 'rl_metrics_forward.accumulate',
    prepare: (a) => prepareRlAccumulate(gpu, a as never),
    dims: { B },
    views: { rowStats: B * ROW_STATS, acc: ROW_STATS },
  },
  {
    op: 'rl_metrics_forward.finalize',
    prepare: (a) => prepareRlMetricsFinalize(gpu, a as never),
    dims: { c: { klCoef: 0, entCoef: 0, vfCoef: 0 } },
    views: { acc: ROW_STATS, flags: 1, metrics: RL_METRICS },
  },
  {
    op: 'nonfinite_check.check',
    prepare: (a) => prepareNonfiniteCheck(gpu, a as never),
    dims: { n: 11, bit: 1 << 4 },
    views: { x: 11, flags: 1 },
  },
  { op: 'nonfinite_check.clear', prepare: (a) => prepareNonfiniteClear(gpu, a as never), dims: {}, views: { flags: 1 } },
];

const argsOf = (c: Case, override: Record<string, TensorView> = {}) => ({
  ...c.dims,
  ...Object.fromEntries(Object.entries(c.views).map(([k, n]) => [k, tv(n, k)])),
  ...override,
});

describe('RL launchers check their tensor views before touching the GPU', () => {
  for (const c of cases) {
    it(`${c.op}: correctly sized views pass the checks`, () => {
      expect(() => c.prepare(argsOf(c))).toThrow(/touched the GPU/);
    });
    for (const [field, n] of Object.entries(c.views)) {
      it(`${c.op}: ${field} one element short throws naming ${field}`, () => {
        expect(() => c.prepare(argsOf(c, { [field]: tv(n - 1, 'short') }))).toThrow(`${c.op}: ${field} needs elements [0, ${n})`);
      });
    }
    const [first] = Object.keys(c.views);
    it(`${c.op}: an offset view (${first}) throws naming it`, () => {
      const big = tv(c.views[first] + 8);
      expect(() => c.prepare(argsOf(c, { [first]: { ...big, offset: 4 } }))).toThrow(`${c.op}: ${first}.offset must be 0`);
    });
  }

  it('bad dimensions are named', () => {
    const grpo = cases[0];
    expect(() => grpo.prepare({ ...argsOf(grpo), numGroups: 0 })).toThrow(
      'grpo_advantage_forward: numGroups must be a positive integer, got 0',
    );
    expect(() => cases[3].prepare({ ...argsOf(cases[3]), V: 2.5 })).toThrow('entropy_backward: V must be a positive integer, got 2.5');
    expect(() => prepareNonfiniteCheck(gpu, { n: 0, x: tv(1), flags: tv(1), bit: 1 })).toThrow(
      'nonfinite_check.check: n must be a positive integer, got 0',
    );
    expect(() => cases[1].prepare({ ...argsOf(cases[1]), p: { gamma: 1.5, lambda: 1 } })).toThrow(
      'gae_forward: gamma = 1.5 must be in [0, 1]',
    );
  });
});

// The WGSL shaders repeat layouts of src/reference/rl_metrics.ts and a shared LossParams block: check
// they agree, so a change on one side cannot silently desynchronize the other.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROW, ROW_STATS, RL_METRICS, RL_METRIC_NAMES, F32_MAX } from '../../src/reference/rl_metrics';
import { LOG_RATIO_CLAMP } from '../../src/reference/rl_math';

const shader = (name: string) => readFileSync(new URL(`../../src/engine/webgpu/shaders/${name}.wgsl`, import.meta.url), 'utf8');
const LOSS_SHADERS = [
  'surrogate_forward',
  'surrogate_backward',
  'kl_forward',
  'kl_backward',
  'value_loss_forward',
  'value_loss_backward',
  'entropy_forward',
  'entropy_backward',
];

describe('RL shader layouts', () => {
  it('the shared LossParams block matches the TS constants and is not redefined by a loss shader', () => {
    const common = shader('rl_loss_common');
    expect(common).toContain(`const ROW_STATS: u32 = ${ROW_STATS}u;`);
    expect(common).toContain(`const LOG_RATIO_CLAMP: f32 = ${LOG_RATIO_CLAMP.toFixed(1)};`);
    expect(Number(/const F32_MAX: f32 = ([0-9.e+]+);/.exec(common)?.[1])).toBe(F32_MAX);
    for (const n of LOSS_SHADERS) {
      const src = shader(n);
      expect(src, n).not.toMatch(/struct LossParams|fn row_weight|fn k3|const ROW_STATS/);
      const launcher = readFileSync(new URL(`../../src/engine/webgpu/kernels/${n}.ts`, import.meta.url), 'utf8');
      expect(launcher, n).toContain('const code = common + body;');
    }
  });
  it('rl_metrics_forward names every rowStats column as src/reference/rl_metrics.ts does', () => {
    const src = shader('rl_metrics_forward');
    for (const [name, idx] of Object.entries(ROW)) expect(src).toContain(`const ${name}: u32 = ${idx}u;`);
    expect(RL_METRIC_NAMES.length).toBeLessThanOrEqual(RL_METRICS);
    expect(src).toContain(`metrics[${RL_METRIC_NAMES.length - 1}] = f32(f);`); // nonfiniteMask last
  });
  it('row-writing shaders use the column numbers of ROW', () => {
    const uses: Array<[string, Array<keyof typeof ROW>]> = [
      ['kl_forward', ['KL_SUM', 'KL_LOSS']],
      ['entropy_forward', ['ENT_SUM', 'ENT_LOSS']],
      ['value_loss_forward', ['VF_LOSS', 'VF_CLIP', 'RET_MEAN', 'RET_M2', 'RES_MEAN', 'RES_M2']],
      [
        'surrogate_forward',
        [
          'TOKENS',
          'SEQS',
          'PG_LOSS',
          'CLIP_LOW',
          'CLIP_HIGH',
          'DUAL_CLIP',
          'APPROX_KL',
          'RATIO_SUM',
          'RATIO_MIN',
          'RATIO_MAX',
          'ADV_MEAN',
          'ADV_M2',
        ],
      ],
    ];
    for (const [name, keys] of uses) {
      const src = shader(name);
      for (const k of keys) expect(src, `${name} writes ${k}`).toMatch(new RegExp(`ROW_STATS \\+ ${ROW[k]}u\\]|o \\+ ${ROW[k]}u\\]`));
    }
  });
  it('nonfinite_check tests exponent bits, never x != x', () => {
    const src = shader('nonfinite_check').replace(/\/\/.*$/gm, ''); // code only, not comments
    expect(src).toContain('0x7f800000u');
    expect(src).not.toMatch(/(\w+)\s*!=\s*\1\b/);
  });
});

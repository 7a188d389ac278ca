// The WGSL shaders repeat layouts of src/rl/metrics.ts and a shared LossParams block: check
// they agree, so a change on one side cannot silently desynchronize the other.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROW, ROW_STATS, RL_METRICS, RL_METRIC_NAMES, F32_MAX } from '../../src/rl/metrics';
import { LOG_RATIO_CLAMP } from '../../src/rl/math';

const shader = (name: string) => readFileSync(new URL(`../../shaders/${name}.wgsl`, import.meta.url), 'utf8');
const LOSS_SHADERS = ['surrogate_forward', 'surrogate_backward', 'kl_forward', 'kl_backward', 'value_loss_forward', 'value_loss_backward', 'entropy_forward', 'entropy_backward'];

function sharedBlock(src: string): string {
  const a = src.indexOf('// --- shared by the RL loss shaders');
  const b = src.indexOf('// --- end of shared block ---');
  if (a < 0 || b < 0) throw new Error('shared block markers missing');
  return src.slice(a, b);
}

describe('RL shader layouts', () => {
  it('every loss shader carries the identical shared LossParams block', () => {
    const blocks = LOSS_SHADERS.map((n) => sharedBlock(shader(n)));
    for (const b of blocks) expect(b).toBe(blocks[0]);
    expect(blocks[0]).toContain(`const ROW_STATS: u32 = ${ROW_STATS}u;`);
    expect(blocks[0]).toContain(`const LOG_RATIO_CLAMP: f32 = ${LOG_RATIO_CLAMP.toFixed(1)};`);
    expect(Number(/const F32_MAX: f32 = ([0-9.e+]+);/.exec(blocks[0])?.[1])).toBe(F32_MAX);
  });
  it('rl_metrics_forward names every rowStats column as src/rl/metrics.ts does', () => {
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
      ['surrogate_forward', ['TOKENS', 'SEQS', 'PG_LOSS', 'CLIP_LOW', 'CLIP_HIGH', 'DUAL_CLIP', 'APPROX_KL', 'RATIO_SUM', 'RATIO_MIN', 'RATIO_MAX', 'ADV_MEAN', 'ADV_M2']],
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

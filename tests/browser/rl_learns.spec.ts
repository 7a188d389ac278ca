// The learning sanity check on the WebGPU engine (the CPU twin is
// tests/unit/rl_learns.test.ts): the whole RL loop must raise a fresh micro policy's reward on a
// one-turn choice from ≈ 0.2 to ≥ 0.8 within 16 steps at a fixed seed.
import { test, expect, note } from './fixtures';
// Types only: the lib imports the engines (WGSL), which load in the page, not in Node.
import type { ChoiceStep } from './lib/choice_task';

const ENTRY = '/tests/browser/rl_learns.entry.ts';
const mean = (xs: readonly number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;

for (const algorithm of ['grpo', 'ppo'] as const) {
  test(`${algorithm} on WebGPU: the training reward rises from ≈ 0.2 to ≥ 0.8 within 16 steps (seed 1)`, async ({ gpuPage }) => {
    const r = await gpuPage.run<{ adapter: string; planned: number; steps: ChoiceStep[] }>(ENTRY, 'learnOnGpu', algorithm);
    const h = r.steps;
    note(`${algorithm} rewards (${r.adapter})`, h.map((s) => s.reward.toFixed(2)).join(' '));
    expect(r.planned).toBe(16);
    expect(h).toHaveLength(r.planned);
    expect(mean(h.slice(0, 2).map((s) => s.reward))).toBeLessThan(0.4);
    expect(mean(h.slice(-3).map((s) => s.reward))).toBeGreaterThanOrEqual(0.8);
    for (const s of h) expect(s.skippedSteps).toBe(0);
    expect(h.slice(0, 5).every((s) => s.optimizerSteps > 0)).toBe(true);
  });
}

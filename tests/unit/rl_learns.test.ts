// The learning sanity check on the CPU engine: the whole RL loop — WasmSampler,
// rollout engine, reward, rows, advantages, GRPO and PPO updates (src/experiment/rl_loop.ts and
// below) — must raise a fresh micro policy's reward on a one-turn choice from ≈ 0.2 to ≥ 0.8
// within 16 steps at a fixed seed (tests/browser/lib/choice_task.ts). A sign or mask bug anywhere
// in the chain leaves the reward near 0.2 or drives it to 0. The WebGPU twin is
// tests/browser/rl_learns.spec.ts.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Tokenizer, type TokenizerFile } from '../../src/model/tokenizer';
import { decodeAction } from '../../src/episode/rows';
import { defaultSpecialIds } from '../../src/engine/sample_request';
import { CpuEngine } from '../../src/engine/wasm/wasm_engine';
import { CHOICE_DEFAULTS, CLASSES, choiceClass, learnChoice, type ChoiceStep } from '../browser/lib/choice_task';

const tok = Tokenizer.fromJSON(
  JSON.parse(readFileSync(new URL('../../public/tokenizer-v2.json', import.meta.url), 'utf8')) as TokenizerFile,
);

let engine: CpuEngine;
beforeAll(async () => {
  engine = await CpuEngine.create('test', { threads: 1 });
});
afterAll(() => engine.destroy());

const mean = (xs: readonly number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;
/** Mean training reward of the first / last `n` steps. */
const head = (h: readonly ChoiceStep[], n: number) => mean(h.slice(0, n).map((s) => s.reward));
const tail = (h: readonly ChoiceStep[], n: number) => mean(h.slice(-n).map((s) => s.reward));

describe('the RL loop learns a one-turn choice (CPU engine)', () => {
  it('the task is hard before RL: the class-0 share of the ids a fresh policy samples is ≈ 1/5', () => {
    // The sampler bans the specials but <|end|> (SamplerPolicy's defaultSpecialIds).
    const ban = defaultSpecialIds(tok.vocabSize)!;
    const end = tok.special('<|end|>');
    let n = 0;
    let right = 0;
    for (let id = 0; id < tok.vocabSize; id++) {
      if (id >= ban.lo && id < ban.hi && id !== end) continue;
      n++;
      if (choiceClass(decodeAction(tok, [id])) === 0) right++;
    }
    expect(n).toBeGreaterThan(900);
    expect(right / n).toBeGreaterThan(0.5 / CLASSES);
    expect(right / n).toBeLessThan(1.5 / CLASSES);
  });

  for (const algorithm of ['grpo', 'ppo'] as const) {
    it(`${algorithm}: the training reward rises from ≈ 0.2 to ≥ 0.8 within ${CHOICE_DEFAULTS.steps} steps (seed ${CHOICE_DEFAULTS.seed})`, async () => {
      const h = await learnChoice(engine, tok, { algorithm });
      console.log(algorithm, h.map((s) => s.reward.toFixed(2)).join(' '));
      expect(h).toHaveLength(CHOICE_DEFAULTS.steps);
      expect(head(h, 2)).toBeLessThan(0.4);
      expect(tail(h, 3)).toBeGreaterThanOrEqual(0.8);
      for (const s of h) expect(s.skippedSteps).toBe(0);
      // Learning came from optimizer steps, not from the sampler drifting.
      expect(h.slice(0, 5).every((s) => s.optimizerSteps > 0)).toBe(true);
    });
  }

  it(`grpo at rollout temperature τ = 1.5 (trainer scoring at τ = 1.5): the training reward rises from ≈ 0.2 to ≥ 0.8 within ${CHOICE_DEFAULTS.steps} steps`, async () => {
    const h = await learnChoice(engine, tok, { algorithm: 'grpo', temperature: 1.5 });
    console.log('grpo τ=1.5', h.map((s) => s.reward.toFixed(2)).join(' '));
    expect(h).toHaveLength(CHOICE_DEFAULTS.steps);
    expect(head(h, 2)).toBeLessThan(0.4);
    expect(tail(h, 3)).toBeGreaterThanOrEqual(0.8);
    for (const s of h) expect(s.skippedSteps).toBe(0);
  });

  it('negative control: with the reward inverted through the loop seam, the same run drives the class-0 rate to ≈ 0', async () => {
    // The loop optimizes the reward it is given: trained on 1 − r, the share of class-0 answers
    // must fall, so the rise above is the update's doing, not an artifact of the task or sampler.
    const invert = { afterRollout: (_s: number, trajs: Array<{ reward: number }>) => trajs.forEach((t) => (t.reward = 1 - t.reward)) };
    const h = await learnChoice(engine, tok, { algorithm: 'grpo', hooks: invert });
    console.log('inverted', h.map((s) => s.reward.toFixed(2)).join(' '));
    // The records hold the inverted reward: 1 − (class-0 rate).
    expect(1 - tail(h, 3)).toBeLessThanOrEqual(0.05);
  });
});

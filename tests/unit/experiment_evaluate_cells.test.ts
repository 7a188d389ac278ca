// evaluate() records every episode by results column (base, train, inSpace, each black-box id)
// with its (task, harness, sample) cell, pass and score — what results.ts needs for Wilson
// intervals and paired before→after tests — and pass@1 counts verifier passes.
import { randomTokenPolicy } from './lib/random_policy';
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { Tokenizer, type TokenizerFile } from '../../src/model/tokenizer';
import { evaluate } from '../../src/experiment/evaluate';
import { smallEvalOptions } from './lib/eval_options';
import { envWithOutcomes } from './lib/env_outcome';
import type { Policy } from '../../src/rollout/rollout';
import { taskSet } from '../../src/tasks';

const tok = Tokenizer.fromJSON(
  JSON.parse(readFileSync(new URL('../../public/tokenizer-v2.json', import.meta.url), 'utf8')) as TokenizerFile,
);

describe('evaluate: per-episode cells', () => {
  it('fills every column with its cells; pass@1 per harness equals the passes of its cells', async () => {
    const policy = randomTokenPolicy(tok.vocabSize);
    // Every third finished episode "passes" (score 1), the others score 0.5.
    const { env } = envWithOutcomes(tok, (n) =>
      n % 3 === 0 ? { pass: true, reward: 1, score: 1 } : { pass: false, reward: 0, score: 0.5 },
    );
    const testTasks = taskSet('workspace', 'test', 2, 1).map((t) => t.id);
    const sets = { testTasks, training: ['S0-T0-O0-C0-W0', 'S1-T1-O1-C1-W1'], inSpace: ['S2-T2-O2-C2-W2'], blackbox: ['bb-assistant'] };
    const { result: r } = await evaluate(sets, smallEvalOptions(tok, policy, env));
    const cells = r.cells!;
    expect(Object.keys(cells).sort()).toEqual(['base', 'bb-assistant', 'inSpace', 'train']);
    expect(cells.base).toHaveLength(4);
    expect(cells.train).toHaveLength(8);
    expect(cells.inSpace).toHaveLength(4);
    expect(cells['bb-assistant']).toHaveLength(4);
    // The base harness is a training harness here: its episodes sit in both columns.
    for (const c of cells.base) expect(cells.train).toContainEqual(c);
    for (const c of cells.train) {
      expect(testTasks).toContain(c.taskId);
      expect([0, 1]).toContain(c.sample);
      expect(c.score).toBe(c.pass ? 1 : 0.5);
    }
    // Each (task, harness) cell has samples 0 and 1 once.
    const keys = new Set(
      Object.values(cells)
        .flat()
        .map((c) => `${c.taskId}|${c.harnessId}|${c.sample}`),
    );
    expect(keys.size).toBe(16);
    for (const [h, p] of Object.entries(r.perHarness)) {
      const of = Object.values(cells)
        .flat()
        .filter((c) => c.harnessId === h);
      const uniq = [...new Map(of.map((c) => [`${c.taskId}|${c.sample}`, c])).values()];
      expect(p).toBeCloseTo(uniq.filter((c) => c.pass).length / uniq.length, 12);
    }
    expect(
      Object.values(cells)
        .flat()
        .some((c) => c.pass),
    ).toBe(true);
  });

  it('skips excluded (task, harness) cells entirely', async () => {
    const { cellKey } = await import('../../src/experiment/plan');
    const policy = {
      maxB: 8,
      maxT: 512,
      tokens: 0,
      ms: 0,
      async sample(prompts: Int32Array[]) {
        return prompts.map(() => ({ ids: Int32Array.from([5]), logprobs: new Float32Array(1), stop: 'length' as const }));
      },
    } as unknown as Policy;
    const { env } = envWithOutcomes(tok, () => ({ pass: false, reward: 0, score: 0 }));
    const testTasks = taskSet('workspace', 'test', 2, 1).map((t) => t.id);
    const sets = {
      testTasks,
      training: ['S0-T0-O0-C0-W0'],
      inSpace: [],
      blackbox: ['bb-assistant'],
      excluded: new Set([cellKey(testTasks[0], 'bb-assistant')]),
    };
    const { result: r } = await evaluate(sets, smallEvalOptions(tok, policy, env, { maxTurns: 1, maxNewTokens: 4, seed: 0 }));
    expect(r.episodes).toBe(2 * 2 + 1 * 2);
    expect(r.cells!['bb-assistant'].map((c) => c.taskId)).toEqual([testTasks[1], testTasks[1]]);
    expect(r.cells!.base).toHaveLength(4);
  });
});

/**
 * SFT (src/pretrain/sft.ts) on the CPU model and the base-checkpoint file
 * (src/model/checkpoint.ts): loss goes down on a small demonstration set, runs are
 * reproducible from the seed, the base model's demonstrations come only from procedural
 * harnesses and the baseline's only from the black-box harness, checkpoints round-trip with
 * their digest and a corrupted file is rejected with a clear message.
 */
import { CpuEngine } from '../../src/engine/wasm/wasm_engine';
import type { Policy, PolicySample } from '../../src/rollout/rollout';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Tokenizer } from '../../src/model/tokenizer';
import { paramCount } from '../../src/model/layout';
import type { Row, RowBatch } from '../../src/episode/rows';
import type { SftTrainer } from '../../src/engine/engine_api';
import type { ExpertEpisode } from '../../src/harness/expert';
import { demoTasks, prepareSft, resolveSftConfig, trainSft, type SftConfig } from '../../src/pretrain/sft';
import { demonstrationRows, describeDropped, keepPassed } from '../../src/episode/demonstrations';
import { pretrainBaseCpu, sftBlackboxCpu } from './lib/sft_cpu';
import { decodeBaseCheckpoint, encodeBaseCheckpoint } from '../../src/model/checkpoint';
import { evaluateGreedy } from '../../src/pretrain/eval_greedy';
import { taskFromId, taskSet, SEED_RANGES } from '../../src/tasks';
import { turnCap } from '../../src/harness/turn_budget';

const tok = Tokenizer.fromJSON(JSON.parse(readFileSync(new URL('../../public/tokenizer-v2.json', import.meta.url), 'utf8')));

/** A policy that answers every prompt with `ids(maxNew)`; a row stops at `<|end|>`, else at the budget. */
function scripted(ids: (maxNew: number) => number[]): Policy {
  const end = tok.special('<|end|>');
  return {
    maxB: 64,
    maxT: 512,
    async sample(prompts, maxNew): Promise<PolicySample[]> {
      return prompts.map(() => {
        const a = ids(maxNew);
        return { ids: Int32Array.from(a), logprobs: new Float32Array(a.length), stop: a[a.length - 1] === end ? 'end' : 'length' };
      });
    },
  };
}

/** Two rows of 4 and 5 tokens: context then a two-token action. */
const TWO_ROWS: Row[] = [
  { ids: Int32Array.of(1, 2, 3, 4), mask: Uint8Array.of(0, 0, 1, 1), contextTokens: 2, droppedContextTokens: 0, actionTokens: 2 },
  { ids: Int32Array.of(1, 2, 3, 4, 5), mask: Uint8Array.of(0, 0, 0, 1, 1), contextTokens: 3, droppedContextTokens: 0, actionTokens: 2 },
];

/** What a trainer is given at each step of trainSft over `rows`: the learning rate and the batch. */
async function stepsSeen(
  cfg: ReturnType<typeof resolveSftConfig>,
  rows: readonly Row[] = TWO_ROWS,
): Promise<{ lr: number; batch: RowBatch }[]> {
  const seen: { lr: number; batch: RowBatch }[] = [];
  const recorder: SftTrainer = {
    name: 'recorder',
    async step(batch, lr) {
      seen.push({ lr, batch });
      return { loss: 1, gradNorm: 1, tokens: 1 };
    },
    params: async () => new Float32Array(0),
  };
  await trainSft(rows, cfg, recorder, tok.padId);
  return seen;
}

/** A micro model (C=16, L=1) so a CPU step is fast; maxT = 512 holds every procedural opening (the cut never drops it). */
const MICRO: SftConfig = {
  preset: 'tiny',
  steps: 30,
  batchSize: 4,
  lr: 1e-2,
  seed: 5,
  demos: 4,
  blackbox: null,
  mix: 'procedural:1',
  maxTier: 1,
  actionReserve: 40,
  warmupSteps: 3,
  modelOverride: { C: 16, L: 1, NH: 2, maxT: 512 },
};

describe('demonstrations', () => {
  it('procedural-only mix: only procedural harnesses; the baseline only the black-box one', () => {
    const base = prepareSft(tok, { ...MICRO, seed: 1, maxTier: 3 }).demos;
    expect(base.failed).toBe(0);
    expect(base.failedBy).toEqual({ opening: 0, driver: 0, verifier: 0 });
    expect(base.episodes.length).toBe(4);
    expect(base.episodes.every((e) => /^proc-\d+$/.test(e.harness))).toBe(true);
    expect(new Set(base.episodes.map((e) => e.taskId.split('/')[0]))).toEqual(new Set(['workspace', 'errands']));
    for (const e of base.episodes) expect(Number(e.taskId.split('/').pop())).toBeLessThanOrEqual(SEED_RANGES.train.to);
    const { mix: _baseOnly, ...noMix } = MICRO;
    const bb = prepareSft(tok, { ...noMix, demos: 2, seed: 1, maxTier: 3, blackbox: 'bb-coding-cli' }).demos;
    expect(bb.failed).toBe(0);
    expect(bb.episodes.every((e) => e.harness === 'bb-coding-cli')).toBe(true);
    expect(() => resolveSftConfig({ ...MICRO, blackbox: 'S0-T0-O0-C0-W0' }, tok.vocabSize)).toThrow(/blackbox/);
    expect(() => resolveSftConfig({ ...MICRO, steps: 0 }, tok.vocabSize)).toThrow(/steps/);
  });

  it('dropped demonstrations are counted by reason: a window smaller than an opening drops them all as "opening"', () => {
    const tight = prepareSft(tok, { ...MICRO, seed: 1, actionReserve: 64, modelOverride: { ...MICRO.modelOverride, maxT: 160 } }).demos;
    expect(tight.episodes.length).toBe(0);
    expect(tight.failedBy).toEqual({ opening: 4, driver: 0, verifier: 0 });
    expect(describeDropped(tight)).toBe('4 dropped: opening 4');
    expect(describeDropped({ failed: 0, failedBy: { opening: 0, driver: 0, verifier: 0 } })).toBe('0 dropped');
    // A failed run without an error kind failed its verifier; one with a kind is counted under it.
    const failedRun = (errorKind?: 'driver' | 'opening') => ({ pass: false, ...(errorKind ? { errorKind } : {}) }) as ExpertEpisode;
    expect(keepPassed([failedRun(), failedRun('driver'), failedRun('driver'), failedRun('opening')])).toEqual({
      episodes: [],
      failed: 4,
      failedBy: { opening: 1, driver: 2, verifier: 1 },
    });
  });

  it('curriculum: demoTasks honours maxTier and the count, split over both suites', () => {
    const ts = demoTasks(7, 3, 1);
    expect(ts).toHaveLength(7);
    expect(ts.every((t) => t.tier === 1)).toBe(true);
    expect(ts.filter((t) => t.suite === 'workspace')).toHaveLength(4);
  });

  it('base-model and black-box-baseline entry points train from their own demonstrations', async () => {
    const cfg = { ...MICRO, steps: 2, demos: 2, blackbox: undefined };
    const base = await pretrainBaseCpu(tok, cfg);
    expect(base.demos.source).toBe('mix procedural:1');
    expect(base.losses).toHaveLength(2);
    const { mix: _baseOnly, ...bbCfg } = cfg;
    const bb = await sftBlackboxCpu(tok, bbCfg);
    expect(bb.demos.source).toBe('bb-coding-cli');
    expect(bb.losses).toHaveLength(2);
    expect(Array.from(bb.params)).not.toEqual(Array.from(base.params));
  });

  it('the lr schedule warms up linearly and decays by cosine to minRatio·lr', async () => {
    // lr 0.5 over 100 steps, 10 of warm-up, down to 0.1·lr.
    const cfg = resolveSftConfig({ ...MICRO, steps: 100, lr: 0.5, warmupSteps: 10, minLrRatio: 0.1 }, tok.vocabSize);
    const lr = (await stepsSeen(cfg)).map((s) => s.lr / 0.5);
    expect(lr).toHaveLength(100);
    expect(lr[0]).toBeCloseTo(0.1);
    expect(lr[9]).toBeCloseTo(1);
    expect(lr[99]).toBeCloseTo(0.1);
    expect(lr[54]).toBeCloseTo(0.55);
  });
});

describe('SFT (trainSft)', () => {
  it('contextLossWeight: context tokens get weight w, action tokens keep 1, <bos> and padding stay 0; w outside [0, 1] is refused', async () => {
    // Each row's loss weights as the trainer gets them (the row told by its length), and one padding position.
    const weights = async (w: number) =>
      (await stepsSeen(resolveSftConfig({ ...MICRO, steps: 3, batchSize: 2, contextLossWeight: w }, tok.vocabSize))).flatMap(({ batch }) =>
        Array.from(batch.lengths, (n, b) => [n, ...batch.mask.subarray(b * batch.T, b * batch.T + 6)]),
      );
    const plain = await weights(0);
    expect(plain).toHaveLength(6);
    for (const row of plain) expect(row).toEqual(row[0] === 4 ? [4, 0, 0, 1, 1, 0, 0] : [5, 0, 0, 0, 1, 1, 0]);
    const weighted = await weights(0.25);
    expect(weighted.map((r) => r[0])).toEqual(plain.map((r) => r[0]));
    for (const row of weighted) expect(row).toEqual(row[0] === 4 ? [4, 0, 0.25, 1, 1, 0, 0] : [5, 0, 0.25, 0.25, 1, 1, 0]);
    expect(() => resolveSftConfig({ ...MICRO, contextLossWeight: 1.5 }, tok.vocabSize)).toThrow(
      /contextLossWeight must be in \[0, 1\], got 1.5/,
    );
    expect(resolveSftConfig(MICRO, tok.vocabSize).contextLossWeight).toBe(0);
  });

  it('reduces the action-token loss on a small demo set and is reproducible from the seed (CPU engine; it tracks refSftTrainer, tests/unit/wasm_sft.test.ts)', async () => {
    const p = prepareSft(tok, MICRO);
    // The 8 shortest rows (the whole opening is in every row, so rows are a few hundred tokens).
    const rows = [...p.rows].sort((x, y) => x.ids.length - y.ids.length).slice(0, 8);
    expect(rows.length).toBe(8);
    const engine = await CpuEngine.create('test', { threads: 2 });
    const run = () => trainSft(rows, p.cfg, engine.createSftTrainer(p.cfg.model, p.init, p.cfg), tok.padId);
    const a = await run();
    // At init the loss is ≈ ln V = 6.93 nats; 30 steps on 8 rows must reach below 4.5 nats/token
    // (mean of the last 10 steps) — the model learns the frequent syntax tokens.
    expect(a.losses[0]).toBeGreaterThan(6.3);
    expect(a.finalLoss).toBeLessThan(4.5);
    expect(a.finalLoss).toBeLessThan(a.losses[0] - 2);
    const b = await run();
    expect(b.losses).toEqual(a.losses);
    expect(Array.from(b.params)).toEqual(Array.from(a.params));
    engine.destroy();
  });

  it('greedy evaluation runs episodes to the end and reports pass@1 in [0, 1]', async () => {
    const p = prepareSft(tok, { ...MICRO, steps: 1 });
    const engine = await CpuEngine.create('test', { threads: 1 });
    const policy = engine.createPolicy(p.cfg.model, p.init, 4);
    const tasks = taskSet('workspace', 'train', 1, 1);
    const rep = await evaluateGreedy(tok, policy, tasks, ['S0-T0-O0-C0-W0'], { maxT: p.cfg.model.maxT, actionReserve: 8 }, 2);
    engine.destroy();
    expect(rep.episodes.length).toBe(1);
    expect(rep.passAt1).toBeGreaterThanOrEqual(0);
    expect(rep.passAt1).toBeLessThanOrEqual(1);
    expect(rep.episodes[0].turns).toBeGreaterThanOrEqual(1);
  });

  it('greedy evaluation runs through the rollout engine: a policy that always finishes ends every episode in one valid turn; garbage runs to the turn cap unparsed', async () => {
    const end = tok.special('<|end|>');
    const tasks = [...taskSet('workspace', 'train', 2, 4), ...taskSet('errands', 'train', 1, 4)];
    const finish = tok.encode('{"tool":"finish","args":{}}');
    const fin = await evaluateGreedy(
      tok,
      scripted(() => [...finish, end]),
      tasks,
      ['S0-T0-O0-C0-W0', 'S0-T0-O1-C1-W2'],
      { maxT: 512, actionReserve: 32 },
      3,
    );
    expect(fin.episodes.map((e) => e.harness)).toEqual([...tasks.map(() => 'S0-T0-O0-C0-W0'), ...tasks.map(() => 'S0-T0-O1-C1-W2')]);
    expect(fin.episodes.map((e) => e.taskId)).toEqual([...tasks, ...tasks].map((t) => t.id));
    const free = fin.episodes.slice(0, tasks.length);
    for (const e of free) {
      expect(e.turns).toBe(1);
      expect(e.toolCalls).toBe(1);
      expect(e.pass).toBe(false);
      expect(e.firstAction).toBe('{"tool":"finish","args":{}}');
    }
    // W2 refuses finish before its todo list: a workflow violation each turn, up to the cap
    // (3 tool-call turns plus W2's workflow turns, turn_budget.ts).
    for (const e of fin.episodes.slice(tasks.length)) {
      expect(e.workflowViolations).toBeGreaterThan(0);
      expect(e.turns).toBe(turnCap(3, 'S0-T0-O1-C1-W2', taskFromId(e.taskId)));
      expect(e.turns).toBeGreaterThan(3);
    }
    // Garbage that ends: a parse error each turn, up to the cap. Garbage cut off at the action
    // budget: the episode is truncated after that one turn (a cut-off, not a parse error).
    const x = tok.encode('x')[0];
    const junk = await evaluateGreedy(
      tok,
      scripted(() => [x, x, end]),
      tasks,
      ['S0-T0-O0-C0-W0'],
      { maxT: 512, actionReserve: 16 },
      2,
    );
    expect(junk.validActionRate).toBe(0);
    expect(junk.passAt1).toBe(0);
    for (const e of junk.episodes) expect([e.turns, e.parseErrors]).toEqual([2, 2]);
    const cut = await evaluateGreedy(
      tok,
      scripted((maxNew) => Array(maxNew).fill(x)),
      tasks,
      ['S0-T0-O0-C0-W0'],
      { maxT: 512, actionReserve: 16 },
      2,
    );
    for (const e of cut.episodes) expect([e.turns, e.parseErrors]).toEqual([1, 0]);
  });
});

describe('base checkpoint file', () => {
  it('round-trips params, config, tokenizer and metadata with a SHA-256 digest; corruption is rejected', async () => {
    const p = prepareSft(tok, MICRO);
    const meta = { command: 'hlab pretrain --steps 1', seed: 5, finalLoss: 1.25 };
    const tk = { name: tok.name, vocabSize: tok.vocabSize, formatVersion: 1 };
    const { bytes, digest } = await encodeBaseCheckpoint(p.cfg.model, p.init, tk, meta);
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    const back = await decodeBaseCheckpoint(bytes);
    expect(back.header.digest).toBe(digest);
    expect(back.header.config).toEqual(p.cfg.model);
    expect(back.header.metadata).toEqual(meta);
    expect(back.header.tokenizer).toEqual(tk);
    expect(back.params.length).toBe(paramCount(p.cfg.model));
    expect(Array.from(back.params)).toEqual(Array.from(p.init));
    // Same input → same bytes.
    expect(Array.from((await encodeBaseCheckpoint(p.cfg.model, p.init, tk, meta)).bytes)).toEqual(Array.from(bytes));

    const flipParam = bytes.slice();
    flipParam[flipParam.length - 3] ^= 0x10;
    await expect(decodeBaseCheckpoint(flipParam)).rejects.toThrow(/digest mismatch.*corrupted/);
    const headerText = new TextDecoder().decode(bytes.subarray(12, 12 + new DataView(bytes.buffer).getUint32(8, true)));
    expect(headerText).toContain('"seed":5');
    const at = 12 + headerText.indexOf('"seed":5') + 7;
    const flipHeader = bytes.slice();
    flipHeader[at] = '6'.charCodeAt(0);
    await expect(decodeBaseCheckpoint(flipHeader)).rejects.toThrow(/digest mismatch/);
    await expect(decodeBaseCheckpoint(bytes.subarray(0, bytes.length - 4))).rejects.toThrow(/parameter bytes/);
    const badMagic = bytes.slice();
    badMagic[0] = 0;
    await expect(decodeBaseCheckpoint(badMagic)).rejects.toThrow(/magic/);
    const badConfig = bytes.slice();
    const c = 12 + headerText.indexOf('"config"') + 1;
    badConfig[c] = 'k'.charCodeAt(0);
    await expect(decodeBaseCheckpoint(badConfig)).rejects.toThrow(/header.config/);
    await expect(encodeBaseCheckpoint(p.cfg.model, p.init.subarray(1), tk)).rejects.toThrow(/paramCount/);
  });
});

describe('rows of demonstrations', () => {
  it('every row fits maxT and ends with the action and <|end|>', () => {
    const demos = prepareSft(tok, { ...MICRO, demos: 2, seed: 3, mix: 'base:1' }).demos;
    const rows = demonstrationRows(tok, demos.episodes, { maxT: 512, actionReserve: 40 });
    const turns = demos.episodes.reduce((a, e) => a + e.turns.length, 0);
    expect(rows.reduce((a, r) => a + (r.turns ?? 1), 0)).toBe(turns);
    expect(demonstrationRows(tok, demos.episodes, { maxT: 512, actionReserve: 40 }, { pack: false }).length).toBe(turns);
    for (const r of rows) {
      expect(r.ids.length).toBeLessThanOrEqual(512);
      expect(r.ids[r.ids.length - 1]).toBe(tok.special('<|end|>'));
    }
  });
});

describe('demonstrations that cannot fit', () => {
  it('a turn whose action alone overflows maxT is dropped and counted, the rest of the episode kept', () => {
    const demos = prepareSft(tok, { ...MICRO, demos: 1, seed: 3, mix: 'base:1' }).demos;
    const ep = demos.episodes[0];
    const long = { ...ep.turns[0], action: 'word '.repeat(900) };
    const stats = { longActionTurns: 0 };
    const rows = demonstrationRows(tok, [{ ...ep, turns: [long, ...ep.turns.slice(1)] }], { maxT: 512, actionReserve: 40 }, { stats });
    expect(stats.longActionTurns).toBe(1);
    expect(rows.reduce((a, r) => a + (r.turns ?? 1), 0)).toBe(ep.turns.length - 1);
  });
});

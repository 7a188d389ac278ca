/**
 * The context cut and episode packing (src/episode/rows.ts, budget.ts, rl/trainer_batch.ts):
 *  - the opening messages are never cut; middle turns are dropped whole; an opening that cannot
 *    fit is a ContextBudgetError naming the harness and the sizes, found up front;
 *  - dropped context tokens are counted per row and per rollout turn;
 *  - the checkpoint budget check errors on a different cut unless overridden;
 *  - packed rows (SFT and RL) score exactly the ids each action was produced from, for every C
 *    realization and both black-box harnesses, and pack where a harness only appends.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Tokenizer, type TokenizerFile } from '../../src/model/tokenizer';
import { runExpertEpisode } from '../../src/harness/expert';
import { taskSet } from '../../src/tasks';
import { encodeAction, encodeContext, encodeTurn, episodeRows, headLength, rolloutContextFit, type Row } from '../../src/episode/rows';
import { ContextBudgetError } from '../../src/harness/context_budget';
import { BudgetMismatchError, checkOpeningsFit, checkpointBudget, checkRunBudget, runBudget } from '../../src/episode/budget';
import { localEnvApi } from '../../src/episode/host';
import { inProcessEnv, runEpisodes, type Policy, type PolicySample } from '../../src/rollout/rollout';
import type { Trajectory } from '../../src/rollout/trajectory';
import { buildRows, type RlRows } from '../../src/rl/trainer_batch';
import { Rng } from '../../src/util/rng';
import { adapterFor } from '../../src/harness/expert';
import { BLACKBOX_IDS, createHarness } from '../../src/harness/registry';
import { stateFromFiles } from '../../src/sandbox/sandbox';
import { tokenCounter } from '../../src/episode/rows';
import type { Task } from '../../src/tasks/types';
import { checkSpecOpenings } from '../../src/experiment/openings';
import { smokeSpec } from './lib/smoke_spec';

const tok = Tokenizer.fromJSON(
  JSON.parse(readFileSync(new URL('../../public/tokenizer-v2.json', import.meta.url), 'utf8')) as TokenizerFile,
);
/** One composed harness per C realization, and both black-box harnesses. */
const HARNESSES = [
  'S0-T0-O0-C0-W0',
  'S1-T1-O1-C0-W1',
  'S0-T1-O2-C1-W0',
  'S2-T2-O1-C1-W2',
  'S1-T0-O2-C2-W1',
  'S2-T1-O0-C2-W0',
  'bb-coding-cli',
  'bb-assistant',
];
const tasks = [...taskSet('workspace', 'train', 6, 11), ...taskSet('errands', 'train', 6, 12)];
/** The cut of a context to `budget` tokens: the rollout context under a one-token action reserve. */
const cut = (context: string, budget: number) => rolloutContextFit(tok, context, { maxT: budget + 1, actionReserve: 1 });
const roles = new Set(['<|system|>', '<|user|>', '<|assistant|>', '<|tool|>'].map((m) => tok.special(m)));

describe('the context cut', () => {
  const ep = runExpertEpisode(tasks[1], 'S0-T0-O0-C0-W0');
  const last = ep.turns[ep.turns.length - 1].context;
  const full = encodeContext(tok, last);
  const head = headLength(tok, full);

  it('keeps the whole opening and the most recent whole messages; counts what it dropped', () => {
    expect(full.length).toBeGreaterThan(head + 40);
    for (const budget of [head + 2, head + 20, head + 60, full.length - 1]) {
      const { ids, dropped } = cut(last, budget);
      expect(ids.length).toBeLessThanOrEqual(budget);
      expect(dropped).toBe(full.length - ids.length);
      expect(ids.slice(0, head)).toEqual(full.slice(0, head));
      const tail = ids.slice(head);
      expect(tail).toEqual(full.slice(full.length - tail.length));
      // The tail starts at a message boundary unless not even the latest message fits whole.
      const lastStart = full.lastIndexOf(tok.special('<|assistant|>'));
      const prevStart = Math.max(...[...roles].map((r) => full.lastIndexOf(r, lastStart - 1)));
      if (full.length - prevStart <= budget - head) expect(roles.has(tail[0])).toBe(true);
      else expect(tail.length).toBe(budget - head);
    }
  });

  it('an opening longer than the budget is a ContextBudgetError with the sizes, in rows and at rollout', () => {
    expect(() => cut(last, head - 1)).toThrow(ContextBudgetError);
    expect(() => cut(last, head - 1)).toThrow(new RegExp(`${head} tokens.*${head - 1} tokens`));
    expect(() => encodeTurn(tok, ep.turns[0].context, ep.turns[0].action, { maxT: head + 8, actionReserve: 9 })).toThrow(
      ContextBudgetError,
    );
    expect(() => rolloutContextFit(tok, ep.turns[0].context, { maxT: head + 10, actionReserve: 10 })).not.toThrow();
  });

  it('checkOpeningsFit finds the largest opening up front and names the harness that does not fit', () => {
    const rep = checkOpeningsFit(tok, HARNESSES, tasks.slice(0, 4), { maxT: 2048, actionReserve: 64 });
    expect(rep.pairs).toBe(HARNESSES.length * 4);
    expect(rep.maxHeadTokens).toBeGreaterThan(50);
    const limits = { maxT: rep.maxHeadTokens + 63, actionReserve: 64 };
    expect(() => checkOpeningsFit(tok, HARNESSES, tasks.slice(0, 4), limits)).toThrow(
      new RegExp(
        `harness ${rep.harnessId}, task ${rep.taskId.replace(/[/]/g, '\\/')}: the opening messages take ${rep.maxHeadTokens} tokens.*= ${rep.maxHeadTokens - 1}`,
      ),
    );
  });

  it('rollouts count dropped context tokens per turn and in the stats, and name the harness when the opening cannot fit', async () => {
    const reqs = [{ taskId: tasks[1].id, harnessId: 'S0-T0-O0-C0-W0', group: 0 }];
    const hello: Policy = {
      maxB: 4,
      maxT: 4096,
      async sample(p) {
        return p.map(() => {
          const ids = Int32Array.from(encodeAction(tok, 'hello'));
          return { ids, logprobs: new Float32Array(ids.length), stop: 'end' as const };
        });
      },
    };
    const o = { tok, policy: hello, env: inProcessEnv(localEnvApi(tok)), maxTurns: 12, maxNewTokens: 16, temperature: 1, seed: 5 };
    const opening = headLength(tok, encodeContext(tok, ep.turns[0].context));
    const r = await runEpisodes(reqs, { ...o, contextTokens: opening + 16 + 40 });
    const dropped = r.trajectories[0].turns.map((t) => t.droppedContextTokens ?? -1);
    expect(dropped[0]).toBe(0);
    expect(dropped.some((d) => d > 0)).toBe(true);
    expect(r.stats.droppedContextTokens).toBe(dropped.reduce((a, b) => a + b, 0));
    expect(r.stats.cutContexts).toBe(dropped.filter((d) => d > 0).length);
    for (const t of r.trajectories[0].turns)
      expect(Array.from(t.contextIds.subarray(0, opening))).toEqual(encodeContext(tok, ep.turns[0].context).slice(0, opening));
    await expect(runEpisodes(reqs, { ...o, contextTokens: opening + 15 })).rejects.toThrow(
      new RegExp(`harness S0-T0-O0-C0-W0, task .*opening messages.*take ${opening} tokens`),
    );
  });
});

// What a harness shows between its opening and the turns it kept — a compaction
// summary (bb-coding-cli, C2) — is part of what it shows; the cut used to drop it first, so at a
// 480-token window the policy saw the summary in at most one turn. Driven with large files,
// every turn's cut context must hold the whole preamble (all messages before the first action
// still shown) whenever it fits with the open assistant marker, and the drive must reach such turns.
describe('the context cut keeps a harness summary with the opening', () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 8; i++)
    files[`/logs/part${i}.txt`] = Array.from({ length: 14 }, (_, j) => `entry ${i}.${j}: status ok, value ${(i * 37 + j * 11) % 97}`).join(
      '\n',
    );
  const task: Task = {
    id: 'workspace/bigfiles/t1/1',
    suite: 'workspace',
    family: 'bigfiles',
    tier: 1,
    seed: 1,
    instruction: 'Read every file under /logs and report the largest value.',
    initial: stateFromFiles(files),
    needsStateTracking: true,
    hasRecoverableError: false,
  };
  const budget = 480; // quick: maxT 512 − 32 reserved for the action
  const assistant = tok.special('<|assistant|>');
  // Every black box is driven; those that never show a summary (bb-assistant prunes results in place) are exempt from the count.
  for (const id of ['S0-T0-O0-C2-W0', ...BLACKBOX_IDS]) {
    it(id, () => {
      const h = createHarness(id, {
        tokenLength: tokenCounter(tok),
        budget: { maxTurns: 40, maxContextTokens: 100_000, maxActionTokens: 100_000 },
      });
      h.reset(task);
      const adapter = adapterFor(h);
      for (const t of adapter.opening(h)) h.step(t);
      let withPreamble = 0;
      for (const [n, path] of Object.keys(files).entries()) {
        for (const t of adapter.actions({ tool: 'read', args: { path } })) h.step(t);
        const context = h.contextText();
        const full = encodeContext(tok, context);
        const opening = headLength(tok, full);
        const firstAction = full.indexOf(assistant, opening);
        const openMarker = full.length - full.lastIndexOf(assistant);
        const summaryShown = full.slice(opening, firstAction).some((t) => roles.has(t));
        if (firstAction === full.lastIndexOf(assistant) || !summaryShown) continue;
        if (firstAction + openMarker > budget) continue;
        const { ids } = cut(context, budget);
        expect(ids.slice(0, firstAction), `${id}: after reading file ${n + 1}, the cut keeps the preamble`).toEqual(
          full.slice(0, firstAction),
        );
        if (full.length > budget) withPreamble++;
      }
      if (id === 'S0-T0-O0-C2-W0' || id === 'bb-coding-cli') expect(withPreamble, `${id}: cut contexts with a summary`).toBeGreaterThan(1);
    });
  }
});

describe('an experiment checks its openings before any rollout', () => {
  it('quick fits; a context budget below its largest opening fails naming the harness', () => {
    const spec = smokeSpec();
    const reps = checkSpecOpenings(spec, tok, 4);
    expect(reps.length).toBeGreaterThan(0);
    const worst = reps.reduce((a, r) => (r.maxHeadTokens > a.maxHeadTokens ? r : a));
    expect(worst.maxHeadTokens).toBeLessThanOrEqual(worst.budget);
    const tight = { ...spec, rollout: { ...spec.rollout, contextTokens: worst.maxHeadTokens + spec.rollout.maxNewTokens - 1 } };
    expect(() => checkSpecOpenings(tight, tok, 4)).toThrow(ContextBudgetError);
    expect(() => checkSpecOpenings(tight, tok, 4)).toThrow(/harness \S+, task \S+: the opening messages take \d+ tokens/);
  });
});

describe('checkpoint budget', () => {
  it('records maxT and the reserve; a different cut is an error unless overridden', () => {
    const ck = checkpointBudget(512, { actionReserve: 128, budgetMaxT: 512 });
    expect(ck).toEqual({ maxT: 512, actionReserve: 128 });
    expect(checkpointBudget(512, { actionReserve: 128 })).toEqual({ maxT: 512, actionReserve: 128 });
    expect(checkpointBudget(512, {})).toBeNull();
    expect(checkRunBudget(ck, runBudget(512, { contextTokens: 480, maxNewTokens: 96 }))).toBeNull();
    expect(() => checkRunBudget(ck, runBudget(512, { contextTokens: 512, maxNewTokens: 64 }))).toThrow(BudgetMismatchError);
    expect(() => checkRunBudget(ck, runBudget(512, { contextTokens: 512, maxNewTokens: 64 }))).toThrow(/≤ 384 tokens.*to 448 tokens/);
    expect(checkRunBudget(ck, runBudget(512, { contextTokens: 512, maxNewTokens: 64 }), true)).toMatch(/allowBudgetMismatch/);
    expect(checkRunBudget(null, runBudget(512, { contextTokens: 512, maxNewTokens: 64 }))).toMatch(/no action reserve/);
  });
});

/**
 * Check that `rows` (ids, masks) score, for each turn in order, exactly its action ids right
 * after exactly its context ids, each token once. `rowIds(b)` / `rowMask(b)` read row b.
 */
function checkScoredEqualsSeen(
  turns: Array<{ contextIds: ArrayLike<number>; actionIds: ArrayLike<number> }>,
  nRows: number,
  rowIds: (b: number) => ArrayLike<number>,
  rowMask: (b: number, t: number) => boolean,
  scoredAt: (at: number) => number,
): void {
  let b = 0;
  const scored = new Array(nRows).fill(0);
  for (const t of turns) {
    const matches = (r: number) => {
      const ids = rowIds(r);
      if (ids.length < t.contextIds.length + t.actionIds.length) return false;
      for (let i = 0; i < t.contextIds.length; i++) if (ids[i] !== t.contextIds[i]) return false;
      for (let i = 0; i < t.actionIds.length; i++) if (ids[t.contextIds.length + i] !== t.actionIds[i]) return false;
      return true;
    };
    if (!matches(b)) b++;
    expect(b).toBeLessThan(nRows);
    expect(matches(b)).toBe(true);
    const at = scoredAt(t.contextIds.length);
    for (let j = 0; j < t.actionIds.length; j++) expect(rowMask(b, at + j)).toBe(true);
    expect(rowMask(b, at - 1)).toBe(false);
    scored[b] += t.actionIds.length;
  }
  expect(b).toBe(nRows - 1);
  for (let r = 0; r < nRows; r++) {
    let m = 0;
    for (let t = 0; t < rowIds(r).length; t++) if (rowMask(r, t)) m++;
    expect(m).toBe(scored[r]);
  }
}

describe('episode packing', () => {
  const limits = { maxT: 1024, actionReserve: 160 };

  it('SFT: packed rows score exactly the (context, action) ids of encodeTurn, for every C and both black-box harnesses', () => {
    const perHarness: Record<string, { rows: number; turns: number }> = {};
    for (const h of HARNESSES) {
      perHarness[h] = { rows: 0, turns: 0 };
      for (const task of tasks.slice(0, 6)) {
        const ep = runExpertEpisode(task, h);
        const turns = ep.turns.map((t) => {
          const r = encodeTurn(tok, t.context, t.action, limits);
          return {
            contextIds: r.ids.subarray(0, r.contextTokens),
            actionIds: r.ids.subarray(r.contextTokens),
            dropped: r.droppedContextTokens,
          };
        });
        const rows: Row[] = episodeRows(tok, ep.turns, limits);
        checkScoredEqualsSeen(
          turns,
          rows.length,
          (b) => rows[b].ids,
          (b, t) => rows[b].mask[t] === 1,
          (at) => at,
        );
        expect(rows.reduce((a, r) => a + (r.turns ?? 1), 0)).toBe(ep.turns.length);
        expect(rows.reduce((a, r) => a + r.droppedContextTokens, 0)).toBe(turns.reduce((a, t) => a + t.dropped, 0));
        for (const r of rows) expect(r.ids.length).toBeLessThanOrEqual(limits.maxT);
        perHarness[h].rows += rows.length;
        perHarness[h].turns += ep.turns.length;
      }
    }
    // Full history packs (fewer rows than turns); hiding old observations (C1) rewrites history.
    expect(perHarness['S0-T0-O0-C0-W0'].rows).toBeLessThan(perHarness['S0-T0-O0-C0-W0'].turns / 2);
    expect(perHarness['bb-coding-cli'].rows).toBeLessThan(perHarness['bb-coding-cli'].turns);
    expect(perHarness['S0-T1-O2-C1-W0'].rows).toBeGreaterThan(perHarness['S0-T0-O0-C0-W0'].rows);
    // Unpacked: one row per turn.
    const ep = runExpertEpisode(tasks[0], 'S0-T0-O0-C0-W0');
    expect(episodeRows(tok, ep.turns, limits, false)).toHaveLength(ep.turns.length);
  });

  it('RL: packed buildRows scores exactly the ids the sampler saw and produced, with their log-probs', async () => {
    // A random policy over a few well-formed and malformed actions: contexts grow, get cut and rewritten.
    const texts = ['read notes.txt', '{"tool": "list", "args": {}}', 'Read(file_path="/notes.txt")', '@read /notes.txt', 'hello', 'ls'];
    const policy: Policy = {
      maxB: 16,
      maxT: 640,
      async sample(prompts, _n, _t, seed) {
        const rng = Rng.derive(seed, 'stub');
        return prompts.map((): PolicySample => {
          const text = texts[rng.int(texts.length)];
          // Half the actions spelled byte by byte: a tokenization the context's re-encoding does not
          // reproduce, so the next context does not extend this row (it must start a new one).
          const ids = Int32Array.from(rng.int(2) ? encodeAction(tok, text) : [...new TextEncoder().encode(text), tok.special('<|end|>')]);
          return { ids, logprobs: Float32Array.from(ids, () => -rng.float()), stop: 'end' };
        });
      },
    };
    const reqs = HARNESSES.flatMap((h, g) => tasks.slice(0, 3).map((t) => ({ taskId: t.id, harnessId: h, group: g })));
    const { trajectories } = await runEpisodes(reqs, {
      tok,
      policy,
      env: inProcessEnv(localEnvApi(tok)),
      maxTurns: 10,
      maxNewTokens: 48,
      temperature: 1,
      seed: 9,
    });
    const rows: RlRows = buildRows(trajectories, tok.padId, 640, 32);
    const turnsWithActions = trajectories.reduce((n, tr) => n + tr.turns.filter((u) => u.actionIds.length > 0).length, 0);
    expect(rows.B).toBeLessThan(turnsWithActions);
    const T = rows.T;
    trajectories.forEach((tr: Trajectory, e) => {
      const mine = Array.from(rows.rowEpisode).flatMap((x, b) => (x === e ? [b] : []));
      expect(mine.length).toBeGreaterThan(0);
      expect(rows.lastRow[mine[mine.length - 1]]).toBe(1);
      const len = (b: number) => {
        let n = T;
        while (n > 0 && rows.ids[b * T + n - 1] === tok.padId) n--;
        return n;
      };
      checkScoredEqualsSeen(
        tr.turns,
        mine.length,
        (i) => rows.ids.subarray(mine[i] * T, mine[i] * T + len(mine[i])),
        (i, t) => t >= 0 && rows.mask[mine[i] * T + t] === 1,
        (at) => at - 1, // next-token form: position at−1 predicts the first sampled id
      );
      // Log-probs and targets at the scored positions are the sampler's.
      let i = 0;
      for (const u of tr.turns) {
        const b = mine.find((r) => {
          for (let k = 0; k < u.contextIds.length; k++) if (rows.ids[r * T + k] !== u.contextIds[k]) return false;
          return rows.ids[r * T + u.contextIds.length] === u.actionIds[0] && r >= (mine[i] ?? 0);
        })!;
        for (let j = 0; j < u.actionIds.length; j++) {
          expect(rows.targets[b * T + u.contextIds.length - 1 + j]).toBe(u.actionIds[j]);
          expect(rows.oldLogprobs[b * T + u.contextIds.length - 1 + j]).toBe(u.logprobs[j]);
        }
        i = mine.indexOf(b);
      }
    });
    const sampled = trajectories.reduce((n, tr) => n + tr.turns.reduce((k, u) => k + u.actionIds.length, 0), 0);
    expect(rows.mask.reduce((a, m) => a + m, 0)).toBe(sampled);
  });
});

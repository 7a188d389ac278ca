// The rollout engine with in-process environments: an expert policy passes every episode,
// a garbage policy never crashes the batch, a failed environment job is replayed on a fresh
// host with identical results, and every sampled token becomes exactly one training position.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { Tokenizer, type TokenizerFile } from '../../src/model/tokenizer';
import { runExpertEpisode } from '../../src/harness/expert';
import { taskFromId, taskSet } from '../../src/tasks';
import { turnCap } from '../../src/harness/turn_budget';
import { encodeAction, headLength, rolloutContextFit, tokenCounter } from '../../src/episode/rows';
import { localEnvApi, type EnvApi } from '../../src/episode/host';
import { inProcessEnv, runEpisodes, type EnvHost, type Policy, type PolicySample } from '../../src/rollout/rollout';
import { buildRows } from '../../src/rl/trainer_batch';
import { grpoAdvantages } from '../../src/rl/advantages';
import { rlLossConfig } from '../../src/rl/config';
import { Rng } from '../../src/util/rng';

const tok = Tokenizer.fromJSON(
  JSON.parse(readFileSync(new URL('../../public/tokenizer-v1.json', import.meta.url), 'utf8')) as TokenizerFile,
);
const MAXT = 8192;
const MAXNEW = 400;

/** Replays the expert's actions: context ids (untruncated at this maxT) → the expert's action ids (its harness counting tokens as the env host does). */
function expertPolicy(pairs: Array<{ taskId: string; harness: string }>): Policy {
  const table = new Map<string, Int32Array>();
  for (const { taskId, harness } of pairs) {
    const task = taskSet('workspace', 'train', 8, 3).find((t) => t.id === taskId)!;
    const ep = runExpertEpisode(task, harness, { maxTurns: 40, tokenLength: tokenCounter(tok) });
    for (const t of ep.turns)
      table.set(
        rolloutContextFit(tok, t.context, { maxT: MAXT, actionReserve: MAXNEW }).ids.join(','),
        Int32Array.from(encodeAction(tok, t.action)),
      );
  }
  return {
    maxB: 3,
    maxT: MAXT,
    async sample(prompts) {
      return prompts.map((p): PolicySample => {
        const ids = table.get(Array.from(p).join(','));
        if (!ids) throw new Error('expertPolicy: unknown context');
        return {
          ids,
          logprobs: new Float32Array(ids.length).fill(-0.5),
          entropies: Float32Array.from(ids, (_, j) => 0.1 * j),
          stop: 'end',
        };
      });
    },
  };
}

/** Uniformly random ids (a scratch policy): garbage actions, often cut off. */
function garbagePolicy(seed: number, maxT = 512): Policy {
  return {
    maxB: 4,
    maxT,
    async sample(prompts, maxNew, _temp, s) {
      const rng = Rng.derive(seed, s);
      return prompts.map(() => {
        const n = 1 + rng.int(maxNew);
        const ids = Int32Array.from({ length: n }, () => rng.int(tok.vocabSize));
        return { ids, logprobs: Float32Array.from(ids, () => -Math.log(tok.vocabSize)), stop: n < maxNew ? 'end' : 'length' };
      });
    },
  };
}

/** Pool-like backend: hosts per slot; job number `failAt` throws once and is retried on a fresh host (replay). */
function flakyEnv(failAt: number): EnvHost & { fresh: number } {
  let host = localEnvApi(tok);
  let n = 0;
  let retries = 0;
  const b = {
    fresh: 0,
    async run<R>(job: (api: EnvApi) => Promise<R>): Promise<R> {
      n++;
      if (n === failAt) {
        host = localEnvApi(tok); // the failed worker's state is gone
        b.fresh++;
        retries++;
      }
      return job(host);
    },
    retries: () => retries,
  };
  return b;
}

const tasks = taskSet('workspace', 'train', 8, 3).slice(0, 3);
const harnesses = ['S0-T0-O0-C0-W0', 'S1-T2-O1-C1-W2', 'bb-coding-cli'];

describe('runEpisodes', () => {
  it('an expert policy passes every (task, harness); each turn sits in a row of its episode that begins with its context, its sampled tokens scored once', async () => {
    const pairs = tasks.flatMap((t, i) => [{ taskId: t.id, harness: harnesses[i] }]);
    const policy = expertPolicy(pairs);
    const { trajectories, stats } = await runEpisodes(
      pairs.map((p, g) => ({ taskId: p.taskId, harnessId: p.harness, group: g })),
      {
        tok,
        policy,
        env: inProcessEnv(localEnvApi(tok)),
        maxTurns: 40,
        maxNewTokens: MAXNEW,
        temperature: 1,
        seed: 1,
      },
    );
    expect(trajectories.map((t) => t.pass)).toEqual([true, true, true]);
    expect(trajectories.map((t) => t.reward)).toEqual([1, 1, 1]);
    for (const t of trajectories) {
      expect(t.terminated).toBe(true);
      expect(t.tags).not.toBeNull();
      expect(t.turns.length).toBeGreaterThan(1);
    }
    expect(stats.envSteps).toBe(trajectories.reduce((a, t) => a + t.turns.length, 0));
    // Rows: every sampled token exactly once in the mask, with its sampling log-prob. The base
    // harness (C0) only appends, so its turns share rows; S1-…-C1 rewrites its history.
    const rows = buildRows(trajectories, tok.padId, MAXT);
    const rowsOf = (e: number) => Array.from(rows.rowEpisode).flatMap((x, r) => (x === e ? [r] : []));
    expect(rowsOf(0).length).toBeLessThan(trajectories[0].turns.length);
    expect(rows.B).toBeLessThan(stats.envSteps);
    const sampled = trajectories.reduce((a, t) => a + t.turns.reduce((b, u) => b + u.actionIds.length, 0), 0);
    expect(rows.mask.reduce((a, m) => a + m, 0)).toBe(sampled);
    for (const [e, t] of trajectories.entries()) {
      for (const u of t.turns) {
        const starts = (r: number) =>
          u.contextIds.every((id, k) => rows.ids[r * rows.T + k] === id) && rows.ids[r * rows.T + u.contextIds.length] === u.actionIds[0];
        const b = rowsOf(e).find(starts);
        expect(b, `episode ${e}: no row begins with the turn's context and action`).toBeDefined();
        const o = b! * rows.T + u.contextIds.length - 1;
        for (let j = 0; j < u.actionIds.length; j++) {
          expect(rows.targets[o + j]).toBe(u.actionIds[j]);
          expect(rows.mask[o + j]).toBe(1);
          expect(rows.oldLogprobs[o + j]).toBe(u.logprobs[j]);
        }
        // The sampler's per-token entropies ride along with the turn (evaluation reports their mean).
        expect(Array.from(u.entropies!)).toEqual(Array.from(u.actionIds, (_, j) => Math.fround(0.1 * j)));
        expect(rows.mask[o - 1] ?? 0).toBe(0);
      }
    }
  });

  it('a garbage policy never crashes the batch: every episode ends (terminated or truncated) with reward 0', async () => {
    const reqs = harnesses.flatMap((h) => tasks.map((t, g) => ({ taskId: t.id, harnessId: h, group: g })));
    const { trajectories, stats } = await runEpisodes(reqs, {
      tok,
      policy: garbagePolicy(7, 640),
      env: inProcessEnv(localEnvApi(tok)),
      maxTurns: 4,
      maxNewTokens: 32,
      temperature: 1,
      seed: 2,
    });
    expect(trajectories).toHaveLength(9);
    for (const t of trajectories) {
      expect(t.terminated || t.truncated).toBe(true);
      expect(t.reward).toBe(0);
      expect(t.turns.length).toBeGreaterThanOrEqual(1);
      // 4 tool-call turns plus the harness's workflow turns (turn_budget.ts).
      expect(t.turns.length).toBeLessThanOrEqual(turnCap(4, t.harnessId, taskFromId(t.taskId)));
      for (const u of t.turns) expect(u.logprobs.length).toBe(u.actionIds.length);
      // A policy that reports no entropies leaves them absent (not zeros that would read as certainty).
      for (const u of t.turns) expect(u.entropies).toBeUndefined();
    }
    expect(stats.envFailures).toBe(0);
    // GRPO on an all-zero-reward batch: every advantage is exactly 0 (std floor), none NaN.
    const rows = buildRows(
      trajectories.sort((a, c) => a.group - c.group),
      tok.padId,
      640,
    );
    const { advantages } = grpoAdvantages(trajectories, rows, rlLossConfig());
    expect(advantages.every((a) => a === 0)).toBe(true);
  });

  it('an environment job that fails mid-episode is replayed on a fresh host with identical results', async () => {
    const reqs = tasks.map((t, g) => ({ taskId: t.id, harnessId: 'S0-T1-O2-C1-W0', group: g }));
    // Non-garbage but harmless actions that keep episodes alive: an always-parse-error text.
    const o = { tok, maxTurns: 3, maxNewTokens: 16, temperature: 1, seed: 3 };
    const steady: Policy = {
      maxB: 8,
      maxT: 512,
      async sample(p) {
        return p.map(() => {
          const ids = Int32Array.from(encodeAction(tok, 'hello'));
          return { ids, logprobs: new Float32Array(ids.length), stop: 'end' as const };
        });
      },
    };
    const a = await runEpisodes(reqs, { ...o, policy: steady, env: inProcessEnv(localEnvApi(tok)) });
    const flaky = flakyEnv(3 + 3 + 2); // 3 resets, 3 first steps, then the 2nd episode's 2nd step
    const b = await runEpisodes(reqs, { ...o, policy: steady, env: flaky });
    expect(flaky.fresh).toBe(1);
    expect(b.stats.replays).toBeGreaterThanOrEqual(1);
    const view = (r: typeof a) =>
      r.trajectories.map((t) => ({
        turns: t.turns.map((u) => [Array.from(u.contextIds), u.kind]),
        reward: t.reward,
        truncated: t.truncated,
        tags: t.tags,
      }));
    expect(view(b)).toEqual(view(a));
    expect(a.trajectories[0].turns).toHaveLength(3);
  });

  it('an environment that keeps failing ends only its episode (counted), the batch goes on', async () => {
    let calls = 0;
    const api = localEnvApi(tok);
    const env: EnvHost = {
      async run(job) {
        calls++;
        if (calls === 5) throw new Error('worker died three times');
        return job(api);
      },
      retries: () => 0,
    };
    const reqs = tasks.map((t, g) => ({ taskId: t.id, harnessId: 'S0-T0-O0-C0-W0', group: g }));
    const r = await runEpisodes(reqs, { tok, policy: garbagePolicy(1), env, maxTurns: 2, maxNewTokens: 8, temperature: 1, seed: 4 });
    expect(r.stats.envFailures).toBe(1);
    expect(r.trajectories.filter((t) => t.envFailed)).toHaveLength(1);
    expect(r.trajectories.every((t) => t.terminated || t.truncated)).toBe(true);
  });

  it('contextTokens caps every prompt below the policy maxT (the spec budget is honoured); an opening beyond it is a configuration error', async () => {
    const reqs = [{ taskId: tasks[0].id, harnessId: 'S1-T1-O1-C0-W1', group: 0 }];
    const seen: number[] = [];
    let first: number[] = [];
    const recording: Policy = {
      maxB: 8,
      maxT: 1024,
      async sample(p) {
        if (!seen.length) first = Array.from(p[0]);
        for (const q of p) seen.push(q.length);
        return p.map(() => {
          const ids = Int32Array.from(encodeAction(tok, 'hello'));
          return { ids, logprobs: new Float32Array(ids.length), stop: 'end' as const };
        });
      },
    };
    const o = { tok, policy: recording, env: inProcessEnv(localEnvApi(tok)), maxTurns: 3, maxNewTokens: 16, temperature: 1, seed: 5 };
    await runEpisodes(reqs, o);
    const opening = seen[0];
    const cap = opening + 16 + 20;
    expect(Math.max(...seen)).toBeGreaterThan(cap - 16); // later contexts are longer than the cap below
    seen.length = 0;
    await runEpisodes(reqs, { ...o, contextTokens: cap });
    expect(seen.length).toBe(3 + 1); // 3 tool-call turns + W1's plan
    expect(Math.max(...seen)).toBeLessThanOrEqual(cap - 16);
    await expect(runEpisodes(reqs, { ...o, contextTokens: 16 })).rejects.toThrow(/contextTokens = 16/);
    const head = headLength(tok, first);
    await expect(runEpisodes(reqs, { ...o, contextTokens: head + 16 })).resolves.toBeDefined();
    await expect(runEpisodes(reqs, { ...o, contextTokens: head + 15 })).rejects.toThrow(/harness S1-T1-O1-C0-W1.*opening messages/);
  });

  it('a malformed harness id is a caller error, not a silent failure', async () => {
    await expect(
      runEpisodes([{ taskId: tasks[0].id, harnessId: 'S9-T0-O0-C0-W0', group: 0 }], {
        tok,
        policy: garbagePolicy(1),
        env: inProcessEnv(localEnvApi(tok)),
        maxTurns: 2,
        maxNewTokens: 8,
        temperature: 1,
        seed: 4,
      }),
    ).rejects.toThrow(/unknown harness id 'S9-T0-O0-C0-W0'/);
  });
});

// Episodes hop between environment hosts (the worker pool hands each job to whichever worker
// is free, so which host runs which step depends on timing): a trajectory must not depend on
// the routing. A host that held an episode's key in an earlier batch (same task, harness and
// turn count, but other actions) must rebuild it, not step its stale copy.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { Tokenizer, type TokenizerFile } from '../../src/model/tokenizer';
import { taskSet } from '../../src/tasks';
import { encodeAction } from '../../src/episode/rows';
import { localEnvApi, type EnvApi } from '../../src/episode/host';
import { inProcessEnv, runEpisodes, type EnvHost, type EpisodeRequest, type Policy } from '../../src/rollout/rollout';
import type { Trajectory } from '../../src/rollout/trajectory';
import { hashString, Rng } from '../../src/util/rng';

const tok = Tokenizer.fromJSON(
  JSON.parse(readFileSync(new URL('../../public/tokenizer-v1.json', import.meta.url), 'utf8')) as TokenizerFile,
);

/** Actions drawn from a few texts (tool calls and parse errors) by (call seed, prompt): batches with other seeds act differently. */
function textPolicy(): Policy {
  const texts = ['hello', '<tool>ls</tool>', 'list the files', '{"tool": "read", "path": "notes.txt"}', 'done'];
  return {
    maxB: 4,
    maxT: 1024,
    async sample(prompts, _maxNew, _temp, seed) {
      return prompts.map((p) => {
        const ids = Int32Array.from(encodeAction(tok, texts[Rng.derive(seed, hashString(Array.from(p).join(','))).int(texts.length)]));
        return { ids, logprobs: new Float32Array(ids.length), stop: 'end' as const };
      });
    },
  };
}

/** Two hosts; each job goes to one drawn from `seed` (a stand-in for the pool's timing-dependent choice). */
function hoppingEnv(seed: number): EnvHost {
  const hosts: EnvApi[] = [localEnvApi(tok), localEnvApi(tok)];
  const rng = new Rng(seed);
  return { run: (job) => job(hosts[rng.int(2)]), retries: () => 0 };
}

const view = (ts: Trajectory[]) =>
  ts.map((t) => ({
    turns: t.turns.map((u) => [Array.from(u.contextIds), Array.from(u.actionIds), u.kind]),
    score: t.score,
    pass: t.pass,
    tags: t.tags,
  }));

describe('runEpisodes over several environment hosts', () => {
  const tasks = taskSet('workspace', 'train', 8, 1).slice(0, 3);
  // The same requests in every batch (as evaluations and validations are): the keys e0… recur with the same (task, harness).
  const reqs: EpisodeRequest[] = ['S0-T0-O0-C0-W0', 'S1-T2-O1-C1-W2'].flatMap((h) =>
    tasks.map((t, g) => ({ taskId: t.id, harnessId: h, group: g })),
  );
  const o = { tok, policy: textPolicy(), maxTurns: 4, maxNewTokens: 32, temperature: 1 };

  it('gives the trajectories of a single host whatever host runs each step, batch after batch', async () => {
    for (const route of [1, 2, 3]) {
      const env = hoppingEnv(route);
      for (const seed of [10, 11, 12, 13]) {
        const alone = await runEpisodes(reqs, { ...o, seed, env: inProcessEnv(localEnvApi(tok)) });
        const hopped = await runEpisodes(reqs, { ...o, seed, env });
        expect(view(hopped.trajectories), `route ${route}, seed ${seed}`).toEqual(view(alone.trajectories));
      }
    }
  });
});

/**
 * The rollout environment hosts count tokens with the policy's tokenizer (src/episode/host.ts):
 * a C2 harness in a host built the way rollouts build it (in-process `localEnvApi(tok)`, or a
 * worker's `envWorkerApi` after `init` with the tokenizer file) compacts exactly when the real
 * token count of its full history passes C2's budget — where ⌈chars / 4⌉ would not yet — and the
 * coding CLI's compaction follows the same counter.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { Tokenizer, type TokenizerFile } from '../../src/model/tokenizer';
import { runExpertEpisode } from '../../src/harness/expert';
import { createHarness } from '../../src/harness/registry';
import { approxTokens } from '../../src/harness/render';
import { tokenCounter } from '../../src/episode/rows';
import { envWorkerApi, localEnvApi, type ActionInput, type EnvApi } from '../../src/episode/host';
import { initTokenizer } from '../../src/episode/host_pool';
import { taskFromId } from '../../src/tasks';

const tok = Tokenizer.fromJSON(
  JSON.parse(readFileSync(new URL('../../public/tokenizer-v2.json', import.meta.url), 'utf8')) as TokenizerFile,
);
const real = tokenCounter(tok);
const SUMMARY = '[summary of turns';

/** Contexts a host shows over an episode driven by `actions` (the opening first). */
async function hostContexts(env: EnvApi, taskId: string, harnessId: string, actions: readonly string[]): Promise<string[]> {
  const spec = { key: 'k', taskId, harnessId, maxTurns: 200 };
  const out = [(await env.reset(spec)).context];
  const history: ActionInput[] = [];
  for (const a of actions) {
    history.push({ text: a, cutOff: false });
    const r = await env.step(spec, history);
    if (r.context === null) break;
    out.push(r.context);
  }
  return out;
}

describe('env hosts count with the policy tokenizer', () => {
  const task = taskFromId('workspace/team-list/t3/1000003');
  // The expert's actions under C2 (counting real tokens, as the host will).
  const actions = runExpertEpisode(task, 'S0-T0-O0-C2-W0', { tokenLength: real }).turns.map((t) => t.action);

  it('C2 in the rollout host summarizes exactly when the real count of the full history passes 320 tokens, before ⌈chars / 4⌉ does', async () => {
    const contexts = await hostContexts(localEnvApi(tok), task.id, 'S0-T0-O0-C2-W0', actions);
    // The full history at each point: the same actions under C0 (C2's uncompacted view).
    const full = createHarness('S0-T0-O0-C0-W0');
    const views = [full.reset(task)];
    for (const a of actions.slice(0, contexts.length - 1)) {
      full.step(a);
      views.push(full.view());
    }
    let realOnly = 0;
    contexts.forEach((ctx, i) => {
      const total = (count: (t: string) => number) => views[i].reduce((s, m) => s + count(m.text) + 2, 0);
      const turns = i;
      const shouldSummarize = total(real) > 320 && turns > 2; // keepTurns 2
      expect(ctx.includes(SUMMARY), `turn ${i}: ${total(real)} real tokens, ${total(approxTokens)} by chars / 4`).toBe(shouldSummarize);
      if (shouldSummarize && total(approxTokens) <= 320) realOnly++;
    });
    // The two counts disagree on some turn: chars / 4 would not have summarized yet.
    expect(realOnly).toBeGreaterThan(0);
  });

  it("the coding CLI in the rollout host compacts as a harness counting real tokens does, not as chars / 4's", async () => {
    const cliTask = taskFromId('workspace/csv-sum/t3/1000011');
    const cliActions = runExpertEpisode(cliTask, 'bb-coding-cli', { tokenLength: real }).turns.map((t) => t.action);
    const host = await hostContexts(localEnvApi(tok), cliTask.id, 'bb-coding-cli', cliActions);
    const drive = (h: ReturnType<typeof createHarness>) => {
      h.reset(cliTask);
      const out = [h.contextText()];
      for (const a of cliActions.slice(0, host.length - 1)) {
        h.step(a);
        out.push(h.contextText());
      }
      return out;
    };
    expect(host).toEqual(drive(createHarness('bb-coding-cli', { tokenLength: real })));
    expect(host).not.toEqual(drive(createHarness('bb-coding-cli')));
    expect(host.some((c) => c.includes('[conversation compacted'))).toBe(true);
  });

  it("a worker's host counts with the tokenizer file the page sends it, and refuses work before it", async () => {
    const worker = envWorkerApi();
    expect(() => worker.reset({ key: 'k', taskId: task.id, harnessId: 'S0-T0-O0-C2-W0', maxTurns: 8 })).toThrow(/init\(tokenizer\)/);
    const init = initTokenizer(tok);
    let inits = 0;
    const counted = { ...worker, init: (f: TokenizerFile) => (inits++, worker.init(f)) };
    await init(counted);
    await init(counted);
    expect(inits).toBe(1);
    const fromWorker = await hostContexts(worker, task.id, 'S0-T0-O0-C2-W0', actions);
    expect(fromWorker).toEqual(await hostContexts(localEnvApi(tok), task.id, 'S0-T0-O0-C2-W0', actions));
    expect(fromWorker.some((c) => c.includes(SUMMARY))).toBe(true);
  });
});

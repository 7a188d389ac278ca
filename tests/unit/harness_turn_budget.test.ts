/**
 * Turn budgets in tool-call turns (src/harness/turn_budget.ts): each harness's cap is
 * rollout.maxTurns plus the turns its workflow requires — the overhead of every W realization and
 * black-box harness, exact against the expert's extra turns; the rollout host truncates at that
 * cap; and a cell infeasible under the bare 8 turns is feasible once its workflow turns are added.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { Tokenizer, type TokenizerFile } from '../../src/model/tokenizer';
import { runExpertEpisode } from '../../src/harness/expert';
import { W0, W1, W2 } from '../../src/harness/realizations/workflow';
import { turnCap } from '../../src/harness/turn_budget';
import { cellFeasibility } from '../../src/experiment/feasibility';

/** What a cell is checked under. */
type CellBudget = Parameters<typeof cellFeasibility>[3];
import { localEnvApi } from '../../src/episode/host';
import { getSuite, SUITE_NAMES, taskFromId, taskSet } from '../../src/tasks';
import type { Task } from '../../src/tasks/types';

const tok = Tokenizer.fromJSON(
  JSON.parse(readFileSync(new URL('../../public/tokenizer-v2.json', import.meta.url), 'utf8')) as TokenizerFile,
);
const MAIN: CellBudget = { maxTurns: 8, limits: { maxT: 512, actionReserve: 64 } };
const tasks = SUITE_NAMES.flatMap((s) => taskSet(getSuite(s), 'test', 18, 2));
/** Turns a harness's workflow adds to a task's tool calls: its cap over one tool-call turn. */
const overheadTurns = (harnessId: string, task: Task) => turnCap(1, harnessId, task) - 1;
/** W2's re-reads of a task: its overhead less its two todo-list messages. */
const reReads = (task: Task) => overheadTurns('S0-T0-O0-C0-W2', task) - W2.overhead.messages;

describe('workflow overhead per realization', () => {
  it('W0 adds nothing, W1 its plan, W2 its two todo lists and one re-read per written file; the black boxes theirs', () => {
    expect(W0.overhead).toEqual({ messages: 0, verifiesWrites: false });
    expect(W1.overhead).toEqual({ messages: 1, verifiesWrites: false });
    expect(W2.overhead).toEqual({ messages: 2, verifiesWrites: true });
    const task = taskFromId('workspace/csv-sum/t1/1000017');
    expect(reReads(task)).toBe(1); // the output file
    const harnesses = ['S1-T2-O0-C1-W0', 'S1-T2-O0-C1-W1', 'S1-T2-O0-C1-W2', 'bb-coding-cli', 'bb-assistant'];
    expect(harnesses.map((h) => overheadTurns(h, task))).toEqual([0, 1, 3, 2, 0]);
    // The black boxes verify no writes: their overhead is the same for a task that leaves none.
    const answerOnly = tasks.find((t) => reReads(t) === 0);
    expect(answerOnly).toBeDefined();
    expect(harnesses.map((h) => overheadTurns(h, answerOnly as Task))).toEqual([0, 1, 2, 2, 0]);
    expect(turnCap(8, 'S0-T0-O0-C0-W2', task)).toBe(11);
    expect(() => turnCap(8, 'S9-T0-O0-C0-W0', task)).toThrow(/unknown harness id 'S9-T0-O0-C0-W0'/);
    expect(() => turnCap(0, 'S0-T0-O0-C0-W0', task)).toThrow(/maxTurns/);
  });

  it("W2's re-reads follow the task: none for answer-only tasks, several where it writes several files", () => {
    const n = tasks.map(reReads);
    expect(Math.min(...n)).toBe(0);
    expect(Math.max(...n)).toBeGreaterThanOrEqual(2);
  });

  it("the overhead is exactly the expert's extra turns over W0 under the same S, T, O and full history", () => {
    for (const t of tasks) {
      for (const base of ['S0-T0-O0-C0', 'S2-T1-O2-C0']) {
        const w0 = runExpertEpisode(t, `${base}-W0`).turns.length;
        for (const w of ['W1', 'W2']) {
          const id = `${base}-${w}`;
          expect(runExpertEpisode(t, id).turns.length - w0, `${id} ${t.id}`).toBe(overheadTurns(id, t));
        }
      }
    }
  });
});

describe('the cap in rollouts and in the feasibility check', () => {
  it('the rollout host truncates at maxTurns tool-call turns plus the workflow turns', async () => {
    const task = taskFromId('workspace/csv-sum/t1/1000017');
    const env = localEnvApi(tok);
    // A failed call attempt in every harness here (unknown tool): under the black-box harnesses
    // a message that is no call attempt at all would be the final reply and end the episode.
    const noop = { text: '{"tool":"noop"}', cutOff: false };
    for (const [harnessId, cap] of [
      ['S0-T0-O0-C0-W0', 2],
      ['S0-T0-O0-C0-W1', 3],
      ['S0-T0-O0-C0-W2', 5],
      ['bb-coding-cli', 4],
      ['bb-assistant', 2],
    ] as const) {
      const spec = { key: harnessId, taskId: task.id, harnessId, maxTurns: 2 };
      await env.reset(spec);
      const history = [];
      let out;
      do {
        history.push(noop);
        out = await env.step(spec, history);
      } while (!out.done);
      expect(history.length, harnessId).toBe(cap);
      expect(out.truncationReason, harnessId).toBe('turns');
    }
  });

  it('a cell infeasible under the bare 8 turns is feasible once its workflow turns are added (W1, W2, coding CLI)', () => {
    for (const [harnessId, taskId] of [
      ['S0-T1-O1-C0-W1', 'workspace/cleanup/t3/1228584'],
      ['S0-T0-O1-C1-W2', 'workspace/csv-sum/t2/1529579'],
      ['bb-coding-cli', 'workspace/organize/t2/1156108'],
    ]) {
      const f = cellFeasibility(tok, taskId, harnessId, MAIN);
      expect(f.turns, `${harnessId} ${taskId}`).toBeGreaterThan(MAIN.maxTurns);
      expect(f.feasible, `${harnessId} ${taskId}: ${f.detail}`).toBe(true);
      expect(f.turns).toBeLessThanOrEqual(turnCap(MAIN.maxTurns, harnessId, taskFromId(taskId)));
    }
  });
});

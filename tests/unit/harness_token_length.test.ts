/**
 * Context policies counting real tokens: C2's summary budget and the coding CLI's
 * compaction threshold are in tokens; with the default ⌈chars / 4⌉ they fire later than the
 * shipped tokenizer's count says, after the policy's window cut has already dropped turns.
 * With the tokenizer's length (HarnessOptions.tokenLength / ExpertOptions.tokenLength) they
 * fire at their budget.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { Tokenizer, type TokenizerFile } from '../../src/model/tokenizer';
import { runExpertEpisode } from '../../src/harness/expert';
import { approxTokens, memoTokenLength } from '../../src/harness/render';
import { encodeContext, tokenCounter } from '../../src/episode/rows';
import { taskFromId } from '../../src/tasks';

const tok = Tokenizer.fromJSON(
  JSON.parse(readFileSync(new URL('../../public/tokenizer-v2.json', import.meta.url), 'utf8')) as TokenizerFile,
);
const real = tokenCounter(tok);

/** Index of the first turn whose context shows `marker`, or −1. */
const firstWith = (turns: readonly { context: string }[], marker: string) => turns.findIndex((t) => t.context.includes(marker));

describe('real token counts in the context policies', () => {
  it('chars / 4 undercounts the shipped tokenizer on real contexts', () => {
    const ep = runExpertEpisode(taskFromId('workspace/team-list/t3/1000003'), 'S0-T0-O0-C0-W0');
    const ctx = ep.turns.at(-1)!.context;
    expect(encodeContext(tok, ctx).length).toBeGreaterThan(1.2 * approxTokens(ctx));
    expect(real('hello world')).toBe(tok.encode('hello world').length);
  });

  it('C2 summarizes earlier with the tokenizer length than with chars / 4, and right past its 320-token budget', () => {
    const task = taskFromId('workspace/team-list/t3/1000003');
    const approx = runExpertEpisode(task, 'S0-T0-O0-C2-W0');
    const exact = runExpertEpisode(task, 'S0-T0-O0-C2-W0', { tokenLength: real });
    expect(approx.pass && exact.pass).toBe(true);
    const a = firstWith(approx.turns, '[summary of turns');
    const e = firstWith(exact.turns, '[summary of turns');
    expect(e).toBeGreaterThan(0);
    expect(a === -1 || e < a, `real ${e}, approx ${a}`).toBe(true);
    // The turn before the first summary fits C2's budget in real tokens (messages + 2 markers each).
    const before = exact.turns[e - 1].context;
    expect(encodeContext(tok, before).length).toBeLessThanOrEqual(320 + 40);
  });

  it('the coding CLI compacts earlier with the tokenizer length', () => {
    const task = taskFromId('workspace/csv-sum/t3/1000011');
    const approx = runExpertEpisode(task, 'bb-coding-cli');
    const exact = runExpertEpisode(task, 'bb-coding-cli', { tokenLength: real });
    expect(approx.pass && exact.pass).toBe(true);
    const a = firstWith(approx.turns, '[conversation compacted');
    const e = firstWith(exact.turns, '[conversation compacted');
    expect(e).toBeGreaterThan(0);
    expect(a === -1 || e < a, `real ${e}, approx ${a}`).toBe(true);
  });

  it('memoTokenLength counts each text once and stays bounded', () => {
    let calls = 0;
    const f = memoTokenLength((t) => (calls++, t.length), 2);
    expect([f('ab'), f('ab'), f('abc'), f('ab')]).toEqual([2, 2, 3, 2]);
    expect(calls).toBe(2);
    f('x'); // full: cleared, then 'x' kept
    f('ab');
    expect(calls).toBe(4);
    expect(() => memoTokenLength((t) => t.length, 0)).toThrow(/size/);
  });
});

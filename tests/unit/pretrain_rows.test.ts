/**
 * Demonstrations → rows (src/episode/rows.ts): the loss mask covers exactly the action tokens
 * (with `<|end|>`), every action token appears exactly once across an episode's rows, context
 * markers become special ids, the truncation rule keeps the action whole and the whole head +
 * the most recent whole messages, rollout contexts equal the rows' contexts, and batching is deterministic.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Tokenizer } from '../../src/model/tokenizer';
import { sftTargets } from '../../src/model/cpu_model';
import { runProceduralExpert } from '../../src/corpus/procedural_harness';
import {
  batchIndices,
  decodeAction,
  encodeAction,
  encodeContext,
  encodeTurn,
  endTokenId,
  headLength,
  packBatch,
  rolloutContextFit,
} from '../../src/episode/rows';
import { demonstrationRows } from '../../src/episode/demonstrations';
import { taskSet } from '../../src/tasks';

const tok = Tokenizer.fromJSON(JSON.parse(readFileSync(new URL('../../public/tokenizer-v1.json', import.meta.url), 'utf8')));
const episodes = taskSet('errands', 'train', 3, 4).map((t, i) => runProceduralExpert(t, 40 + i));

describe('encodeContext / encodeAction', () => {
  it('maps role markers to special ids, BPE-encodes the rest, and round-trips the text', () => {
    const ctx = episodes[0].turns[1].context;
    const ids = encodeContext(tok, ctx);
    expect(ids[0]).toBe(tok.bosId);
    expect(ids).toContain(tok.special('<|system|>'));
    expect(ids[ids.length - 2]).toBe(tok.special('<|assistant|>'));
    const nMarkers = [...ctx.matchAll(/<\|(system|user|assistant|tool|end)\|>/g)].length;
    expect(ids.filter((i) => tok.isSpecial(i)).length).toBe(nMarkers + 1);
    expect(tok.decode(ids.slice(1))).toBe(ctx);
  });

  it('an action is its BPE ids plus <|end|>; decodeAction inverts it and stops at <|end|>', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (a) => {
        const ids = encodeAction(tok, a);
        expect(ids[ids.length - 1]).toBe(endTokenId(tok));
        expect(ids.slice(0, -1)).toEqual(tok.encode(a));
        expect(decodeAction(tok, [...ids, 65, 66])).toBe(tok.decode(tok.encode(a)));
      }),
      { numRuns: 200, seed: 2 },
    );
  });
});

describe('rows', () => {
  const limits = { maxT: 768, actionReserve: 64 };

  it('mask is 1 exactly on the action tokens (+ <|end|>); every action token appears exactly once', () => {
    for (const ep of episodes) {
      const rows = demonstrationRows(tok, [ep], limits, { pack: false });
      expect(rows.length).toBe(ep.turns.length);
      const fromRows: number[] = [];
      rows.forEach((r, i) => {
        const act = encodeAction(tok, ep.turns[i].action);
        const n = r.ids.length;
        expect(r.actionTokens).toBe(act.length);
        expect(Array.from(r.mask.subarray(n - act.length))).toEqual(new Array(act.length).fill(1));
        expect(Array.from(r.mask.subarray(0, n - act.length)).every((m) => m === 0)).toBe(true);
        expect(Array.from(r.ids.subarray(n - act.length))).toEqual(act);
        expect(n).toBeLessThanOrEqual(limits.maxT);
        for (let t = 0; t < n; t++) if (r.mask[t]) fromRows.push(r.ids[t]);
      });
      const expected = ep.turns.flatMap((t) => encodeAction(tok, t.action));
      expect(fromRows).toEqual(expected);
    }
  });

  it('truncation keeps the action whole, the whole head (opening messages) and the most recent whole messages', () => {
    const turn = episodes[0].turns[episodes[0].turns.length - 1];
    const full = encodeContext(tok, turn.context);
    const head = headLength(tok, full);
    const act = encodeAction(tok, turn.action);
    const small = { maxT: head + act.length + 60, actionReserve: act.length + 4 };
    const r = encodeTurn(tok, turn.context, turn.action, small);
    const budget = Math.min(small.maxT - small.actionReserve, small.maxT - act.length);
    expect(full.length).toBeGreaterThan(budget);
    expect(r.contextTokens).toBeLessThanOrEqual(budget);
    expect(r.droppedContextTokens).toBe(full.length - r.contextTokens);
    const ctx = Array.from(r.ids.subarray(0, r.contextTokens));
    expect(ctx.slice(0, head)).toEqual(full.slice(0, head));
    const tail = ctx.slice(head);
    expect(tail).toEqual(full.slice(full.length - tail.length));
    expect(Array.from(r.ids.subarray(r.contextTokens))).toEqual(act);
    // The rollout context under the same limits is the row's context whenever the action fits the reserve.
    expect(rolloutContextFit(tok, turn.context, small)).toEqual({ ids: ctx, dropped: r.droppedContextTokens });
    // A context that fits is left alone.
    expect(rolloutContextFit(tok, turn.context, { maxT: full.length + 1, actionReserve: 1 })).toEqual({ ids: full, dropped: 0 });
    // No room for a context at all is refused.
    expect(() => rolloutContextFit(tok, turn.context, { maxT: 8, actionReserve: 8 })).toThrow(/actionReserve/);
    expect(() => encodeTurn(tok, 'x', 'y'.repeat(400), { maxT: 64, actionReserve: 8 })).toThrow(/no context/);
  });

  it('packBatch right-pads with <pad>, copies masks, and sftTargets scores exactly the action tokens', () => {
    const rows = demonstrationRows(tok, [episodes[0]], limits, { pack: false }).slice(0, 3);
    const b = packBatch(rows, 4, tok.padId);
    expect(b.T % 32).toBe(0);
    expect(Array.from(b.lengths)).toEqual([...rows.map((r) => r.ids.length), 0]);
    expect(b.ids[b.T - 1]).toBe(tok.padId);
    const { mask } = sftTargets(b.ids, b.lengths, { B: b.B, T: b.T }, b.mask);
    const scored = mask.reduce((a, x) => a + x, 0);
    expect(scored).toBe(rows.reduce((a, r) => a + r.actionTokens, 0));
    expect(() => packBatch(rows, 2, tok.padId)).toThrow(/B = 2/);
  });

  it('batch order is deterministic in the seed, a permutation per epoch, and differs across seeds', () => {
    const n = 23;
    const B = 5;
    const epoch = (seed: number, e: number) => Array.from({ length: 5 }, (_, k) => batchIndices(n, B, seed, e * 5 + k)).flat();
    expect(epoch(1, 0)).toEqual(epoch(1, 0));
    expect([...epoch(1, 0)].sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, i) => i));
    expect(epoch(1, 1)).not.toEqual(epoch(1, 0));
    expect(epoch(2, 0)).not.toEqual(epoch(1, 0));
  });
});

/**
 * Token rows from (context, action) turns (docs/ARCHITECTURE.md "Rows and trajectories"): the one
 * encoding shared by SFT and RL rollouts, so the ids a demonstration trains on are exactly the
 * ids the policy sees when it acts.
 *
 * A row is context ids (loss mask 0: `<bos>`, role markers as special ids, the spans between
 * BPE-encoded) ‖ action ids (loss mask 1: BPE ids then `<|end|>`, the sampler's stop token). A
 * sampled action's ids are used as sampled, never re-tokenized. One truncation rule
 * (`fitContext`) cuts SFT and rollout contexts alike, so a model is evaluated on contexts cut
 * exactly as it was trained on.
 */
import type { Tokenizer } from '../model/tokenizer';
import { memoTokenLength } from '../harness/render';
import { ContextBudgetError } from '../harness/context_budget';
import { Rng } from '../util/rng';

/** Role markers rendered by src/harness/render.ts, in the tokenizer's special names. */
const MARKER_RE = /<\|(system|user|assistant|tool|end)\|>/g;

/** The stop token of an action (the renderer's `<|end|>`). @throws Error when the tokenizer lacks it. */
export function endTokenId(tok: Tokenizer): number {
  return tok.special('<|end|>');
}

/**
 * Context text → ids: `<bos>`, then markers as special ids and the spans between them BPE-encoded.
 * @returns ids in [0, V)
 */
export function encodeContext(tok: Tokenizer, context: string): number[] {
  const out = [tok.bosId];
  let last = 0;
  for (const m of context.matchAll(MARKER_RE)) {
    if (m.index > last) for (const id of tok.encode(context.slice(last, m.index))) out.push(id);
    out.push(tok.special(m[0]));
    last = m.index + m[0].length;
  }
  if (last < context.length) for (const id of tok.encode(context.slice(last))) out.push(id);
  return out;
}

/**
 * The policy's token count of a message or context text, for the harness's context policies (C2
 * summaries, coding-CLI compaction; `HarnessOptions.tokenLength`): the ids `encodeContext` gives
 * the text (role markers as single special ids) without its `<bos>`, memoized per text. The
 * environment hosts of rollouts and evaluation (src/episode/host.ts) and the feasibility check
 * count with it.
 */
export function tokenCounter(tok: Tokenizer): (text: string) => number {
  // − 1: encodeContext starts with <bos>, which a message text does not carry.
  return memoTokenLength((text) => encodeContext(tok, text).length - 1);
}

/** Action text → ids: BPE ids then `<|end|>`. */
export function encodeAction(tok: Tokenizer, action: string): number[] {
  const ids = tok.encode(action);
  ids.push(endTokenId(tok));
  return ids;
}

/** Sampled ids → action text: stops at the first `<|end|>` (excluded); other specials dropped. */
export function decodeAction(tok: Tokenizer, ids: ArrayLike<number>): string {
  const end = endTokenId(tok);
  const kept: number[] = [];
  for (let i = 0; i < ids.length && ids[i] !== end; i++) kept.push(ids[i]);
  return tok.decode(kept, { skipSpecials: true });
}

/**
 * Length of the head kept by the truncation rule: through the `<|end|>` closing the first
 * `<|user|>` message (the whole context when there is none).
 */
export function headLength(tok: Tokenizer, ids: readonly number[]): number {
  const user = tok.special('<|user|>');
  const end = endTokenId(tok);
  const u = ids.indexOf(user);
  if (u < 0) return ids.length;
  const e = ids.indexOf(end, u);
  return e < 0 ? ids.length : e + 1;
}

/**
 * Length of the preamble: every message before the first `<|assistant|>` marker at or after
 * `head` (the opening plus what a harness shows ahead of the turns it kept — a compaction
 * summary); `ids.length` when there is none.
 */
function preambleLength(tok: Tokenizer, ids: readonly number[], head = headLength(tok, ids)): number {
  const a = ids.indexOf(tok.special('<|assistant|>'), head);
  return a < 0 ? ids.length : a;
}

/** Indices of the role markers (message starts) in `ids`, ascending. */
function messageStarts(tok: Tokenizer, ids: readonly number[], from: number): number[] {
  const roles = new Set(['<|system|>', '<|user|>', '<|assistant|>', '<|tool|>'].map((m) => tok.special(m)));
  const out: number[] = [];
  for (let i = from; i < ids.length; i++) if (roles.has(ids[i])) out.push(i);
  return out;
}

/**
 * The truncation rule: the whole head, then the most recent whole messages that fit. The action
 * is never cut; the context gets `budget = maxT − actionReserve` tokens. A longer context keeps
 *  - its head whole: the opening messages (up to the `<|end|>` of the first `<|user|>` message),
 *    plus what a harness shows between the opening and the first action it still shows (a
 *    coding-CLI or C2 compaction summary, `preambleLength`) whenever it fits; the summary is
 *    never cut before the middle turns;
 *  - its tail: the most recent whole messages that fit in budget − |head| (the open
 *    `<|assistant|>` marker always included). Only when not even the latest message fits whole
 *    is the tail the most recent budget − |head| tokens.
 * @param ids context ids (from encodeContext)
 * @param budget ≥ 1 tokens
 * @returns `ids` itself when it fits, else a new array of ≤ `budget` ids; `dropped` = ids.length − kept
 * @throws ContextBudgetError when the head (opening messages) is longer than `budget`;
 *   Error when budget < 1 or not an integer.
 */
function fitContext(tok: Tokenizer, ids: readonly number[], budget: number): { ids: number[]; dropped: number } {
  if (!Number.isInteger(budget) || budget < 1) throw new Error(`fitContext: budget must be an integer ≥ 1, got ${budget}`);
  if (ids.length <= budget) return { ids: ids as number[], dropped: 0 };
  let head = headLength(tok, ids);
  if (head > budget) {
    throw new ContextBudgetError(
      `the opening messages (system prompt and task) take ${head} tokens, more than the context budget of ${budget} tokens; raise maxT or lower the action reserve`,
      head,
      budget,
    );
  }
  // What the harness shows ahead of the turns (a coding-CLI or C2 compaction summary) stays with
  // the opening when it leaves room for the open assistant marker; else the opening alone is kept.
  const pre = preambleLength(tok, ids, head);
  const openMarker = ids.length - ids.lastIndexOf(tok.special('<|assistant|>'));
  const hasSummary = messageStarts(tok, ids, head).some((i) => i < pre);
  if (hasSummary && pre + openMarker <= budget) head = pre;
  const room = budget - head;
  const starts = messageStarts(tok, ids, head);
  // The earliest message start whose suffix fits; the last start is the open assistant marker.
  let s = starts.find((i) => ids.length - i <= room);
  if (s === undefined || (s === starts[starts.length - 1] && starts.length > 1)) s = ids.length - room;
  const kept = [...ids.slice(0, head), ...ids.slice(s)];
  return { ids: kept, dropped: ids.length - kept.length };
}

/** Sequence limits shared by SFT rows and rollouts. */
export interface RowLimits {
  /** The model's maxT (tokens). */
  maxT: number;
  /** Tokens reserved for the action (= the sampler's maxNewTokens); 1 ≤ actionReserve < maxT. */
  actionReserve: number;
}

function checkLimits(l: RowLimits): void {
  if (!Number.isInteger(l.maxT) || l.maxT < 2) throw new Error(`RowLimits.maxT must be an integer ≥ 2, got ${l.maxT}`);
  if (!Number.isInteger(l.actionReserve) || l.actionReserve < 1 || l.actionReserve >= l.maxT) {
    throw new Error(`RowLimits.actionReserve must be an integer in [1, maxT − 1 = ${l.maxT - 1}], got ${l.actionReserve}`);
  }
}

/**
 * The context ids the policy continues at rollout time (truncated by the rule above to
 * maxT − actionReserve tokens), with the count of context tokens the cut dropped. Sample at most
 * `actionReserve` new tokens after it.
 * @throws ContextBudgetError when the opening messages exceed maxT − actionReserve; Error naming a bad limit.
 */
export function rolloutContextFit(tok: Tokenizer, context: string, limits: RowLimits): { ids: number[]; dropped: number } {
  checkLimits(limits);
  return fitContext(tok, encodeContext(tok, context), limits.maxT - limits.actionReserve);
}

/**
 * The text a row or rollout prompt keeps of `context` under `limits` (the cut of `fitContext`,
 * decoded back to text with role markers): what the model will see. The budget is the row's:
 * maxT − actionReserve, lowered to maxT − |action| for an `action` longer than the reserve
 * (when that leaves no room for the opening the row is dropped by SFT; the reserve budget is
 * used). The honest expert (src/harness/expert.ts `ExpertOptions.view`) acts only on this.
 * @throws ContextBudgetError when the opening does not fit maxT − actionReserve; Error naming a bad limit.
 */
export function cutView(tok: Tokenizer, limits: RowLimits): (context: string, action?: string) => string {
  checkLimits(limits);
  const base = limits.maxT - limits.actionReserve;
  return (context, action) => {
    const full = encodeContext(tok, context);
    let budget = action === undefined ? base : Math.min(base, limits.maxT - encodeAction(tok, action).length);
    if (budget < headLength(tok, full)) budget = base;
    const { ids, dropped } = fitContext(tok, full, Math.max(1, budget));
    return dropped === 0 ? context : tok.decode(ids.slice(1));
  };
}

/** One training row: one turn, or several appending turns of one episode (`packEpisodeRows`). */
export interface Row {
  /** (n) token ids: context then action (ending with `<|end|>`); packed: contexts and actions interleaved. */
  ids: Int32Array;
  /** (n) 1 on action tokens, 0 on context tokens. */
  mask: Uint8Array;
  /** Context tokens in the row (mask 0) / dropped by truncation (summed over the row's turns). */
  contextTokens: number;
  droppedContextTokens: number;
  /** Action tokens (each `<|end|>` included). */
  actionTokens: number;
  /** Turns in this row (1 unless packed). */
  turns?: number;
}

/**
 * One (context, action) turn as a row (module doc). Without `limits` nothing is truncated.
 * @throws ContextBudgetError (budget < 1) when the action alone (with `<|end|>`) does not leave
 *   one context token in maxT; Error when a limit is invalid.
 */
export function encodeTurn(tok: Tokenizer, context: string, action: string, limits?: RowLimits): Row {
  let ctx = encodeContext(tok, context);
  const act = encodeAction(tok, action);
  let dropped = 0;
  if (limits) {
    checkLimits(limits);
    const budget = Math.min(limits.maxT - limits.actionReserve, limits.maxT - act.length);
    if (budget < 1)
      throw new ContextBudgetError(`encodeTurn: action of ${act.length} tokens leaves no context within maxT = ${limits.maxT}`, 0, budget);
    ({ ids: ctx, dropped } = fitContext(tok, ctx, budget));
  }
  const ids = new Int32Array(ctx.length + act.length);
  ids.set(ctx);
  ids.set(act, ctx.length);
  const mask = new Uint8Array(ids.length);
  mask.fill(1, ctx.length);
  return { ids, mask, contextTokens: ctx.length, droppedContextTokens: dropped, actionTokens: act.length };
}

/**
 * Group consecutive turns that only append: turn k+1 joins turn k's group iff its context ids
 * start with turn k's context ids followed by its action ids (so the row = last context ‖ last
 * action holds every earlier (context, action) pair as a prefix, exactly).
 * @param turns per turn the context ids the policy saw (after the cut) and its action ids
 * @returns groups of consecutive turn indices covering 0…n−1 in order
 */
export function appendGroups(turns: ReadonlyArray<{ contextIds: ArrayLike<number>; actionIds: ArrayLike<number> }>): number[][] {
  const groups: number[][] = [];
  for (let k = 0; k < turns.length; k++) {
    const prev = k > 0 ? turns[k - 1] : null;
    let extends_ = prev !== null && groups.length > 0;
    if (prev) {
      const c = turns[k].contextIds;
      const pc = prev.contextIds;
      const pa = prev.actionIds;
      if (c.length < pc.length + pa.length) extends_ = false;
      for (let i = 0; extends_ && i < pc.length; i++) if (c[i] !== pc[i]) extends_ = false;
      for (let i = 0; extends_ && i < pa.length; i++) if (c[pc.length + i] !== pa[i]) extends_ = false;
    }
    if (extends_) groups[groups.length - 1].push(k);
    else groups.push([k]);
  }
  return groups;
}

/**
 * An episode's (context, action) turns as rows: one row per run of appending turns (turn k+1's
 * cut context starts with turn k's context ‖ action; a rewrite such as C1 hiding, a summary,
 * pruning or a cut starts a new row), every action token scored exactly once, each action after exactly the
 * context ids `encodeTurn` would give it. Without `pack` this is one `encodeTurn` row per turn.
 * @throws as `encodeTurn` (ContextBudgetError when an opening exceeds the budget).
 */
export function episodeRows(
  tok: Tokenizer,
  turns: ReadonlyArray<{ context: string; action: string }>,
  limits: RowLimits,
  pack = true,
): Row[] {
  const single = turns.map((t) => encodeTurn(tok, t.context, t.action, limits));
  if (!pack) return single;
  const parts = single.map((r) => ({ contextIds: r.ids.subarray(0, r.contextTokens), actionIds: r.ids.subarray(r.contextTokens), row: r }));
  return appendGroups(parts).map((g) => {
    if (g.length === 1) return { ...parts[g[0]].row, turns: 1 };
    const last = parts[g[g.length - 1]].row;
    const ids = last.ids.slice();
    const mask = new Uint8Array(ids.length);
    let actionTokens = 0;
    let dropped = 0;
    for (const k of g) {
      const p = parts[k];
      mask.fill(1, p.contextIds.length, p.contextIds.length + p.actionIds.length);
      actionTokens += p.actionIds.length;
      dropped += p.row.droppedContextTokens;
    }
    return { ids, mask, contextTokens: ids.length - actionTokens, droppedContextTokens: dropped, actionTokens, turns: g.length };
  });
}

/** A right-padded batch. */
export interface RowBatch {
  B: number;
  T: number;
  /** (B,T) i32, padded with `<pad>`. */
  ids: Int32Array;
  /** (B,T) f32: 1 on action tokens, 0 on context and padding. */
  mask: Float32Array;
  /** (B) i32 valid tokens per row (0 for filler rows of a short last batch). */
  lengths: Int32Array;
}

/**
 * Pack rows into one right-padded batch of exactly `B` rows (missing rows are empty: length 0).
 * @param padMultiple T is rounded up to a multiple of this (default 32), capped at `maxT` when given
 * @throws Error when rows.length > B, a row is empty, or a row is longer than maxT.
 */
export function packBatch(rows: readonly Row[], B: number, padId: number, opts: { padMultiple?: number; maxT?: number } = {}): RowBatch {
  if (!Number.isInteger(B) || B < 1) throw new Error(`packBatch: B must be an integer ≥ 1, got ${B}`);
  if (rows.length > B) throw new Error(`packBatch: ${rows.length} rows do not fit B = ${B}`);
  const mult = opts.padMultiple ?? 32;
  let longest = 1;
  rows.forEach((r, i) => {
    if (r.ids.length === 0) throw new Error(`packBatch: rows[${i}] is empty`);
    if (opts.maxT !== undefined && r.ids.length > opts.maxT)
      throw new Error(`packBatch: rows[${i}] has ${r.ids.length} tokens > maxT = ${opts.maxT}`);
    longest = Math.max(longest, r.ids.length);
  });
  let T = Math.ceil(longest / mult) * mult;
  if (opts.maxT !== undefined) T = Math.min(T, opts.maxT);
  const ids = new Int32Array(B * T).fill(padId);
  const mask = new Float32Array(B * T);
  const lengths = new Int32Array(B);
  rows.forEach((r, b) => {
    ids.set(r.ids, b * T);
    for (let t = 0; t < r.mask.length; t++) mask[b * T + t] = r.mask[t];
    lengths[b] = r.ids.length;
  });
  return { B, T, ids, mask, lengths };
}

/**
 * Deterministic batch order: epoch e visits the rows in the order of
 * `Rng.derive(seed, 'sft-batches', e).shuffle`, cut into consecutive batches of B (the last
 * batch of an epoch may be short; `packBatch` fills it with empty rows).
 * @returns the row indices of batch number `index` (0-based, across epochs)
 * @throws Error when there are no rows or B < 1.
 */
export function batchIndices(nRows: number, B: number, seed: number, index: number): number[] {
  if (!(nRows > 0)) throw new Error(`batchIndices: no rows (nRows = ${nRows})`);
  if (!Number.isInteger(B) || B < 1) throw new Error(`batchIndices: B must be an integer ≥ 1, got ${B}`);
  const perEpoch = Math.ceil(nRows / B);
  const epoch = Math.floor(index / perEpoch);
  const k = index % perEpoch;
  const order = Rng.derive(seed, 'sft-batches', epoch).shuffle(Array.from({ length: nRows }, (_, i) => i));
  return order.slice(k * B, (k + 1) * B);
}

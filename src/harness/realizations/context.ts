/**
 * C — context management (docs/ARCHITECTURE.md "Harness runtime"): which messages of the history the policy sees next.
 * `view` is a pure function of the history (so a replay rebuilds every view exactly).
 * - C0 `full-history`: everything.
 * - C1 `last-k`: observations older than the last k are replaced by a short placeholder;
 *   the policy's own actions stay verbatim.
 * - C2 `summary-compaction`: once the full view passes `budgetTokens`, every turn but the last
 *   `keepTurns` is replaced by one harness-written summary message listing what was done
 *   (one brief line per turn, the most recent `maxSummaryItems`).
 * C1 and C2 rewrite history, so consecutive contexts do not share a prefix: the trainer builds
 * one row per turn from the recorded (context, action) pairs (docs/ARCHITECTURE.md "Rows and trajectories").
 */
import type { Message } from '../types';

/** One past turn: the policy's action, the harness's observation, and a one-line brief of it. */
interface HistoryTurn {
  action: Message;
  observation: Message;
  /** e.g. 'read /a.txt: ok, 3 lines' — written by the harness, used by summaries. */
  brief: string;
}

/** Prefix (system prompt, task) plus the turns so far. */
export interface History {
  prefix: Message[];
  turns: HistoryTurn[];
}

export interface ContextPolicy {
  id: string;
  name: string;
  view(history: History, tokenLength: (text: string) => number): Message[];
}

function flatten(h: History, from = 0): Message[] {
  const out = [...h.prefix];
  for (let i = from; i < h.turns.length; i++) out.push(h.turns[i].action, h.turns[i].observation);
  return out;
}

export const C0: ContextPolicy = {
  id: 'C0',
  name: 'full-history',
  view: (h) => flatten(h),
};

/** @param k observations kept verbatim (≥ 1). */
export function makeC1(k = 2): ContextPolicy {
  if (!Number.isInteger(k) || k < 1) throw new Error(`C1: k must be an integer ≥ 1, got ${k}`);
  return {
    id: 'C1',
    name: 'last-k',
    view(h) {
      const out = [...h.prefix];
      const n = h.turns.length;
      h.turns.forEach((t, i) => {
        out.push(t.action);
        out.push(i < n - k ? { role: 'tool', text: '[older output hidden]', policy: false } : t.observation);
      });
      return out;
    },
  };
}

interface C2Options {
  /** Token budget of the full view beyond which past turns are compacted. */
  budgetTokens: number;
  /** Most recent turns kept verbatim after compaction. */
  keepTurns: number;
  /** Most brief lines in the summary (older ones are counted, not listed). */
  maxSummaryItems: number;
}

export function makeC2(opts: Partial<C2Options> = {}): ContextPolicy {
  const o: C2Options = { budgetTokens: 320, keepTurns: 2, maxSummaryItems: 10, ...opts };
  if (!(o.budgetTokens > 0)) throw new Error(`C2: budgetTokens must be > 0, got ${o.budgetTokens}`);
  if (!Number.isInteger(o.keepTurns) || o.keepTurns < 0) throw new Error(`C2: keepTurns must be an integer ≥ 0, got ${o.keepTurns}`);
  return {
    id: 'C2',
    name: 'summary-compaction',
    view(h, tokenLength) {
      const full = flatten(h);
      const total = full.reduce((s, m) => s + tokenLength(m.text) + 2, 0);
      const cut = h.turns.length - o.keepTurns;
      if (total <= o.budgetTokens || cut <= 0) return full;
      const briefs = h.turns.slice(0, cut).map((t, i) => `${i + 1}. ${t.brief}`);
      const shown = briefs.slice(-o.maxSummaryItems);
      const head = briefs.length > shown.length ? `(${briefs.length - shown.length} earlier turns)\n` : '';
      const summary: Message = { role: 'user', text: `[summary of turns 1-${cut}]\n${head}${shown.join('\n')}`, policy: false };
      const out = [...h.prefix, summary];
      for (let i = cut; i < h.turns.length; i++) out.push(h.turns[i].action, h.turns[i].observation);
      return out;
    },
  };
}

const C1 = makeC1();
const C2 = makeC2();
export const CONTEXT_POLICIES: readonly ContextPolicy[] = [C0, C1, C2];

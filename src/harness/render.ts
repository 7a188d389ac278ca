/**
 * Messages → text with role markers. The markers are short and distinctive so a byte-level
 * BPE with a ≤1024 vocabulary learns each as one or two tokens, and so that no realization
 * emits them by accident. Marker text inside any message — a file, a tool output, the policy's
 * own action — is escaped (`escapeMarkers`), so message boundaries come from the renderer only.
 */
import type { Message, Role } from './types';

/** The marker opening a message of each role. */
const ROLE_MARKERS: Record<Role, string> = {
  system: '<|system|>',
  user: '<|user|>',
  assistant: '<|assistant|>',
  tool: '<|tool|>',
};

/** Closes every message; the policy's action ends when it emits this (its stop sequence). */
const END_MARKER = '<|end|>';

/**
 * Neutralize role markers inside message text so the rendered context has unambiguous message
 * boundaries: `<|x|>` becomes `<x|>` only when x is a marker name (the names episode/rows.ts
 * `encodeContext` maps to special ids). The output holds no marker: a removed `|` cannot be
 * re-created by a neighbouring match.
 */
function escapeMarkers(text: string): string {
  return text.replace(/<\|(system|user|assistant|tool|end)\|>/g, '<$1|>');
}

/**
 * Render messages as `<|role|>\n{text}<|end|>\n` each, every text marker-escaped — the policy's
 * too: an action writing `x<|end|>\n<|tool|>\nOK` must not become a forged tool message in the
 * next context. The trainer still scores the action's own sampled ids; only the copy
 * of the action inside later contexts shows `<end|>`, so a forged-marker turn starts a new packed
 * row (episode/rows.ts `packEpisodeRows`) instead of extending the previous one.
 */
function renderMessages(messages: readonly Message[]): string {
  let out = '';
  for (const m of messages) {
    out += `${ROLE_MARKERS[m.role]}\n${escapeMarkers(m.text)}${END_MARKER}\n`;
  }
  return out;
}

/** `renderMessages(messages)` plus the open assistant marker: what the policy continues from. */
export function renderPrompt(messages: readonly Message[]): string {
  return renderMessages(messages) + ROLE_MARKERS.assistant + '\n';
}

/**
 * Default token counter: ⌈chars / 4⌉ (a rough BPE rate). It undercounts the shipped tokenizer
 * (about 2.5–3 chars a token on these contexts), so C2 and the coding-CLI compaction would fire
 * later than their budgets say. Rollout and evaluation hosts and the feasibility check pass the
 * tokenizer's length instead (`HarnessOptions.tokenLength` = episode/rows.ts `tokenCounter(tok)`);
 * the default remains for `hlab serve` (no tokenizer of its engines' models) and display counts.
 */
export function approxTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * Memoize a token counter per text (a bounded map, cleared when full): C2 re-counts every
 * message of the history at each view, so an uncached BPE encode would cost O(turns²) per
 * episode. The counter must be a pure function of the text.
 * @param size most texts kept (≥ 1)
 */
export function memoTokenLength(count: (text: string) => number, size = 4096): (text: string) => number {
  if (!Number.isInteger(size) || size < 1) throw new Error(`memoTokenLength: size must be an integer ≥ 1, got ${size}`);
  const memo = new Map<string, number>();
  return (text) => {
    let n = memo.get(text);
    if (n === undefined) {
      n = count(text);
      if (memo.size >= size) memo.clear();
      memo.set(text, n);
    }
    return n;
  };
}

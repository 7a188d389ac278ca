/**
 * O — the observation format (docs/ARCHITECTURE.md "Harness runtime"): how a canonical `ToolResult` (and the harness's own
 * notices: parse errors, workflow rejections) is shown to the policy.
 * - O0 `raw`: the output text as is; errors as `error: message`.
 * - O1 `json-envelope`: {"status":"ok","output":…} / {"status":"error","code":"not_found",…}.
 * - O2 `line-numbered`: `  1| line`, at most `maxLines` lines with an explicit "N more lines" note.
 *
 * Every realization bounds its text (the policy's context is ~512 tokens): O0/O1 keep at most
 * `maxChars` characters of output and say how many were dropped; O2 keeps `maxLines` lines of at
 * most `maxLineChars` characters each. The sandbox's own cap and note (ToolResult.truncated) come
 * first; these caps only bite on top of it.
 */
import type { ToolResult } from '../../sandbox/types';

/** A harness-side notice: not a tool result (the tool did not run). */
export type NoticeKind = 'parse_error' | 'rejected' | 'note';

export interface ObservationFormat {
  id: string;
  name: string;
  render(result: ToolResult): string;
  /** A parse error, a workflow rejection, or a neutral note (e.g. "plan recorded"). */
  notice(kind: NoticeKind, message: string): string;
}

interface ObservationLimits {
  /** O0/O1: most output characters shown. */
  maxChars: number;
  /** O2: most lines shown. */
  maxLines: number;
  /** O2: longest line shown (longer lines end with '…'). */
  maxLineChars: number;
}

const DEFAULT_OBSERVATION_LIMITS: ObservationLimits = { maxChars: 900, maxLines: 24, maxLineChars: 120 };

/** Keep the first `max` characters; return the kept text and how many were dropped. */
export function clip(text: string, max: number): { text: string; dropped: number } {
  return text.length <= max ? { text, dropped: 0 } : { text: text.slice(0, max), dropped: text.length - max };
}

function errText(r: ToolResult): string {
  return r.error ? r.error.message : 'failed';
}

function makeO0(lim: ObservationLimits = DEFAULT_OBSERVATION_LIMITS): ObservationFormat {
  return {
    id: 'O0',
    name: 'raw',
    render(r) {
      if (!r.ok) return clip(`error: ${errText(r)}`, lim.maxChars).text;
      if (r.output === '') return '(no output)';
      const c = clip(r.output, lim.maxChars);
      return c.dropped ? `${c.text}\n[… ${c.dropped} more chars]` : c.text;
    },
    notice(kind, message) {
      const m = clip(message, lim.maxChars).text;
      return kind === 'note' ? m : `${kind === 'parse_error' ? 'parse error' : 'rejected'}: ${m}`;
    },
  };
}

function makeO1(lim: ObservationLimits = DEFAULT_OBSERVATION_LIMITS): ObservationFormat {
  return {
    id: 'O1',
    name: 'json-envelope',
    render(r) {
      if (!r.ok) {
        return JSON.stringify({ status: 'error', code: r.error?.code ?? 'error', message: clip(errText(r), lim.maxChars).text });
      }
      const c = clip(r.output, lim.maxChars);
      const env: Record<string, unknown> = { status: 'ok', output: c.text };
      if (c.dropped) env.dropped_chars = c.dropped;
      return JSON.stringify(env);
    },
    notice(kind, message) {
      return JSON.stringify({ status: kind === 'note' ? 'ok' : kind, message: clip(message, lim.maxChars).text });
    },
  };
}

function makeO2(lim: ObservationLimits = DEFAULT_OBSERVATION_LIMITS): ObservationFormat {
  const numbered = (text: string): string => {
    const lines = text.split('\n');
    const shown = lines.slice(0, lim.maxLines);
    const width = String(shown.length).length;
    const body = shown
      .map((l, i) => `${String(i + 1).padStart(width, ' ')}| ${l.length > lim.maxLineChars ? l.slice(0, lim.maxLineChars) + '…' : l}`)
      .join('\n');
    const more = lines.length - shown.length;
    return more > 0 ? `${body}\n… ${more} more lines` : body;
  };
  return {
    id: 'O2',
    name: 'line-numbered',
    render(r) {
      if (!r.ok) return `[error ${r.error?.code ?? 'error'}] ${clip(errText(r), lim.maxLineChars * 2).text}`;
      if (r.output === '') return '[ok] (no output)';
      return numbered(r.output);
    },
    notice(kind, message) {
      const tag = kind === 'note' ? '[ok]' : kind === 'parse_error' ? '[parse error]' : '[rejected]';
      return `${tag} ${clip(message, lim.maxLineChars * 3).text}`;
    },
  };
}

const O0 = makeO0();
const O1 = makeO1();
const O2 = makeO2();
export const OBSERVATION_FORMATS: readonly ObservationFormat[] = [O0, O1, O2];

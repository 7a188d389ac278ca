/**
 * Is a demonstration honest to its context?
 *
 * A demonstrated action may only use what the context it was produced from shows: SFT on an
 * action whose arguments come from an observation the harness no longer shows (C1's hidden
 * outputs, C2 / compaction summaries, black-box pruning) teaches the model to guess.
 *
 * The check is on atoms: maximal runs of letters and digits (`\p{L}\p{N}`), case-sensitive, of
 * length ≥ 2, with backslash escapes (`\n`) read as separators. A *fact* of turn k's action is an atom of it that the episode learned before turn
 * k — it occurs in an earlier observation or an earlier action — and that the opening (system
 * prompt and task, always shown), the notes file's name and the expert's own fixed phrases
 * (plans, todo lists: `ExpertEpisode.phrases`) do not contain. The action is honest when every fact also occurs in turn k's context text. Values
 * the expert computes (a sum, a count) are facts only when they occurred before (e.g. a written
 * sum that is later the answer: it must be visible again, by re-reading the file).
 */
import type { TurnRecord } from './types';

const ATOM_RE = /[\p{L}\p{N}]+/gu;

/** Backslash escapes of JSON-like syntaxes (`\n`, `\"` …): separators, so "a\nBob" has the atom Bob. */
const ESCAPE_RE = /\\[nrt"\\/]/g;

/** Atoms of `text` (module doc). */
export function atoms(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.replace(ESCAPE_RE, ' ').matchAll(ATOM_RE)) if (m[0].length >= 2) out.add(m[0]);
  return out;
}

/** The expert's scratch file (notes of facts a harness will hide) and its first line. */
export const NOTES_PATH = '/notes.txt';
export const NOTES_HEADER = 'notes:\n';

/** One dishonest action: the turn (1-based), the facts missing from its context, the action head. */
interface HonestyViolation {
  turn: number;
  missing: string[];
  action: string;
}

/**
 * The actions of an episode whose facts its context does not show (module doc).
 * @param turns the episode's turns in order (TurnRecord: context, action, observation)
 * @param extraConstant more texts whose atoms are never facts (e.g. a harness's fixed phrases)
 * @returns violations in turn order (empty = every action honest)
 */
export function honestyViolations(turns: readonly TurnRecord[], extraConstant: readonly string[] = []): HonestyViolation[] {
  if (turns.length === 0) return [];
  const constant = atoms([turns[0].context, NOTES_PATH, NOTES_HEADER, ...extraConstant].join('\n'));
  const learned = new Set<string>();
  const out: HonestyViolation[] = [];
  for (const t of turns) {
    const visible = atoms(t.context);
    const missing = [...atoms(t.action)].filter((a) => learned.has(a) && !constant.has(a) && !visible.has(a));
    if (missing.length) out.push({ turn: t.turn, missing, action: t.action.slice(0, 80) });
    for (const a of atoms(t.action)) learned.add(a);
    for (const a of atoms(t.observation)) learned.add(a);
  }
  return out;
}

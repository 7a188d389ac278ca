/**
 * What the 'errands' families (errands.ts) share: tier picks, mail and calendar helpers, the
 * reply checks, the word lists.
 */
import type { Rng } from '../util/rng';
import { parseMail, textLines } from '../sandbox/services';
import type { CalEvent } from '../sandbox/services';
import type { SandboxState } from '../sandbox/types';
import type { SubCheck, Tier } from './types';
import { check, hour, randomDate, sample } from './common';

/** The value for a tier: `a` at tier 1, `b` at 2, `c` at 3. */
export const byTier = <T>(tier: Tier, a: T, b: T, c: T): T => (tier === 1 ? a : tier === 2 ? b : c);
/** The last path component. */
export const base = (p: string) => p.slice(p.lastIndexOf('/') + 1);
export const ME = 'me@mail.test';
export const DRAFTS = '/mail/drafts';
/** Trimmed, whitespace collapsed, lower case: how answers are compared. */
export const squash = (s: string) => s.trim().replace(/\s+/g, ' ').toLowerCase();
/** A search hit on the From line of a mail sent by `name` ('Ana' must not match 'hana@…'). */
export const fromLine = (name: string) => new RegExp(`^from:\\s*${name.toLowerCase()}@`, 'i');

const TOPICS = ['Budget', 'Design', 'Team', 'Client', 'Sprint', 'Launch'] as const;
const KINDS = ['review', 'sync', 'call', 'lunch', 'demo'] as const;
export const CHATTER = [
  { subject: 'Lunch?', body: 'Free for lunch this week?' },
  { subject: 'Photos', body: 'Here are the photos from Sunday.' },
  { subject: 'Hello', body: 'Just saying hi.' },
  { subject: 'Plans', body: 'What are your plans for May?' },
  { subject: 'Weekend', body: 'Any plans for the weekend?' },
  { subject: 'Thanks', body: 'Thanks for your help!' },
] as const;

/** A one-hour event titled `title` on a random date between 08:00 and 17:00. */
export function randomEvent(rng: Rng, title: string): CalEvent {
  const h = rng.range(8, 17);
  return { date: randomDate(rng), start: hour(h), end: hour(h + 1), title };
}

/** Distinct "Topic kind" meeting titles. */
export function titles(rng: Rng, k: number): string[] {
  const all = TOPICS.flatMap((t) => KINDS.map((x) => `${t} ${x}`));
  return sample(rng, all, k);
}

/** Parse a `When: YYYY-MM-DD HH:MM-HH:MM` / `What: title` invite body. */
export function inviteOf(body: string): CalEvent | null {
  const what = /^What:\s*(.+)$/m.exec(body);
  const when = /^When:\s*(\d{4}-\d{2}-\d{2})\s+(\d{1,2}:\d{2})\s*-\s*(\d{1,2}:\d{2})\s*$/m.exec(body);
  return what && when ? { date: when[1], start: when[2], end: when[3], title: what[1].trim() } : null;
}

/** Sub-checks of one reply file: exists, To, Subject ('Re: …'), body (the reply word). */
export function replyChecks(final: SandboxState, path: string, to: string, subject: string, word: string, label: string): SubCheck[] {
  const text = final.files[path];
  const m = text === undefined ? null : parseMail(text);
  const bodyOk = m !== null && textLines(m.body).some((l) => squash(l).replace(/[.!]+$/, '') === word.toLowerCase());
  return [
    check(`${label}: sent`, m !== null, text === undefined ? `${path} does not exist` : `${path} is not a mail (From/To/Subject headers)`),
    check(`${label}: to`, m !== null && squash(m.to) === to.toLowerCase(), `expected To: ${to}, got ${JSON.stringify(m?.to)}`),
    check(
      `${label}: subject`,
      m !== null && squash(m.subject) === squash(`Re: ${subject}`),
      `expected Subject: Re: ${subject}, got ${JSON.stringify(m?.subject)}`,
    ),
    check(`${label}: body`, bodyOk, `expected a body line "${word}", got ${JSON.stringify(m?.body.slice(0, 80))}`),
  ];
}

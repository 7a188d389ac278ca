/**
 * The 'errands' families over the calendar and mail (errands.ts has the suite's table):
 * calendar-add (copy an invite into the calendar) and mail-reply (draft and send a reply).
 */
import type { Rng } from '../util/rng';
import { SERVICE_PATHS, eventLine, formatEvents, formatMail, parseEvents, parseMail, sameEvent } from '../sandbox/services';
import type { CalEvent } from '../sandbox/services';
import type { ToolCall } from '../sandbox/types';
import type { SubCheck, Tier } from './types';
import {
  NAMES,
  WORDS,
  call,
  check,
  emailOf,
  family,
  finishedCheck,
  intactCheck,
  keepCheck,
  listEntries,
  mustRead,
  noExtraCheck,
  randomDate,
  sample,
  searchHits,
} from './common';
import { byTier, base, ME, DRAFTS, fromLine, CHATTER, randomEvent, titles, inviteOf, replyChecks } from './errands_shared';

// -------------------------------------------------------------------------- calendar-add

interface CalendarSpec {
  events: CalEvent[];
  senders: string[];
  initialCount: number;
}

export const calendarAdd = family<CalendarSpec>({
  info: {
    name: 'calendar-add',
    description:
      'Add meetings to /calendar/events.csv: one whose CSV line the instruction quotes (t1), one proposed in a mail from a named person (t2), every invite in the inbox (t3: 3 among chatter).',
    needsStateTracking: false,
    hasRecoverableError: false,
  },
  build(rng: Rng, tier: Tier) {
    const nNew = byTier(tier, 1, 1, 3);
    const ts = titles(rng, nNew + 2);
    const existing = ts.slice(nNew).map((t) => randomEvent(rng, t));
    const events = ts.slice(0, nNew).map((t) => randomEvent(rng, t));
    const files: Record<string, string> = { [SERVICE_PATHS.calendar]: formatEvents(existing) };
    const people = sample(rng, NAMES, nNew + 2);
    const senders = people.slice(0, nNew);
    if (tier > 1) {
      const words = sample(rng, WORDS, nNew + 2);
      const chatter = sample(rng, CHATTER, 2);
      events.forEach((e, i) => {
        files[`${SERVICE_PATHS.inbox}/${words[i]}.eml`] = formatMail({
          from: emailOf(senders[i]),
          to: ME,
          subject: `Invite: ${e.title}`,
          date: randomDate(rng),
          body: `What: ${e.title}\nWhen: ${e.date} ${e.start}-${e.end}`,
        });
      });
      chatter.forEach((c, j) => {
        files[`${SERVICE_PATHS.inbox}/${words[nNew + j]}.eml`] = formatMail({
          from: emailOf(people[nNew + j]),
          to: ME,
          subject: c.subject,
          date: randomDate(rng),
          body: c.body,
        });
      });
    }
    const e = events[0];
    const instruction =
      tier === 1
        ? `Add the event line "${eventLine(e).trim()}" to ${SERVICE_PATHS.calendar}.`
        : tier === 2
          ? `${senders[0]} mailed you a meeting invite. Add it to ${SERVICE_PATHS.calendar}.`
          : `Add every meeting invite in ${SERVICE_PATHS.inbox} to ${SERVICE_PATHS.calendar}.`;
    return { instruction, files, spec: { events, senders, initialCount: existing.length } };
  },
  checks(spec, task, final, tr) {
    const cal = final.files[SERVICE_PATHS.calendar];
    const got = cal === undefined ? [] : parseEvents(cal);
    const before = parseEvents(task.initial.files[SERVICE_PATHS.calendar]);
    const lost = before.filter((b) => !got.some((g) => sameEvent(g, b)));
    // Preservation, so it must hold on the initial state: no row beyond the existing and the
    // requested events, none twice (with every event present this is the exact count).
    const known = [...before, ...spec.events];
    const stray = got.filter((g) => !known.some((k) => sameEvent(g, k)));
    return [
      ...spec.events.map((e) =>
        check(
          `event "${e.title}"`,
          got.some((g) => sameEvent(g, e)),
          `no ${e.date} ${e.start}-${e.end} "${e.title}" row`,
        ),
      ),
      keepCheck('existing_kept', cal !== undefined && lost.length === 0, `lost: ${lost.map((l) => l.title).join(', ')}`),
      keepCheck(
        'no_extra_events',
        stray.length === 0 && got.length <= known.length,
        `expected at most the ${known.length} existing and requested events, found ${got.length} (${stray.length} unexpected)`,
      ),
      intactCheck(task.initial, final, [SERVICE_PATHS.calendar]),
      noExtraCheck(task.initial, final),
      finishedCheck(tr),
    ];
  },
  *solve(spec, task) {
    let events = spec.events;
    if (task.tier > 1) {
      const query = task.tier === 2 ? spec.senders[0] : 'Invite';
      const s = yield call('search', { query, path: SERVICE_PATHS.inbox });
      const want = task.tier === 2 ? fromLine(spec.senders[0]) : /^subject:\s*invite/i;
      const paths = [
        ...new Set(
          searchHits(s.output)
            .filter((h) => h.text !== undefined && want.test(h.text))
            .map((h) => h.path),
        ),
      ];
      events = [];
      for (const p of paths) {
        const m = parseMail(yield* mustRead(p));
        const ev = m && inviteOf(m.body);
        if (!ev) throw new Error(`solver: ${p} is not an invite`);
        events.push(ev);
      }
    }
    for (const e of events) yield call('append', { path: SERVICE_PATHS.calendar, content: eventLine(e) });
    return call('finish', { answer: 'done' });
  },
});

// ---------------------------------------------------------------------------- mail-reply

interface ReplySpec {
  word: string;
  /** Reply path → the mail it answers. */
  replies: { path: string; to: string; subject: string }[];
  sender: string | null;
  source: string | null;
  /** t1: the drafted reply (headers only) to append the word to and move into the sent folder. */
  draft: string | null;
}

export const mailReply = family<ReplySpec>({
  info: {
    name: 'mail-reply',
    description:
      'Reply a given word to a named mail by completing its drafted reply and moving it to /mail/sent (t1), to the latest of two mails from a person (t2), or to each of 3 inbox mails under the same file name (t3); checks To, "Re:" subject and body.',
    needsStateTracking: false,
    hasRecoverableError: false,
  },
  build(rng: Rng, tier: Tier) {
    const word = rng.pick(['Yes', 'OK', 'Thanks', 'Noted', 'Sure']);
    const words = sample(rng, WORDS, 3);
    const people = sample(rng, NAMES, 3);
    const chatter = sample(rng, CHATTER, 3);
    const files: Record<string, string> = {};
    const dates = sample(
      rng,
      Array.from({ length: 28 }, (_, i) => `2026-05-${String(i + 1).padStart(2, '0')}`),
      3,
    );
    // t2: the first two mails come from the same person; the latest of them is answered.
    const from = tier === 2 ? [people[0], people[0], people[1]] : people;
    const mails = words.map((w, i) => ({
      path: `${SERVICE_PATHS.inbox}/${w}.eml`,
      from: emailOf(from[i]),
      subject: chatter[i].subject,
      date: dates[i],
      body: chatter[i].body,
    }));
    for (const m of mails) files[m.path] = formatMail({ from: m.from, to: ME, subject: m.subject, date: m.date, body: m.body });
    const reply = (m: (typeof mails)[number], path: string) => ({ path, to: m.from, subject: m.subject });
    let replies: ReplySpec['replies'];
    let instruction: string;
    let draft: string | null = null;
    if (tier === 1) {
      // The reply's headers are drafted already: the body is the quoted word, sending is one move.
      draft = `${DRAFTS}/reply.eml`;
      files[draft] = `From: ${ME}\nTo: ${mails[0].from}\nSubject: Re: ${mails[0].subject}\n\n`;
      replies = [reply(mails[0], `${SERVICE_PATHS.sent}/reply.eml`)];
      instruction = `Reply "${word}" to ${mails[0].path}: append "${word}" to the draft ${draft}, then move it to ${SERVICE_PATHS.sent}/reply.eml.`;
    } else if (tier === 2) {
      const latest = mails[0].date > mails[1].date ? mails[0] : mails[1];
      replies = [reply(latest, `${SERVICE_PATHS.sent}/reply.eml`)];
      instruction = `Reply "${word}" to the latest mail from ${people[0]}. Save the reply as ${SERVICE_PATHS.sent}/reply.eml.`;
    } else {
      replies = mails.map((m) => reply(m, `${SERVICE_PATHS.sent}/${base(m.path)}`));
      instruction = `Reply "${word}" to each mail in ${SERVICE_PATHS.inbox}. Save each reply in ${SERVICE_PATHS.sent} under the same file name.`;
    }
    return {
      instruction,
      files,
      spec: { word, replies, sender: tier === 2 ? people[0] : null, source: tier === 1 ? mails[0].path : null, draft },
    };
  },
  checks(spec, task, final, tr) {
    const replies = spec.replies.flatMap((r) => replyChecks(final, r.path, r.to, r.subject, spec.word, base(r.path)));
    let t1: SubCheck[] = [];
    if (spec.draft !== null) {
      // To and Subject come with the draft, so they are no progress of their own: 'sent' holds
      // with both; the body counts in the draft before it is sent (each step is half the task).
      const r = spec.replies[0];
      const body = replyChecks(final, final.files[r.path] === undefined ? spec.draft : r.path, r.to, r.subject, spec.word, base(r.path))[3];
      t1 = [
        check(
          replies[0].name,
          replies.slice(0, 3).every((c) => c.pass),
          replies.slice(0, 3).find((c) => !c.pass)?.detail,
        ),
        body,
      ];
    }
    return [
      ...(spec.draft === null ? replies : t1),
      intactCheck(task.initial, final, spec.draft === null ? [] : [spec.draft]),
      noExtraCheck(
        task.initial,
        final,
        spec.replies.map((r) => r.path),
      ),
      finishedCheck(tr),
    ];
  },
  *solve(spec, task) {
    const answer = (text: string, path: string): ToolCall => {
      const m = parseMail(text);
      if (!m) throw new Error(`solver: ${path} is not a mail`);
      return call('write', { path, content: formatMail({ from: ME, to: m.from, subject: `Re: ${m.subject}`, body: spec.word }) });
    };
    if (spec.draft !== null) {
      yield call('append', { path: spec.draft, content: `${spec.word}\n` });
      // To the full path the instruction names (W2 tracks a move's target as the path given).
      yield call('move', { from: spec.draft, to: spec.replies[0].path });
    } else if (task.tier === 2) {
      const s = yield call('search', { query: spec.sender!, path: SERVICE_PATHS.inbox });
      const paths = [
        ...new Set(
          searchHits(s.output)
            .filter((h) => h.text !== undefined && fromLine(spec.sender!).test(h.text))
            .map((h) => h.path),
        ),
      ];
      let best: string | null = null;
      let bestDate = '';
      for (const p of paths) {
        const text = yield* mustRead(p);
        const d = parseMail(text)?.date ?? '';
        if (best === null || d > bestDate) (best = text), (bestDate = d);
      }
      if (best === null) throw new Error(`solver: no mail from ${spec.sender}`);
      yield answer(best, spec.replies[0].path);
    } else {
      const l = yield call('list', { path: SERVICE_PATHS.inbox });
      for (const p of listEntries(l.output).filter((e) => e.endsWith('.eml'))) {
        yield answer(yield* mustRead(p), `${SERVICE_PATHS.sent}/${base(p)}`);
      }
    }
    return call('finish', { answer: 'sent' });
  },
});

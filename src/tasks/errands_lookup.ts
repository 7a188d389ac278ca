/**
 * The 'errands' families that search (errands.ts has the suite's table): inbox-triage
 * (the mail whose subject hits) and find-contact (a phone from the address book, where the
 * named file lives elsewhere).
 */
import type { Rng } from '../util/rng';
import {
  SERVICE_PATHS,
  csvRecords,
  formatCsv,
  formatEvents,
  formatMail,
  parseCsv,
  parseEvents,
  parseMail,
  textLines,
} from '../sandbox/services';
import type { CalEvent } from '../sandbox/services';
import type { Tier } from './types';
import {
  NAMES,
  WORDS,
  call,
  check,
  emailOf,
  existsCheck,
  family,
  finishedCheck,
  intactCheck,
  locate,
  noExtraCheck,
  numberTokens,
  partCheck,
  randomDate,
  sample,
  searchHits,
} from './common';
import { byTier, base, ME, squash, CHATTER, randomEvent, titles } from './errands_shared';

// -------------------------------------------------------------------------- inbox-triage

interface TriageSpec {
  keyword: string;
  moved: string[];
}

export const inboxTriage = family<TriageSpec>({
  info: {
    name: 'inbox-triage',
    description:
      'Move every mail whose subject mentions a keyword from /mail/inbox to /mail/archive (1, 3 or 6 among chatter; from t2 a chatter body mentions the keyword too).',
    needsStateTracking: false,
    hasRecoverableError: false,
  },
  build(rng: Rng, tier: Tier) {
    const keyword = rng.pick(['invoice', 'receipt', 'order', 'ticket']);
    const m = byTier(tier, 1, 3, 6);
    const k = 2;
    const words = sample(rng, WORDS, m + k);
    const people = sample(rng, NAMES, m + k);
    const chatter = sample(rng, CHATTER, k);
    const files: Record<string, string> = {};
    const moved: string[] = [];
    words.forEach((w, i) => {
      const p = `${SERVICE_PATHS.inbox}/${w}.eml`;
      const hit = i < m;
      const subject = hit ? `${keyword[0].toUpperCase()}${keyword.slice(1)} ${rng.range(10, 999)}` : chatter[i - m].subject;
      const body = hit ? `Your ${keyword} is attached.` : tier > 1 && i === m ? `Did you get my ${keyword}?` : chatter[i - m].body;
      files[p] = formatMail({ from: emailOf(people[i]), to: ME, subject, date: randomDate(rng), body });
      if (hit) moved.push(base(p));
    });
    return {
      instruction: `Move every mail whose subject mentions "${keyword}" from ${SERVICE_PATHS.inbox} to ${SERVICE_PATHS.archive}.`,
      files,
      dirs: [SERVICE_PATHS.archive],
      spec: { keyword, moved: moved.sort() },
    };
  },
  checks(spec, task, final, tr) {
    const src = (n: string) => `${SERVICE_PATHS.inbox}/${n}`;
    const dst = (n: string) => `${SERVICE_PATHS.archive}/${n}`;
    const notMoved = spec.moved.filter((n) => final.files[dst(n)] !== task.initial.files[src(n)]);
    const left = spec.moved.filter((n) => final.files[src(n)] !== undefined);
    return [
      partCheck(
        'archived',
        spec.moved.length - notMoved.length,
        spec.moved.length,
        `missing or changed in ${SERVICE_PATHS.archive}: ${notMoved.join(', ')}`,
      ),
      partCheck('removed_from_inbox', spec.moved.length - left.length, spec.moved.length, `still in the inbox: ${left.join(', ')}`),
      // A mail may leave the inbox only by arriving in the archive: deleting it is damage.
      intactCheck(task.initial, final, spec.moved.filter((n) => !notMoved.includes(n)).map(src)),
      noExtraCheck(task.initial, final, spec.moved.map(dst)),
      finishedCheck(tr),
    ];
  },
  *solve(spec) {
    const s = yield call('search', { query: spec.keyword, path: SERVICE_PATHS.inbox });
    const re = new RegExp(`^subject:.*${spec.keyword}`, 'i');
    const paths = [
      ...new Set(
        searchHits(s.output)
          .filter((h) => h.text !== undefined && re.test(h.text))
          .map((h) => h.path),
      ),
    ];
    // Into the existing folder (`mv x dir`): the destination is a verbatim copy of the instruction's.
    for (const p of paths) yield call('move', { from: p, to: SERVICE_PATHS.archive });
    return call('finish', { answer: 'done' });
  },
});

// -------------------------------------------------------------------------- find-contact

interface ContactSpec {
  person: string;
  phone: string;
  recipient: string;
  to: string | null;
  event: CalEvent | null;
  out: string | null;
  subject: string | null;
}

export const findContact = family<ContactSpec>({
  info: {
    name: 'find-contact',
    description:
      'Find a phone number in the address book the instruction places at /tables/contacts.csv (it lives elsewhere): answer it from a search hit (t1), mail it to a contact (t2), or mail it with the date of an event whose calendar file is misplaced too (t3).',
    needsStateTracking: false,
    hasRecoverableError: true,
  },
  build(rng: Rng, tier: Tier) {
    const people = sample(rng, NAMES, 4);
    const phones = sample(
      rng,
      Array.from({ length: 90 }, (_, i) => `555-01${String(i + 10)}`),
      4,
    );
    const [person, recipient] = people;
    const files: Record<string, string> = {
      [`/tables/${rng.pick(['old', 'backup', 'archive'])}/contacts.csv`]: formatCsv(
        ['name', 'email', 'phone'],
        people.map((p, i) => [p, emailOf(p), phones[i]]),
      ),
      '/tables/readme.md': '# Tables\nShared lists.\n',
    };
    let event: CalEvent | null = null;
    if (tier === 3) {
      const ts = titles(rng, 2);
      const evs = ts.map((t) => randomEvent(rng, t));
      event = evs[0];
      files[`/calendar/${rng.pick(['2025', 'old', 'past'])}/events.csv`] = formatEvents(evs);
    }
    const out = tier === 1 ? null : `${SERVICE_PATHS.sent}/${tier === 2 ? 'phone' : 'info'}.eml`;
    const subject = tier === 1 ? null : tier === 2 ? 'Phone' : 'Info';
    const instruction =
      tier === 1
        ? `What is ${person}'s phone number? See ${SERVICE_PATHS.contacts}. Give it as your final answer.`
        : tier === 2
          ? `Mail ${person}'s phone number (see ${SERVICE_PATHS.contacts}) to ${recipient}. Save it as ${out} with subject "${subject}".`
          : `Mail ${person}'s phone (see ${SERVICE_PATHS.contacts}) and the date of "${event!.title}" (see ${SERVICE_PATHS.calendar}) to ${recipient}. Save it as ${out} with subject "${subject}".`;
    return {
      instruction,
      files,
      spec: { person, phone: phones[0], recipient, to: tier === 1 ? null : emailOf(recipient), event, out, subject },
    };
  },
  checks(spec, task, final, tr) {
    const tail = [intactCheck(task.initial, final), noExtraCheck(task.initial, final, spec.out ? [spec.out] : []), finishedCheck(tr)];
    if (spec.out === null) {
      const nums = numberTokens(tr.answer ?? '');
      return [
        check(
          'answer_correct',
          nums.length > 0 && nums.every((n) => n === spec.phone),
          `expected ${spec.phone}, got ${JSON.stringify(tr.answer)}`,
        ),
        ...tail,
      ];
    }
    const text = final.files[spec.out];
    const m = text === undefined ? null : parseMail(text);
    const cs = [
      existsCheck('sent', final, spec.out),
      check('to', m !== null && squash(m.to) === spec.to, `expected To: ${spec.to}, got ${JSON.stringify(m?.to)}`),
      check(
        'subject',
        m !== null && squash(m.subject) === squash(spec.subject!),
        `expected Subject: ${spec.subject}, got ${JSON.stringify(m?.subject)}`,
      ),
      check('phone_in_body', m !== null && numberTokens(m.body).includes(spec.phone), `expected ${spec.phone} in the body`),
    ];
    if (spec.event)
      cs.push(check('date_in_body', m !== null && m.body.includes(spec.event.date), `expected ${spec.event.date} in the body`));
    return [...cs, ...tail];
  },
  *solve(spec, task) {
    if (task.tier === 1) {
      // The stated path fails; a search for the person shows their row, phone included.
      const r = yield call('read', { path: SERVICE_PATHS.contacts });
      const rows = r.ok
        ? textLines(r.output)
        : searchHits((yield call('search', { query: spec.person })).output)
            .map((h) => h.text ?? '')
            .filter((t) => t !== '');
      const phone = rows.map((l) => l.split(',')).find((c) => c[0] === spec.person)?.[2];
      if (!phone) throw new Error(`solver: no phone for ${spec.person}`);
      return call('finish', { answer: phone });
    }
    const { content } = yield* locate(SERVICE_PATHS.contacts);
    const rows = csvRecords(parseCsv(content));
    const phone = rows.find((r) => r.name === spec.person)?.phone;
    if (!phone) throw new Error(`solver: no phone for ${spec.person}`);
    const to = rows.find((r) => r.name === spec.recipient)?.email;
    if (!to) throw new Error(`solver: no email for ${spec.recipient}`);
    const lines = [`${spec.person}: ${phone}`];
    if (spec.event) {
      const cal = yield* locate(SERVICE_PATHS.calendar);
      const ev = parseEvents(cal.content).find((e) => e.title === spec.event!.title);
      if (!ev) throw new Error(`solver: no event "${spec.event.title}"`);
      lines.push(`${ev.title}: ${ev.date}`);
    }
    yield call('write', { path: spec.out!, content: formatMail({ from: ME, to, subject: spec.subject!, body: lines.join('\n') }) });
    return call('finish', { answer: 'sent' });
  },
});

/** The errands suite (PinchBench style). */

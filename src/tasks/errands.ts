/**
 * The 'errands' suite, in the style of PinchBench: assistant errands over mail, calendar,
 * notes, the address book and memory recall, all reached through the canonical tools on the
 * service files of src/sandbox/services.ts. Six families × three tiers; the tier sets the
 * number of required tool calls (finish included) and what is computed:
 *
 *   family          t1  t2  t3   tier 1 copies …                            flags
 *   calendar-add     2   4   8   the CSV event line the instruction quotes
 *   mail-reply       3   5   8   the word, into a drafted reply, then sent
 *   recall           2   4   8   the memo's one number                      state tracking (a fact read first, answered last)
 *   todo-update      2   5   8   the item line the instruction quotes       state tracking at t3 (done items gathered over 3 reads)
 *   inbox-triage     3   5   8   the one mail path whose subject hits
 *   find-contact     3   5   8   the phone on a search hit's row            recoverable error (the named file lives elsewhere)
 *
 * Tier 1 is sized for the shipped base (issue 23): 2–3 calls, actions ≤ 40 tokens under the base
 * harness (calendar-add ≤ 50), outputs copied verbatim; tiers 2–3 compose mails and event lines,
 * pick the latest mail, rewrite lists. docs/TASKS.md has the ladder.
 */
import type { Rng } from '../util/rng';
import {
  SERVICE_PATHS,
  csvRecords,
  eventLine,
  formatCsv,
  formatEvents,
  formatMail,
  formatTodos,
  normText,
  parseCsv,
  parseEvents,
  parseMail,
  parseTodos,
  sameEvent,
  textLines,
} from '../sandbox/services';
import type { CalEvent, TodoItem } from '../sandbox/services';
import type { SandboxState, ToolCall } from '../sandbox/types';
import type { SubCheck, Tier } from './types';
import {
  NAMES,
  WORDS,
  call,
  check,
  emailOf,
  existsCheck,
  family,
  finishedCheck,
  hour,
  intactCheck,
  keepCheck,
  listEntries,
  locate,
  makeSuite,
  mustRead,
  noExtraCheck,
  numberTokens,
  partCheck,
  randomDate,
  sample,
  searchHits,
  textCheck,
} from './common';

const byTier = <T>(tier: Tier, a: T, b: T, c: T): T => (tier === 1 ? a : tier === 2 ? b : c);
const base = (p: string) => p.slice(p.lastIndexOf('/') + 1);
const ME = 'me@mail.test';
const DRAFTS = '/mail/drafts';
const squash = (s: string) => s.trim().replace(/\s+/g, ' ').toLowerCase();
/** A search hit on the From line of a mail sent by `name` ('Ana' must not match 'hana@…'). */
const fromLine = (name: string) => new RegExp(`^from:\\s*${name.toLowerCase()}@`, 'i');

const TOPICS = ['Budget', 'Design', 'Team', 'Client', 'Sprint', 'Launch'] as const;
const KINDS = ['review', 'sync', 'call', 'lunch', 'demo'] as const;
const CHATTER = [
  { subject: 'Lunch?', body: 'Free for lunch this week?' },
  { subject: 'Photos', body: 'Here are the photos from Sunday.' },
  { subject: 'Hello', body: 'Just saying hi.' },
  { subject: 'Plans', body: 'What are your plans for May?' },
  { subject: 'Weekend', body: 'Any plans for the weekend?' },
  { subject: 'Thanks', body: 'Thanks for your help!' },
] as const;

function randomEvent(rng: Rng, title: string): CalEvent {
  const h = rng.range(8, 17);
  return { date: randomDate(rng), start: hour(h), end: hour(h + 1), title };
}

/** Distinct "Topic kind" meeting titles. */
function titles(rng: Rng, k: number): string[] {
  const all = TOPICS.flatMap((t) => KINDS.map((x) => `${t} ${x}`));
  return sample(rng, all, k);
}

/** Parse a `When: YYYY-MM-DD HH:MM-HH:MM` / `What: title` invite body. */
function inviteOf(body: string): CalEvent | null {
  const what = /^What:\s*(.+)$/m.exec(body);
  const when = /^When:\s*(\d{4}-\d{2}-\d{2})\s+(\d{1,2}:\d{2})\s*-\s*(\d{1,2}:\d{2})\s*$/m.exec(body);
  return what && when ? { date: when[1], start: when[2], end: when[3], title: what[1].trim() } : null;
}

/** Sub-checks of one reply file: exists, To, Subject ('Re: …'), body (the reply word). */
function replyChecks(final: SandboxState, path: string, to: string, subject: string, word: string, label: string): SubCheck[] {
  const text = final.files[path];
  const m = text === undefined ? null : parseMail(text);
  const bodyOk = m !== null && textLines(m.body).some((l) => squash(l).replace(/[.!]+$/, '') === word.toLowerCase());
  return [
    check(`${label}: sent`, m !== null, text === undefined ? `${path} does not exist` : `${path} is not a mail (From/To/Subject headers)`),
    check(`${label}: to`, m !== null && squash(m.to) === to.toLowerCase(), `expected To: ${to}, got ${JSON.stringify(m?.to)}`),
    check(`${label}: subject`, m !== null && squash(m.subject) === squash(`Re: ${subject}`), `expected Subject: Re: ${subject}, got ${JSON.stringify(m?.subject)}`),
    check(`${label}: body`, bodyOk, `expected a body line "${word}", got ${JSON.stringify(m?.body.slice(0, 80))}`),
  ];
}

// -------------------------------------------------------------------------- calendar-add

interface CalendarSpec {
  events: CalEvent[];
  senders: string[];
  initialCount: number;
}

const calendarAdd = family<CalendarSpec>({
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
        files[`${SERVICE_PATHS.inbox}/${words[nNew + j]}.eml`] = formatMail({ from: emailOf(people[nNew + j]), to: ME, subject: c.subject, date: randomDate(rng), body: c.body });
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

const mailReply = family<ReplySpec>({
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
    const mails = words.map((w, i) => ({ path: `${SERVICE_PATHS.inbox}/${w}.eml`, from: emailOf(from[i]), subject: chatter[i].subject, date: dates[i], body: chatter[i].body }));
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
    return { instruction, files, spec: { word, replies, sender: tier === 2 ? people[0] : null, source: tier === 1 ? mails[0].path : null, draft } };
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

// -------------------------------------------------------------------------------- recall

interface RecallSpec {
  key: string;
  code: string;
  copies: string[];
}

const recall = family<RecallSpec>({
  info: {
    name: 'recall',
    description:
      'Read a code from /notes/memo.md, do 0 (t1), 1 (t2) or 3 (t3) backup copies of other notes into /backup, then give the code as the final answer: it must be remembered across the copies.',
    needsStateTracking: true,
    hasRecoverableError: false,
  },
  build(rng: Rng, tier: Tier) {
    const key = rng.pick(['locker code', 'door code', 'wifi pin', 'bike lock code']);
    const code = String(rng.range(1000, 9999));
    const h = rng.range(6, 9);
    const keyLine = `${key[0].toUpperCase()}${key.slice(1)}: ${code}`;
    // t1: no other number in the memo, so the answer is the one value on the key's line.
    const memo =
      tier === 1 ? rng.shuffle([keyLine, rng.pick(['Gym on Monday.', 'Buy milk.', 'Call the bank.'])]) : rng.shuffle([`Gym at ${h} pm.`, keyLine, `Room ${rng.range(10, 99)}.`]);
    const files: Record<string, string> = { '/notes/memo.md': memo.join('\n') + '\n' };
    const copies = sample(rng, WORDS, byTier(tier, 0, 1, 3)).map((w) => `/notes/${w}.md`);
    for (const p of copies) files[p] = `# ${base(p).slice(0, -3)}\nCall ${rng.pick(NAMES)} on day ${rng.range(1, 28)}.\n`;
    const list = copies.join(copies.length === 3 ? ', ' : ' and ').replace(/, ([^,]*)$/, ' and $1');
    const instruction =
      tier === 1
        ? `What is the ${key} in /notes/memo.md? Give it as your final answer.`
        : `Note the ${key} in /notes/memo.md. Then copy ${list} into /backup/. Finally give the ${key} as your final answer.`;
    return { instruction, files, spec: { key, code, copies } };
  },
  checks(spec, task, final, tr) {
    const nums = numberTokens(tr.answer ?? '');
    const backups = spec.copies.map((p) => `/backup/${base(p)}`);
    return [
      check('answer_correct', nums.length > 0 && nums.every((n) => n === spec.code), `expected ${spec.code}, got ${JSON.stringify(tr.answer)}`),
      ...spec.copies.map((p, i) => textCheck(`backup ${base(p)}`, final, backups[i], task.initial.files[p])),
      intactCheck(task.initial, final),
      noExtraCheck(task.initial, final, backups),
      finishedCheck(tr),
    ];
  },
  *solve(spec) {
    const memo = yield* mustRead('/notes/memo.md');
    const line = textLines(memo).find((l) => l.toLowerCase().startsWith(spec.key + ':'));
    if (!line) throw new Error(`solver: no "${spec.key}" line in the memo`);
    const code = line.slice(spec.key.length + 1).trim();
    for (const p of spec.copies) {
      const text = yield* mustRead(p);
      yield call('write', { path: `/backup/${base(p)}`, content: text });
    }
    return call('finish', { answer: code });
  },
});

// --------------------------------------------------------------------------- todo-update

const CHORES = [
  'buy milk',
  'call mom',
  'pay rent',
  'fix bike',
  'book flight',
  'water plants',
  'clean desk',
  'send report',
  'walk dog',
  'read book',
  'buy bread',
  'renew pass',
  'wash car',
  'mail card',
  'cook soup',
] as const;

interface TodoSpec {
  lists: string[];
  add: string | null;
  addTo: string | null;
  mark: string | null;
  markIn: string | null;
  /** t3: done items that move to /notes/done.md. */
  done: string[];
}

const todoUpdate = family<TodoSpec>({
  info: {
    name: 'todo-update',
    description:
      'Edit markdown to-do lists in /notes: append an open item whose line the instruction quotes (t1), mark one done in one list and add one to another (t2), move every done item of three lists to /notes/done.md (t3).',
    needsStateTracking: true,
    hasRecoverableError: false,
  },
  build(rng: Rng, tier: Tier) {
    const names = byTier(tier, ['todo'], ['home', 'work'], ['home', 'work', 'shop']);
    const lists = names.map((n) => `/notes/${n}.md`);
    const chores = sample(rng, CHORES, lists.length * 3 + 1);
    const files: Record<string, string> = {};
    const done: string[] = [];
    lists.forEach((p, i) => {
      // t3: one or two done items per list, at random positions, and at least one open item.
      const raw = chores.slice(i * 3, i * 3 + 3).map((text, j) => ({ text, done: tier === 3 ? j === 0 || (j === 1 && rng.int(2) === 0) : j === 2 }));
      const items: TodoItem[] = tier === 3 ? rng.shuffle(raw) : raw;
      files[p] = formatTodos(names[i], items);
      done.push(...items.filter((it) => it.done).map((it) => it.text));
    });
    const extra = chores[chores.length - 1];
    let spec: TodoSpec;
    let instruction: string;
    if (tier === 1) {
      spec = { lists, add: extra, addTo: lists[0], mark: null, markIn: null, done: [] };
      instruction = `Append the open item "- [ ] ${extra}" to ${lists[0]}.`;
    } else if (tier === 2) {
      const mark = chores[0];
      spec = { lists, add: extra, addTo: lists[1], mark, markIn: lists[0], done: [] };
      instruction = `In ${lists[0]}, mark "${mark}" as done. In ${lists[1]}, add "${extra}" as an open item.`;
    } else {
      spec = { lists, add: null, addTo: null, mark: null, markIn: null, done };
      instruction = `Move every done item of ${lists[0]}, ${lists[1]} and ${lists[2]} to /notes/done.md.`;
    }
    return { instruction, files, spec };
  },
  checks(spec, task, final, tr) {
    const items = (p: string) => parseTodos(final.files[p] ?? '');
    const before = (p: string) => parseTodos(task.initial.files[p]);
    const same = (a: TodoItem[], b: TodoItem[]) => a.length === b.length && a.every((x, i) => x.done === b[i].done && squash(x.text) === squash(b[i].text));
    const cs: SubCheck[] = [];
    if (spec.add !== null) {
      const got = items(spec.addTo!);
      const hits = got.filter((it) => squash(it.text) === spec.add);
      cs.push(check('item_added', hits.length === 1 && !hits[0].done, `expected one open "${spec.add}" in ${spec.addTo}, found ${hits.length}`));
      cs.push(
        keepCheck(
          `${base(spec.addTo!)}: others kept`,
          same(
            got.filter((it) => squash(it.text) !== spec.add),
            before(spec.addTo!),
          ),
          'other items changed',
        ),
      );
    }
    if (spec.mark !== null) {
      const got = items(spec.markIn!);
      // Preservation must hold on the initial state: compare with the marked item's flag put
      // back, so the list is the original one up to that flag (with 'item_marked' the old
      // "exactly the original with the item done" check).
      const unmarked = got.map((it) => (squash(it.text) === spec.mark ? { ...it, done: false } : it));
      cs.push(
        check(
          'item_marked',
          got.some((it) => squash(it.text) === spec.mark && it.done),
          `"${spec.mark}" is not done in ${spec.markIn}`,
        ),
      );
      cs.push(keepCheck(`${base(spec.markIn!)}: others kept`, same(unmarked, before(spec.markIn!)), 'items other than the marked one changed'));
    }
    if (task.tier === 3) {
      for (const p of spec.lists) {
        const want = before(p).filter((it) => !it.done);
        cs.push(check(`${base(p)}: only open items left`, final.files[p] !== undefined && same(items(p), want), `expected ${want.map((w) => w.text).join(', ')}`));
      }
      const doneText = final.files['/notes/done.md'];
      const got =
        doneText === undefined
          ? []
          : textLines(doneText)
              .filter((l) => !l.startsWith('#'))
              .map((l) => squash(l.replace(/^[-*]\s*(\[[ xX]\]\s*)?/, '')));
      const want = [...spec.done].sort();
      cs.push(check('done_collected', JSON.stringify([...got].sort()) === JSON.stringify(want), `expected {${want.join(', ')}}, got {${got.join(', ')}}`));
    }
    const changed = task.tier === 3 ? spec.lists : [spec.addTo!, spec.markIn!].filter((p) => p !== null);
    return [...cs, intactCheck(task.initial, final, changed), noExtraCheck(task.initial, final, task.tier === 3 ? ['/notes/done.md'] : []), finishedCheck(tr)];
  },
  *solve(spec, task) {
    const rewrite = (text: string, f: (l: string) => string | null) =>
      normText(text)
        .split('\n')
        .map(f)
        .filter((l): l is string => l !== null)
        .join('\n') + '\n';
    if (task.tier === 3) {
      const done: string[] = [];
      for (const p of spec.lists) {
        const text = yield* mustRead(p);
        const out = rewrite(text, (l) => {
          const m = /^- \[x\] (.*)$/i.exec(l);
          if (m) done.push(m[1]);
          return m ? null : l;
        });
        yield call('write', { path: p, content: out });
      }
      yield call('write', { path: '/notes/done.md', content: done.map((d) => `- [x] ${d}`).join('\n') + '\n' });
      return call('finish', { answer: 'done' });
    }
    if (spec.mark !== null) {
      const text = yield* mustRead(spec.markIn!);
      yield call('write', { path: spec.markIn!, content: rewrite(text, (l) => (l === `- [ ] ${spec.mark}` ? `- [x] ${spec.mark}` : l)) });
    }
    if (task.tier === 1) {
      yield call('append', { path: spec.addTo!, content: `- [ ] ${spec.add}\n` });
      return call('finish', { answer: 'done' });
    }
    const text = yield* mustRead(spec.addTo!);
    yield call('write', { path: spec.addTo!, content: normText(text) + `\n- [ ] ${spec.add}\n` });
    return call('finish', { answer: 'done' });
  },
});

// -------------------------------------------------------------------------- inbox-triage

interface TriageSpec {
  keyword: string;
  moved: string[];
}

const inboxTriage = family<TriageSpec>({
  info: {
    name: 'inbox-triage',
    description: 'Move every mail whose subject mentions a keyword from /mail/inbox to /mail/archive (1, 3 or 6 among chatter; from t2 a chatter body mentions the keyword too).',
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
      partCheck('archived', spec.moved.length - notMoved.length, spec.moved.length, `missing or changed in ${SERVICE_PATHS.archive}: ${notMoved.join(', ')}`),
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

const findContact = family<ContactSpec>({
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
    return { instruction, files, spec: { person, phone: phones[0], recipient, to: tier === 1 ? null : emailOf(recipient), event, out, subject } };
  },
  checks(spec, task, final, tr) {
    const tail = [intactCheck(task.initial, final), noExtraCheck(task.initial, final, spec.out ? [spec.out] : []), finishedCheck(tr)];
    if (spec.out === null) {
      const nums = numberTokens(tr.answer ?? '');
      return [check('answer_correct', nums.length > 0 && nums.every((n) => n === spec.phone), `expected ${spec.phone}, got ${JSON.stringify(tr.answer)}`), ...tail];
    }
    const text = final.files[spec.out];
    const m = text === undefined ? null : parseMail(text);
    const cs = [
      existsCheck('sent', final, spec.out),
      check('to', m !== null && squash(m.to) === spec.to, `expected To: ${spec.to}, got ${JSON.stringify(m?.to)}`),
      check('subject', m !== null && squash(m.subject) === squash(spec.subject!), `expected Subject: ${spec.subject}, got ${JSON.stringify(m?.subject)}`),
      check('phone_in_body', m !== null && numberTokens(m.body).includes(spec.phone), `expected ${spec.phone} in the body`),
    ];
    if (spec.event) cs.push(check('date_in_body', m !== null && m.body.includes(spec.event.date), `expected ${spec.event.date} in the body`));
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
export const errandsSuite = makeSuite('errands', [calendarAdd, mailReply, recall, todoUpdate, inboxTriage, findContact]);

import { describe, expect, it } from 'vitest';
import { SUITES, TIERS, runSolver } from '../../src/tasks/index';

import { formatMail, parseMail } from '../../src/sandbox/services';
import type { SandboxState, Transcript } from '../../src/sandbox/types';
import type { Task, TaskSuite, Tier } from '../../src/tasks/types';

/** The score's factor when a preservation check fails (common.ts verification). */
const PRESERVATION_PENALTY = 0.25;

type Files = Record<string, string>;
/** A wrong final state: the files and answer to verify, and sub-check names that must fail. */
interface Wrong {
  files?: Files;
  answer?: string | null;
  fail: RegExp[];
}
type Mutation = (ctx: { task: Task; files: Files; answer: string | null; tier: Tier }) => Wrong | null;

const dirsOf = (files: Files): string[] => {
  const d = new Set(['/']);
  for (const p of Object.keys(files)) for (let i = p.indexOf('/', 1); i > 0; i = p.indexOf('/', i + 1)) d.add(p.slice(0, i));
  return [...d].sort();
};
const stateOf = (files: Files): SandboxState => ({ version: 1, files, dirs: dirsOf(files) });
const outPath = (files: Files, prefix: string) => Object.keys(files).find((p) => p.startsWith(prefix))!;
const edit = (files: Files, path: string, content: string | undefined): Files => {
  const f = { ...files };
  if (content === undefined) delete f[path];
  else f[path] = content;
  return f;
};
const mv = (files: Files, from: string, to: string): Files => edit(edit(files, to, files[from]), from, undefined);
const mailEdit = (files: Files, path: string, patch: Record<string, string>) =>
  edit(files, path, formatMail({ ...parseMail(files[path])!, ...patch }));
const changedOrNew = (task: Task, files: Files) => Object.keys(files).filter((p) => files[p] !== task.initial.files[p]);
/** The to-do item an instruction adds: t1 quotes its line ("- [ ] x"), t2 its text ("x" as an open item). */
const openItem = (instruction: string) => {
  const m = /"([a-z ]+)" as an open item|open item "- \[ \] ([a-z ]+)"/.exec(instruction)!;
  return m[1] ?? m[2];
};

/** Family → wrong final states built from the solver's correct one. */
const MUTATIONS: Record<string, Mutation[]> = {
  'csv-sum': [
    ({ files }) => {
      const p = outPath(files, '/out/');
      return { files: edit(files, p, `${Number(files[p]) + 1}\n`), fail: [/^total_correct$/] };
    },
    ({ files }) => {
      const p = outPath(files, '/out/');
      return { files: mv(files, p, '/out/result.txt'), fail: [/^output_exists$/, /^total_correct$/, /^no_extra_files$/] };
    },
    ({ files, task }) => {
      const input = Object.keys(task.initial.files).find((p) => p.endsWith('.csv'))!;
      return { files: edit(files, input, 'item,qty\n'), fail: [/^inputs_intact$/] };
    },
  ],
  organize: [
    ({ files, task }) => {
      const moved = changedOrNew(task, files)[0];
      return { files: mv(files, moved, '/inbox/' + moved.split('/').pop()), fail: [/^moved_present$/, /^sources_removed$/] };
    },
    ({ files, task }) => {
      const kept = Object.keys(files).find((p) => p.startsWith('/inbox/'))!;
      const dest = changedOrNew(task, files)[0].replace(/\/[^/]+$/, '');
      return { files: mv(files, kept, dest + '/' + kept.split('/').pop()), fail: [/^inputs_intact$/, /^no_extra_files$/] };
    },
    ({ files, task }) => {
      const moved = changedOrNew(task, files)[0];
      return { files: edit(files, moved, 'changed\n'), fail: [/^moved_present$/] };
    },
  ],
  'replace-text': [
    ({ files, task }) => {
      const target = changedOrNew(task, files)[0];
      return { files: edit(files, target, task.initial.files[target]), fail: [/^edited /, /^old_word_gone$/] };
    },
    ({ files, task }) => {
      const target = changedOrNew(task, files)[0];
      return { files: edit(files, target, files[target].toLowerCase()), fail: [/^edited /] };
    },
    ({ files, task, tier }) => {
      if (tier === 3) return null;
      // The distractor that also mentions the word must stay untouched.
      const old = /"([A-Z][a-z]+)"/.exec(task.instruction)![1];
      const neu = /with "([A-Z][a-z]+)"/.exec(task.instruction)![1];
      const other = Object.keys(files).find((p) => files[p] === task.initial.files[p] && files[p].includes(old))!;
      return { files: edit(files, other, files[other].split(old).join(neu)), fail: [/^inputs_intact$/] };
    },
  ],
  misplaced: [
    ({ files, answer, tier }) => {
      if (tier === 1) return { answer: String(Number(answer) === 9999 ? 1000 : Number(answer) + 1), fail: [/^answer_correct$/] };
      const p = outPath(files, '/out/');
      return {
        files: edit(
          files,
          p,
          files[p].replace(/\d/, (d) => String((Number(d) + 1) % 10)),
        ),
        fail: [/^code_correct$/],
      };
    },
    ({ files, answer, tier }) => {
      if (tier === 1) return { answer: `${answer} or 1234`, fail: [/^answer_correct$/] };
      if (tier === 2) return null;
      const p = outPath(files, '/out/');
      return { files: edit(files, p, files[p].replace(/,.*/, ',Nobody')), fail: [/^owner_correct$/] };
    },
    ({ files, task }) => {
      const stated = /\/docs\/[a-z]+\.txt/.exec(task.instruction)![0];
      const actual = Object.keys(task.initial.files).find((p) => p.endsWith(stated.slice(5)))!;
      return { files: edit(files, stated, task.initial.files[actual]), fail: [/^no_extra_files$/] };
    },
  ],
  cleanup: [
    ({ files, task }) => {
      const tmp = Object.keys(task.initial.files).find((p) => p.endsWith('.tmp'))!;
      return { files: edit(files, tmp, task.initial.files[tmp]), fail: [/^tmp_removed$/] };
    },
    ({ files }) => {
      const keep = Object.keys(files).find((p) => p.startsWith('/work/'))!;
      return { files: edit(files, keep, undefined), fail: [/^inputs_intact$/] };
    },
    ({ files, tier }) => (tier === 1 ? null : { files: edit(files, '/out/count.txt', '99\n'), fail: [/^count_correct$/] }),
  ],
  'team-list': [
    ({ files }) => {
      const p = outPath(files, '/out/');
      return { files: edit(files, p, files[p].split('\n').slice(1).join('\n')), fail: [/^names_correct$/] };
    },
    ({ files }) => {
      const p = outPath(files, '/out/');
      return { files: edit(files, p, files[p] + 'Zed\n'), fail: [/^names_correct$/] };
    },
    ({ files, tier }) => {
      if (tier === 1) return null;
      const p = outPath(files, '/out/');
      const lines = files[p].trim().split('\n');
      return { files: edit(files, p, [...lines].reverse().join('\n') + '\n'), fail: [/^sorted$/] };
    },
  ],
  'calendar-add': [
    ({ files }) => ({
      files: edit(
        files,
        '/calendar/events.csv',
        files['/calendar/events.csv'].replace(/,(\d\d):00,(\d\d):00,([^\n]*)\n$/, ',$1:30,$2:30,$3\n'),
      ),
      fail: [/^event "/],
    }),
    ({ files }) => {
      const lines = files['/calendar/events.csv'].split('\n');
      return { files: edit(files, '/calendar/events.csv', [lines[0], ...lines.slice(2)].join('\n')), fail: [/^existing_kept$/] };
    },
    ({ files }) => {
      const text = files['/calendar/events.csv'];
      const last = text.trim().split('\n').pop()!;
      return { files: edit(files, '/calendar/events.csv', text + last + '\n'), fail: [/^no_extra_events$/] };
    },
    ({ files }) => ({
      files: edit(files, '/calendar/events.csv', files['/calendar/events.csv'] + '2026-01-01,09:00,10:00,Stray sync\n'),
      fail: [/^no_extra_events$/],
    }),
  ],
  'mail-reply': [
    ({ files }) => {
      const p = outPath(files, '/mail/sent/');
      // t1 merges To and Subject (they come with the draft) into its 'sent' check.
      return { files: mailEdit(files, p, { to: 'me@mail.test' }), fail: [/: (to|sent)$/] };
    },
    ({ files }) => {
      const p = outPath(files, '/mail/sent/');
      return { files: mailEdit(files, p, { subject: parseMail(files[p])!.subject.replace(/^Re: /, '') }), fail: [/: (subject|sent)$/] };
    },
    ({ files }) => {
      const p = outPath(files, '/mail/sent/');
      return { files: mailEdit(files, p, { body: 'Maybe later' }), fail: [/: body$/] };
    },
    ({ files, task, tier }) => {
      if (tier !== 2) return null;
      // Reply to the older of the two mails from the same person instead of the latest.
      const p = outPath(files, '/mail/sent/');
      const want = parseMail(files[p])!.subject.replace(/^Re: /, '');
      const sender = parseMail(files[p])!.to;
      const older = Object.values(task.initial.files)
        .map((t) => parseMail(t)!)
        .find((m) => m.from === sender && m.subject !== want)!;
      return { files: mailEdit(files, p, { subject: `Re: ${older.subject}` }), fail: [/: subject$/] };
    },
  ],
  recall: [
    ({ answer }) => ({ answer: String(Number(answer) === 9999 ? 1000 : Number(answer) + 1), fail: [/^answer_correct$/] }),
    ({ answer }) => ({ answer: `${answer} or 1234`, fail: [/^answer_correct$/] }),
    ({ files, tier }) => {
      if (tier === 1) return null;
      const b = outPath(files, '/backup/');
      return { files: edit(files, b, undefined), fail: [/^backup /] };
    },
  ],
  'todo-update': [
    ({ files, task, tier }) => {
      if (tier === 3) return null;
      const added = openItem(task.instruction);
      const p = changedOrNew(task, files).at(-1)!;
      return { files: edit(files, p, files[p].replace(`- [ ] ${added}`, `- [x] ${added}`)), fail: [/^item_added$/] };
    },
    ({ files, task, tier }) => {
      if (tier === 3) return null;
      const added = openItem(task.instruction);
      const p = changedOrNew(task, files).at(-1)!;
      return { files: edit(files, p, files[p] + `- [ ] ${added}\n`), fail: [/^item_added$/] };
    },
    ({ files, task, tier }) => {
      if (tier !== 2) return null;
      const p = changedOrNew(task, files)[0];
      return { files: edit(files, p, files[p].replace(/- \[ \]/, '- [x]')), fail: [/: others kept$/] };
    },
    ({ files, task, tier }) => {
      if (tier !== 3) return null;
      const list = Object.keys(task.initial.files)[0];
      return { files: edit(files, list, task.initial.files[list]), fail: [/only open items left$/] };
    },
    ({ files, tier }) => {
      if (tier !== 3) return null;
      return { files: edit(files, '/notes/done.md', files['/notes/done.md'].split('\n').slice(1).join('\n')), fail: [/^done_collected$/] };
    },
  ],
  'inbox-triage': [
    ({ files, task }) => {
      const moved = changedOrNew(task, files)[0];
      return { files: mv(files, moved, '/mail/inbox/' + moved.split('/').pop()), fail: [/^archived$/, /^removed_from_inbox$/] };
    },
    ({ files }) => {
      const kept = Object.keys(files).find((p) => p.startsWith('/mail/inbox/'))!;
      return { files: mv(files, kept, '/mail/archive/' + kept.split('/').pop()), fail: [/^inputs_intact$/, /^no_extra_files$/] };
    },
    ({ files, task }) => {
      const moved = changedOrNew(task, files)[0];
      return { files: edit(files, moved, files[moved].replace('Subject:', 'Subject: [seen]')), fail: [/^archived$/] };
    },
  ],
  'find-contact': [
    ({ files, answer, tier }) => {
      if (tier === 1) return { answer: answer!.replace(/\d$/, (d) => String((Number(d) + 1) % 10)), fail: [/^answer_correct$/] };
      const p = outPath(files, '/mail/sent/');
      return {
        files: edit(
          files,
          p,
          files[p].replace(/555-01(\d\d)/, (_, d) => `555-01${d === '99' ? '10' : Number(d) + 1}`),
        ),
        fail: [/^phone_in_body$/],
      };
    },
    ({ files, tier }) => {
      if (tier === 1) return null;
      const p = outPath(files, '/mail/sent/');
      return { files: mailEdit(files, p, { to: 'someone@mail.test' }), fail: [/^to$/] };
    },
    ({ files, tier }) => {
      if (tier !== 3) return null;
      const p = outPath(files, '/mail/sent/');
      return { files: edit(files, p, files[p].replace(/\d{4}-\d\d-\d\d/, '1999-01-01')), fail: [/^date_in_body$/] };
    },
    ({ files, tier }) => {
      if (tier === 1) return null;
      return { files: mv(files, outPath(files, '/mail/sent/'), '/mail/sent/other.eml'), fail: [/^sent$/, /^no_extra_files$/] };
    },
  ],
};

function verifyWrong(suite: TaskSuite, task: Task, w: Wrong, good: { files: Files; answer: string | null }) {
  const transcript: Transcript = { steps: [], answer: w.answer === undefined ? good.answer : w.answer };
  return suite.verify(task, stateOf(w.files ?? good.files), transcript);
}

describe.each(Object.values(SUITES).map((s) => [s.name, s] as const))('suite %s: verifiers', (_, suite) => {
  it('every family has wrong-state cases', () => {
    for (const f of suite.families) expect(MUTATIONS[f.name]?.length ?? 0, f.name).toBeGreaterThanOrEqual(3);
  });

  it.each(suite.families.map((f) => [f.name] as const))('%s: wrong final states fail the specific sub-checks', (name) => {
    let applied = 0;
    for (const tier of TIERS) {
      for (const seed of [1, 2, 1_000_003]) {
        const task = suite.generate(name, tier, seed);
        const run = runSolver(suite, task);
        expect(run.verification.pass).toBe(true);
        const good = { files: run.final.files, answer: run.transcript.answer };
        for (const [i, m] of MUTATIONS[name].entries()) {
          const w = m({ task, files: good.files, answer: good.answer, tier });
          if (!w) continue;
          applied++;
          const v = verifyWrong(suite, task, w, good);
          const failed = v.checks.filter((c) => !c.pass).map((c) => c.name);
          expect(v.pass, `${task.id} mutation ${i}`).toBe(false);
          expect(v.score).toBeLessThan(1);
          expect(v.score).toBeGreaterThanOrEqual(0);
          // A preservation check that fails scales the score down (src/tasks/common.ts).
          if (v.checks.some((c) => c.kind === 'preservation' && !c.pass)) expect(v.score).toBeLessThanOrEqual(PRESERVATION_PENALTY);
          for (const re of w.fail)
            expect(
              failed.some((n) => re.test(n)),
              `${task.id} mutation ${i}: expected ${re} among failed [${failed.join(', ')}]`,
            ).toBe(true);
        }
      }
    }
    expect(applied).toBeGreaterThanOrEqual(9);
  });

  it('generic wrong states: doing nothing fails; garbage and a missing finish fail exactly their check', () => {
    for (const f of suite.families) {
      for (const tier of TIERS) {
        const task = suite.generate(f.name, tier, 5);
        const run = runSolver(suite, task);
        const good = { files: run.final.files, answer: run.transcript.answer };
        const nothing = suite.verify(task, task.initial, { steps: [], answer: null });
        expect(nothing.pass, task.id).toBe(false);
        expect(nothing.checks.filter((c) => !c.pass).length, task.id).toBeGreaterThanOrEqual(2);
        const idle = suite.verify(task, task.initial, { steps: [], answer: 'done' });
        expect(idle.pass, `${task.id}: finishing without doing anything`).toBe(false);
        const garbage = verifyWrong(suite, task, { files: { ...good.files, '/junk.txt': 'scratch' }, fail: [] }, good);
        expect(garbage.checks.filter((c) => !c.pass).map((c) => c.name)).toEqual(['no_extra_files']);
        // Without finish there is no answer either: only 'finished' (and 'answer_correct' where asked) fail.
        const unfinished = verifyWrong(suite, task, { answer: null, fail: [] }, good);
        const failed = unfinished.checks.filter((c) => !c.pass).map((c) => c.name);
        expect(failed).toContain('finished');
        expect(failed.filter((n) => n !== 'finished' && n !== 'answer_correct')).toEqual([]);
      }
    }
  });

  it('robust to what a human would ignore: trailing spaces and newlines, CRLF', () => {
    for (const f of suite.families) {
      for (const tier of TIERS) {
        const task = suite.generate(f.name, tier, 8);
        const run = runSolver(suite, task);
        const files = { ...run.final.files };
        // Written files only: a moved or copied file must stay byte-identical (that is the point).
        const originals = new Set(Object.values(task.initial.files));
        for (const p of changedOrNew(task, files)) if (!originals.has(files[p])) files[p] = files[p].replace(/\n/g, '  \r\n') + '\n\n';
        const v = suite.verify(task, stateOf(files), run.transcript);
        expect(
          v.checks.filter((c) => !c.pass),
          task.id,
        ).toEqual([]);
      }
    }
  });
});

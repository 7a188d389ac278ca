/**
 * The 'errands' families that track state (errands.ts has the suite's table): recall (a
 * memo's number read first, answered last) and todo-update (rewrite the to-do list).
 */
import type { Rng } from '../util/rng';
import { formatTodos, normText, parseTodos, textLines } from '../sandbox/services';
import type { TodoItem } from '../sandbox/services';
import type { SubCheck, Tier } from './types';
import {
  NAMES,
  WORDS,
  call,
  check,
  family,
  finishedCheck,
  intactCheck,
  keepCheck,
  mustRead,
  noExtraCheck,
  numberTokens,
  sample,
  textCheck,
} from './common';
import { byTier, base, squash } from './errands_shared';

// -------------------------------------------------------------------------------- recall

interface RecallSpec {
  key: string;
  code: string;
  copies: string[];
}

export const recall = family<RecallSpec>({
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
      tier === 1
        ? rng.shuffle([keyLine, rng.pick(['Gym on Monday.', 'Buy milk.', 'Call the bank.'])])
        : rng.shuffle([`Gym at ${h} pm.`, keyLine, `Room ${rng.range(10, 99)}.`]);
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
      check(
        'answer_correct',
        nums.length > 0 && nums.every((n) => n === spec.code),
        `expected ${spec.code}, got ${JSON.stringify(tr.answer)}`,
      ),
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

export const todoUpdate = family<TodoSpec>({
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
      const raw = chores
        .slice(i * 3, i * 3 + 3)
        .map((text, j) => ({ text, done: tier === 3 ? j === 0 || (j === 1 && rng.int(2) === 0) : j === 2 }));
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
    const same = (a: TodoItem[], b: TodoItem[]) =>
      a.length === b.length && a.every((x, i) => x.done === b[i].done && squash(x.text) === squash(b[i].text));
    const cs: SubCheck[] = [];
    if (spec.add !== null) {
      const got = items(spec.addTo!);
      const hits = got.filter((it) => squash(it.text) === spec.add);
      cs.push(
        check('item_added', hits.length === 1 && !hits[0].done, `expected one open "${spec.add}" in ${spec.addTo}, found ${hits.length}`),
      );
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
      cs.push(
        keepCheck(`${base(spec.markIn!)}: others kept`, same(unmarked, before(spec.markIn!)), 'items other than the marked one changed'),
      );
    }
    if (task.tier === 3) {
      for (const p of spec.lists) {
        const want = before(p).filter((it) => !it.done);
        cs.push(
          check(
            `${base(p)}: only open items left`,
            final.files[p] !== undefined && same(items(p), want),
            `expected ${want.map((w) => w.text).join(', ')}`,
          ),
        );
      }
      const doneText = final.files['/notes/done.md'];
      const got =
        doneText === undefined
          ? []
          : textLines(doneText)
              .filter((l) => !l.startsWith('#'))
              .map((l) => squash(l.replace(/^[-*]\s*(\[[ xX]\]\s*)?/, '')));
      const want = [...spec.done].sort();
      cs.push(
        check(
          'done_collected',
          JSON.stringify([...got].sort()) === JSON.stringify(want),
          `expected {${want.join(', ')}}, got {${got.join(', ')}}`,
        ),
      );
    }
    const changed = task.tier === 3 ? spec.lists : [spec.addTo!, spec.markIn!].filter((p) => p !== null);
    return [
      ...cs,
      intactCheck(task.initial, final, changed),
      noExtraCheck(task.initial, final, task.tier === 3 ? ['/notes/done.md'] : []),
      finishedCheck(tr),
    ];
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

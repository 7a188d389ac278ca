/**
 * The 'workspace' suite, in the style of ClawGym-Bench: file organisation, data extraction
 * from CSV files, results written to exact paths, content edits. Six families × three tiers;
 * the tier sets the number of required tool calls (finish included) and what is computed:
 *
 *   family         t1  t2  t3   tier 1 copies …                     flags
 *   csv-sum         3   6   9   the qty of a one-row CSV            state tracking (a running total over up to 6 reads)
 *   organize        3   5   8   the one matching path of a list
 *   replace-text    3   5   8   a one-line file, one word swapped
 *   misplaced       3   5   8   the code on a search hit's line     recoverable error (the named file lives elsewhere)
 *   cleanup         3   6   8   the one .tmp path of a search
 *   team-list       3   5   8   the team's one name of 3 rows       state tracking (names gathered over up to 5 reads)
 *
 * Tier 1 is sized for the shipped base: 2–3 calls, actions ≤ 40 tokens under the base
 * harness, outputs copied verbatim from the instruction or one observation; tiers 2–3 sum,
 * sort, gather and rewrite. docs/TASKS.md has the ladder. Files are a few short lines so that a
 * small policy with a 512-token context can act.
 */
import type { Rng } from '../util/rng';
import { csvRecords, formatCsv, normText, parseCsv, textLines } from '../sandbox/services';
import type { Tier } from './types';
import {
  NAMES,
  TEAMS,
  THINGS,
  WORDS,
  call,
  check,
  existsCheck,
  family,
  finishedCheck,
  intactCheck,
  listEntries,
  locate,
  makeSuite,
  mustRead,
  noExtraCheck,
  numberTokens,
  partCheck,
  sample,
  searchHits,
  textCheck,
} from './common';

const byTier = <T>(tier: Tier, a: T, b: T, c: T): T => (tier === 1 ? a : tier === 2 ? b : c);
const base = (p: string) => p.slice(p.lastIndexOf('/') + 1);

// ------------------------------------------------------------------------------ csv-sum

interface CsvSumSpec {
  inputs: string[];
  single: boolean;
  out: string;
  total: number;
}

const csvSum = family<CsvSumSpec>({
  info: {
    name: 'csv-sum',
    description:
      'Sum the qty column of one CSV file (t1: one data row, so the total is the qty read) or of every CSV file in a folder (t2: 3 files, t3: 6) and write the total to an exact path.',
    needsStateTracking: true,
    hasRecoverableError: false,
  },
  build(rng: Rng, tier: Tier) {
    const m = byTier(tier, 1, 3, 6);
    const files: Record<string, string> = { '/data/readme.txt': 'Sales per shop, one CSV each.\n' };
    const inputs: string[] = [];
    let total = 0;
    for (const w of sample(rng, WORDS, m)) {
      // t1: one data row, so the total is a copy of the one qty the model reads.
      const rows = sample(rng, THINGS, tier === 1 ? 1 : rng.range(2, 3)).map((t) => {
        const q = rng.range(1, 20);
        total += q;
        return [t, q];
      });
      const p = `/data/sales/${w}.csv`;
      files[p] = formatCsv(['item', 'qty'], rows);
      inputs.push(p);
    }
    const out = `/out/${rng.pick(['total', 'sum', 'qty'])}.txt`;
    const instruction =
      m === 1
        ? `Sum the qty column of ${inputs[0]} and write the total to ${out}.`
        : `Sum the qty column over all CSV files in /data/sales and write the total to ${out}.`;
    return { instruction, files, spec: { inputs, single: m === 1, out, total } };
  },
  checks(spec, task, final, tr) {
    const got = final.files[spec.out];
    return [
      existsCheck('output_exists', final, spec.out),
      check(
        'total_correct',
        got !== undefined && got.trim() === String(spec.total),
        `expected ${spec.total}, got ${JSON.stringify(got?.slice(0, 40))}`,
      ),
      intactCheck(task.initial, final),
      noExtraCheck(task.initial, final, [spec.out]),
      finishedCheck(tr),
    ];
  },
  *solve(spec) {
    let paths = spec.inputs.slice(0, 1);
    if (!spec.single) {
      const l = yield call('list', { path: '/data/sales' });
      paths = listEntries(l.output).filter((p) => p.endsWith('.csv'));
    }
    let total = 0;
    for (const p of paths) {
      const text = yield* mustRead(p);
      for (const r of csvRecords(parseCsv(text))) total += Number(r.qty);
    }
    yield call('write', { path: spec.out, content: `${total}\n` });
    return call('finish', { answer: String(total) });
  },
});

// ----------------------------------------------------------------------------- organize

interface OrganizeSpec {
  ext: string;
  dest: string;
  moved: string[];
  kept: string[];
}

const organize = family<OrganizeSpec>({
  info: {
    name: 'organize',
    description:
      'Move every file of one extension from /inbox into a destination folder, keeping names (1, 3 or 6 files among distractors).',
    needsStateTracking: false,
    hasRecoverableError: false,
  },
  build(rng: Rng, tier: Tier) {
    const exts = rng.shuffle(['log', 'txt', 'csv', 'md']);
    const ext = exts[0];
    const m = byTier(tier, 1, 3, 6);
    const k = byTier(tier, 1, 2, 2);
    const words = sample(rng, WORDS, m + k);
    const files: Record<string, string> = {};
    const moved: string[] = [];
    const kept: string[] = [];
    words.forEach((w, i) => {
      const name = `${w}.${i < m ? ext : rng.pick(exts.slice(1))}`;
      files[`/inbox/${name}`] = `${w} ${rng.range(1, 99)}\n`;
      (i < m ? moved : kept).push(name);
    });
    const dest = `/${rng.pick(['sorted', 'files', 'archive'])}/${ext}`;
    return {
      instruction: `Move every .${ext} file from /inbox into ${dest}, keeping the file names.`,
      files,
      dirs: [dest],
      spec: { ext, dest, moved: moved.sort(), kept: kept.sort() },
    };
  },
  checks(spec, task, final, tr) {
    const notMoved = spec.moved.filter((n) => final.files[`${spec.dest}/${n}`] !== task.initial.files[`/inbox/${n}`]);
    const left = spec.moved.filter((n) => final.files[`/inbox/${n}`] !== undefined);
    return [
      partCheck(
        'moved_present',
        spec.moved.length - notMoved.length,
        spec.moved.length,
        `missing or changed in ${spec.dest}: ${notMoved.join(', ')}`,
      ),
      partCheck('sources_removed', spec.moved.length - left.length, spec.moved.length, `still in /inbox: ${left.join(', ')}`),
      // A source may leave /inbox only by arriving at the destination: deleting it instead is
      // damage, not half a move (it would otherwise pass 'sources_removed' for free).
      intactCheck(
        task.initial,
        final,
        spec.moved.filter((n) => !notMoved.includes(n)).map((n) => `/inbox/${n}`),
      ),
      noExtraCheck(
        task.initial,
        final,
        spec.moved.map((n) => `${spec.dest}/${n}`),
      ),
      finishedCheck(tr),
    ];
  },
  *solve(spec) {
    const l = yield call('list', { path: '/inbox' });
    for (const p of listEntries(l.output).filter((e) => e.endsWith('.' + spec.ext))) {
      // Into the existing folder (`mv x dir`): the destination is a verbatim copy of the instruction's.
      yield call('move', { from: p, to: spec.dest });
    }
    return call('finish', { answer: 'done' });
  },
});

// ------------------------------------------------------------------------- replace-text

interface ReplaceSpec {
  old: string;
  neu: string;
  targets: string[];
  expected: Record<string, string>;
}

const CODENAMES = ['Falcon', 'Heron', 'Otter', 'Lynx', 'Bison', 'Raven', 'Cobra', 'Moose', 'Tiger', 'Panda'] as const;

const replaceText = family<ReplaceSpec>({
  info: {
    name: 'replace-text',
    description:
      'Replace every occurrence of a word in one file of one line (t1), two named files (t2) or every file under /docs that mentions it (t3); other files stay byte-identical.',
    needsStateTracking: false,
    hasRecoverableError: false,
  },
  build(rng: Rng, tier: Tier) {
    const [old, neu] = sample(rng, CODENAMES, 2);
    const nT = byTier(tier, 1, 2, 3);
    const nO = byTier(tier, 1, 1, 2);
    const words = sample(rng, WORDS, nT + nO);
    const files: Record<string, string> = {};
    const expected: Record<string, string> = {};
    const targets: string[] = [];
    const filler = () =>
      rng.pick([`Budget: ${rng.range(2, 90)} units.`, `Team ${rng.pick(TEAMS)} owns it.`, `Next check in week ${rng.range(1, 52)}.`]);
    const mention = () =>
      rng.pick([`${old} ships in week ${rng.range(1, 52)}.`, `Ask ${rng.pick(NAMES)} about ${old}.`, `${old} needs ${old} tests.`]);
    words.forEach((w, i) => {
      const p = `/docs/${w}.md`;
      const isTarget = i < nT;
      // In t1/t2 one distractor file also mentions the word: the instruction names the files.
      const mentions = isTarget || (tier < 3 && i === nT);
      // t1: a file of one line with one mention, so the new text is that line with one word swapped.
      const lines =
        tier === 1
          ? [mentions ? rng.pick([`${old} ships in week ${rng.range(1, 52)}.`, `Ask ${rng.pick(NAMES)} about ${old}.`]) : filler()]
          : rng.shuffle([mentions ? mention() : filler(), filler(), ...(rng.int(2) ? [mentions ? mention() : filler()] : [])]);
      const text = tier === 1 ? lines[0] + '\n' : `# ${w}\n` + lines.join('\n') + '\n';
      files[p] = text;
      if (isTarget) {
        targets.push(p);
        expected[p] = text.split(old).join(neu);
      }
    });
    const instruction =
      tier === 1
        ? `In ${targets[0]}, replace every "${old}" with "${neu}".`
        : tier === 2
          ? `In ${targets[0]} and ${targets[1]}, replace every "${old}" with "${neu}".`
          : `In every file under /docs, replace every "${old}" with "${neu}".`;
    return { instruction, files, spec: { old, neu, targets, expected } };
  },
  checks(spec, task, final, tr) {
    // A deleted target has not had its word replaced (else deleting it would pay).
    const stale = spec.targets.filter((p) => final.files[p] === undefined || final.files[p].includes(spec.old));
    return [
      ...spec.targets.map((p) => textCheck(`edited ${base(p)}`, final, p, spec.expected[p])),
      partCheck('old_word_gone', spec.targets.length - stale.length, spec.targets.length, `"${spec.old}" still in ${stale.join(', ')}`),
      intactCheck(task.initial, final, spec.targets),
      noExtraCheck(task.initial, final),
      finishedCheck(tr),
    ];
  },
  *solve(spec, task) {
    let paths = spec.targets;
    if (task.tier === 3) {
      const s = yield call('search', { query: spec.old, path: '/docs' });
      paths = [...new Set(searchHits(s.output).map((h) => h.path))];
    }
    for (const p of paths) {
      const text = yield* mustRead(p);
      yield call('write', { path: p, content: text.split(spec.old).join(spec.neu) });
    }
    return call('finish', { answer: 'done' });
  },
});

// ---------------------------------------------------------------------------- misplaced

interface MisplacedSpec {
  thing: string;
  code: string;
  owner: string;
  stated: string[];
  actual: string[];
  out: string | null;
}

const misplaced = family<MisplacedSpec>({
  info: {
    name: 'misplaced',
    description:
      'Look up a code (t1: answer it; t2: write it to a path) or a code and an owner (t3) in files the instruction names under /docs, which actually live elsewhere: a failed read, then a search finds them (t1: the search hit shows the code).',
    needsStateTracking: false,
    hasRecoverableError: true,
  },
  build(rng: Rng, tier: Tier) {
    const things = sample(rng, THINGS, 3);
    const thing = things[0];
    const [f1, f2] = sample(rng, ['codes', 'keys', 'pins', 'owners', 'tags'], 2).map((f) => `${f}.txt`);
    const [d1, d2] = sample(rng, WORDS, 2);
    const codes = things.map(() => String(rng.range(1000, 9999)));
    const owners = sample(rng, NAMES, 3);
    const files: Record<string, string> = { '/docs/readme.md': '# Docs\nLook here first.\n' };
    const actual = [`/archive/${d1}/${f1}`, `/old/${d2}/${f2}`];
    files[actual[0]] = things.map((t, i) => `${t}: ${codes[i]}`).join('\n') + '\n';
    if (tier === 3) files[actual[1]] = things.map((t, i) => `${t}: ${owners[i]}`).join('\n') + '\n';
    const stated = [`/docs/${f1}`, `/docs/${f2}`];
    const out = tier === 1 ? null : `/out/${thing}.txt`;
    const instruction =
      tier === 1
        ? `What is the code for the ${thing}? It is in ${stated[0]}. Give it as your final answer.`
        : tier === 2
          ? `Write the code for the ${thing} from ${stated[0]} to ${out}.`
          : `Write the ${thing}'s code from ${stated[0]} and its owner from ${stated[1]} to ${out} as "code,owner".`;
    return {
      instruction,
      files,
      spec: {
        thing,
        code: codes[0],
        owner: owners[0],
        stated: tier === 3 ? stated : stated.slice(0, 1),
        actual: tier === 3 ? actual : actual.slice(0, 1),
        out,
      },
    };
  },
  checks(spec, task, final, tr) {
    const tail = [intactCheck(task.initial, final), noExtraCheck(task.initial, final, spec.out ? [spec.out] : []), finishedCheck(tr)];
    if (!spec.out) {
      const nums = numberTokens(tr.answer ?? '');
      return [
        check(
          'answer_correct',
          nums.length > 0 && nums.every((n) => n === spec.code),
          `expected ${spec.code} in the answer, got ${JSON.stringify(tr.answer)}`,
        ),
        ...tail,
      ];
    }
    const got = final.files[spec.out];
    if (task.tier === 2) {
      return [
        existsCheck('output_exists', final, spec.out),
        check(
          'code_correct',
          got !== undefined && got.trim() === spec.code,
          `expected ${spec.code}, got ${JSON.stringify(got?.slice(0, 40))}`,
        ),
        ...tail,
      ];
    }
    const cells = (got === undefined ? '' : normText(got)).split(',').map((c) => c.trim());
    return [
      existsCheck('output_exists', final, spec.out),
      check('code_correct', cells[0] === spec.code, `expected code ${spec.code}, got ${JSON.stringify(cells[0])}`),
      check(
        'owner_correct',
        cells.length === 2 && cells[1] === spec.owner,
        `expected owner ${spec.owner}, got ${JSON.stringify(cells.slice(1).join(','))}`,
      ),
      ...tail,
    ];
  },
  *solve(spec, task) {
    if (task.tier === 1) {
      // The stated path fails; a search for the thing shows its line, code included.
      const r = yield call('read', { path: spec.stated[0] });
      let line = r.ok ? textLines(r.output).find((l) => l.startsWith(spec.thing + ':')) : undefined;
      if (!r.ok) {
        const s = yield call('search', { query: spec.thing });
        line = searchHits(s.output).find((h) => h.text?.startsWith(spec.thing + ':'))?.text;
      }
      if (!line) throw new Error(`solver: no line for ${spec.thing}`);
      return call('finish', { answer: line.slice(spec.thing.length + 1).trim() });
    }
    const values: string[] = [];
    for (const p of spec.stated) {
      const { content } = yield* locate(p);
      const line = textLines(content).find((l) => l.startsWith(spec.thing + ':'));
      if (!line) throw new Error(`solver: no line for ${spec.thing} in ${p}`);
      values.push(line.slice(spec.thing.length + 1).trim());
    }
    if (!spec.out) return call('finish', { answer: values[0] });
    yield call('write', { path: spec.out, content: values.join(',') + '\n' });
    return call('finish', { answer: values.join(',') });
  },
});

// ------------------------------------------------------------------------------ cleanup

interface CleanupSpec {
  tmp: string[];
  out: string | null;
}

const cleanup = family<CleanupSpec>({
  info: {
    name: 'cleanup',
    description:
      'Delete every .tmp file in /work (t1: 1, t2: 3, t3: 5 including a subfolder) and, from t2, write how many were deleted to /out/count.txt.',
    needsStateTracking: false,
    hasRecoverableError: false,
  },
  build(rng: Rng, tier: Tier) {
    const m = byTier(tier, 1, 3, 5);
    const k = byTier(tier, 1, 2, 3);
    const words = sample(rng, WORDS, m + k);
    const files: Record<string, string> = {};
    const tmp: string[] = [];
    words.forEach((w, i) => {
      const dir = tier === 3 && i % 2 === 1 ? '/work/old' : '/work';
      const p = i < m ? `${dir}/${w}.tmp` : `${dir}/${w}.${rng.pick(['txt', 'md', 'csv'])}`;
      files[p] = `${w} ${rng.range(1, 99)}\n`;
      if (i < m) tmp.push(p);
    });
    const out = tier === 1 ? null : '/out/count.txt';
    const instruction =
      tier === 1
        ? 'Delete every .tmp file in /work.'
        : tier === 2
          ? `Delete every .tmp file in /work and write how many you deleted to ${out}.`
          : `Delete every .tmp file under /work, subfolders included, and write how many you deleted to ${out}.`;
    return { instruction, files, spec: { tmp: tmp.sort(), out } };
  },
  checks(spec, task, final, tr) {
    const left = spec.tmp.filter((p) => final.files[p] !== undefined);
    const cs = [
      partCheck('tmp_removed', spec.tmp.length - left.length, spec.tmp.length, `still present: ${left.join(', ')}`),
      intactCheck(task.initial, final, spec.tmp),
    ];
    if (spec.out) {
      const got = final.files[spec.out];
      cs.push(
        check(
          'count_correct',
          got !== undefined && got.trim() === String(spec.tmp.length),
          `expected ${spec.tmp.length} in ${spec.out}, got ${JSON.stringify(got)}`,
        ),
      );
    }
    return [...cs, noExtraCheck(task.initial, final, spec.out ? [spec.out] : []), finishedCheck(tr)];
  },
  *solve(spec) {
    const s = yield call('search', { query: '.tmp', path: '/work' });
    const hits = searchHits(s.output).filter((h) => h.line === undefined && h.path.endsWith('.tmp'));
    for (const h of hits) yield call('delete', { path: h.path });
    if (spec.out) yield call('write', { path: spec.out, content: `${hits.length}\n` });
    return call('finish', { answer: String(hits.length) });
  },
});

// ---------------------------------------------------------------------------- team-list

interface TeamSpec {
  team: string;
  inputs: string[];
  single: boolean;
  out: string;
  members: string[];
  sorted: boolean;
}

const teamList = family<TeamSpec>({
  info: {
    name: 'team-list',
    description:
      'Extract the names of one team from a staff CSV (t1: 3 rows, one member) or from all CSVs in a folder (t2: 2 files, t3: 5), one per line, sorted from t2, to an exact path.',
    needsStateTracking: true,
    hasRecoverableError: false,
  },
  build(rng: Rng, tier: Tier) {
    const nFiles = byTier(tier, 1, 2, 5);
    const perFile = byTier(tier, 3, 3, 3);
    const [team, ...others] = rng.shuffle(TEAMS);
    const people = sample(rng, NAMES, nFiles * perFile);
    // At least two members, spread over the files (state tracking across reads at t3).
    // t1: exactly one member, so the output is one name copied from the file.
    const inTeam =
      tier === 1
        ? rng.shuffle(people.map((_, i) => i === 0))
        : people.map((_, i) => i === 0 || i === people.length - 1 || rng.int(3) === 0);
    const files: Record<string, string> = {};
    const inputs: string[] = [];
    const words = sample(rng, WORDS, nFiles);
    for (let f = 0; f < nFiles; f++) {
      const rows = people
        .slice(f * perFile, (f + 1) * perFile)
        .map((n, j) => [n, inTeam[f * perFile + j] ? team : rng.pick(others.slice(0, 3))]);
      const p = nFiles === 1 ? '/data/staff.csv' : `/data/staff/${words[f]}.csv`;
      files[p] = formatCsv(['name', 'team'], rows);
      inputs.push(p);
    }
    const out = `/out/${team}.txt`;
    const members = people.filter((_, i) => inTeam[i]);
    const instruction =
      nFiles === 1
        ? `Write the names of team ${team} from ${inputs[0]} to ${out}, one per line.`
        : `Write the names of team ${team}, from all files in /data/staff, to ${out}, one per line, sorted A to Z.`;
    return { instruction, files, spec: { team, inputs, single: nFiles === 1, out, members, sorted: nFiles > 1 } };
  },
  checks(spec, task, final, tr) {
    const got = final.files[spec.out];
    const lines = got === undefined ? [] : textLines(got);
    const want = [...spec.members].sort();
    const cs = [
      existsCheck('output_exists', final, spec.out),
      check(
        'names_correct',
        JSON.stringify([...lines].sort()) === JSON.stringify(want),
        `expected {${want.join(', ')}}, got {${lines.join(', ')}}`,
      ),
    ];
    if (spec.sorted)
      cs.push(
        check('sorted', lines.length > 0 && lines.every((l, i) => i === 0 || lines[i - 1] <= l), `not sorted A to Z: ${lines.join(', ')}`),
      );
    return [...cs, intactCheck(task.initial, final), noExtraCheck(task.initial, final, [spec.out]), finishedCheck(tr)];
  },
  *solve(spec) {
    let paths = spec.inputs;
    if (!spec.single) {
      const l = yield call('list', { path: '/data/staff' });
      paths = listEntries(l.output).filter((p) => p.endsWith('.csv'));
    }
    const names: string[] = [];
    for (const p of paths) {
      const text = yield* mustRead(p);
      for (const r of csvRecords(parseCsv(text))) if (r.team === spec.team) names.push(r.name);
    }
    if (spec.sorted) names.sort();
    yield call('write', { path: spec.out, content: names.join('\n') + '\n' });
    return call('finish', { answer: 'done' });
  },
});

/** The workspace suite (ClawGym-Bench style). */
export const workspaceSuite = makeSuite('workspace', [csvSum, organize, replaceText, misplaced, cleanup, teamList]);

/**
 * A stand-in corpus for training the tokenizer until rendered expert episodes exist
 * (the vocabulary is learned from the training harnesses' renders, docs/TOKENIZER.md).
 *
 * Each document imitates what harnesses show the policy and what it writes back: JSON tool
 * calls, XML-like tags, shell-like commands, file listings, line-numbered file views, CSV rows,
 * mail and calendar entries, tool errors, short English instructions, role-marked turns. The
 * canonical tool names (src/sandbox/types.ts TOOL_NAMES, copied here so that a later change there
 * does not silently change a shipped vocabulary) appear with the renamings harnesses use.
 *
 * Replace `generateTokenizerCorpus` with real renders when they exist; the tokenizer CLI
 * (`hlab tokenizer`) takes its documents from here.
 */
import { Rng } from '../util/rng';

const NAMES = [
  'alice',
  'bob',
  'carol',
  'dave',
  'erin',
  'frank',
  'grace',
  'heidi',
  'ivan',
  'judy',
  'mallory',
  'oscar',
  'peggy',
  'trent',
  'victor',
  'walter',
];
const DIRS = [
  'docs',
  'notes',
  'reports',
  'inbox',
  'archive',
  'projects',
  'data',
  'mail',
  'calendar',
  'tmp',
  'src',
  'invoices',
  'photos',
  'drafts',
  'todo',
  'logs',
];
const STEMS = [
  'readme',
  'todo',
  'report',
  'summary',
  'budget',
  'notes',
  'meeting',
  'invoice',
  'plan',
  'draft',
  'config',
  'index',
  'contacts',
  'schedule',
  'results',
  'log',
  'q3_sales',
  'minutes',
  'recipes',
  'travel',
];
const EXTS = ['txt', 'md', 'csv', 'json', 'log', 'yaml', 'ts', 'py', 'html', 'eml', 'ics'];
const TOPICS = [
  'budget review',
  'team sync',
  'dentist',
  'project kickoff',
  'lunch',
  'quarterly report',
  'flight to Berlin',
  'code review',
  'birthday party',
  'invoice #4471',
  'server migration',
  'gym',
  'design meeting',
];
const VERBS = [
  'move',
  'copy',
  'rename',
  'delete',
  'archive',
  'summarize',
  'find',
  'count',
  'list',
  'update',
  'create',
  'append to',
  'read',
  'check',
];
const WORDS = [
  'the',
  'a',
  'file',
  'files',
  'all',
  'every',
  'new',
  'old',
  'in',
  'from',
  'to',
  'and',
  'then',
  'with',
  'that',
  'of',
  'for',
  'each',
  'which',
  'please',
  'folder',
  'directory',
  'answer',
  'date',
  'total',
  'line',
  'lines',
  'email',
  'event',
  'note',
  'task',
  'done',
  'is',
  'are',
  'not',
  'found',
];
const TOOL_ALIASES: Record<string, string[]> = {
  list: ['list', 'ls', 'list_dir', 'listFiles', 'fs.list', 'Glob'],
  read: ['read', 'cat', 'read_file', 'readFile', 'fs.read', 'Read', 'view'],
  write: ['write', 'write_file', 'writeFile', 'fs.write', 'Write', 'create_file'],
  append: ['append', 'append_file', 'appendFile', 'fs.append'],
  move: ['move', 'mv', 'move_file', 'rename', 'fs.move'],
  delete: ['delete', 'rm', 'delete_file', 'remove', 'fs.delete'],
  search: ['search', 'grep', 'find', 'Grep', 'search_files'],
  mkdir: ['mkdir', 'make_dir', 'create_dir', 'fs.mkdir'],
  finish: ['finish', 'submit', 'done', 'final_answer', 'Finish'],
};
const TOOLS = Object.keys(TOOL_ALIASES);
const ROLES = [
  ['User:', 'Assistant:', 'Observation:'],
  ['### Instruction', '### Response', '### Tool output'],
  ['[user]', '[assistant]', '[tool]'],
  ['Human:', 'AI:', 'Result:'],
  ['<user>', '<assistant>', '<observation>'],
];

function path(r: Rng): string {
  const depth = r.range(1, 3);
  const parts: string[] = [];
  for (let i = 0; i < depth - 1; i++) parts.push(r.pick(DIRS));
  parts.push(`${r.pick(STEMS)}${r.int(4) === 0 ? '_' + r.range(1, 2025) : ''}.${r.pick(EXTS)}`);
  return (r.int(2) ? '/' : '') + parts.join('/');
}

function date(r: Rng): string {
  return `20${r.range(22, 26)}-${String(r.range(1, 12)).padStart(2, '0')}-${String(r.range(1, 28)).padStart(2, '0')}`;
}

function time(r: Rng): string {
  return `${String(r.range(7, 19)).padStart(2, '0')}:${r.pick(['00', '15', '30', '45'])}`;
}

function sentence(r: Rng, n: number): string {
  const w: string[] = [];
  for (let i = 0; i < n; i++) w.push(r.int(6) === 0 ? r.pick(NAMES) : r.pick(WORDS));
  const s = w.join(' ');
  return s[0].toUpperCase() + s.slice(1) + r.pick(['.', '.', '?', '!', ':']);
}

function instruction(r: Rng): string {
  const v = r.pick(VERBS);
  const forms = [
    `Please ${v} ${path(r)} and report the result.`,
    `${v[0].toUpperCase() + v.slice(1)} every .${r.pick(EXTS)} file in /${r.pick(DIRS)} to /${r.pick(DIRS)}, then call ${r.pick(TOOL_ALIASES.finish)}.`,
    `How many events does ${r.pick(NAMES)} have on ${date(r)}? Answer with a number.`,
    `Find the email from ${r.pick(NAMES)}@example.com about "${r.pick(TOPICS)}" and save its date to ${path(r)}.`,
    `Add a note titled "${r.pick(TOPICS)}" with the text: ${sentence(r, r.range(4, 10))}`,
    `Schedule "${r.pick(TOPICS)}" on ${date(r)} at ${time(r)} for ${r.range(15, 120)} minutes.`,
    `Your task: ${sentence(r, r.range(5, 12))} Use at most ${r.range(3, 20)} tool calls.`,
  ];
  return r.pick(forms);
}

function argsFor(r: Rng, tool: string): Record<string, string> {
  switch (tool) {
    case 'list':
    case 'read':
    case 'delete':
    case 'mkdir':
      return { [r.pick(['path', 'file', 'filename', 'dir'])]: path(r) };
    case 'write':
    case 'append':
      return { path: path(r), content: sentence(r, r.range(3, 12)) + (r.int(2) ? '\n' : '') };
    case 'move':
      return { from: path(r), to: path(r) };
    case 'search':
      return { query: r.pick([...TOPICS, ...NAMES]), path: '/' + r.pick(DIRS) };
    default:
      return r.int(2) ? { answer: String(r.range(0, 999)) } : { answer: r.pick(TOPICS) };
  }
}

function toolCall(r: Rng): string {
  const tool = r.pick(TOOLS);
  const name = r.pick(TOOL_ALIASES[tool]);
  const args = argsFor(r, tool);
  const style = r.int(6);
  if (style === 0) return JSON.stringify({ tool: name, args });
  if (style === 1) return JSON.stringify({ name, arguments: args }, null, r.int(2) ? 2 : undefined);
  if (style === 2) {
    const inner = Object.entries(args)
      .map(([k, v]) => `<${k}>${v}</${k}>`)
      .join(r.int(2) ? '\n' : '');
    return `<tool_call name="${name}">${inner}</tool_call>`;
  }
  if (style === 3)
    return `${name}(${Object.entries(args)
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join(', ')})`;
  if (style === 4) return `Action: ${name}\nAction Input: ${JSON.stringify(args)}`;
  const cmd: Record<string, string> = {
    list: 'ls -la',
    read: 'cat',
    write: 'tee',
    append: 'tee -a',
    move: 'mv',
    delete: 'rm',
    search: 'grep -rn',
    mkdir: 'mkdir -p',
    finish: 'echo',
  };
  return `$ ${cmd[tool]} ${Object.values(args)
    .map((v) => (v.includes(' ') ? `"${v}"` : v))
    .join(' ')}`;
}

function listing(r: Rng): string {
  const n = r.range(2, 9);
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const isDir = r.int(4) === 0;
    const name = isDir ? r.pick(DIRS) + '/' : `${r.pick(STEMS)}.${r.pick(EXTS)}`;
    const s = r.int(3);
    if (s === 0) lines.push(`${isDir ? 'drwxr-xr-x' : '-rw-r--r--'}  ${String(r.range(0, 99999)).padStart(6)} ${date(r)} ${name}`);
    else if (s === 1) lines.push(`${name}${isDir ? '' : ` (${r.range(0, 5000)} bytes)`}`);
    else lines.push(`- ${name}`);
  }
  return lines.join('\n');
}

function fileView(r: Rng): string {
  const n = r.range(3, 12);
  const start = r.range(1, 200);
  const lines: string[] = [`[File: ${path(r)} (${start + n + r.range(0, 80)} lines total)]`];
  for (let i = 0; i < n; i++) {
    const content =
      r.int(3) === 0
        ? `${r.pick(['Title', 'Date', 'From', 'To', 'Status', 'Owner'])}: ${r.int(2) ? date(r) : r.pick(TOPICS)}`
        : sentence(r, r.range(2, 9));
    lines.push(r.int(2) ? `${String(start + i).padStart(5)}\t${content}` : `${start + i}| ${content}`);
  }
  return lines.join('\n');
}

function csv(r: Rng): string {
  const header = r.pick([
    'id,name,date,amount',
    'date,time,title,attendees',
    'name,email,phone',
    'item,qty,price,total',
    'task,owner,status,due',
  ]);
  const cols = header.split(',').length;
  const rows = [header];
  for (let i = 0; i < r.range(2, 8); i++) {
    const row: string[] = [];
    for (let c = 0; c < cols; c++) {
      const k = r.int(5);
      row.push(
        k === 0
          ? String(r.range(1, 500))
          : k === 1
            ? date(r)
            : k === 2
              ? (r.range(0, 99999) / 100).toFixed(2)
              : k === 3
                ? r.pick(NAMES)
                : `${r.pick(NAMES)}@example.com`,
      );
    }
    rows.push(row.join(','));
  }
  return rows.join('\n');
}

function mail(r: Rng): string {
  return [
    `From: ${r.pick(NAMES)}@example.com`,
    `To: ${r.pick(NAMES)}@example.com`,
    `Date: ${date(r)} ${time(r)}`,
    `Subject: ${r.pick(['Re: ', 'Fwd: ', ''])}${r.pick(TOPICS)}`,
    '',
    sentence(r, r.range(5, 15)),
    r.int(2) ? `\n-- \n${r.pick(NAMES)}` : '',
  ].join('\n');
}

function calendar(r: Rng): string {
  const lines: string[] = [];
  for (let i = 0; i < r.range(1, 5); i++)
    lines.push(`${date(r)} ${time(r)}-${time(r)}  ${r.pick(TOPICS)}${r.int(2) ? ` (with ${r.pick(NAMES)})` : ''}`);
  return lines.join('\n');
}

function toolError(r: Rng): string {
  const code = r.pick([
    'not_found',
    'not_a_directory',
    'is_a_directory',
    'exists',
    'outside_root',
    'invalid_path',
    'too_large',
    'limit',
    'bad_args',
    'unknown_tool',
  ]);
  return r.pick([
    `Error: ${code}: ${path(r)}`,
    `{"ok": false, "error": {"code": "${code}", "message": "${sentence(r, r.range(3, 7))}"}}`,
    `<error code="${code}">${path(r)}</error>`,
    `[output truncated: ${r.range(10, 5000)} characters dropped]`,
  ]);
}

function markdown(r: Rng): string {
  const lines = [`## ${r.pick(TOPICS)}`];
  for (let i = 0; i < r.range(2, 6); i++) lines.push(`- [${r.int(2) ? 'x' : ' '}] ${sentence(r, r.range(2, 7))}`);
  return lines.join('\n');
}

const PIECES = [instruction, toolCall, toolCall, toolCall, listing, fileView, csv, mail, calendar, toolError, markdown];

/**
 * One harness-like document: an instruction followed by a few role-marked turns.
 * @param r the generator (advanced)
 */
function corpusDocument(r: Rng): string {
  const [u, a, o] = r.pick(ROLES);
  const parts = [`${u} ${instruction(r)}`];
  for (let turn = 0; turn < r.range(1, 4); turn++) {
    parts.push(`${a} ${r.int(3) === 0 ? sentence(r, r.range(3, 10)) + '\n' : ''}${toolCall(r)}`);
    parts.push(`${o}\n${r.pick(PIECES)(r)}`);
  }
  return parts.join('\n');
}

/**
 * `docs` documents from the stream `Rng.derive(seed, 'tokenizer-corpus')`; deterministic.
 * @throws Error when docs is not a positive integer.
 */
export function generateTokenizerCorpus(seed: number, docs: number): string[] {
  if (!Number.isInteger(docs) || docs <= 0) throw new Error(`generateTokenizerCorpus: docs must be a positive integer, got ${docs}`);
  const r = Rng.derive(seed, 'tokenizer-corpus');
  const out: string[] = [];
  for (let i = 0; i < docs; i++) out.push(corpusDocument(r));
  return out;
}

/**
 * Light services (mail, calendar, notes, a table store) kept as plain text files under
 * conventional directories, so the one canonical tool set reaches all of them (docs/ARCHITECTURE.md "Sandbox, tasks and behaviour tags").
 * Task generators write these formats and verifiers parse them with the helpers below; the
 * parsers are lenient where a human would be (CRLF, surrounding whitespace, header case,
 * blank lines) and exact where exactness is the point (field values).
 *
 * Layout and formats:
 * - Mail: one message per file, `/mail/inbox/NAME.eml`, `/mail/sent/NAME.eml`,
 *   `/mail/archive/NAME.eml`. RFC 5322-like: header lines `Key: value` (From, To, Subject,
 *   Date), one blank line, then the body. "Sending" a mail = writing a file to /mail/sent.
 * - Calendar: one CSV table `/calendar/events.csv` with header `date,start,end,title`;
 *   date `YYYY-MM-DD`, times `HH:MM` (24 h). Adding an event = appending one line.
 * - Notes: markdown files `/notes/NAME.md`. To-do items are GitHub task-list lines
 *   `- [ ] text` (open) and `- [x] text` (done).
 * - Tables: CSV files `/tables/NAME.csv` (header row first; RFC 4180 quoting for fields with
 *   commas, quotes or newlines). The address book is `/tables/contacts.csv` (name,email,phone).
 */

export const SERVICE_PATHS = {
  inbox: '/mail/inbox',
  sent: '/mail/sent',
  archive: '/mail/archive',
  calendar: '/calendar/events.csv',
  notes: '/notes',
  tables: '/tables',
  contacts: '/tables/contacts.csv',
} as const;

// ---------------------------------------------------------------------------------- text

/** Canonical comparison form of text a human wrote: CRLF → LF, trailing spaces per line and
 *  leading/trailing blank lines removed. */
export function normText(s: string): string {
  return s
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .replace(/^\n+|\n+$/g, '');
}

/** Non-empty trimmed lines of a text. */
export function textLines(s: string): string[] {
  return normText(s)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

// ----------------------------------------------------------------------------------- CSV

interface Table {
  header: string[];
  rows: string[][];
}

function csvField(f: string): string {
  return /[",\n\r]/.test(f) ? '"' + f.replace(/"/g, '""') + '"' : f;
}

/** CSV text (LF line ends, final newline) from a header and rows. */
export function formatCsv(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  return [header, ...rows].map((r) => r.map((f) => csvField(String(f))).join(',')).join('\n') + '\n';
}

/**
 * Parse CSV (RFC 4180 quoting; CRLF or LF). Cells are trimmed; blank lines are skipped. The
 * first row is the header. An empty text gives an empty header and no rows.
 */
export function parseCsv(text: string): Table {
  const records: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let wasQuoted = false;
  const endField = () => {
    row.push(wasQuoted ? field : field.trim());
    field = '';
    wasQuoted = false;
  };
  const endRow = () => {
    endField();
    if (!(row.length === 1 && row[0] === '')) records.push(row);
    row = [];
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field.trim() === '') {
      quoted = true;
      wasQuoted = true;
      field = '';
    } else if (c === ',') endField();
    else if (c === '\n') endRow();
    else if (c !== '\r') field += c;
  }
  if (field !== '' || row.length > 0) endRow();
  return { header: records[0] ?? [], rows: records.slice(1) };
}

/** Rows as objects keyed by header name (missing cells → ''). */
export function csvRecords(t: Table): Record<string, string>[] {
  return t.rows.map((r) => Object.fromEntries(t.header.map((h, i) => [h, r[i] ?? ''])));
}

// ---------------------------------------------------------------------------------- mail

interface Mail {
  from: string;
  to: string;
  subject: string;
  date?: string;
  body: string;
}

/** `.eml`-like text of a mail (headers, blank line, body, final newline). */
export function formatMail(m: Mail): string {
  const head = [`From: ${m.from}`, `To: ${m.to}`, `Subject: ${m.subject}`];
  if (m.date) head.push(`Date: ${m.date}`);
  return head.join('\n') + '\n\n' + normText(m.body) + '\n';
}

/**
 * Parse a mail. Headers are `Key: value` lines up to the first blank line (or the first line
 * without a colon); keys are case-insensitive; values are trimmed; the body is `normText`ed.
 * @returns null when From, To or Subject is missing.
 */
export function parseMail(text: string): (Mail & { headers: Record<string, string> }) | null {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const headers: Record<string, string> = {};
  let i = 0;
  for (; i < lines.length; i++) {
    const l = lines[i];
    if (l.trim() === '') {
      i++;
      break;
    }
    const m = /^\s*([A-Za-z-]+)\s*:\s*(.*)$/.exec(l);
    if (!m) break;
    headers[m[1].toLowerCase()] = m[2].trim();
  }
  if (headers.from === undefined || headers.to === undefined || headers.subject === undefined) return null;
  return {
    from: headers.from,
    to: headers.to,
    subject: headers.subject,
    date: headers.date,
    body: normText(lines.slice(i).join('\n')),
    headers,
  };
}

// ------------------------------------------------------------------------------ calendar

export interface CalEvent {
  /** YYYY-MM-DD */
  date: string;
  /** HH:MM, 24 h */
  start: string;
  /** HH:MM, 24 h */
  end: string;
  title: string;
}

const CALENDAR_HEADER = ['date', 'start', 'end', 'title'] as const;

/** `/calendar/events.csv` text for a list of events (order kept). */
export function formatEvents(events: readonly CalEvent[]): string {
  return formatCsv(
    CALENDAR_HEADER,
    events.map((e) => [e.date, e.start, e.end, e.title]),
  );
}

/** One CSV line (with newline) for appending an event to `/calendar/events.csv`. */
export function eventLine(e: CalEvent): string {
  return [e.date, e.start, e.end, e.title].map(csvField).join(',') + '\n';
}

/** Events of a calendar file; rows with fewer than 4 cells are skipped. Header row optional. */
export function parseEvents(text: string): CalEvent[] {
  const t = parseCsv(text);
  const all = [t.header, ...t.rows];
  const out: CalEvent[] = [];
  for (const r of all) {
    if (r.length < 4) continue;
    if (r[0].toLowerCase() === 'date' && r[3].toLowerCase() === 'title') continue;
    out.push({ date: r[0], start: r[1], end: r[2], title: r.slice(3).join(',') });
  }
  return out;
}

/** Whether two events match: date and times exact, title equal ignoring case and spacing. */
export function sameEvent(a: CalEvent, b: CalEvent): boolean {
  const t = (s: string) => s.trim().replace(/\s+/g, ' ').toLowerCase();
  return a.date === b.date && normTime(a.start) === normTime(b.start) && normTime(a.end) === normTime(b.end) && t(a.title) === t(b.title);
}

/** '9:00' → '09:00'; anything else unchanged (trimmed). */
function normTime(s: string): string {
  const m = /^(\d{1,2}):(\d{2})$/.exec(s.trim());
  return m ? `${m[1].padStart(2, '0')}:${m[2]}` : s.trim();
}

// --------------------------------------------------------------------------------- notes

export interface TodoItem {
  done: boolean;
  text: string;
}

/** `- [ ] text` / `- [x] text` lines (also `*` bullets, `X`); other lines are ignored. */
export function parseTodos(text: string): TodoItem[] {
  const out: TodoItem[] = [];
  for (const l of normText(text).split('\n')) {
    const m = /^\s*[-*]\s*\[( |x|X)\]\s*(.*?)\s*$/.exec(l);
    if (m) out.push({ done: m[1] !== ' ', text: m[2] });
  }
  return out;
}

/** Markdown task list text. */
export function formatTodos(title: string, items: readonly TodoItem[]): string {
  return `# ${title}\n` + items.map((it) => `- [${it.done ? 'x' : ' '}] ${it.text}`).join('\n') + '\n';
}

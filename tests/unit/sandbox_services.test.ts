import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
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
} from '../../src/sandbox/services';

// Cells without surrounding whitespace (the parser trims unquoted cells, as a human would).
const cell = fc.string({ maxLength: 8 }).filter((s) => s.trim() === s && s.length > 0);

describe('service formats', () => {
  it('CSV: format → parse round-trips, quoting commas, quotes and newlines', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 4 })
          .chain((w) =>
            fc.tuple(
              fc.array(cell, { minLength: w, maxLength: w }),
              fc.array(fc.array(cell, { minLength: w, maxLength: w }), { maxLength: 4 }),
            ),
          ),
        ([header, rows]) => {
          const t = parseCsv(formatCsv(header, rows));
          expect(t.header).toEqual(header);
          expect(t.rows).toEqual(rows);
        },
      ),
      { numRuns: 200 },
    );
    expect(parseCsv('a, b\r\n\r\n1 ,"x,y"\n')).toEqual({ header: ['a', 'b'], rows: [['1', 'x,y']] });
    expect(parseCsv('')).toEqual({ header: [], rows: [] });
  });

  it('mail: round-trip, lenient headers and line ends, null without required headers', () => {
    const m = { from: 'ana@mail.test', to: 'me@mail.test', subject: 'Invite: Budget review', date: '2026-03-04', body: 'What: x\nWhen: y' };
    expect(parseMail(formatMail(m))).toMatchObject(m);
    const crlf = 'from:  bo@mail.test \r\nTO: me@mail.test\r\nsubject: Re: Hi  \r\n\r\nOK  \r\n\r\n';
    expect(parseMail(crlf)).toMatchObject({ from: 'bo@mail.test', to: 'me@mail.test', subject: 'Re: Hi', body: 'OK' });
    expect(parseMail('To: a\nSubject: b\n\nbody')).toBeNull();
  });

  it('calendar: events round-trip; eventLine appends one parseable row; sameEvent is lenient on case and 9:00', () => {
    const evs = [
      { date: '2026-01-02', start: '09:00', end: '10:00', title: 'Team sync' },
      { date: '2026-02-03', start: '14:00', end: '15:00', title: 'Lunch, with Bo' },
    ];
    const text = formatEvents(evs.slice(0, 1)) + eventLine(evs[1]);
    expect(parseEvents(text)).toEqual(evs);
    expect(sameEvent({ ...evs[0], start: '9:00', title: ' team  SYNC ' }, evs[0])).toBe(true);
    expect(sameEvent({ ...evs[0], end: '10:30' }, evs[0])).toBe(false);
  });

  it('todos: round-trip; x/X and * bullets accepted', () => {
    const items = [
      { done: false, text: 'buy milk' },
      { done: true, text: 'call mom' },
    ];
    expect(parseTodos(formatTodos('home', items))).toEqual(items);
    expect(parseTodos('* [X] a\n-[ ] b\nnot an item')).toEqual([
      { done: true, text: 'a' },
      { done: false, text: 'b' },
    ]);
  });

  it('normText trims what a human would and nothing else', () => {
    expect(normText('\n\n 42 \r\n\n')).toBe(' 42');
    expect(normText('a  \nb\t\n')).toBe('a\nb');
    expect(normText('a\n\nb')).toBe('a\n\nb');
  });
});

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
 * Tier 1 is sized for the shipped base: 2–3 calls, actions ≤ 40 tokens under the base
 * harness (calendar-add ≤ 50), outputs copied verbatim; tiers 2–3 compose mails and event lines,
 * pick the latest mail, rewrite lists. docs/TASKS.md has the ladder.
 */
import { makeSuite } from './common';
import { calendarAdd, mailReply } from './errands_calendar_mail';
import { recall, todoUpdate } from './errands_memory';
import { inboxTriage, findContact } from './errands_lookup';

export const errandsSuite = makeSuite('errands', [calendarAdd, mailReply, recall, todoUpdate, inboxTriage, findContact]);

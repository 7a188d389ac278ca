// fast-check arbitraries for tool-call property tests: canonical calls of every tool whose
// argument values come from a given string arbitrary, and strings biased towards what breaks a
// syntax (quotes, escapes, tags, newlines, unicode, control characters).
import fc from 'fast-check';
import { TOOL_SPECS } from '../../../src/harness/tools';
import type { ToolCall } from '../../../src/sandbox/types';

/** A canonical call of any tool: every required argument and some optional ones, each drawn from `value`. */
export function toolCallOf(value: fc.Arbitrary<string>): fc.Arbitrary<ToolCall> {
  return fc.constantFrom(...TOOL_SPECS).chain((spec) =>
    fc
      .record({
        req: fc.tuple(...spec.required.map(() => value)),
        opt: fc.tuple(...spec.optional.map(() => fc.option(value, { nil: undefined }))),
      })
      .map(({ req, opt }) => {
        const args: Record<string, string> = {};
        spec.required.forEach((k, i) => (args[k] = req[i]));
        spec.optional.forEach((k, i) => {
          if (opt[i] !== undefined) args[k] = opt[i] as string;
        });
        return { tool: spec.name, args } as ToolCall;
      }),
  );
}

const NASTY_UNITS = [
  '"',
  "'",
  '\\',
  '<',
  '>',
  '&',
  '/',
  ' ',
  '\n',
  '\r',
  '\t',
  '{',
  '}',
  'a',
  'é',
  '💥',
  '\u0000',
  '\u2028',
  '&lt;',
  '</file>',
  '\\n',
];
const NASTY_WHOLE = ['', ' ', '-', '--', '-r', '&amp;', '"', '\\', 'a b', '../../etc/passwd'];

/** Strings that break syntaxes: binary strings, strings of `NASTY_UNITS` plus `units`, or one of `NASTY_WHOLE` plus `whole`. */
export function nastyString(units: readonly string[] = [], whole: readonly string[] = []): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({ unit: fc.constantFrom(...NASTY_UNITS, ...units), maxLength: 30 }),
    fc.constantFrom(...NASTY_WHOLE, ...whole),
  );
}

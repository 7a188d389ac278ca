/**
 * Shared pieces of the command line: usage errors (exit 2), option parsers that name their
 * flag, and JSON output that is alone on stdout.
 */
import { readFileSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';
import { Tokenizer, type TokenizerFile } from '../model/tokenizer';
import { SUITE_NAMES } from '../tasks';
import type { SuiteName } from '../tasks/types';

/** A bad flag or value: printed as one line naming it, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A failure already explained in one line (no stack): printed as `error: message`, exit `exitCode` (default 1). */
export class ReportedError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'ReportedError';
  }
}

/** Exit code of a run whose output folder could not be written (disk full, no permission, I/O error, folder gone): sysexits' EX_IOERR. */
export const EXIT_IO_FAULT = 74;

/** `word` as one POSIX shell word: unchanged when it is safe, else single-quoted. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command line that runs `hlab <args>` as printed, pasted in the project root: through the
 * npm script, since `hlab` itself is not on a newcomer's PATH.
 */
export function hlabCommand(args: readonly string[]): string {
  return ['npm run -s hlab --', ...args.map(shellWord)].join(' ');
}

/**
 * `text` safe to print on one terminal line: control characters (newlines included), lone
 * surrogates and U+FFFD (undecodable bytes) are shown escaped (\n, \x1b, \u{fffd}), so a file's raw
 * bytes quoted in an error cannot break the line or drive the terminal.
 */
export function printable(text: string): string {
  return text.replace(
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufffd]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    (c) => {
      const code = c.charCodeAt(0);
      if (c === '\n') return '\\n';
      if (c === '\r') return '\\r';
      if (c === '\t') return '\\t';
      return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
    },
  );
}

/**
 * --suites: a comma list of suite names, deduplicated in order.
 * @throws UsageError naming the flag, the value and the bad entry
 */
export function parseSuiteList(value: string): SuiteName[] {
  const parts = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const bad = parts.find((p) => !(SUITE_NAMES as string[]).includes(p));
  if (parts.length === 0 || bad !== undefined)
    throw new UsageError(
      `--suites '${value}': expected a comma-separated list of ${SUITE_NAMES.join(', ')}${bad ? ` (bad entry '${bad}')` : ''}`,
    );
  return [...new Set(parts)] as SuiteName[];
}

/** Parser for an integer option in [min, max]; commander reports the flag name with it. */
export function intOption(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    if (!/^-?\d+$/.test(value.trim())) throw new InvalidArgumentError(`expected an integer, got '${value}'`);
    const n = Number(value);
    if (n < min || n > max) throw new InvalidArgumentError(`expected an integer in [${min}, ${max}], got ${n}`);
    return n;
  };
}

/** Parser for a comma-separated list of distinct integers ≥ 0 (e.g. `--seeds 0,3,4`). */
export function intListOption(value: string): number[] {
  const parts = value.split(',').map((x) => x.trim());
  const bad = parts.find((x) => !/^\d+$/.test(x) || Number(x) > 2 ** 31 - 1);
  if (bad !== undefined) throw new InvalidArgumentError(`expected comma-separated integers ≥ 0, got '${value}' (bad entry '${bad}')`);
  const ns = parts.map(Number);
  if (new Set(ns).size !== ns.length) throw new InvalidArgumentError(`expected distinct integers, got '${value}'`);
  return ns;
}

/** Parser for a number option in [min, max]. */
export function numberOption(min: number, max = Number.POSITIVE_INFINITY) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError(`expected a number, got '${value}'`);
    if (n < min || n > max) throw new InvalidArgumentError(`expected a number in [${min}, ${max}], got ${n}`);
    return n;
  };
}

/** Parser for one of a fixed set of words. */
export function choiceOption<T extends string>(choices: readonly T[]) {
  return (value: string): T => {
    if (!(choices as readonly string[]).includes(value)) {
      throw new InvalidArgumentError(`expected one of ${choices.join(', ')}, got '${value}'`);
    }
    return value as T;
  };
}

/** Print `value` as JSON, alone on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

/** The shipped tokenizer (public/tokenizer-v2.json), read in Node: what checkpoints and rollouts use. */
export function shippedTokenizer(): Tokenizer {
  return Tokenizer.fromJSON(JSON.parse(readFileSync(new URL('../../public/tokenizer-v2.json', import.meta.url), 'utf8')) as TokenizerFile);
}

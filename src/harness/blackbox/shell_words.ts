/**
 * POSIX-style word splitting and quoting for the black-box harnesses' shell tools (`Bash`,
 * `exec`): bare words, '…' (literal), "…" (with \" \\ \$ \` escapes), backslash outside
 * quotes. `shellCommand` quotes its operands so that `shellSplit` reads them back exactly, for
 * any strings (property-tested).
 */

/** Split a command line into words, or return an error message. Never throws. */
export function shellSplit(line: string): string[] | { error: string } {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  let i = 0;
  while (i < line.length) {
    const c = line[i];
    if (c === ' ' || c === '\t' || c === '\n') {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
      i++;
      continue;
    }
    inWord = true;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) return { error: 'unterminated single quote' };
      cur += line.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      i++;
      let closed = false;
      while (i < line.length) {
        const d = line[i];
        if (d === '"') {
          closed = true;
          i++;
          break;
        }
        if (d === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1])) {
          cur += line[i + 1];
          i += 2;
          continue;
        }
        cur += d;
        i++;
      }
      if (!closed) return { error: 'unterminated double quote' };
    } else if (c === '\\') {
      if (i + 1 >= line.length) return { error: 'trailing backslash' };
      cur += line[i + 1];
      i += 2;
    } else {
      cur += c;
      i++;
    }
  }
  if (inWord) words.push(cur);
  return words;
}

/** Quote one word so `shellSplit` reads it back exactly (bare when safe, else '…' with '\'' for quotes). */
function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_./@%+=:,-]+$/.test(word)) return word;
  return "'" + word.replace(/'/g, "'\\''") + "'";
}

/** Drop option words (`-p`, `-r`, …); everything after `--` is an operand. */
export function operands(words: readonly string[]): string[] {
  const out: string[] = [];
  let opts = true;
  for (const w of words) {
    if (opts && w === '--') opts = false;
    else if (opts && /^-[a-zA-Z]+$/.test(w)) continue;
    else out.push(w);
  }
  return out;
}

/** A command line `cmd flags… [--] operands…` that `shellSplit` + `operands` read back exactly. */
export function shellCommand(cmd: string, flags: readonly string[], ops: readonly string[]): string {
  const dashdash = ops.some((o) => o.startsWith('-')) ? ['--'] : [];
  return [cmd, ...flags, ...dashdash, ...ops.map(shellQuote)].join(' ');
}

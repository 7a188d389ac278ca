/**
 * Line diffs for showing two harnesses' contexts (hlab render --diff): a unified diff from the
 * longest common subsequence of lines, and a fixed-width side-by-side view. O(n·m) time and
 * memory in the line counts, fine for contexts of a few hundred lines.
 */

/** Unified diff (no hunks: every line, prefixed ' ', '-' or '+'), with a header naming both sides. */
export function unifiedDiff(a: string, b: string, nameA: string, nameB: string): string {
  const x = a.split('\n');
  const y = b.split('\n');
  const n = x.length;
  const m = y.length;
  // lcs[i][j] = LCS length of x[i:] and y[j:].
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--) lcs[i][j] = x[i] === y[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const out = [`--- ${nameA}`, `+++ ${nameB}`];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) {
      out.push(' ' + x[i]);
      i++;
      j++;
    } else if (i < n && (j >= m || lcs[i + 1][j] >= lcs[i][j + 1])) out.push('-' + x[i++]);
    else out.push('+' + y[j++]);
  }
  return out.join('\n');
}

/** Two texts in columns of `width` characters (long lines wrap), separated by ' | '. */
export function sideBySide(a: string, b: string, nameA: string, nameB: string, width = 60): string {
  const wrap = (t: string) => t.split('\n').flatMap((l) => (l.length === 0 ? [''] : (l.match(new RegExp(`.{1,${width}}`, 'g')) ?? [''])));
  const x = wrap(a);
  const y = wrap(b);
  const rows = [`${nameA.padEnd(width)} | ${nameB}`, `${'-'.repeat(width)}-+-${'-'.repeat(width)}`];
  for (let i = 0; i < Math.max(x.length, y.length); i++) rows.push(`${(x[i] ?? '').padEnd(width)} | ${y[i] ?? ''}`);
  return rows.join('\n');
}

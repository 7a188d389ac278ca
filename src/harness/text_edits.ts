/**
 * The single Edit-tool forms of a text change, as an agent writes them: replace one unique span
 * (editFor) or anchor an append on a unique tail of the file (appendEdit). The expert uses them so
 * that demonstrations edit files the way a careful agent does instead of rewriting them whole.
 */

/**
 * The single edit turning `old` into `next`: the changed span (common prefix and suffix
 * removed) widened to whole lines. Null when there is no change, the span is empty in `old`
 * (a pure insertion) or it is not unique in `old` (an Edit would be ambiguous).
 */
export function editFor(old: string, next: string): { oldString: string; newString: string } | null {
  if (old === next) return null;
  let p = 0;
  while (p < old.length && p < next.length && old[p] === next[p]) p++;
  let s = 0;
  while (s < old.length - p && s < next.length - p && old[old.length - 1 - s] === next[next.length - 1 - s]) s++;
  const start = p === 0 ? 0 : old.lastIndexOf('\n', p - 1) + 1;
  let end = old.indexOf('\n', old.length - s);
  if (end < 0) end = old.length;
  const oldString = old.slice(start, end);
  const newString = next.slice(start, next.length - (old.length - end));
  // Unique, also against overlapping matches, so the Edit tool's first match is this span.
  if (oldString === '' || oldString === newString || old.indexOf(oldString) !== start || old.indexOf(oldString, start + 1) !== -1)
    return null;
  return { oldString, newString };
}

/**
 * The edit appending `added` to `old`: the shortest unique tail of `old` that starts at a word
 * boundary of its last line (or at that line's start) as the anchor, replaced by itself plus
 * `added` — what an agent copies to add lines without rewriting the file. Null when `old` is
 * empty or no such tail is unique (the caller writes the whole file instead).
 */
export function appendEdit(old: string, added: string): { oldString: string; newString: string } | null {
  if (old === '' || added === '') return null;
  const lineStart = (old.endsWith('\n') ? old.slice(0, -1) : old).lastIndexOf('\n') + 1;
  for (let p = old.length - 1; p >= lineStart; p--) {
    if (p > lineStart && /[\p{L}\p{N}]/u.test(old[p - 1])) continue;
    const oldString = old.slice(p);
    // A tail first found at its own start occurs once.
    if (/[\p{L}\p{N}]/u.test(oldString) && old.indexOf(oldString) === p) return { oldString, newString: oldString + added };
  }
  return null;
}

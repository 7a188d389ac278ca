/**
 * Line-level differences between two texts for side-by-side highlighting, built on the
 * harness module's LCS diff (`unifiedDiff`, the one `hlab render --diff` prints): every line
 * of each side is marked same or changed. Pure, DOM-free.
 */
import { unifiedDiff } from '../harness/diff';

export interface MarkedLine {
  text: string;
  /** False when the line has no counterpart on the other side (removed on the left, added on the right). */
  same: boolean;
}

/**
 * Mark each line of `a` and of `b`.
 * @returns left = lines of a, right = lines of b, in order; `changed` = number of unmatched lines on both sides.
 */
export function markLines(a: string, b: string): { left: MarkedLine[]; right: MarkedLine[]; changed: number } {
  const lines = unifiedDiff(a, b, 'a', 'b').split('\n').slice(2); // drop the '--- a' / '+++ b' header
  const left: MarkedLine[] = [];
  const right: MarkedLine[] = [];
  for (const l of lines) {
    const tag = l[0];
    const text = l.slice(1);
    if (tag === ' ') {
      left.push({ text, same: true });
      right.push({ text, same: true });
    } else if (tag === '-') left.push({ text, same: false });
    else right.push({ text, same: false });
  }
  return { left, right, changed: left.filter((x) => !x.same).length + right.filter((x) => !x.same).length };
}

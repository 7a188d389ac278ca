/** Items grouped by a key, groups and items in first-seen order. */
export function groupBy<T, K>(items: readonly T[], key: (x: T) => K): Map<K, T[]> {
  const g = new Map<K, T[]>();
  for (const x of items) {
    const k = key(x);
    const list = g.get(k);
    if (list) list.push(x);
    else g.set(k, [x]);
  }
  return g;
}

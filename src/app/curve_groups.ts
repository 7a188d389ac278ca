/**
 * Many runs on one chart, kept readable (pure, DOM-free): the curve charts of Results and Compare
 * group their runs by method — each run a thin, faint line in its method's colour, and one thick
 * line per method, the mean over its seeds, which alone is named in the hover legend (20 runs of
 * 2 methods: 2 entries, not 20 in 8 colours). A chart whose series are not grouped (the Train
 * view's live charts) tells series apart by colour, and once colours run out by dash pattern too.
 */

type Points = readonly (readonly [number, number | null])[];

/** One group's mean curve: at each step, the mean of its runs that have a finite value there. */
interface GroupMean {
  group: string;
  /** How many runs the group has. */
  runs: number;
  points: [number, number | null][];
}

/**
 * The mean curve of each group, groups in order of first appearance. A step is in a group's curve
 * when any of its runs has it; its value is the mean of the finite values there (null when none).
 */
export function groupMeans(series: readonly { group: string; points: Points }[]): GroupMean[] {
  const byGroup = new Map<string, Points[]>();
  for (const s of series) byGroup.set(s.group, [...(byGroup.get(s.group) ?? []), s.points]);
  return [...byGroup].map(([group, runs]) => {
    const sums = new Map<number, { sum: number; n: number }>();
    for (const pts of runs) {
      for (const [x, v] of pts) {
        const acc = sums.get(x) ?? { sum: 0, n: 0 };
        if (v !== null && Number.isFinite(v)) {
          acc.sum += v;
          acc.n++;
        }
        sums.set(x, acc);
      }
    }
    const points = [...sums].sort((a, b) => a[0] - b[0]).map(([x, a]): [number, number | null] => [x, a.n ? a.sum / a.n : null]);
    return { group, runs: runs.length, points };
  });
}

/** A '#rrggbb' colour at opacity `alpha` ('#rrggbbaa'); any other colour string is returned as it is. */
export function withAlpha(color: string, alpha: number): string {
  if (!/^#[0-9a-f]{6}$/i.test(color)) return color;
  return `${color}${Math.round(Math.max(0, Math.min(1, alpha)) * 255)
    .toString(16)
    .padStart(2, '0')}`;
}

/** Dash patterns (canvas px) by how often a colour was used before, with the CSS border style of the legend's marker. */
const DASHES: readonly SeriesDash[] = [
  { dash: undefined, border: 'solid' },
  { dash: [6, 4], border: 'dashed' },
  { dash: [2, 3], border: 'dotted' },
];

/** How one series is stroked: its canvas dash pattern (undefined: solid) and its legend marker's CSS border style. */
interface SeriesDash {
  dash: number[] | undefined;
  border: string;
}

/**
 * How each series is stroked when colours repeat (a palette cycled over more series than it has):
 * a colour's first series is solid, its second dashed, its third dotted (then again), so two
 * series of one colour differ in their line and in their legend marker.
 */
export function dashesByColor(colors: readonly string[]): SeriesDash[] {
  const seen = new Map<string, number>();
  return colors.map((c) => {
    const k = seen.get(c) ?? 0;
    seen.set(c, k + 1);
    return DASHES[k % DASHES.length];
  });
}

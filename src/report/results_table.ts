/**
 * The results table of an experiment as data: rows × columns with pass@1 mean ± std over seeds,
 * the episode count, a 95 % Wilson interval, the mean verifier score, and each method's paired
 * before → after difference with its interval over training runs and configurations
 * (seed_stats.ts), plus the comparisons between methods after RL. Two thin renderers show it:
 * results.md (results_markdown.ts) and the app's Results view (src/app/views/results.ts), with
 * the same words for each cell (`intervalText`, `deltaText`, `scoreText`).
 *
 * Intervals, episode counts, scores and paired differences need the per-episode outcomes in
 * `RunResult.episodes` (optional); without them those cells read "n/a".
 */
import type { EpisodeCell, RunEpisodes, RunResult } from './results_schema';
import { directionOf } from './method_verdict';
import { meanStd as meanStdSeeds, pairCells, wilson, type PairedCell } from './stats';
import { comparePaired, comparisonText, type Comparison } from './seed_stats';

/** Mean and sample standard deviation (n − 1; 0 for a single value). @throws Error on an empty list. */
export function meanStd(xs: readonly number[]): { mean: number; std: number; n: number } {
  if (xs.length === 0) throw new Error('meanStd: empty list');
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const v = xs.length > 1 ? xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1) : 0;
  return { mean, std: Math.sqrt(v), n: xs.length };
}

/** "41.7 ± 2.1" in percent with one decimal; "41.7" for a single seed; "—" when no value is finite (not evaluated). */
export function formatPct(xs: readonly number[]): string {
  if (xs.every((x) => !Number.isFinite(x))) return '—';
  const { mean, std, n } = meanStd(xs);
  const m = (100 * mean).toFixed(1);
  return n > 1 ? `${m} ± ${(100 * std).toFixed(1)}` : m;
}

/** Runs grouped by method, in first-appearance order. */
export function byMethod<R extends { method: string }>(runs: readonly R[]): Map<string, R[]> {
  const m = new Map<string, R[]>();
  for (const r of runs) {
    const list = m.get(r.method) ?? [];
    list.push(r);
    m.set(r.method, list);
  }
  return m;
}

/** The results columns: base, in-space, each black-box harness, the training harnesses. */
interface ResultsColumn {
  /** 'base' | 'inSpace' | a black-box id | 'train' (the key of RunEpisodes too). */
  key: string;
  label: string;
}

/** One table cell: pass@1 over seeds, and what the per-episode outcomes add. */
export interface ResultsCell {
  key: string;
  /** pass@1 as "41.7 ± 2.1" (%, mean ± std over seeds), "41.7" for one seed, "—" when not evaluated. */
  text: string;
  /** Mean and sample std over seeds of the runs' pass@1 (null when none is finite; std null for one seed). */
  mean: number | null;
  std: number | null;
  /** Seeds with a finite pass@1. */
  n: number;
  /** Episodes pooled over the seeds; null when per-episode outcomes are absent. */
  episodes: number | null;
  passes: number | null;
  /** 95 % Wilson interval of the pooled pass rate (stats.wilson); null when outcomes are absent. */
  interval: { lo: number; hi: number } | null;
  /** Mean verifier score over the pooled episodes; null when absent. */
  score: number | null;
}

interface ResultsRow {
  label: string;
  seeds: number;
  /** The starting checkpoint's row (its cells are the 'before' evaluations) or a method's. */
  kind: 'start' | 'method';
  /** A method's own before cells; null for the starting-checkpoint row. */
  before: ResultsCell[] | null;
  after: ResultsCell[];
  /**
   * Per column, the paired before→after comparison on the cells evaluated both times, with its
   * interval over seeds and configurations (seed_stats.comparePaired); null for the
   * starting-checkpoint row, and per column null when per-episode outcomes are absent or nothing pairs.
   */
  paired: (Comparison | null)[] | null;
}

export interface ResultsTable {
  title: string;
  columns: ResultsColumn[];
  rows: ResultsRow[];
  /** Some run carries per-episode outcomes. */
  hasEpisodes: boolean;
}

/** A value read from a run: NaN (or, from older callers, null) when not measured. */
type Num = number | null | undefined;

const finiteNums = (xs: readonly Num[]): number[] => xs.filter((x): x is number => typeof x === 'number' && Number.isFinite(x));

/** A run's pass@1 in column `key` for 'before' or 'after'. */
function cellValue(r: RunResult, when: 'before' | 'after', key: string): Num {
  if (key === 'base') return r[when].base;
  if (key === 'inSpace') return r[when].inSpace;
  if (key === 'train') return r.trainHarnesses[when];
  return r[when].blackbox[key];
}

/** A run's episodes of one column, validated; null when the run records none. */
function episodesOf(r: RunResult, when: 'before' | 'after', key: string): EpisodeCell[] | null {
  const e: RunEpisodes | undefined = r.episodes;
  if (!e || typeof e !== 'object' || !e[when] || typeof e[when] !== 'object') return null;
  const list = e[when][key];
  if (list === undefined) return null;
  if (!Array.isArray(list)) throw new Error(`results: episodes.${when}.${key} of ${r.method} seed ${r.seed} is not a list`);
  for (const c of list) {
    if (
      !c ||
      typeof c.taskId !== 'string' ||
      typeof c.harnessId !== 'string' ||
      !Number.isInteger(c.sample) ||
      typeof c.pass !== 'boolean' ||
      typeof c.score !== 'number' ||
      !(c.score >= 0 && c.score <= 1)
    ) {
      throw new Error(`results: a malformed episode in episodes.${when}.${key} of ${r.method} seed ${r.seed}: ${JSON.stringify(c)}`);
    }
  }
  return list;
}

function cellOf(key: string, values: readonly Num[], episodes: EpisodeCell[] | null): ResultsCell {
  const v = finiteNums(values);
  const ms = v.length ? meanStdSeeds(v) : null;
  const text = formatPct(v.length ? v : [NaN]);
  const base = { key, text, mean: ms ? ms.mean : null, std: ms && ms.n > 1 ? ms.std : null, n: v.length };
  if (!episodes) return { ...base, episodes: null, passes: null, interval: null, score: null };
  const passes = episodes.filter((e) => e.pass).length;
  const w = wilson(passes, episodes.length);
  return {
    ...base,
    episodes: episodes.length,
    passes,
    interval: episodes.length ? { lo: w.lo, hi: w.hi } : null,
    score: episodes.length ? episodes.reduce((a, e) => a + e.score, 0) / episodes.length : null,
  };
}

/** Episodes of one column over runs, tagged by run; null when no run records that column. */
function pooled(runs: readonly RunResult[], when: 'before' | 'after', key: string, dedupeBySeed: boolean): EpisodeCell[] | null {
  let any = false;
  const out: EpisodeCell[] = [];
  const seen = new Set<string>();
  for (const r of runs) {
    const list = episodesOf(r, when, key);
    if (!list) continue;
    any = true;
    for (const c of list) {
      // Methods of one seed share the starting checkpoint and its evaluation: count it once
      // (the first run's cells; identical to the others' where they reuse it, beforeReusedFrom).
      const k = `${r.seed}\u0000${c.taskId}\u0000${c.harnessId}\u0000${c.sample}`;
      if (dedupeBySeed && seen.has(k)) continue;
      seen.add(k);
      out.push(c);
    }
  }
  return any ? out : null;
}

/** The before→after comparison of one column over a method's runs (a run is a seed). */
function pairedOf(runs: readonly RunResult[], key: string): Comparison | null {
  const cells: PairedCell[] = [];
  for (const r of runs) {
    const before = episodesOf(r, 'before', key);
    const after = episodesOf(r, 'after', key);
    if (!before || !after) continue;
    for (const c of pairCells(before, after).cells) cells.push({ ...c, run: r.seed });
  }
  return cells.length ? comparePaired(cells) : null;
}

/**
 * The results table of an experiment: a starting-checkpoint row (every run's 'before'
 * evaluation, one per seed) and one row per method (its runs' 'after', with their own
 * 'before' and the paired difference). pass@1 is the mean ± std over seeds of the runs'
 * values; episodes, Wilson interval and mean score pool the per-episode outcomes over seeds;
 * the paired difference has its interval over seeds and configurations (seed_stats.comparePaired).
 * @throws Error on malformed per-episode outcomes (a producer bug, named with its run)
 */
export function resultsTable(res: { spec: string; evalSet: string; runs: readonly RunResult[] }): ResultsTable {
  const runs = res.runs;
  const bb = [...new Set(runs.flatMap((r) => [...Object.keys(r.after.blackbox), ...Object.keys(r.before.blackbox)]))].sort();
  const columns: ResultsColumn[] = [
    { key: 'base', label: 'base' },
    { key: 'inSpace', label: 'in-space' },
    ...bb.map((b) => ({ key: b, label: b })),
    { key: 'train', label: 'train harnesses' },
  ];
  const cells = (rs: readonly RunResult[], when: 'before' | 'after', dedupe: boolean) =>
    columns.map((c) =>
      cellOf(
        c.key,
        rs.map((r) => cellValue(r, when, c.key)),
        pooled(rs, when, c.key, dedupe),
      ),
    );
  const rows: ResultsRow[] = [];
  if (runs.length) {
    // Methods of one seed that start from the same checkpoint share its evaluation (the later
    // methods' base, in-space and black-box cells are the first's, reused: beforeReusedFrom):
    // one row per starting checkpoint, one run per seed, so mean ± std is over seeds. The
    // training-harness column differs by method (each its own training set), so a starting row
    // has it only when one method starts there.
    const starts = new Map<string, RunResult[]>();
    for (const r of runs) {
      const k = r.startingCheckpoint ?? '';
      starts.set(k, [...(starts.get(k) ?? []), r]);
    }
    for (const [name, rs] of starts) {
      const firstPerSeed = new Map<number, RunResult>();
      for (const r of rs) if (!firstPerSeed.has(r.seed)) firstPerSeed.set(r.seed, r);
      const oneMethod = byMethod(rs).size === 1;
      const start = cells([...firstPerSeed.values()], 'before', true).map((c, i) =>
        columns[i].key === 'train' && !oneMethod ? cellOf('train', [], null) : c,
      );
      const label = starts.size === 1 ? 'starting checkpoint' : `starting checkpoint '${name}'`;
      rows.push({ label, seeds: firstPerSeed.size, kind: 'start', before: null, after: start, paired: null });
    }
  }
  for (const [method, rs] of byMethod(runs)) {
    rows.push({
      label: method,
      seeds: rs.length,
      kind: 'method',
      before: cells(rs, 'before', false),
      after: cells(rs, 'after', false),
      paired: columns.map((c) => pairedOf(rs, c.key)),
    });
  }
  return {
    title: `pass@1 (%) — ${res.spec}; in-space set: ${res.evalSet}; mean ± std over seeds`,
    columns,
    rows,
    hasEpisodes: runs.some((r) => r.episodes !== undefined && r.episodes !== null),
  };
}

/** One method against the reference method (the spec's first) on the same cells after RL. */
interface MethodComparison {
  method: string;
  reference: string;
  /** Per column (resultsTable's order, the training-harness column aside: its cells differ by method), null when nothing pairs. */
  paired: (Comparison | null)[];
  /** Per column as `paired`: the paired cells in which either method passes (0: not measurable). */
  passes: number[];
}

/**
 * Between methods, after RL: each method against the reference (the first method), on the same
 * (task, harness, sample) cells of the same seed — the comparison the paper's claims are about
 * (e.g. harness scaling vs single-harness RL in-space). Cells pair per seed (stats.pairCells:
 * reference as "before", the method as "after") and the interval covers seeds and
 * configurations (seed_stats.comparePaired). Seeds where either method has no run are left out.
 * @returns one entry per non-reference method; [] for fewer than two methods
 */
export function methodComparisons(runs: readonly RunResult[], columns: readonly ResultsColumn[]): MethodComparison[] {
  const methods = [...byMethod(runs)];
  if (methods.length < 2) return [];
  const [reference, refRuns] = methods[0];
  return methods.slice(1).map(([method, rs]) => {
    const perColumn = columns
      .filter((c) => c.key !== 'train')
      .map((c) => {
        const cells: PairedCell[] = [];
        for (const r of rs) {
          const ref = refRuns.find((x) => x.seed === r.seed);
          const a = ref && episodesOf(ref, 'after', c.key);
          const b = episodesOf(r, 'after', c.key);
          if (a && b) for (const cell of pairCells(a, b).cells) cells.push({ ...cell, run: r.seed });
        }
        return { paired: cells.length ? comparePaired(cells) : null, passes: cells.filter((x) => x.before.pass || x.after.pass).length };
      });
    return { method, reference, paired: perColumn.map((x) => x.paired), passes: perColumn.map((x) => x.passes) };
  });
}

/** A between-methods difference in the words of the app's between-methods panel: "not measurable" when no paired episode passes under either method. */
export function betweenText(paired: Comparison | null, passes: number): string {
  if (paired && directionOf(paired, passes) === 'not measurable')
    return 'not measurable: every episode fails under both (a floor, not a null)';
  return pairedText(paired);
}

const pct1 = (x: number) => (100 * x).toFixed(1);

/** "[31.2, 49.0] n=96" or "[n/a]": a cell's Wilson interval and pooled episode count. */
export function intervalText(c: ResultsCell): string {
  return c.interval && c.episodes !== null ? `[${pct1(c.interval.lo)}, ${pct1(c.interval.hi)}] n=${c.episodes}` : '[n/a]';
}

/** A comparison in points of pass@1 with its interval over seeds (seed_stats.comparisonText). */
const pairedText = comparisonText;

/** "0.42" mean verifier score, or "n/a". */
export function scoreText(c: ResultsCell): string {
  return c.score === null ? 'n/a' : c.score.toFixed(2);
}

/** Why a before → after difference has no number: every episode fails, before and after (the between-methods panel's reason too). */
const FLOOR = 'every episode fails under both, before and after training (a floor, not a null)';

/**
 * The paired Δ (after − before) of a table cell: "not measurable" with its reason when no episode
 * passes before or after training (a floor: more seeds would not decide it), else the interval
 * over seeds and whether it is decided (seed_stats.ts comparisonText); "n/a" without
 * per-episode outcomes.
 */
export function deltaText(
  paired: Comparison | null,
  before: ResultsCell | null | undefined,
  after: ResultsCell,
): { text: string; measurable: boolean } {
  const passes = before?.passes == null || after.passes == null ? null : before.passes + after.passes;
  if (paired && passes !== null && directionOf(paired, passes) === 'not measurable')
    return { text: `not measurable: ${FLOOR}`, measurable: false };
  return { text: pairedText(paired), measurable: true };
}

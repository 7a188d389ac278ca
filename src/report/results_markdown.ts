/**
 * Results of an experiment: one record per (method, seed) run, aggregated into one data model
 * (`resultsTable`: rows × columns with pass@1 mean ± std over seeds, the episode count, a 95 %
 * Wilson interval, the mean verifier score, and each method's paired before→after difference
 * with its interval over training runs and configurations, seed_stats.ts) that two thin renderers show: the
 * markdown of results.md (`markdownTable`) and the app's Results view (src/app/views/results.ts).
 * Also JSON and CSV (docs/ARCHITECTURE.md "Experiments, evaluation and results"). Statistics: src/experiment/stats.ts.
 *
 * Intervals, episode counts, scores and paired differences need the per-episode outcomes in
 * `RunResult.episodes` (optional); without them those cells read "n/a".
 *
 * Pure module: the CLI writes the files, the app renders the same tables.
 */
import type { RunSegment } from './results_schema';
import type { EpisodeCell, ExperimentResults, PassAt1, RunEpisodes, RunResult } from './results_schema';
import { meanStd as meanStdSeeds, pairCells, wilson, type PairedCell } from './stats';
import { comparePaired, comparisonText, type Comparison } from './seed_stats';

export type { EpisodeCell, ExperimentResults, RunResult } from './results_schema';

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

/** Black-box ids present in any run, sorted. */
function blackboxIds(runs: readonly RunResult[]): string[] {
  const s = new Set<string>();
  for (const r of runs) for (const k of Object.keys(r.after.blackbox)) s.add(k);
  return [...s].sort();
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
      const start = cells([...firstPerSeed.values()], 'before', true).map((c, i) => (columns[i].key === 'train' && !oneMethod ? cellOf('train', [], null) : c));
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
  return methods.slice(1).map(([method, rs]) => ({
    method,
    reference,
    paired: columns
      .filter((c) => c.key !== 'train')
      .map((c) => {
        const cells: PairedCell[] = [];
        for (const r of rs) {
          const ref = refRuns.find((x) => x.seed === r.seed);
          const a = ref && episodesOf(ref, 'after', c.key);
          const b = episodesOf(r, 'after', c.key);
          if (a && b) for (const cell of pairCells(a, b).cells) cells.push({ ...cell, run: r.seed });
        }
        return cells.length ? comparePaired(cells) : null;
      }),
  }));
}

const pct1 = (x: number) => (100 * x).toFixed(1);

/** "[31.2, 49.0] n=96" or "[n/a]": a cell's Wilson interval and pooled episode count. */
export function intervalText(c: ResultsCell): string {
  return c.interval && c.episodes !== null ? `[${pct1(c.interval.lo)}, ${pct1(c.interval.hi)}] n=${c.episodes}` : '[n/a]';
}

/** A comparison in points of pass@1 with its interval over seeds (seed_stats.comparisonText). */
export const pairedText = comparisonText;

/** "0.42" mean verifier score, or "n/a". */
export function scoreText(c: ResultsCell): string {
  return c.score === null ? 'n/a' : c.score.toFixed(2);
}

/**
 * The markdown of results.md, rendering `resultsTable`: pass@1 with intervals per method (plus
 * the starting checkpoint), the paired before→after differences, and the mean verifier score.
 */
export function markdownTable(res: ExperimentResults): string {
  const t = resultsTable(res);
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const rule = (n: number, left: number) => line(Array.from({ length: n }, (_, i) => (i < left ? '---' : '---:')));
  const labels = t.columns.map((c) => c.label);
  const out = [
    `${t.title}; [lo, hi] = 95 % Wilson interval of the pass rate over the n episodes pooled over seeds`,
    '',
    line(['method', 'seeds', ...labels]),
    rule(labels.length + 2, 2),
    ...t.rows.map((r) => line([r.label, String(r.seeds), ...r.after.map((c) => `${c.text} ${intervalText(c)}`)])),
    '',
    `Before → after, paired on the same (task, harness, sample) cells of each seed: Δ pass@1 in points, 95 % t-interval over training runs (seeds) and configurations (seed_stats.ts: two-way random effects, Satterthwaite df); "decided" when it excludes 0, else the seeds that would decide it at this effect and spread.`,
    '',
    line(['method', ...labels]),
    rule(labels.length + 1, 1),
    ...t.rows.filter((r) => r.kind === 'method').map((r) => line([r.label, ...r.paired!.map(pairedText)])),
    '',
    'Mean verifier score (partial credit in [0, 1], 0 for doing nothing), pooled over seeds: after (before).',
    '',
    line(['method', ...labels]),
    rule(labels.length + 1, 1),
    ...t.rows.map((r) => line([r.label, ...r.after.map((c, i) => (r.before ? `${scoreText(c)} (${scoreText(r.before[i])})` : scoreText(c)))])),
  ];
  const between = methodComparisons(res.runs, t.columns);
  if (between.length) {
    const cols = t.columns.filter((c) => c.key !== 'train').map((c) => c.label);
    out.push(
      '',
      `Between methods, after RL: each method − ${between[0].reference}, paired on the same (task, harness, sample) cells of the same seed: Δ pass@1 in points, 95 % t-interval over seeds and configurations.`,
      '',
      line(['method', ...cols]),
      rule(cols.length + 1, 1),
      ...between.map((b) => line([b.method, ...b.paired.map(pairedText)])),
    );
  }
  if (!t.hasEpisodes) out.push('', 'n/a: these results carry no per-episode outcomes (RunResult.episodes), so intervals, scores and paired tests cannot be computed.');
  const reuse = beforeReuseNote(res.runs);
  if (reuse) out.push('', `Note: ${reuse}`);
  return out.join('\n');
}

/**
 * The note on 'before' evaluations reused across methods (RunResult.beforeReusedFrom), for all
 * runs at once: a lead sentence, one markdown bullet per reusing run ("- scaling, seed 0: reused
 * from single, 36 episodes") and why the cells are identical; null when no run reused one.
 */
export function beforeReuseNote(runs: readonly RunResult[]): string | null {
  const reused = runs.filter((r) => r.beforeReusedFrom);
  if (!reused.length) return null;
  return [
    "the 'before' episodes under the base harness, the in-space set and the black-box harnesses were evaluated once per starting point and reused:",
    '',
    ...reused.map((r) => `- ${r.method}, seed ${r.seed}: reused from ${r.beforeReusedFrom!.method}, ${r.beforeReusedFrom!.episodes} episodes`),
    '',
    'Each reusing run had the same starting parameters, tasks, harnesses, samples and seeds as its source, so those before cells are identical across methods; training harnesses outside them were evaluated per method.',
  ].join('\n');
}

/**
 * One CSV line per run with every number (RFC 4180 quoting). Behaviour columns are the after
 * evaluation's `RunResult.behaviour.after`: `*_per_episode_after` = mean count per evaluation
 * episode (not the parse-error rate per policy turn that `hlab evaluate` reports);
 * `recovery_rate_after` = recovered / episodes with something to recover from, in [0, 1].
 */
export function resultsCsv(res: ExperimentResults): string {
  const bb = blackboxIds(res.runs);
  const head = [
    'method',
    'algorithm',
    'seed',
    'rl_steps',
    'optimizer_steps',
    'skipped_optimizer_steps',
    'rl_steps_without_update',
    'base_before',
    'base_after',
    'in_space_before',
    'in_space_after',
    ...bb.flatMap((b) => [`${b}_before`, `${b}_after`]),
    'train_harnesses_before',
    'train_harnesses_after',
    'parse_errors_per_episode_after',
    'workflow_violations_per_episode_after',
    'recovery_rate_after',
    'state_tracking_errors_per_episode_after',
    'seconds',
  ];
  const q = (v: string | number) => {
    const s = String(v);
    return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  const lines = [head.join(',')];
  for (const r of res.runs) {
    lines.push(
      [
        r.method,
        r.algorithm,
        r.seed,
        r.rlSteps,
        r.optimizerSteps,
        r.skippedOptimizerSteps,
        r.rlStepsWithoutUpdate,
        r.before.base,
        r.after.base,
        r.before.inSpace,
        r.after.inSpace,
        ...bb.flatMap((b) => [r.before.blackbox[b] ?? '', r.after.blackbox[b] ?? '']),
        r.trainHarnesses.before,
        r.trainHarnesses.after,
        r.behaviour.after.parseErrors,
        r.behaviour.after.workflowViolations,
        r.behaviour.after.recoveryRate,
        r.behaviour.after.stateTrackingErrors,
        r.seconds,
      ]
        .map(q)
        .join(','),
    );
  }
  return lines.join('\n') + '\n';
}

/** A finished 'before' evaluation of a run (the runner's `eval` event). */
export interface BeforeEval {
  runIndex: number;
  method: string;
  seed: number;
  passAt1: PassAt1;
  training: number;
}

/**
 * The results of an interrupted experiment for its table: the finished runs plus, for a run
 * stopped after its 'before' evaluation, a row with that evaluation and no 'after' values
 * (shown as "—"), so the work already done is not hidden by an empty table.
 */
export function withUnfinishedRuns(res: ExperimentResults, before: readonly BeforeEval[]): ExperimentResults {
  const NaNs = { parseErrors: NaN, workflowViolations: NaN, recoveryRate: NaN, stateTrackingErrors: NaN };
  const extra: RunResult[] = [];
  const seen = new Set<number>();
  for (const b of before) {
    if (b.runIndex < res.runs.length || seen.has(b.runIndex)) continue;
    seen.add(b.runIndex);
    extra.push({
      method: b.method,
      algorithm: 'none',
      seed: b.seed,
      // The stopped run's RL steps are in its checkpoint, not here: not measured, never 0.
      rlSteps: NaN,
      optimizerSteps: NaN,
      skippedOptimizerSteps: NaN,
      rlStepsWithoutUpdate: NaN,
      before: b.passAt1,
      after: { base: NaN, inSpace: NaN, blackbox: Object.fromEntries(Object.keys(b.passAt1.blackbox).map((k) => [k, NaN])) },
      trainHarnesses: { before: b.training, after: NaN },
      behaviour: { before: NaNs, after: NaNs },
      perHarness: {},
      seconds: NaN,
    });
  }
  return extra.length ? { ...res, runs: [...res.runs, ...extra] } : res;
}

/**
 * The results.md text naming every segment of an experiment (issue 24: after a resume on
 * another engine the file named only the last engine and the first starting checkpoint). One
 * line per segment, positions 1-based: `1. ENGINE — run 1, step 0 → run 1, step 3; from START`.
 * @param segments in call order (ExperimentOutput.segments)
 */
export function segmentsText(segments: readonly RunSegment[]): string {
  const at = (p: RunSegment['from']) => `run ${p.runIndex + 1}, step ${p.step}`;
  // A segment that stopped at the start of run k+1 ended with run k: say so, not "run k+1, step 0".
  const end = (p: RunSegment['to']) => (p.step === 0 && p.runIndex > 0 ? `the end of run ${p.runIndex}` : at(p));
  return [
    `Segments (${segments.length}; one per \`hlab run\` call):`,
    ...segments.map((g, i) => `${i + 1}. ${g.engine === 'unrecorded' ? 'engine not recorded' : g.describe} — ${at(g.from)} → ${end(g.to)}; from ${g.start}`),
  ].join('\n');
}

/**
 * One run's line of results.md "Steps per run" and the console (results_file.ts step vocabulary),
 * e.g. "m, seed 0: 200 SFT steps (loss 1.234 → 0.456, mean of the first → last 10 %), then
 * 60 RL steps; 300 optimizer steps in all (SFT and RL), …". Counts not recorded say so, never 0.
 */
export function runStepsLine(
  r: Pick<RunResult, 'method' | 'seed' | 'rlSteps' | 'optimizerSteps' | 'skippedOptimizerSteps' | 'rlStepsWithoutUpdate' | 'sft' | 'sampledEpisodes'>,
): string {
  const n = (x: number) => (Number.isFinite(x) ? String(x) : 'not recorded');
  const l = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : 'not recorded');
  const sampled = r.sampledEpisodes !== undefined && Number.isFinite(r.sampledEpisodes) ? `, ${r.sampledEpisodes} training episodes sampled` : '';
  const rest = `${n(r.skippedOptimizerSteps)} skipped optimizer steps, ${n(r.rlStepsWithoutUpdate)} RL steps without an update${sampled}`;
  if (!r.sft) return `${r.method}, seed ${r.seed}: ${n(r.rlSteps)} RL steps, ${n(r.optimizerSteps)} optimizer steps, ${rest}`;
  return (
    `${r.method}, seed ${r.seed}: ${r.sft.steps} SFT steps (loss ${l(r.sft.firstLoss)} → ${l(r.sft.lastLoss)}, mean of the first → last 10 %), ` +
    `then ${n(r.rlSteps)} RL steps; ${n(r.optimizerSteps)} optimizer steps in all (SFT and RL), ${rest}`
  );
}

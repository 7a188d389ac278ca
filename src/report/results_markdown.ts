/**
 * The files `hlab run` writes besides results.json, from the results table (results_table.ts):
 * the markdown of results.md (`markdownTable`, the steps per run, the segments, the note on
 * reused 'before' evaluations) and results.csv (`resultsCsv`). Pure module: the CLI writes the
 * files; the app's Results view shows the same table and offers the same CSV.
 */
import type { ExperimentResults, PassAt1, RunResult, RunSegment } from './results_schema';
import { betweenText, deltaText, intervalText, methodComparisons, resultsTable, scoreText } from './results_table';

/** Black-box ids present in any run, sorted. */
function blackboxIds(runs: readonly RunResult[]): string[] {
  const s = new Set<string>();
  for (const r of runs) for (const k of Object.keys(r.after.blackbox)) s.add(k);
  return [...s].sort();
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
    ...t.rows
      .filter((r) => r.kind === 'method')
      .map((r) => line([r.label, ...r.paired!.map((p, i) => deltaText(p, r.before?.[i], r.after[i]).text)])),
    '',
    'Mean verifier score (partial credit in [0, 1], 0 for doing nothing), pooled over seeds: after (before).',
    '',
    line(['method', ...labels]),
    rule(labels.length + 1, 1),
    ...t.rows.map((r) =>
      line([r.label, ...r.after.map((c, i) => (r.before ? `${scoreText(c)} (${scoreText(r.before[i])})` : scoreText(c)))]),
    ),
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
      ...between.map((b) => line([b.method, ...b.paired.map((p, i) => betweenText(p, b.passes[i]))])),
    );
  }
  if (!t.hasEpisodes)
    out.push(
      '',
      'n/a: these results carry no per-episode outcomes (RunResult.episodes), so intervals, scores and paired tests cannot be computed.',
    );
  const reuse = beforeReuseNote(res.runs);
  if (reuse) out.push('', `Note: ${reuse}`);
  return out.join('\n');
}

/**
 * The note on 'before' evaluations reused across methods (RunResult.beforeReusedFrom,
 * beforeTrainReusedFrom), for all runs at once: a lead sentence, one markdown bullet per reusing
 * run ("- scaling, seed 0: reused from single, 36 episodes") and why the cells are identical;
 * null when no run reused one.
 */
export function beforeReuseNote(runs: readonly RunResult[]): string | null {
  const reused = runs.filter((r) => r.beforeReusedFrom || r.beforeTrainReusedFrom);
  if (!reused.length) return null;
  const train = reused.some((r) => r.beforeTrainReusedFrom);
  const bullet = (r: RunResult) =>
    [
      r.beforeReusedFrom && `reused from ${r.beforeReusedFrom.method}, ${r.beforeReusedFrom.episodes} episodes`,
      r.beforeTrainReusedFrom &&
        `training harnesses reused from ${r.beforeTrainReusedFrom.method}, ${r.beforeTrainReusedFrom.episodes} episodes`,
    ]
      .filter(Boolean)
      .join('; ');
  return [
    "the 'before' episodes under the base harness, the in-space set and the black-box harnesses were evaluated once per starting point and reused" +
      (train ? ", and those under a method's training harnesses once per starting point and training set:" : ':'),
    '',
    ...reused.map((r) => `- ${r.method}, seed ${r.seed}: ${bullet(r)}`),
    '',
    train
      ? 'Each reusing run had the same starting parameters, tasks, harnesses, samples and seeds as its source, so those before cells are identical across methods; training harnesses outside them were evaluated once per training set.'
      : 'Each reusing run had the same starting parameters, tasks, harnesses, samples and seeds as its source, so those before cells are identical across methods; training harnesses outside them were evaluated per method.',
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
 * The results.md text naming every segment of an experiment, so a run resumed on another
 * engine names each engine and each starting checkpoint. One
 * line per segment, positions 1-based: `1. ENGINE — run 1, step 0 → run 1, step 3; from START`.
 * @param segments in call order (ExperimentOutput.segments)
 */
export function segmentsText(segments: readonly RunSegment[]): string {
  const at = (p: RunSegment['from']) => `run ${p.runIndex + 1}, step ${p.step}`;
  // A segment that stopped at the start of run k+1 ended with run k: say so, not "run k+1, step 0".
  const end = (p: RunSegment['to']) => (p.step === 0 && p.runIndex > 0 ? `the end of run ${p.runIndex}` : at(p));
  return [
    `Segments (${segments.length}; one per \`hlab run\` call):`,
    ...segments.map(
      (g, i) =>
        `${i + 1}. ${g.engine === 'unrecorded' ? 'engine not recorded' : g.describe} — ${at(g.from)} → ${end(g.to)}; from ${g.start}`,
    ),
  ].join('\n');
}

/**
 * The time an experiment took, in words: the page seconds of its last call and, when they differ,
 * the sum of its runs' seconds, which counts every call segment of every run (runner.ts keeps each
 * run's time across `--resume`; `hlab merge` sums only the chunks' last calls). A resumed or merged
 * result would otherwise report the last call's time as the experiment's.
 * @param pageSeconds the page seconds of the last call (results.json `seconds`), s
 * @param runs the runs with their seconds over all segments, s
 * @param lastCalls what `pageSeconds` timed: 'the last call', or for `hlab merge` "the chunks' last calls"
 * @returns e.g. "1,489 s over every segment of its runs (256 s of them in the last call)"
 */
export function experimentTime(pageSeconds: number, runs: readonly { seconds: number }[], lastCalls = 'the last call'): string {
  const all = runs.reduce((a, r) => a + (Number.isFinite(r.seconds) ? r.seconds : 0), 0);
  const s = (x: number) => `${Math.round(x).toLocaleString('en-US')} s`;
  // Within 2 % (or 5 s) the two are one time measured twice: say it once.
  if (!runs.length || Math.abs(all - pageSeconds) <= Math.max(5, 0.02 * all)) return `${s(pageSeconds)} in the page`;
  return `${s(all)} over every segment of its runs (${s(pageSeconds)} of them in ${lastCalls})`;
}

/**
 * One run's line of results.md "Steps per run" and the console (results_schema.ts step vocabulary),
 * e.g. "m, seed 0: 200 SFT steps (loss 1.234 → 0.456, mean of the first → last 10 %), then
 * 60 RL steps; 300 optimizer steps in all (SFT and RL), …". Counts not recorded say so, never 0.
 */
export function runStepsLine(
  r: Pick<
    RunResult,
    'method' | 'seed' | 'rlSteps' | 'optimizerSteps' | 'skippedOptimizerSteps' | 'rlStepsWithoutUpdate' | 'sft' | 'sampledEpisodes'
  >,
): string {
  const n = (x: number) => (Number.isFinite(x) ? String(x) : 'not recorded');
  const l = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : 'not recorded');
  const sampled =
    r.sampledEpisodes !== undefined && Number.isFinite(r.sampledEpisodes) ? `, ${r.sampledEpisodes} training episodes sampled` : '';
  const rest = `${n(r.skippedOptimizerSteps)} skipped optimizer steps, ${n(r.rlStepsWithoutUpdate)} RL steps without an update${sampled}`;
  if (!r.sft) return `${r.method}, seed ${r.seed}: ${n(r.rlSteps)} RL steps, ${n(r.optimizerSteps)} optimizer steps, ${rest}`;
  return (
    `${r.method}, seed ${r.seed}: ${r.sft.steps} SFT steps (loss ${l(r.sft.firstLoss)} → ${l(r.sft.lastLoss)}, mean of the first → last 10 %), ` +
    `then ${n(r.rlSteps)} RL steps; ${n(r.optimizerSteps)} optimizer steps in all (SFT and RL), ${rest}`
  );
}

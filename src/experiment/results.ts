/**
 * Results of an experiment: one record per (method, seed) run, aggregated into mean ± std over
 * seeds and written as JSON, CSV and a paper-style markdown table (DESIGN.md §13).
 *
 * Pure module: the CLI writes the files, the app renders the same tables.
 */

/** pass@1 = mean success over test tasks × samples, in [0, 1]. */
export interface PassAt1 {
  /** The base harness S0-T0-O0-C0-W0. */
  base: number;
  /** Held-out in-space configurations (the evaluated set is stated in `evalSet`). */
  inSpace: number;
  /** Per black-box harness id. */
  blackbox: Record<string, number>;
}

/** Behaviour metrics averaged over evaluation episodes. */
export interface BehaviourMetrics {
  /** Parse errors per episode. */
  parseErrors: number;
  /** Workflow violations per episode. */
  workflowViolations: number;
  /** Fraction of episodes with a parse error, violation or tool error that later recovered (NaN when no episode had one). */
  recoveryRate: number;
  /** State-tracking errors per episode. */
  stateTrackingErrors: number;
}

export interface RunResult {
  method: string;
  algorithm: 'grpo' | 'ppo' | 'sft' | 'none';
  seed: number;
  /** Optimizer steps taken (skipped non-finite steps excluded). */
  steps: number;
  /** Steps skipped because the loss or gradient was not finite. */
  skippedSteps: number;
  before: PassAt1;
  after: PassAt1;
  /** pass@1 on the training harnesses, before and after (the learning signal of `quick`). */
  trainHarnesses: { before: number; after: number };
  behaviour: { before: BehaviourMetrics; after: BehaviourMetrics };
  /** Per-harness pass@1 after training, id → value. */
  perHarness: Record<string, number>;
  /** Seconds of wall-clock time. */
  seconds: number;
}

export interface ExperimentResults {
  resultsVersion: 1;
  spec: string;
  /** How the in-space set was evaluated, e.g. 'all 225' or 'stratified: 2 per distance, seed 0 (6 configs)'. */
  evalSet: string;
  machine: string;
  runs: RunResult[];
}

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
export function byMethod(runs: readonly RunResult[]): Map<string, RunResult[]> {
  const m = new Map<string, RunResult[]>();
  for (const r of runs) {
    const list = m.get(r.method) ?? [];
    list.push(r);
    m.set(r.method, list);
  }
  return m;
}

/**
 * Paper-style markdown table: one row per method (plus the starting checkpoint), columns
 * base / in-space / each black-box harness / training harnesses, pass@1 in % as mean ± std
 * over seeds.
 */
export function markdownTable(res: ExperimentResults): string {
  const bb = blackboxIds(res.runs);
  const head = ['method', 'seeds', 'base', 'in-space', ...bb, 'train harnesses'];
  const rows: string[][] = [];
  const groups = byMethod(res.runs);
  const first = res.runs[0];
  if (first) {
    const all = res.runs;
    rows.push([
      'starting checkpoint',
      String(new Set(all.map((r) => r.seed)).size),
      formatPct(all.map((r) => r.before.base)),
      formatPct(all.map((r) => r.before.inSpace)),
      ...bb.map((b) => formatPct(all.map((r) => r.before.blackbox[b] ?? NaN))),
      formatPct(all.map((r) => r.trainHarnesses.before)),
    ]);
  }
  for (const [method, runs] of groups) {
    rows.push([
      method,
      String(runs.length),
      formatPct(runs.map((r) => r.after.base)),
      formatPct(runs.map((r) => r.after.inSpace)),
      ...bb.map((b) => formatPct(runs.map((r) => r.after.blackbox[b] ?? NaN))),
      formatPct(runs.map((r) => r.trainHarnesses.after)),
    ]);
  }
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [
    `pass@1 (%) — ${res.spec}; in-space set: ${res.evalSet}; mean ± std over seeds`,
    '',
    line(head),
    line(head.map((_, i) => (i < 2 ? '---' : '---:'))),
    ...rows.map(line),
  ].join('\n');
}

/** One CSV line per run with every number (RFC 4180 quoting). */
export function resultsCsv(res: ExperimentResults): string {
  const bb = blackboxIds(res.runs);
  const head = [
    'method', 'algorithm', 'seed', 'steps', 'skipped_steps',
    'base_before', 'base_after', 'in_space_before', 'in_space_after',
    ...bb.flatMap((b) => [`${b}_before`, `${b}_after`]),
    'train_harnesses_before', 'train_harnesses_after',
    'parse_errors_after', 'workflow_violations_after', 'recovery_rate_after', 'state_tracking_errors_after', 'seconds',
  ];
  const q = (v: string | number) => {
    const s = String(v);
    return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  const lines = [head.join(',')];
  for (const r of res.runs) {
    lines.push(
      [
        r.method, r.algorithm, r.seed, r.steps, r.skippedSteps,
        r.before.base, r.after.base, r.before.inSpace, r.after.inSpace,
        ...bb.flatMap((b) => [r.before.blackbox[b] ?? '', r.after.blackbox[b] ?? '']),
        r.trainHarnesses.before, r.trainHarnesses.after,
        r.behaviour.after.parseErrors, r.behaviour.after.workflowViolations, r.behaviour.after.recoveryRate,
        r.behaviour.after.stateTrackingErrors, r.seconds,
      ].map(q).join(','),
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
      method: b.method, algorithm: 'none', seed: b.seed, steps: 0, skippedSteps: 0,
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

/**
 * Finished experiment outputs kept in the browser (issue 7: the Results and Trajectories views
 * read them), in an IndexedDB database of their own ('hlab-results', through `idb`), and the
 * validation of results files opened from disk.
 *
 * Three JSON shapes are accepted (`parseResultsFile`):
 *   - the CLI's `out/<name>/results.json` (src/experiment/results_json.ts ResultsFile):
 *     ExperimentResults fields at the top level, plus command, status, warnings, starts,
 *     seconds, curves, trajectories and (newer files) specJson;
 *   - `ExperimentOutputJson`: the app's form, ExperimentOutput (src/experiment/runner.ts) with
 *     `results` nested, plus optional `trajectories` and `command` (what the Results view's JSON
 *     export writes, and what the Train view saves);
 *   - `hlab evaluate --json`'s report (src/experiment/evaluate_report.ts): no runs; kept as
 *     `evaluation` (its per-set pass@1, per-family tables and entropy) for the Results view.
 * All normalise to ExperimentOutputJson. The results object and its runs are read with the one
 * schema the CLI writes (src/experiment/results_file.ts): non-finite numbers are `null` in JSON
 * and NaN once read (the views show "—"); the old step names of older files (`steps`,
 * `skippedSteps`) are mapped there (`upgradeRuns`, applied by `withCurrentStepNames` below).
 *
 * The store keeps two object stores: 'outputs' (name → full output) and 'summaries'
 * (name → a few fields), so listing never reads the trajectories of every run.
 */
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import { z } from 'zod';
import type { ExperimentOutput } from '../experiment/runner';
import { ExperimentResultsSchema, upgradeRuns } from '../experiment/results_file';
import { stringifyFinite } from '../util/encoding';

/** Default database name; tests pass their own. */
export const RESULTS_DB = 'hlab-results';
const DB_VERSION = 1;

/** A number, or null where the producer had NaN/±Infinity. */
const num = z.number().nullable();
const int = (min = 0) => z.number().int().min(min);

/** The results object: one schema with the CLI (src/experiment/results_file.ts; NaN ⇄ null, old step names mapped by `upgradeRuns`). */
const ExperimentResults = ExperimentResultsSchema;

/** Metrics of one RL step (src/experiment/runner.ts StepRecord); metrics a producer lacks may be absent. */
const StepRecord = z.looseObject({
  step: int(1),
  reward: num,
  passByHarness: z.record(z.string(), num).optional(),
  policyLoss: num.optional(),
  valueLoss: num.optional(),
  clipFrac: num.optional(),
  approxKl: num.optional(),
  klRef: num.optional(),
  entropy: num.optional(),
  gradNorm: num.optional(),
  tokensPerSec: num.optional(),
});
/** A validation point (src/experiment/validation.ts ValidationPoint); its per-episode cells are not read here. */
const ValidationPoint = z.looseObject({ step: int(0), passAt1: num, score: num.optional(), episodes: int().optional() });
const RunCurves = z.looseObject({ method: z.string(), seed: int(), steps: z.array(StepRecord), validation: z.array(ValidationPoint).optional() });

const Tags = z.looseObject({
  turns: int(),
  toolCalls: int(),
  parseErrors: int(),
  workflowViolations: int(),
  toolErrors: int(),
  recovered: z.boolean().nullable(),
  stateTrackingErrors: int(),
  stateTrackingEvents: z.array(z.string()),
  terminated: z.boolean(),
  truncated: z.boolean(),
  truncationReason: z.string().nullable(),
});

const Turn = z
  .looseObject({
    contextIds: z.array(int()),
    contextOffset: int().default(0),
    actionIds: z.array(int()),
    logprobs: z.array(num),
    kind: z.string(),
  })
  .check((ctx) => {
    if (ctx.value.logprobs.length !== ctx.value.actionIds.length) {
      ctx.issues.push({
        code: 'custom',
        input: ctx.value.logprobs,
        path: ['logprobs'],
        message: `has ${ctx.value.logprobs.length} values but actionIds has ${ctx.value.actionIds.length}`,
      });
    }
  });

const TrajectorySample = z
  .looseObject({
    method: z.string(),
    seed: int(),
    step: int(0),
    index: int().optional(),
    taskId: z.string(),
    suite: z.string().optional(),
    family: z.string(),
    harnessId: z.string(),
    group: z.number().int(),
    reward: num,
    score: num,
    pass: z.boolean(),
    truncated: z.boolean(),
    envFailed: z.boolean().optional(),
    tags: Tags.nullable(),
    advantage: z.union([num, z.array(num)]),
    turns: z.array(Turn),
  })
  .check((ctx) => {
    const a = ctx.value.advantage;
    if (Array.isArray(a)) {
      const n = ctx.value.turns.reduce((s, t) => s + t.actionIds.length, 0);
      if (a.length !== n) ctx.issues.push({ code: 'custom', input: a, path: ['advantage'], message: `has ${a.length} per-token values but the turns have ${n} action tokens` });
    }
  });

const OutputExtras = {
  curves: z.array(RunCurves),
  warnings: z.array(z.string()),
  starts: z.array(z.string()).optional(),
  paramDigests: z.array(z.string()).optional(),
  seconds: num.optional(),
  command: z.string().optional(),
  trajectories: z.array(TrajectorySample).optional(),
};

const FamilyRow = z.looseObject({ passAt1: z.number().min(0).max(1), score: z.number().min(0).max(1), episodes: int(1) });
const SetNums = z.looseObject({ base: num, training: num, inSpace: num, blackbox: z.record(z.string(), num) });

/** `hlab evaluate --json` (evaluate_report.ts CheckpointEvalReport): what the Results view shows of it. */
const EvaluationReport = z.looseObject({
  checkpoint: z.record(z.string(), z.unknown()),
  passAt1: SetNums,
  score: SetNums,
  perHarness: z.record(z.string(), z.looseObject({ passAt1: num, score: num, episodes: int(), parseErrorRate: num })),
  perFamily: z.record(z.string(), z.record(z.string(), FamilyRow)),
  entropy: SetNums.extend({ overall: num }).optional(),
  inSpaceExcluded: z.looseObject({ pretrainMix: int(), mix: z.string() }).optional(),
  episodes: int(),
});

/** The app's form: ExperimentOutput with NaN as null, plus optional trajectories and command (and an evaluation report's contents). */
const ExperimentOutputJsonSchema = z.looseObject({
  status: z.enum(['done', 'interrupted']),
  results: ExperimentResults,
  ...OutputExtras,
  evaluation: EvaluationReport.optional(),
});

/** One (task, harness) cell `hlab run` left out as infeasible (results.json `infeasibleCells`; feasibility.ts ExcludedCell). */
export const InfeasibleCellSchema = z.object({ taskId: z.string(), harnessId: z.string(), reason: z.string(), detail: z.string() });

/** The CLI's results.json: ExperimentResults at the top level (run.ts). */
const CliResultsJson = z.looseObject({
  ...ExperimentResultsSchema.shape,
  status: z.enum(['done', 'interrupted']).optional(),
  ...OutputExtras,
  curves: OutputExtras.curves.optional(),
  warnings: OutputExtras.warnings.optional(),
  infeasibleCells: z.array(InfeasibleCellSchema).optional(),
});

export type ExperimentOutputJson = z.infer<typeof ExperimentOutputJsonSchema>;
export type TrajectorySampleJson = z.infer<typeof TrajectorySample>;
export type EvaluationReportJson = z.infer<typeof EvaluationReport>;

/** An invalid results file or output; `issues` are one line each: `path: what is wrong`. */
export class ResultsFileError extends Error {
  constructor(
    readonly source: string,
    readonly issues: string[],
  ) {
    super(`${source}: ${issues.join('; ')}`);
    this.name = 'ResultsFileError';
  }
}

function formatPath(path: readonly PropertyKey[]): string {
  let s = '';
  for (const p of path) s += typeof p === 'number' ? `[${p}]` : `${s ? '.' : ''}${String(p)}`;
  return s || '(root)';
}

function issuesOf(err: z.ZodError): string[] {
  // A few lines are enough to fix a file; thousands (every token of a bad trajectory) are not.
  const lines = err.issues.slice(0, 5).map((i) => {
    if (i.code === 'invalid_value' && 'values' in i) {
      const got = (i as { input?: unknown }).input;
      return `${formatPath(i.path)}: expected one of ${(i.values as unknown[]).map((v) => JSON.stringify(v)).join(', ')}, got ${got === undefined ? 'nothing' : JSON.stringify(got)?.slice(0, 60)}`;
    }
    return `${formatPath(i.path)}: ${i.message}`;
  });
  if (err.issues.length > 5) lines.push(`… and ${err.issues.length - 5} more`);
  return lines;
}

/** The file with its runs' old step names mapped (results_file.ts `upgradeRuns`, with the file's curves). */
function withCurrentStepNames(o: Record<string, unknown>): Record<string, unknown> {
  const res = o.results as Record<string, unknown> | undefined;
  if (res && typeof res === 'object' && !Array.isArray(res)) return { ...o, results: { ...res, runs: upgradeRuns(res.runs, o.curves) } };
  return 'runs' in o ? { ...o, runs: upgradeRuns(o.runs, o.curves) } : o;
}

/**
 * Validate parsed JSON as a results file of either shape (see the module comment) and
 * normalise it to ExperimentOutputJson.
 * @param source file name for messages
 * @throws ResultsFileError whose message names each bad field by its path in the file
 *   (e.g. `runs[1].after.base: Invalid input: expected number, received string`).
 */
export function parseResultsFile(json: unknown, source = 'results.json'): ExperimentOutputJson {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new ResultsFileError(source, ['(root): expected a JSON object']);
  const o = withCurrentStepNames(json as Record<string, unknown>);
  if ('results' in o) {
    const r = ExperimentOutputJsonSchema.safeParse(o, { reportInput: true });
    if (!r.success) throw new ResultsFileError(source, issuesOf(r.error));
    return r.data;
  }
  if ('perFamily' in o && 'checkpoint' in o) {
    const r = EvaluationReport.safeParse(o, { reportInput: true });
    if (!r.success) throw new ResultsFileError(source, issuesOf(r.error));
    const ck = r.data.checkpoint;
    const ex = r.data.inSpaceExcluded;
    return {
      status: 'done',
      results: {
        resultsVersion: 1,
        spec: `evaluation of ${String(ck.source ?? source)}`,
        evalSet: ex ? `the design's held-out configurations; ${ex.pretrainMix} of the pretraining mix left out (${ex.mix})` : 'not evaluated',
        machine: String(ck.machine ?? 'not recorded'),
        runs: [],
      },
      curves: [],
      warnings: Array.isArray(ck.warnings) ? ck.warnings.map(String) : [],
      evaluation: r.data,
    };
  }
  if (!('runs' in o) && !('resultsVersion' in o)) {
    throw new ResultsFileError(source, ["(root): neither 'runs' (hlab run's results.json), 'results' (an app export) nor 'perFamily' (hlab evaluate --json) is present"]);
  }
  const r = CliResultsJson.safeParse(o, { reportInput: true });
  if (!r.success) throw new ResultsFileError(source, issuesOf(r.error));
  const d = r.data;
  const out: ExperimentOutputJson = {
    status: d.status ?? 'done',
    results: {
      resultsVersion: d.resultsVersion,
      spec: d.spec,
      evalSet: d.evalSet,
      ...(d.evalSetExcluded ? { evalSetExcluded: d.evalSetExcluded } : {}),
      machine: d.machine,
      runs: d.runs,
    },
    curves: d.curves ?? [],
    warnings: d.warnings ?? [],
  };
  if (d.starts) out.starts = d.starts;
  if (d.seconds !== undefined) out.seconds = d.seconds;
  if (d.command !== undefined) out.command = d.command;
  if (d.trajectories) out.trajectories = d.trajectories;
  // The spec that ran (results.json since it carries one; Results shows it, as for the app's saves).
  if (d.specJson !== undefined) out.specJson = d.specJson;
  // The cells left out as infeasible (they explain an evaluation's episode count; app/infeasible_cells.ts reads them).
  return d.infeasibleCells ? Object.assign(out, { infeasibleCells: d.infeasibleCells }) : out;
}

/**
 * Validate a list of run curves (a committed preset's curves.json `curves`) as a results file's `curves`.
 * @throws ResultsFileError naming the bad field
 */
export function parseCurvesJson(json: unknown, source: string): ExperimentOutputJson['curves'] {
  const r = OutputExtras.curves.safeParse(json, { reportInput: true });
  if (!r.success) throw new ResultsFileError(source, issuesOf(r.error));
  return r.data;
}

/**
 * Validate a list of trajectory samples (a committed preset's trajectories.json `trajectories`).
 * @throws ResultsFileError naming the bad field
 */
export function parseTrajectoriesJson(json: unknown, source: string): TrajectorySampleJson[] {
  const r = z.array(TrajectorySample).safeParse(json, { reportInput: true });
  if (!r.success) throw new ResultsFileError(source, issuesOf(r.error));
  return r.data;
}

/**
 * Parse and validate the text of a results file.
 * @throws ResultsFileError naming the JSON syntax error or the bad fields.
 */
export function parseResultsText(text: string, source = 'results.json'): ExperimentOutputJson {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ResultsFileError(source, [`not JSON: ${(e as Error).message.split('\n')[0]}`]);
  }
  return parseResultsFile(json, source);
}

/** JSON text of an output (or part of one) with every non-finite number as null (what parseResultsText reads back). */
export function outputToJsonText(output: ExperimentOutputJson | ExperimentOutput | Partial<ExperimentOutput>, indent = 2): string {
  return stringifyFinite(output, indent);
}

/** What the list shows without loading a whole output. */
export interface RunOutputSummary {
  name: string;
  /** ms since the epoch. */
  savedAt: number;
  spec: string;
  status: 'done' | 'interrupted';
  runs: number;
  methods: string[];
  trajectories: number;
}

interface ResultsDB extends DBSchema {
  outputs: { key: string; value: { name: string; output: ExperimentOutputJson } };
  summaries: { key: string; value: RunOutputSummary };
}

async function open(dbName: string): Promise<IDBPDatabase<ResultsDB>> {
  return openDB<ResultsDB>(dbName, DB_VERSION, {
    upgrade(db) {
      if (!db.objectStoreNames.contains('outputs')) db.createObjectStore('outputs', { keyPath: 'name' });
      if (!db.objectStoreNames.contains('summaries')) db.createObjectStore('summaries', { keyPath: 'name' });
    },
  });
}

function checkName(name: string): void {
  if (typeof name !== 'string' || name.trim() === '' || name.length > 200)
    throw new Error(`results store: name must be a non-empty string of at most 200 characters, got ${JSON.stringify(name)}`);
}

/**
 * Save (or replace) a finished run's output under `name`. Accepts the runner's ExperimentOutput
 * directly (NaN becomes null) or an ExperimentOutputJson; validates it first.
 * @throws Error naming `name` when empty; ResultsFileError naming the bad field of `output`.
 */
export async function saveRunOutput(
  name: string,
  output: ExperimentOutputJson | (ExperimentOutput & { trajectories?: unknown[]; command?: string }),
  dbName = RESULTS_DB,
): Promise<void> {
  checkName(name);
  const clean = parseResultsFile(JSON.parse(outputToJsonText(output, 0)), `output '${name}'`);
  const summary: RunOutputSummary = {
    name,
    savedAt: Date.now(),
    spec: clean.results.spec,
    status: clean.status,
    runs: clean.results.runs.length,
    methods: [...new Set(clean.results.runs.map((r) => r.method))],
    trajectories: clean.trajectories?.length ?? 0,
  };
  const db = await open(dbName);
  try {
    const tx = db.transaction(['outputs', 'summaries'], 'readwrite');
    await Promise.all([tx.objectStore('outputs').put({ name, output: clean }), tx.objectStore('summaries').put(summary), tx.done]);
  } finally {
    db.close();
  }
}

/** Saved outputs, newest first. */
export async function listRunOutputs(dbName = RESULTS_DB): Promise<RunOutputSummary[]> {
  const db = await open(dbName);
  try {
    const all = await db.getAll('summaries');
    return all.sort((a, b) => b.savedAt - a.savedAt || (a.name < b.name ? -1 : 1));
  } finally {
    db.close();
  }
}

/**
 * The output saved under `name` (validated again: the database may hold an older format), or
 * null when there is none.
 * @throws ResultsFileError naming the bad field of a stored output that no longer validates.
 */
export async function loadRunOutput(name: string, dbName = RESULTS_DB): Promise<ExperimentOutputJson | null> {
  checkName(name);
  const db = await open(dbName);
  try {
    const rec = await db.get('outputs', name);
    return rec ? parseResultsFile(rec.output, `saved run '${name}'`) : null;
  } finally {
    db.close();
  }
}

/** Delete the output saved under `name`. @returns whether it existed. */
export async function deleteRunOutput(name: string, dbName = RESULTS_DB): Promise<boolean> {
  checkName(name);
  const db = await open(dbName);
  try {
    const tx = db.transaction(['outputs', 'summaries'], 'readwrite');
    const existed = (await tx.objectStore('summaries').getKey(name)) !== undefined;
    await Promise.all([tx.objectStore('outputs').delete(name), tx.objectStore('summaries').delete(name), tx.done]);
    return existed;
  } finally {
    db.close();
  }
}

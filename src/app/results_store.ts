/**
 * Finished experiment outputs kept in the browser (the Results and Trajectories views read them),
 * in an IndexedDB database of their own ('hlab-results', through `idb`), and the reading of
 * results files opened from disk.
 *
 * Every results file is read with the one schema `hlab run` writes (src/report/results_schema.ts
 * ResultsFileSchema), after src/report/results_upgrade.ts has mapped older shapes onto it (the
 * app's older nested form, old step names, …). `hlab evaluate --json`'s report (no runs) is read
 * with its own schema (src/report/evaluate_report.ts) and kept as `evaluation`. Both come out as
 * `ExperimentOutputJson`, the form the views read: the results nested under `results`.
 *
 * The store keeps two object stores: 'outputs' (name → full output) and 'summaries'
 * (name → a few fields), so listing never reads the trajectories of every run.
 */
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { z } from 'zod';
import type { ExperimentOutput } from '../experiment/runner';
import { EvaluationReportSchema, type EvaluationReportJson } from '../report/evaluate_report';
import { ExperimentResultsSchema, ResultsFileSchema, type TrajectorySampleJson } from '../report/results_schema';
import { upgradeResultsFile } from '../report/results_upgrade';
import { stringifyFinite } from '../util/encoding';

/** Default database name; tests pass their own. */
const RESULTS_DB = 'hlab-results';
const DB_VERSION = 1;

type ResultsFileJson = z.output<typeof ResultsFileSchema>;
/** The fields of the results proper (the rest of a results file says how they came about). */
const RESULTS_KEYS = Object.keys(ExperimentResultsSchema.shape) as Array<keyof typeof ExperimentResultsSchema.shape>;

/** A results file as the views read it: the results nested under `results`, plus an evaluation report's contents. */
export type ExperimentOutputJson = Omit<ResultsFileJson, (typeof RESULTS_KEYS)[number]> & {
  results: z.output<typeof ExperimentResultsSchema>;
  evaluation?: EvaluationReportJson;
};
export type { EvaluationReportJson, TrajectorySampleJson };

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

/** The file's fields split into the results proper and the rest (ExperimentOutputJson). */
function nest(d: ResultsFileJson): ExperimentOutputJson {
  const results: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(d)) {
    if (v === undefined) continue;
    if ((RESULTS_KEYS as string[]).includes(k)) results[k] = v;
    else rest[k] = v;
  }
  return { ...rest, results } as ExperimentOutputJson;
}

/** An evaluation report as an output without runs, the report kept as `evaluation`. */
function evaluationOutput(r: EvaluationReportJson, source: string): ExperimentOutputJson {
  const ck = r.checkpoint;
  const ex = r.inSpaceExcluded;
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
    evaluation: r,
  };
}

/**
 * Validate parsed JSON as a results file of any accepted age or form, or as an evaluation report
 * (see the module comment), and return it as ExperimentOutputJson.
 * @param source file name for messages
 * @throws ResultsFileError whose message names each bad field by its path in the file as given
 *   (e.g. `runs[1].after.base: Invalid input: expected number, received string`; `results.runs[…]`
 *   in the nested form).
 */
export function parseResultsFile(json: unknown, source = 'results.json'): ExperimentOutputJson {
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    throw new ResultsFileError(source, ['(root): expected a JSON object']);
  const o = json as Record<string, unknown>;
  const nested = o.results && typeof o.results === 'object' && !Array.isArray(o.results) ? new Set(Object.keys(o.results)) : null;
  if ('perFamily' in o && 'checkpoint' in o) {
    const r = EvaluationReportSchema.safeParse(o, { reportInput: true });
    if (!r.success) throw new ResultsFileError(source, issuesOf(r.error));
    return evaluationOutput(r.data, source);
  }
  if (!nested && !('runs' in o) && !('resultsVersion' in o)) {
    throw new ResultsFileError(source, [
      "(root): neither 'runs' (hlab run's results.json), 'results' (an app export) nor 'perFamily' (hlab evaluate --json) is present",
    ]);
  }
  const r = ResultsFileSchema.safeParse(upgradeResultsFile(o), { reportInput: true });
  if (!r.success) {
    // Name the field where the file has it: under `results` in the nested form.
    for (const i of r.error.issues)
      if (nested && typeof i.path[0] === 'string' && nested.has(i.path[0])) (i as { path: PropertyKey[] }).path = ['results', ...i.path];
    throw new ResultsFileError(source, issuesOf(r.error));
  }
  const out = nest(r.data);
  if (o.evaluation === undefined) return out;
  // The app's export of an evaluation report keeps the report under `evaluation`.
  const e = EvaluationReportSchema.safeParse(o.evaluation, { reportInput: true });
  if (!e.success) {
    for (const i of e.error.issues) (i as { path: PropertyKey[] }).path = ['evaluation', ...i.path];
    throw new ResultsFileError(source, issuesOf(e.error));
  }
  return { ...out, evaluation: e.data };
}

/**
 * Validate a list of run curves (a committed preset's curves.json `curves`) as a results file's `curves`.
 * @throws ResultsFileError naming the bad field
 */
export function parseCurvesJson(json: unknown, source: string): ExperimentOutputJson['curves'] {
  const r = ResultsFileSchema.shape.curves.safeParse(json, { reportInput: true });
  if (!r.success) throw new ResultsFileError(source, issuesOf(r.error));
  return r.data;
}

/**
 * Validate a list of trajectory samples (a committed preset's trajectories.json `trajectories`).
 * @throws ResultsFileError naming the bad field
 */
export function parseTrajectoriesJson(json: unknown, source: string): TrajectorySampleJson[] {
  const r = ResultsFileSchema.shape.trajectories.unwrap().safeParse(json, { reportInput: true });
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

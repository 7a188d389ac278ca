/**
 * The committed results of the presets (docs/results/<preset>/results.json) cut into the parts
 * the app fetches when a preset is opened, and read back. DOM-free: vite.config.ts
 * (`committedResults`: dev middleware and build output) writes the parts with `splitResults`,
 * the app (committed_fetch.ts) reads them with `decodeEpisodes`.
 *
 * Files, under `<base>committed/`:
 *   - index.json                    `{ presets: string[] }`, name order;
 *   - map.json                      docs/results/map.json as is (the map of conditions,
 *                                   scripts/claims.ts), when committed;
 *   - <preset>/summary.json         the results.json without curves, trajectories and the runs'
 *                                   episodes (runs' step names already upgraded), plus
 *                                   `committedParts` (CommittedPartsMeta): what the other parts hold;
 *   - <preset>/episodes.json        every run's evaluated episodes, columnar (EpisodesPart);
 *   - <preset>/curves.json          `{ curves }`: each run's per-step records, at most
 *                                   CURVE_POINTS_MAX per series, validation points without cells;
 *   - <preset>/trajectories.json    `{ trajectories }`: at most TRAJECTORIES_PER_RUN per run.
 */
import { upgradeResultsFile } from '../report/results_upgrade.ts';

/** The folder of the parts under the app's base URL. */
export const COMMITTED_DIR = 'committed';
/** The map of conditions under COMMITTED_DIR (a copy of docs/results/map.json). */
export const MAP_FILE = 'map.json';
/** The parts fetched after the summary. */
export type CommittedPart = 'episodes' | 'curves' | 'trajectories';
/** Most per-step points kept per curve series (evenly spaced, first and last kept). */
const CURVE_POINTS_MAX = 200;
/** Most sample trajectories kept per run: a pass and a fail at its first, middle and last RL step. */
const TRAJECTORIES_PER_RUN = 6;

/** What a preset's parts hold (summary.json `committedParts`). */
export interface CommittedPartsMeta {
  /** Runs with per-episode outcomes. */
  episodes: number;
  /** Curve series, and the most per-step points one had before downsampling. */
  curves: { series: number; stepsMax: number; pointsMax: number };
  /** Sample trajectories kept, of how many the file had. */
  trajectories: { kept: number; of: number };
}

/** File of a part (or the summary) of a preset, relative to COMMITTED_DIR. */
export function committedFile(preset: string, part: CommittedPart | 'summary'): string {
  if (!/^[\w.-]+$/.test(preset) || preset.startsWith('.')) throw new Error(`committed results: bad preset name '${preset}'`);
  return `${preset}/${part}.json`;
}

type Json = Record<string, unknown>;
type Cell = { taskId: string; harnessId: string; sample: number; pass: boolean; score: number };
/** One column's cells as parallel arrays: task index, harness index, sample, pass (0/1), score. */
type Columns = [number[], number[], number[], number[], number[]];

/** episodes.json: string tables and, per run (null: none recorded), before/after columns of cells. */
interface EpisodesPart {
  format: 'columns-v1';
  tasks: string[];
  harnesses: string[];
  runs: ({ before: Record<string, Columns>; after: Record<string, Columns> } | null)[];
}

/** Indices `round(i·(n−1)/(max−1))`: evenly spaced, first and last kept; all of them when n ≤ max. */
function downsampleIndices(n: number, max: number): number[] {
  if (n <= max) return [...Array(n).keys()];
  return [...new Set([...Array(max).keys()].map((i) => Math.round((i * (n - 1)) / (max - 1))))];
}

/** The sample of a run's trajectories: first, middle and last step present, a pass and a fail at each (in file order). */
function sampleTrajectories(all: readonly Json[]): Json[] {
  const runs = new Map<string, Json[]>();
  for (const t of all) {
    const k = `${String(t.method)}\u0000${String(t.seed)}`;
    const list = runs.get(k);
    if (list) list.push(t);
    else runs.set(k, [t]);
  }
  const kept = new Set<Json>();
  for (const list of runs.values()) {
    const steps = [...new Set(list.map((t) => Number(t.step)))].sort((a, b) => a - b);
    const picked = [...new Set([steps[0], steps[Math.floor((steps.length - 1) / 2)], steps[steps.length - 1]])];
    let n = 0;
    for (const s of picked) {
      for (const pass of [true, false]) {
        const t = list.find((x) => Number(x.step) === s && x.pass === pass);
        if (t && n < TRAJECTORIES_PER_RUN) kept.add(t), n++;
      }
    }
  }
  return all.filter((t) => kept.has(t));
}

function encodeEpisodes(runs: readonly Json[]): EpisodesPart {
  const tasks = new Map<string, number>();
  const harnesses = new Map<string, number>();
  const idx = (m: Map<string, number>, s: string) => {
    let i = m.get(s);
    if (i === undefined) m.set(s, (i = m.size));
    return i;
  };
  const side = (cols: Record<string, Cell[]>) =>
    Object.fromEntries(
      Object.entries(cols).map(([col, cells]) => {
        const c: Columns = [[], [], [], [], []];
        for (const e of cells) {
          c[0].push(idx(tasks, e.taskId));
          c[1].push(idx(harnesses, e.harnessId));
          c[2].push(e.sample);
          c[3].push(e.pass ? 1 : 0);
          c[4].push(e.score);
        }
        return [col, c];
      }),
    );
  const out = runs.map((r) => {
    const ep = r.episodes as { before: Record<string, Cell[]>; after: Record<string, Cell[]> } | undefined;
    return ep ? { before: side(ep.before), after: side(ep.after) } : null;
  });
  return { format: 'columns-v1', tasks: [...tasks.keys()], harnesses: [...harnesses.keys()], runs: out };
}

/**
 * Cut a results.json (`hlab run`'s shape, parsed) into the committed parts.
 * @returns file name (summary.json, episodes.json, curves.json, trajectories.json) → JSON text
 * @throws Error when the file has no `runs` list
 */
export function splitResults(json: unknown): Map<string, string> {
  const o = json as Json;
  if (!o || typeof o !== 'object' || !Array.isArray(o.runs)) throw new Error('committed results: expected a results.json with a runs list');
  // Old step names take their counts from the full curves, so upgrade before the curves are cut.
  const { curves: rawCurves, trajectories: rawTrajectories, runs: rawRuns, ...rest } = upgradeResultsFile(o) as Json;
  const runs = rawRuns as Json[];
  const curvesIn = Array.isArray(rawCurves) ? (rawCurves as Json[]) : [];
  const curves = curvesIn.map((c) => {
    const steps = Array.isArray(c.steps) ? (c.steps as unknown[]) : [];
    const out: Json = { ...c, steps: downsampleIndices(steps.length, CURVE_POINTS_MAX).map((i) => steps[i]) };
    // Validation points keep their pass@1; their per-episode cells are the bulk and no view reads them.
    if (Array.isArray(c.validation)) out.validation = (c.validation as Json[]).map(({ cells: _cells, ...p }) => p);
    return out;
  });
  const trajIn = Array.isArray(rawTrajectories) ? (rawTrajectories as Json[]) : [];
  const trajectories = sampleTrajectories(trajIn);
  const meta: CommittedPartsMeta = {
    episodes: runs.filter((r) => r && typeof r === 'object' && r.episodes).length,
    curves: {
      series: curves.length,
      stepsMax: Math.max(0, ...curvesIn.map((c) => (Array.isArray(c.steps) ? c.steps.length : 0))),
      pointsMax: Math.max(0, ...curves.map((c) => (c.steps as unknown[]).length)),
    },
    trajectories: { kept: trajectories.length, of: trajIn.length },
  };
  const summary = { ...rest, runs: runs.map(({ episodes: _e, ...r }) => r), committedParts: meta };
  return new Map([
    ['summary.json', JSON.stringify(summary)],
    ['episodes.json', JSON.stringify(encodeEpisodes(runs))],
    ['curves.json', JSON.stringify({ curves })],
    ['trajectories.json', JSON.stringify({ trajectories })],
  ]);
}

/**
 * Read episodes.json back into each run's episodes (src/report/results_schema.ts RunEpisodes), checking it.
 * @param runs how many runs the summary has
 * @returns one entry per run (undefined where none was recorded)
 * @throws Error naming the bad field (`runs[3].after.base: score[7] 1.5 is not in [0, 1]`)
 */
export function decodeEpisodes(
  json: unknown,
  runs: number,
  source = 'episodes.json',
): (Record<'before' | 'after', Record<string, Cell[]>> | undefined)[] {
  const fail = (path: string, what: string): never => {
    throw new Error(`${source}: ${path}: ${what}`);
  };
  const p = json as EpisodesPart;
  if (!p || typeof p !== 'object' || p.format !== 'columns-v1') fail('format', `expected 'columns-v1'`);
  if (!Array.isArray(p.tasks) || !p.tasks.every((s) => typeof s === 'string')) fail('tasks', 'expected a list of task ids');
  if (!Array.isArray(p.harnesses) || !p.harnesses.every((s) => typeof s === 'string')) fail('harnesses', 'expected a list of harness ids');
  if (!Array.isArray(p.runs) || p.runs.length !== runs)
    fail('runs', `expected ${runs} entries (the summary's runs), got ${Array.isArray(p.runs) ? p.runs.length : 'none'}`);
  const isInt = (x: unknown, lo: number, hi: number) => Number.isInteger(x) && (x as number) >= lo && (x as number) < hi;
  const side = (cols: unknown, path: string): Record<string, Cell[]> => {
    if (!cols || typeof cols !== 'object' || Array.isArray(cols)) fail(path, 'expected an object of columns');
    const out: Record<string, Cell[]> = {};
    for (const [col, c] of Object.entries(cols as Record<string, unknown>)) {
      const at = `${path}.${col}`;
      if (!Array.isArray(c) || c.length !== 5 || !c.every(Array.isArray))
        fail(at, 'expected 5 arrays (task, harness, sample, pass, score)');
      const [t, h, s, ps, sc] = c as Columns;
      const n = t.length;
      if (![h, s, ps, sc].every((a) => a.length === n)) fail(at, 'arrays of different lengths');
      const cells: Cell[] = new Array(n);
      for (let i = 0; i < n; i++) {
        if (!isInt(t[i], 0, p.tasks.length)) fail(at, `task[${i}] ${t[i]} is not a task index`);
        if (!isInt(h[i], 0, p.harnesses.length)) fail(at, `harness[${i}] ${h[i]} is not a harness index`);
        if (!isInt(s[i], 0, Number.MAX_SAFE_INTEGER)) fail(at, `sample[${i}] ${s[i]} is not a sample number`);
        if (ps[i] !== 0 && ps[i] !== 1) fail(at, `pass[${i}] ${ps[i]} is not 0 or 1`);
        if (typeof sc[i] !== 'number' || !(sc[i] >= 0 && sc[i] <= 1)) fail(at, `score[${i}] ${sc[i]} is not in [0, 1]`);
        cells[i] = { taskId: p.tasks[t[i]], harnessId: p.harnesses[h[i]], sample: s[i], pass: ps[i] === 1, score: sc[i] };
      }
      out[col] = cells;
    }
    return out;
  };
  return p.runs.map((r, i) =>
    r === null ? undefined : { before: side(r?.before, `runs[${i}].before`), after: side(r?.after, `runs[${i}].after`) },
  );
}

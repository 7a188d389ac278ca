/**
 * The map of conditions: where harness scaling pays. Each committed experiment that trains a
 * single-harness arm and an all-harness scaling arm on the same seeds is one cell of the map,
 * placed by what it varies — the base's pretraining exposure (spec.model.exposure), the budget
 * (rl.steps) and whether dynamic sampling matched the learning signal (rl.dynamicSampling) — and
 * read as harness scaling − single harness after RL on in-space (per distance band to the base
 * harness too), the base harness and each black-box harness, under the RESULTS page's rule
 * (method_verdict.ts: intervals over seeds, configurations and tasks).
 *
 * Pure and DOM-free: scripts/claims.ts writes RESULTS.md's map from it, the app draws the same.
 */
import { hammingDistance, BASE_HARNESS } from '../design/space';
import { methodVerdict, pairVerdicts, type MethodVerdict } from '../report/method_verdict';
import { pointsInterval, signedPoints } from '../report/points';
import { intervalAtLevel } from '../report/seed_interval';
import type { CommittedResults } from './claims';
import type { RunResult } from '../report/results_schema';

/** Where a cell sits on the map. */
export interface MapPlace {
  /** The base's pretraining exposure: 'broad' (the shipped base), 'narrow', 'base-only'. */
  exposure: string;
  /** RL steps per run. */
  steps: number;
  /** Whether rl.dynamicSampling refilled each step with informative groups. */
  dynamicSampling: boolean;
}

/** One cell: an experiment's single-harness and harness-scaling arms, compared. */
export interface MapCell extends MapPlace {
  /** The committed preset it was read from. */
  preset: string;
  /** Method names of the two arms. */
  single: string;
  scaling: string;
  /** Seeds both arms ran, ascending. */
  seeds: number[];
  /** HS − single on every compared set (method_verdict.ts pairVerdicts order: in-space, base, black-box). */
  verdicts: MethodVerdict[];
  /** HS − single on the in-space configurations of each Hamming distance to the base harness, ascending. */
  bands: Array<{ distance: number; verdict: MethodVerdict }>;
  /** Mean training episodes sampled per run (sampledEpisodes), per arm; null when not known. */
  sampled: { single: number | null; scaling: number | null };
  /** Mean optimizer steps applied per run, per arm. */
  optimizerSteps: { single: number; scaling: number };
  /** In-space pass@1 before RL (the base both arms start from), mean over the cell's runs; NaN when not recorded. */
  startInSpace: number;
  /** Whether the cell sits at the in-space floor (startInSpace < FLOOR_PASS): see FLOOR_PASS. */
  floor: boolean;
}

/**
 * Starting in-space pass@1 under which a cell reads "at the floor". Below 5 % the ±2-point
 * equivalence margin is ≥ 40 % of the starting rate and neither method can fall more than a few
 * points, so "equivalent" there says the base cannot act in-space, not that the methods match.
 */
const FLOOR_PASS = 0.05;

/** The arms of a spec the map compares (its single-harness arm and all-harness scaling arm of one algorithm), or null when it has not both. */
export function comparedArms(specJson: unknown): { single: string; scaling: string } | null {
  const methods =
    (specJson as { methods?: Array<{ name?: string; harnesses?: string; harnessCount?: number; algorithm?: string }> } | undefined)
      ?.methods ?? [];
  const single = methods.find((m) => m.harnesses === 'single' && (m.algorithm ?? 'grpo') !== 'sft');
  const scaling = methods.find((m) => m.harnesses === 'scaling' && m.harnessCount === undefined && m.algorithm === single?.algorithm);
  return single?.name && scaling?.name ? { single: single.name, scaling: scaling.name } : null;
}

/** Where an experiment's spec places it on the map. */
function placeOf(specJson: unknown): MapPlace {
  const s = specJson as { model?: { exposure?: string }; rl?: { steps?: number; dynamicSampling?: unknown } };
  return { exposure: s.model?.exposure ?? 'broad', steps: s.rl?.steps ?? Number.NaN, dynamicSampling: s.rl?.dynamicSampling != null };
}

/**
 * Training episodes one run sampled: as recorded (RunResult.sampledEpisodes), or, for a run
 * without dynamic sampling (which samples exactly tasksPerStep × groupSize episodes per RL step
 * and records nothing more), rlSteps × tasksPerStep × groupSize; undefined when neither is known.
 */
export function sampledEpisodes(r: RunResult, specJson: unknown): number | undefined {
  if (r.sampledEpisodes !== undefined) return r.sampledEpisodes;
  const rl = (specJson as { rl?: { dynamicSampling?: unknown; tasksPerStep?: number; groupSize?: number } } | undefined)?.rl;
  if (!rl || rl.dynamicSampling != null || !rl.tasksPerStep || !rl.groupSize) return undefined;
  return r.rlSteps * rl.tasksPerStep * rl.groupSize;
}

const meanOf = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Mean of a per-run number over the arm's runs; null when any run lacks it. */
function armMean(runs: readonly RunResult[], pick: (r: RunResult) => number | undefined): number | null {
  const xs = runs.map(pick);
  return xs.length && xs.every((x): x is number => x !== undefined && Number.isFinite(x)) ? meanOf(xs) : null;
}

/**
 * One experiment as a map cell.
 * @param res committed results with their resolved spec (claims.ts CommittedResults)
 * @returns null when the spec has no single-harness arm and all-harness scaling arm of one algorithm, or no seed ran both
 */
function mapCell(preset: string, res: CommittedResults): MapCell | null {
  const a = comparedArms(res.specJson);
  if (!a) return null;
  const single = res.runs.filter((r) => r.method === a.single);
  const scaling = res.runs.filter((r) => r.method === a.scaling);
  const seeds = [...new Set(scaling.map((r) => r.seed))].filter((s) => single.some((r) => r.seed === s)).sort((x, y) => x - y);
  if (!seeds.length) return null;
  const startInSpace = armMean([...single, ...scaling], (r) => r.before.inSpace) ?? Number.NaN;
  const inSpaceIds = [...new Set(scaling.flatMap((r) => (r.episodes?.after.inSpace ?? []).map((e) => e.harnessId)))];
  const distances = [...new Set(inSpaceIds.map((h) => hammingDistance(h, BASE_HARNESS)))].sort((x, y) => x - y);
  const bands = distances
    .map((distance) => ({
      distance,
      verdict: methodVerdict(res.runs, a.single, a.scaling, 'inSpace', (h) => hammingDistance(h, BASE_HARNESS) === distance),
    }))
    .filter((b): b is { distance: number; verdict: MethodVerdict } => b.verdict !== null);
  return {
    preset,
    ...placeOf(res.specJson),
    ...a,
    seeds,
    verdicts: pairVerdicts(res.runs, a.single, a.scaling),
    bands,
    sampled: {
      single: armMean(single, (r) => sampledEpisodes(r, res.specJson)),
      scaling: armMean(scaling, (r) => sampledEpisodes(r, res.specJson)),
    },
    optimizerSteps: {
      single: armMean(single, (r) => r.optimizerSteps) ?? Number.NaN,
      scaling: armMean(scaling, (r) => r.optimizerSteps) ?? Number.NaN,
    },
    startInSpace,
    floor: startInSpace < FLOOR_PASS,
  };
}

/**
 * A planned place whose experiment runs in seed chunks (`hlab run --seeds`, docs/results/<preset>/chunks/)
 * and is not merged yet: what has run, never a verdict (the rule reads only a finished cell).
 */
export interface CellProgress extends MapPlace {
  preset: string;
  /** Seeds the preset plans (its spec's seeds), ascending. */
  planned: number[];
  /** Per seed whose chunk is committed: in-space harness scaling − single harness after RL (a fraction), paired on the seed's cells. */
  perSeed: Array<{ seed: number; inSpace: number }>;
}

/**
 * An unmerged experiment's progress from its committed chunks.
 * @param runs the runs of every committed chunk (one seed each, as `hlab run --seeds` wrote them)
 * @param specJson a chunk's resolved spec (places the cell and names its arms)
 * @param planned the preset's seeds
 * @returns null when the spec has not both arms (no map cell)
 */
export function cellProgress(
  preset: string,
  specJson: unknown,
  runs: readonly RunResult[],
  planned: readonly number[],
): CellProgress | null {
  const a = comparedArms(specJson);
  if (!a) return null;
  // The seed-level interval's per-seed differences (seed_interval.ts), the same numbers the verdict is built from once merged.
  const v = methodVerdict(runs, a.single, a.scaling, 'inSpace');
  const perSeed = (v?.comparison.pass.perSeed ?? []).map(({ seed, diff }) => ({ seed, inSpace: diff }));
  return { preset, ...placeOf(specJson), planned: [...planned].sort((x, y) => x - y), perSeed };
}

/** "broad base at 240 steps, dynamic sampling: 1 of 5 seeds (in-space HS − single by seed: s0 +10.9)". */
export function progressText(p: CellProgress): string {
  const bySeed = p.perSeed.map((x) => `s${x.seed} ${signedPoints(x.inSpace)}`).join(', ');
  return `${p.exposure} base at ${budgetText(p)}: ${p.perSeed.length} of ${p.planned.length} seeds${bySeed ? ` (in-space HS − single by seed: ${bySeed})` : ''}`;
}

const EXPOSURE_ORDER = ['broad', 'narrow', 'base-only'];

/**
 * The map as designed (public/presets/map-*.json): every exposure at 60 and 240 RL steps with
 * dynamic sampling, and the broad base at 60 steps without it (`main`), the cell that shows what
 * dynamic sampling changed.
 */
export const PLANNED_PLACES: readonly MapPlace[] = [
  { exposure: 'broad', steps: 60, dynamicSampling: false },
  ...EXPOSURE_ORDER.flatMap((exposure) => [60, 240].map((steps) => ({ exposure, steps, dynamicSampling: true }))),
];

const samePlace = (a: MapPlace, b: MapPlace) => a.exposure === b.exposure && a.steps === b.steps && a.dynamicSampling === b.dynamicSampling;

/** The planned places no committed cell fills yet, nor committed seed chunks (`running`) start to. */
export function missingPlaces(cells: readonly MapPlace[], running: readonly MapPlace[] = []): MapPlace[] {
  return PLANNED_PLACES.filter((p) => ![...cells, ...running].some((c) => samePlace(c, p)));
}
const exposureRank = (e: string) => (EXPOSURE_ORDER.includes(e) ? EXPOSURE_ORDER.indexOf(e) : EXPOSURE_ORDER.length);

/** The presets the map is drawn from: `main` (the broad base at 60 steps, without dynamic sampling) and the `map-*` family. */
const isMapPreset = (preset: string): boolean => preset === 'main' || preset.startsWith('map-');

/**
 * The map: every committed map preset (isMapPreset) that is a cell, ordered by exposure (broad,
 * narrow, base-only), then budget, then dynamic sampling off before on.
 * @param results preset name → committed results (other presets are ignored)
 */
export function conditionsMap(results: ReadonlyMap<string, CommittedResults>): MapCell[] {
  const cells = [...results]
    .filter(([preset]) => isMapPreset(preset))
    .map(([preset, res]) => mapCell(preset, res))
    .filter((c): c is MapCell => c !== null);
  return cells.sort(
    (x, y) =>
      exposureRank(x.exposure) - exposureRank(y.exposure) ||
      x.steps - y.steps ||
      Number(x.dynamicSampling) - Number(y.dynamicSampling) ||
      x.preset.localeCompare(y.preset),
  );
}

/** The verdict of a cell on one set, or null. */
export function cellVerdict(cell: MapCell, key: string): MethodVerdict | null {
  return cell.verdicts.find((v) => v.set.key === key) ?? null;
}

/**
 * The cell where harness scaling is furthest ahead of the single harness in-space beyond noise
 * (verdict 'ahead', the largest difference), or null when no cell is: the answer the app's lesson
 * demonstrates (docs/APP.md "The lesson").
 */
export function leadingCell(cells: readonly MapCell[]): MapCell | null {
  let best: MapCell | null = null;
  for (const c of cells) {
    const v = cellVerdict(c, 'inSpace');
    if (v?.direction !== 'ahead') continue;
    if (!best || v.comparison.pass.diff > cellVerdict(best, 'inSpace')!.comparison.pass.diff) best = c;
  }
  return best;
}

/** A cell's in-space difference read together with the map's other cells (familywiseInSpace). */
export interface FamilywiseReading {
  /** Cells read together: every cell with an in-space interval (≥ 2 seeds). */
  m: number;
  /** The Bonferroni interval, level 1 − 0.05/m (fractions of pass@1). */
  lo: number;
  hi: number;
  /** It excludes 0. */
  holds: boolean;
}

/**
 * Each cell's in-space difference as one of the map's m comparisons: a reader scans every cell for
 * where harness scaling pays, so a "helps" must survive the number of cells looked at. The
 * interval is the Bonferroni one (seed_interval.ts intervalAtLevel at 1 − 0.05/m) over every cell
 * with an in-space interval, floor cells included (they were looked at too).
 * @returns preset → reading; cells without an in-space interval are absent
 */
export function familywiseInSpace(cells: readonly MapCell[]): Map<string, FamilywiseReading> {
  const read = cells
    .map((c) => ({ c, p: cellVerdict(c, 'inSpace')?.comparison.pass }))
    .filter((x): x is { c: MapCell; p: NonNullable<typeof x.p> } => !!x.p && x.p.seeds >= 2);
  const m = read.length;
  return new Map(
    read.map(({ c, p }) => {
      const { lo, hi } = intervalAtLevel(p, 1 - 0.05 / m);
      return [c.preset, { m, lo, hi, holds: lo > 0 || hi < 0 }];
    }),
  );
}

/** "holds over the map's 3 cells (Bonferroni [+4.1, +14.3])" or "not beyond the map's 3 cells (Bonferroni [−0.3, +6.1])". */
function familywiseText(f: FamilywiseReading): string {
  const iv = `Bonferroni [${signedPoints(f.lo)}, ${signedPoints(f.hi)}]`;
  return f.holds ? `holds over the map's ${f.m} cells, ${iv}` : `not beyond the map's ${f.m} cells, ${iv}`;
}

/** "+1.2 [−0.4, +2.8]" (points), "+1.2 (1 seed)", or "—". */
export function intervalText(v: MethodVerdict | null): string {
  if (!v) return '—';
  return pointsInterval(v.comparison.pass);
}

/**
 * What the map says of a verdict: helps, hurts, equivalent, undecided (with the seeds that would
 * decide it) or not measurable. At the floor (the cell's start below FLOOR_PASS) "equivalent" and
 * "undecided" say so, since more seeds would not make them a comparison of the methods.
 */
export function mapWord(v: MethodVerdict | null, floor = false): string {
  if (!v) return 'not evaluated';
  switch (v.direction) {
    case 'ahead':
      return 'helps';
    case 'behind':
      return 'hurts';
    case 'equivalent':
      return floor ? 'equivalent at the floor' : 'equivalent';
    case 'not measurable':
      return 'not measurable';
    default: {
      if (floor) return 'undecided at the floor';
      const { exclude, equivalent } = v.comparison.needed;
      if (exclude !== null) return `undecided (≈ ${exclude} seeds)`;
      return equivalent !== null ? `undecided (≈ ${equivalent} seeds to show equivalence)` : 'undecided';
    }
  }
}

/** Whether a cell's in-space reading is an uninformative floor (neither method ahead beyond noise, from a start below FLOOR_PASS). */
export const readsFloor = (c: MapCell): boolean => {
  const d = cellVerdict(c, 'inSpace')?.direction;
  return c.floor && d !== 'ahead' && d !== 'behind';
};

/** "60 steps" or "240 steps, dynamic sampling". */
const budgetText = (c: MapPlace) => `${c.steps} steps${c.dynamicSampling ? ', dynamic sampling' : ''}`;

const percent = (x: number) => `${(100 * x).toFixed(1)} %`;

/** The clause for a row's cells that read only the in-space floor (readsFloor), or null: what the base started at, and that no comparison is read there. */
function floorPart(row: readonly MapCell[]): string | null {
  const hit = row.filter(readsFloor);
  if (!hit.length) return null;
  const where = hit
    .map((c) => `${budgetText(c)} (${intervalText(cellVerdict(c, 'inSpace'))}, starting in-space pass@1 ${percent(c.startInSpace)})`)
    .join(', ');
  return `is not compared at ${where}: the base starts below ${percent(FLOOR_PASS)} in-space, the floor, where neither method can move`;
}

/**
 * One sentence per exposure row: where harness scaling pays on in-space configurations, where
 * it costs (each with whether it holds over the map's cells read together, familywiseInSpace),
 * and where the data cannot tell.
 */
export function rowSentences(cells: readonly MapCell[]): string[] {
  const family = familywiseInSpace(cells);
  const rows = [...new Set(cells.map((c) => c.exposure))];
  return rows.map((exposure) => {
    const row = cells.filter((c) => c.exposure === exposure);
    const part = (word: string, f: (v: MethodVerdict | null) => boolean, withFamily = false) => {
      const hit = row.filter((c) => !readsFloor(c) && f(cellVerdict(c, 'inSpace')));
      const fw = (c: MapCell) => {
        const r = withFamily ? family.get(c.preset) : undefined;
        return r ? `; ${familywiseText(r)}` : '';
      };
      return hit.length
        ? `${word} at ${hit.map((c) => `${budgetText(c)} (${intervalText(cellVerdict(c, 'inSpace'))}${fw(c)})`).join(', ')}`
        : null;
    };
    const parts = [
      part('pays', (v) => v?.direction === 'ahead', true),
      part('costs', (v) => v?.direction === 'behind', true),
      part('makes no difference beyond ±2 points', (v) => v?.direction === 'equivalent'),
      part('cannot be told apart yet', (v) => !v || v.direction === 'undecided' || v.direction === 'not measurable'),
      floorPart(row),
    ].filter((p): p is string => p !== null);
    return `**${exposure} base:** harness scaling ${parts.join('; ')} (in-space pass@1, harness scaling − single harness, points [95 % interval over seeds, configurations and tasks]).`;
  });
}

/**
 * The map as a markdown table (RESULTS.md), one row per cell, then one sentence per exposure, then
 * the places in progress (their chunks so far, no verdict) and those not run yet.
 */
export function mapMarkdown(cells: readonly MapCell[], progress: readonly CellProgress[] = []): string {
  if (!cells.length) return '_No committed map preset compares single-harness RL with harness scaling yet._';
  const line = (xs: string[]) => `| ${xs.join(' | ')} |`;
  const bbKeys = [...new Set(cells.flatMap((c) => c.verdicts.map((v) => v.set.key)))].filter((k) => k !== 'inSpace' && k !== 'base');
  const out = [
    line([
      'base exposure',
      'budget',
      'preset',
      'seeds',
      'in-space before RL',
      'in-space: HS − single',
      'verdict',
      'over the map (Bonferroni)',
      'by distance to base',
      'base harness',
      ...bbKeys,
      'episodes sampled (HS / single)',
    ]),
    line(['---', '---', '---', '---:', '---:', '---:', '---', '---:', '---', '---:', ...bbKeys.map(() => '---:'), '---:']),
  ];
  const family = familywiseInSpace(cells);
  for (const c of cells) {
    const inSpace = cellVerdict(c, 'inSpace');
    const fw = family.get(c.preset);
    const bands = c.bands.map((b) => `d=${b.distance}: ${signedPoints(b.verdict.comparison.pass.diff)}`).join(', ') || '—';
    const base = cellVerdict(c, 'base');
    const ratio =
      c.sampled.single && c.sampled.scaling
        ? `${(c.sampled.scaling / c.sampled.single).toFixed(2)}× (${Math.round(c.sampled.scaling)} / ${Math.round(c.sampled.single)})`
        : '—';
    out.push(
      line([
        c.exposure,
        budgetText(c),
        `\`${c.preset}\``,
        String(c.seeds.length),
        Number.isFinite(c.startInSpace) ? percent(c.startInSpace) : '—',
        intervalText(inSpace),
        `**${mapWord(inSpace, c.floor)}**`,
        fw ? `[${signedPoints(fw.lo)}, ${signedPoints(fw.hi)}]${fw.holds ? ' holds' : ''}` : '—',
        bands,
        `${intervalText(base)} ${base ? mapWord(base) : ''}`.trim(),
        ...bbKeys.map((k) => {
          const v = cellVerdict(c, k);
          return v?.direction === 'not measurable' ? 'not measurable' : intervalText(v);
        }),
        ratio,
      ]),
    );
  }
  const running = progress.filter((p) => !cells.some((c) => samePlace(c, p)));
  const missing = missingPlaces(cells, running);
  const todo = [
    ...(running.length
      ? [`In progress (seed chunks committed; no verdict until every seed is in): ${running.map(progressText).join('; ')}.`]
      : []),
    ...(missing.length ? [`Not run yet: ${missing.map((p) => `${p.exposure} base at ${budgetText(p)}`).join('; ')}.`] : []),
  ];
  return [out.join('\n'), '', ...rowSentences(cells), ...(todo.length ? ['', ...todo] : [])].join('\n');
}

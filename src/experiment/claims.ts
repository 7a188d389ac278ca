/**
 * The claims table: one row per claim of the harness-scaling paper, read from committed results
 * (docs/results/<preset>/results.json) with the seed-level rule of seed_stats.ts, so the verdicts
 * in docs/RESULTS.md are computed, never typed (scripts/claims.ts writes them; a test fails when
 * the file differs).
 *
 * Verdict of a difference Δ = arm B − arm A with 95 % interval [lo, hi] (points of pass@1), for a
 * paper that found B > A:
 * - reproduced: lo > 0;  refuted: hi < 0 (the interval excludes 0 against the paper);
 * - equivalent: −2 ≤ lo and hi ≤ +2 (a difference, if any, inside ±2 points);
 * - undecided: anything else, with the seeds that would decide it at this effect and spread;
 * - not measurable: both arms fail every cell (a floor, not a null);
 * - not run: the preset has no committed results.
 *
 * Pure: the caller reads the files.
 */
import { comparePaired, type Comparison } from '../report/seed_stats';
import { directionOf, undecidedNote } from '../report/method_verdict';
import { pointsInterval, signedPoints } from '../report/points';
import { pairCells, type PairedCell } from '../report/stats';
import type { ExperimentResults, RunResult } from '../report/results_schema';
import { parseSpec } from './spec';
import { scheduleCoverage, type ScheduleCoverage } from './plan';
import { BASE_HARNESS, hammingDistance } from '../design';

/** Committed results as results.json holds them (the spec that ran beside the runs). */
export type CommittedResults = ExperimentResults & { specJson?: unknown };

/** One claim of the paper and where our data for it lives. */
interface ClaimSpec {
  id: string;
  /** The claim as the paper states it, short. */
  claim: string;
  /** The committed preset whose results test it. */
  preset: string;
  /** Results columns pooled (their harnesses are the configurations). */
  columns: readonly string[];
  /** Reference arm A (a method name), or null for arm B's own before → after. */
  a: string | null;
  /** Arm B: the method the paper found better (or, with a = null, that keeps or gains). */
  b: string;
  /** What the columns mean, for the table. */
  on: string;
  /** What producing the preset's results takes, said when there are none. */
  missing?: string;
}

/** The paper's claims, in the order of docs/RESULTS.md. */
export const CLAIMS: readonly ClaimSpec[] = [
  {
    id: 'in-space',
    claim: 'harness scaling beats single-harness RL on held-out configurations',
    preset: 'main',
    columns: ['inSpace'],
    a: 'single harness (GRPO)',
    b: 'harness scaling (GRPO, K=4)',
    on: 'in-space',
  },
  {
    id: 'black-box',
    claim: 'harness scaling transfers to black-box harnesses better than single-harness RL',
    preset: 'main',
    columns: ['bb-coding-cli', 'bb-assistant'],
    a: 'single harness (GRPO)',
    b: 'harness scaling (GRPO, K=4)',
    on: 'both black-box',
  },
  {
    id: 'base-kept',
    claim: 'harness scaling keeps the base harness (after − before ≥ 0)',
    preset: 'main',
    columns: ['base'],
    a: null,
    b: 'harness scaling (GRPO, K=4)',
    on: 'base, before → after',
  },
  {
    id: 'structured',
    claim: 'a strength-2 orthogonal array beats random selection of as many harnesses',
    preset: 'selection',
    columns: ['inSpace'],
    a: 'random-18',
    b: 'orthogonal array (18)',
    on: 'in-space',
  },
  {
    id: 'locality',
    claim: 'locality-aware assignment beats random assignment',
    preset: 'assignment',
    columns: ['inSpace'],
    a: 'random assignment',
    b: 'locality assignment',
    on: 'in-space',
  },
  {
    id: 'diversity',
    claim: 'more harnesses per task (K = 4) beat one (K = 1)',
    preset: 'diversity',
    columns: ['inSpace'],
    a: 'harness scaling (K=1)',
    b: 'harness scaling (K=4)',
    on: 'in-space',
  },
  {
    id: 'algorithms',
    claim: 'the in-space gain holds under PPO too',
    preset: 'algorithms',
    columns: ['inSpace'],
    a: 'single harness (PPO)',
    b: 'harness scaling (PPO, K=4)',
    on: 'in-space',
  },
  {
    id: 'sizes',
    claim: 'the in-space gain holds across model sizes',
    preset: 'sizes',
    columns: ['inSpace'],
    a: 'single harness (GRPO)',
    b: 'harness scaling (GRPO, K=4)',
    on: 'in-space, small model',
    missing:
      "no committed results of the 'sizes' preset yet (main's comparison from the 'small' base, public/base-small.ckpt; it runs in one-seed chunks)",
  },
  {
    id: 'bb-rl-vs-sft',
    claim: 'black-box RL generalizes to an unseen black-box harness better than black-box SFT',
    preset: 'blackbox',
    columns: ['bb-assistant'],
    a: 'black-box SFT (coding-cli)',
    b: 'black-box RL (coding-cli)',
    on: 'bb-assistant (held out)',
  },
];

type Verdict = 'reproduced' | 'refuted' | 'equivalent' | 'undecided' | 'not measurable' | 'not run';

/** One row of the claims table. */
interface ClaimRow {
  spec: ClaimSpec;
  verdict: Verdict;
  /** The comparison, when the preset has results with both arms. */
  comparison: Comparison | null;
  /** Seeds × configurations × cells, and whether the results use the current design. */
  data: string;
  /** What would decide it (undecided), or why there is no number. */
  note: string;
}

const signed = signedPoints;

/** The verdict of a comparison against the paper's direction (B > A): the rule of method_verdict.ts. */
function verdictOf(c: Comparison): Verdict {
  const d = directionOf(c);
  return d === 'ahead' ? 'reproduced' : d === 'behind' ? 'refuted' : d === 'equivalent' ? 'equivalent' : 'undecided';
}

/** Whether results were produced with this lab's current design: the 24-configuration in-space set stratified by distance to the base harness (with the epoch sampler). */
export function currentDesign(res: Pick<CommittedResults, 'specJson'>): boolean {
  const inSpace = (res.specJson as { evaluation?: { inSpace?: { by?: string } } } | undefined)?.evaluation?.inSpace;
  return inSpace?.by === 'base';
}

/** Paired cells of arm B against arm A (or B's before) over the columns, per seed. */
function claimCells(runs: readonly RunResult[], c: ClaimSpec): { cells: PairedCell[]; passes: number } {
  const cells: PairedCell[] = [];
  let passes = 0;
  for (const rb of runs.filter((r) => r.method === c.b)) {
    const ra = c.a === null ? rb : runs.find((r) => r.method === c.a && r.seed === rb.seed);
    if (!ra) continue;
    for (const col of c.columns) {
      const before = (c.a === null ? ra.episodes?.before[col] : ra.episodes?.after[col]) ?? [];
      const after = rb.episodes?.after[col] ?? [];
      for (const cell of pairCells(before, after).cells) {
        cells.push({ ...cell, run: rb.seed });
        if (cell.before.pass || cell.after.pass) passes++;
      }
    }
  }
  return { cells, passes };
}

/** A claim's preset re-run in seed chunks (docs/results/<preset>/chunks/sS/) and not merged yet. */
export interface RerunProgress {
  /** Seeds whose chunk is committed and done, ascending. */
  done: number[];
  /** Seeds the preset plans. */
  planned: number;
}

/**
 * The claims table from the committed results of each preset.
 * @param results preset name → its results (absent: not run)
 * @param rerun preset name → its seed chunks committed so far, said beside the row (never read as a verdict)
 */
export function claimsTable(
  results: ReadonlyMap<string, CommittedResults>,
  rerun: ReadonlyMap<string, RerunProgress> = new Map(),
): ClaimRow[] {
  return CLAIMS.map((spec) => {
    const res = results.get(spec.preset);
    const chunks = rerun.get(spec.preset);
    const progress = chunks
      ? `${chunks.done.length} of ${chunks.planned} seeds committed in seed chunks (${chunks.done.map((x) => `s${x}`).join(', ')}); no verdict from them until every seed is in`
      : null;
    if (!res)
      return {
        spec,
        verdict: 'not run',
        comparison: null,
        data: '—',
        note: progress ?? spec.missing ?? `no committed results for preset '${spec.preset}'`,
      };
    const { cells, passes } = claimCells(res.runs, spec);
    const design = currentDesign(res)
      ? 'current design'
      : `old design (pre-epoch schedule, 4 in-space configurations): re-run ${progress ? `in progress, ${progress}` : 'needed'}`;
    if (cells.length === 0)
      return {
        spec,
        verdict: 'not run',
        comparison: null,
        data: design,
        note: `the results hold no paired cells of '${spec.b}' and '${spec.a ?? 'before'}'`,
      };
    const comparison = comparePaired(cells);
    const p = comparison.pass;
    const data = `${p.seeds} seeds × ${p.configs} config${p.configs === 1 ? '' : 's'}, ${p.cells} cells; ${design}`;
    if (passes === 0)
      return { spec, verdict: 'not measurable', comparison, data, note: 'every episode fails under both arms (a floor, not a null)' };
    const verdict = verdictOf(comparison);
    const note = verdict === 'undecided' ? undecidedNote(comparison) : '';
    return { spec, verdict, comparison, data, note };
  });
}

/** The claims table as markdown (docs/RESULTS.md between its markers). */
function claimsMarkdown(rows: readonly ClaimRow[]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const out = [
    line(['claim (paper: B > A)', 'preset', 'on', 'ours: B − A, points [95 % interval]', 'verdict', 'data', 'what would decide it']),
    line(['---', '---', '---', '---:', '---', '---', '---']),
  ];
  for (const r of rows) {
    const p = r.comparison?.pass;
    const ours = p ? pointsInterval(p) : '—';
    out.push(line([r.spec.claim, `\`${r.spec.preset}\``, r.spec.on, ours, `**${r.verdict}**`, r.data, r.note || '—']));
  }
  return out.join('\n');
}

/** One preset's schedule coverage from its committed spec (current design only). */
function coverageOf(res: Pick<CommittedResults, 'specJson'>): ScheduleCoverage[] | null {
  if (!currentDesign(res) || !res.specJson) return null;
  const spec = parseSpec(res.specJson, 'results spec');
  return scheduleCoverage(spec, spec.seeds[0]);
}

/** The coverage table: for each preset with results, each training method's K and the share of drawn tasks drawn ≥ K times. */
function coverageMarkdown(results: ReadonlyMap<string, CommittedResults>): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const out = [
    line(['preset', 'method', 'K', 'pool', 'drawn ≥ K times', 'distinct harnesses per task']),
    line(['---', '---', '---:', '---:', '---:', '---:']),
  ];
  for (const [preset, res] of results) {
    const cov = coverageOf(res);
    if (!cov) {
      out.push(line([`\`${preset}\``, 'old schedule (no epochs): K ≥ 4 changed at most 2 of 480 draws per run', '—', '—', '—', '—']));
      continue;
    }
    for (const c of cov)
      out.push(line([`\`${preset}\``, c.method, String(c.K), String(c.pool), `${(100 * c.fullK).toFixed(0)} %`, c.distinct.toFixed(2)]));
  }
  return out.join('\n');
}

/** The generated blocks of docs/RESULTS.md, by marker name. */
export function generatedBlocks(
  results: ReadonlyMap<string, CommittedResults>,
  rerun: ReadonlyMap<string, RerunProgress> = new Map(),
): Record<'claims' | 'coverage' | 'breakdown', string> {
  return {
    claims: claimsMarkdown(claimsTable(results, rerun)),
    coverage: coverageMarkdown(results),
    breakdown: breakdownMarkdown(claimBreakdown(results, 'in-space')),
  };
}

/**
 * `doc` with the text between each `<!-- NAME:begin -->` and `<!-- NAME:end -->` replaced by
 * blocks[NAME] (the markers stay).
 * @throws Error naming a marker pair that is missing or out of order
 */
export function withBlocks(doc: string, blocks: Readonly<Record<string, string>>): string {
  let out = doc;
  for (const [name, text] of Object.entries(blocks)) {
    const begin = `<!-- ${name}:begin -->`;
    const end = `<!-- ${name}:end -->`;
    const i = out.indexOf(begin);
    const j = out.indexOf(end);
    if (i < 0 || j < i) throw new Error(`no '${begin}' … '${end}' pair in the document`);
    out = `${out.slice(0, i + begin.length)}\n${text}\n${out.slice(j)}`;
  }
  return out;
}

/** One group of a claim's breakdown: its label and comparison. */
interface BreakdownRow {
  by: 'distance' | 'family';
  group: string;
  comparison: Comparison;
}

/**
 * A claim's comparison split by Hamming distance of the configuration to the base harness and
 * by task family (suite/family), each with its own seed-level interval (the distance groups
 * still resample their configurations). Empty when the preset has no results.
 */
function claimBreakdown(results: ReadonlyMap<string, CommittedResults>, id: string): BreakdownRow[] {
  const spec = CLAIMS.find((c) => c.id === id);
  const res = spec && results.get(spec.preset);
  if (!spec || !res) return [];
  const { cells } = claimCells(res.runs, spec);
  const rows: BreakdownRow[] = [];
  const split = (by: BreakdownRow['by'], key: (c: PairedCell) => string) => {
    const groups = new Map<string, PairedCell[]>();
    for (const c of cells) groups.set(key(c), [...(groups.get(key(c)) ?? []), c]);
    for (const g of [...groups.keys()].sort()) rows.push({ by, group: g, comparison: comparePaired(groups.get(g)!) });
  };
  split('distance', (c) => `d = ${hammingDistance(c.harnessId, BASE_HARNESS)}`);
  split('family', (c) => c.taskId.split('/').slice(0, 2).join('/'));
  return rows;
}

/** The breakdown as markdown: one row per group with Δ, interval, seeds × configurations and cells. */
function breakdownMarkdown(rows: readonly BreakdownRow[]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const out = [
    line(['by', 'group', 'B − A, points [95 % interval]', 'seeds × configs', 'cells', 'verdict']),
    line(['---', '---', '---:', '---', '---:', '---']),
  ];
  for (const r of rows) {
    const p = r.comparison.pass;
    out.push(
      line([
        r.by,
        r.group,
        `${signed(p.diff)} [${signed(p.lo)}, ${signed(p.hi)}]`,
        `${p.seeds} × ${p.configs}`,
        String(p.cells),
        verdictOf(r.comparison),
      ]),
    );
  }
  return out.join('\n');
}

/** The claims table as the app shows it (docs/results/claims.json): numbers in points, no cells. */
export interface ClaimsJson {
  rows: {
    id: string;
    claim: string;
    preset: string;
    on: string;
    verdict: Verdict;
    /** B − A and its 95 % interval in points of pass@1; null when there is no comparison (or no interval). */
    diff: number | null;
    lo: number | null;
    hi: number | null;
    seeds: number;
    configs: number;
    data: string;
    note: string;
  }[];
}

/** claimsTable as JSON for the app (points rounded to 0.1). */
export function claimsJson(rows: readonly ClaimRow[]): ClaimsJson {
  const pts = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? null : Math.round(1000 * x) / 10);
  return {
    rows: rows.map((r) => {
      const p = r.comparison?.pass;
      return {
        id: r.spec.id,
        claim: r.spec.claim,
        preset: r.spec.preset,
        on: r.spec.on,
        verdict: r.verdict,
        diff: pts(p?.diff),
        lo: pts(p?.lo),
        hi: pts(p?.hi),
        seeds: p?.seeds ?? 0,
        configs: p?.configs ?? 0,
        data: r.data,
        note: r.note,
      };
    }),
  };
}

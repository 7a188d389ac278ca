/**
 * What the black-box SFT control says (`blackbox` preset). Black-box SFT trains the base through
 * one foreign harness (bb-coding-cli) for 600 steps at lr 1e-3, ten times the RL rate; if it then
 * fails under other harnesses, that may be the foreign harness overfitting, or the recipe
 * overwriting the base whatever the harness. The control trains the same recipe through the base
 * harness, so the two readings separate:
 * - each SFT's after − before on the base harness, in-space, bb-coding-cli and bb-assistant;
 * - black-box SFT − control after training, paired on the same (seed, task, harness, sample) cells.
 * A loss the control shares is the recipe's; only black-box SFT − control behind beyond noise
 * says that training through one foreign harness costs more than the recipe itself.
 * Verdicts follow the RESULTS page's rule (method_verdict.ts over seed_interval.ts).
 *
 * Pure and DOM-free: scripts/claims.ts writes RESULTS.md's `sft-control` block from it.
 */
import { methodVerdict, undecidedNote, type MethodVerdict } from '../report/method_verdict';
import { pointsInterval } from '../report/points';
import type { RunResult } from '../report/results_schema';
import type { CommittedResults } from './claims';

/** The preset and its two SFT arms. */
const SFT_CONTROL = {
  preset: 'blackbox',
  sft: 'black-box SFT (coding-cli)',
  control: 'SFT through the base harness (control)',
} as const;

/**
 * The harness sets read, in order: each arm's own training harness ('train': bb-coding-cli for
 * black-box SFT, the base harness for the control — no difference between arms there), the base
 * harness, in-space, and the black-box harnesses the preset evaluates.
 */
const SETS = ['train', 'base', 'inSpace', 'bb-coding-cli', 'bb-assistant'] as const;

/** One harness set's three comparisons. */
interface SftControlRow {
  key: string;
  /** Black-box SFT after − before. */
  sft: MethodVerdict | null;
  /** The control's after − before. */
  control: MethodVerdict | null;
  /** Black-box SFT − control, after training. */
  diff: MethodVerdict | null;
}

interface SftControlReading {
  /** Seeds where both SFT arms ran, ascending. */
  seeds: number[];
  rows: SftControlRow[];
}

const BEFORE = ' · before';

/** A method's runs with their before-training episodes as a method of their own (`<method> · before`). */
const beforeRuns = (runs: readonly RunResult[], method: string): RunResult[] =>
  runs
    .filter((r) => r.method === method)
    .map((r) => ({ ...r, method: method + BEFORE, episodes: r.episodes && { before: {}, after: r.episodes.before } }));

/**
 * The control's reading from committed results.
 * @param results committed results by preset; `blackbox` merged from its chunks
 * @returns null when the preset is missing or lacks either SFT arm (results from before the control existed)
 */
export function sftControl(results: ReadonlyMap<string, CommittedResults>): SftControlReading | null {
  const runs = results.get(SFT_CONTROL.preset)?.runs;
  if (!runs) return null;
  const seedsOf = (m: string) => new Set(runs.filter((r) => r.method === m).map((r) => r.seed));
  const [a, b] = [seedsOf(SFT_CONTROL.sft), seedsOf(SFT_CONTROL.control)];
  const seeds = [...a].filter((s) => b.has(s)).sort((x, y) => x - y);
  if (!seeds.length) return null;
  const on = runs.filter((r) => seeds.includes(r.seed));
  const withBefore = [...on, ...beforeRuns(on, SFT_CONTROL.sft), ...beforeRuns(on, SFT_CONTROL.control)];
  const rows = SETS.map((key) => ({
    key,
    sft: methodVerdict(withBefore, SFT_CONTROL.sft + BEFORE, SFT_CONTROL.sft, key),
    control: methodVerdict(withBefore, SFT_CONTROL.control + BEFORE, SFT_CONTROL.control, key),
    diff: methodVerdict(on, SFT_CONTROL.control, SFT_CONTROL.sft, key),
  })).filter((r) => r.sft || r.control || r.diff);
  return { seeds, rows };
}

const interval = (v: MethodVerdict | null) => {
  if (!v) return '—';
  if (v.direction === 'not measurable') return 'not measurable';
  return pointsInterval(v.comparison.pass);
};

const WORD: Record<string, string> = {
  ahead: 'raises',
  behind: 'lowers',
  equivalent: 'within ±2',
  undecided: 'undecided',
  'not measurable': '',
};

const DIFF_WORD: Record<string, string> = { ...WORD, ahead: 'ahead', behind: 'behind' };

const cell = (v: MethodVerdict | null, words: Record<string, string> = WORD) => {
  const w = v ? words[v.direction] : '';
  return w ? `${interval(v)} ${w}` : interval(v);
};

/**
 * What the in-space row says, one sentence: whose loss it is.
 * @returns null without an in-space row
 */
function sftControlSentence(r: SftControlReading): string | null {
  const row = r.rows.find((x) => x.key === 'inSpace');
  if (!row?.diff) return null;
  const d = row.diff.direction;
  const both = row.sft?.direction === 'behind' && row.control?.direction === 'behind';
  const lead = both ? 'Both SFTs lower in-space pass@1: the recipe costs the base whatever the harness' : null;
  const tail =
    d === 'behind'
      ? `black-box SFT is behind the control beyond noise (${interval(row.diff)}): training through one foreign harness costs more than the recipe does`
      : d === 'ahead'
        ? `black-box SFT is ahead of the control (${interval(row.diff)})`
        : d === 'equivalent'
          ? `black-box SFT is within ±2 points of the control (${interval(row.diff)}): no cost of the foreign harness beyond the recipe's`
          : d === 'not measurable'
            ? 'both fail every in-space cell'
            : `whether black-box SFT costs more than the control is undecided (${interval(row.diff)}; ${undecidedNote(row.diff.comparison)})`;
  return `${lead ? `${lead}; ` : ''}${tail}.`.replace(/^./, (c) => c.toUpperCase());
}

const SET_NAME: Record<string, string> = {
  train: 'its own training harness (bb-coding-cli; the control: the base harness)',
  base: 'base harness (the control trains here)',
  inSpace: 'in-space',
  'bb-coding-cli': 'bb-coding-cli (black-box SFT trains here)',
  'bb-assistant': 'bb-assistant (held out)',
};

/** The reading as markdown (RESULTS.md's `sft-control` block). */
export function sftControlMarkdown(r: SftControlReading | null): string {
  if (!r)
    return `_No results of \`${SFT_CONTROL.preset}\` with its control arm yet ('${SFT_CONTROL.control}': the same SFT recipe through the base harness)._`;
  const line = (xs: string[]) => `| ${xs.join(' | ')} |`;
  const sentence = sftControlSentence(r);
  return [
    `\`${SFT_CONTROL.preset}\`, ${r.seeds.length} seed${r.seeds.length === 1 ? '' : 's'} (${r.seeds.join(', ')}); points [95 % interval over seeds and configurations].`,
    '',
    line(['on', 'black-box SFT: after − before', 'control: after − before', 'black-box SFT − control']),
    line(['---', '---:', '---:', '---:']),
    ...r.rows.map((x) => line([SET_NAME[x.key] ?? x.key, cell(x.sft), cell(x.control), cell(x.diff, DIFF_WORD)])),
    ...(sentence ? ['', sentence] : []),
  ].join('\n');
}

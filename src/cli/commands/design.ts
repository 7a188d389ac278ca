/**
 * `hlab design`: the training set of a harness space (strength-2 orthogonal array or random-k)
 * and its report: training ids, balance, minimum pairwise Hamming distance, held-out
 * configurations by distance to the nearest training harness, and the run-size bounds.
 */
import { type Command, InvalidArgumentError } from 'commander';
import { choiceOption, intOption, printJson, UsageError } from '../cli_util';
import {
  type DesignReport,
  describeHarness,
  MAX_ENUMERATED_SPACE,
  NoOrthogonalArrayError,
  parseHarnessId,
  selectTraining,
  type HarnessSpace,
  type SelectionMethod,
  spaceFromLevels,
  spaceSize,
} from '../../design';

/** Parser for `--levels 3,3,3,3,3`: comma-separated integers ≥ 2, at most 26 of them. */
export function levelsOption(value: string): number[] {
  const parts = value.split(',').map((p) => p.trim());
  const bad = parts.find((p) => !/^\d+$/.test(p) || Number(p) < 2);
  if (parts.length === 0 || bad !== undefined) {
    throw new InvalidArgumentError(`expected comma-separated integers ≥ 2 (one per component), got '${value}' (bad entry '${bad ?? ''}')`);
  }
  if (parts.length > 26) throw new InvalidArgumentError(`expected at most 26 components, got ${parts.length}`);
  return parts.map(Number);
}

/** The space for `--levels`, refusing spaces too large to enumerate (flag named). */
export function spaceForLevels(levels: number[] | undefined): HarnessSpace {
  const space = spaceFromLevels(levels ?? [3, 3, 3, 3, 3]);
  const size = spaceSize(space);
  if (size > MAX_ENUMERATED_SPACE)
    throw new UsageError(
      `--levels ${levels!.join(',')}: ${size} configurations, more than the ${MAX_ENUMERATED_SPACE} the report enumerates`,
    );
  return space;
}

/** Run a selection, turning "no array within limits" into a one-line usage error naming --levels. */
export function runSelection(space: HarnessSpace, method: SelectionMethod, k: number | undefined, seed: number): DesignReport {
  try {
    return selectTraining(space, { method, k, seed });
  } catch (e) {
    if (e instanceof NoOrthogonalArrayError) throw new UsageError(`--levels: ${e.message}`);
    throw e;
  }
}

interface DesignOpts {
  levels?: number[];
  method: SelectionMethod;
  k?: number;
  seed: number;
  json?: boolean;
}

export function registerDesign(program: Command): void {
  program
    .command('design')
    .description('select the training harnesses (strength-2 orthogonal array or random-k) and report balance, distances and bounds')
    .option('--levels <list>', 'realizations per component, comma-separated (default: the S,T,O,C,W space, 3,3,3,3,3)', levelsOption)
    .option('--method <method>', 'oa (orthogonal array) | random (random-k ablation)', choiceOption(['oa', 'random'] as const), 'oa')
    .option('--k <n>', 'training-set size for --method random (default: the orthogonal array run size)', intOption(1))
    .option('--seed <n>', 'seed of the random-k draw', intOption(0, 2 ** 32 - 1), 0)
    .option('--json', 'print JSON only')
    .action((opts: DesignOpts) => {
      const space = spaceForLevels(opts.levels);
      if (opts.k !== undefined && opts.method !== 'random') throw new UsageError('--k applies only to --method random');
      if (opts.k !== undefined && opts.k > spaceSize(space))
        throw new UsageError(`--k ${opts.k} exceeds the space size ${spaceSize(space)}`);
      const report = runSelection(space, opts.method, opts.k, opts.seed);
      if (opts.json) printJson(report);
      else process.stdout.write(formatDesignReport(report, space));
    });
}

const yesNo = (b: boolean) => (b ? 'yes' : 'NO');

/** The human-readable report (what `npm start` shows). */
function formatDesignReport(r: DesignReport, space: HarnessSpace): string {
  const out: string[] = [];
  const k = r.components.length;
  const levelsStr = r.components.map((c) => c.levels).join('×');
  out.push(`Harness design: ${r.components.map((c) => c.key).join(' × ')}  (${levelsStr} = ${r.spaceSize} configurations)`);
  out.push('');
  out.push('Components');
  for (const c of space.components) {
    out.push(`  ${c.key}  ${c.name.padEnd(19)} ${c.realizations.map((x) => `${x.id} ${x.name}`).join(' · ')}`);
  }
  out.push('');
  out.push(`Method        ${r.method === 'oa' ? 'strength-2 orthogonal array' : 'random-k (ablation)'}: ${r.construction}`);
  const minimal = r.minimalRunSize
    ? 'minimal'
    : r.runSizeProvedMinimal
      ? 'minimal: smaller admissible sizes proved infeasible by exhaustive search'
      : r.balance.strength2
        ? 'not proved minimal'
        : 'not an orthogonal array';
  out.push(
    `Run size      N = ${r.runSize}   (Rao bound ${r.raoBound}, divisibility bound ${r.divisibilityBound} → smallest admissible ${r.smallestAdmissibleRunSize}: ${minimal})`,
  );
  const col = r.balance.columns;
  const pairTargets = r.balance.pairs.map((p) => p.counts.flat());
  out.push(
    `Balance       each level equally often per component: ${yesNo(r.balance.balanced)}` +
      (r.balance.balanced
        ? ` (${col.map((c) => c.counts[0]).join('/')} times)`
        : ` (unequal: ${col
            .filter((c) => !c.equal)
            .map((c) => `${c.component} ${c.counts.join('/')}`)
            .join(', ')})`),
  );
  const unequalPairs = r.balance.pairs.filter((p) => !p.equal);
  out.push(
    `              each level pair equally often per component pair: ${yesNo(r.balance.strength2)}` +
      (r.balance.pairs.length === 0
        ? ' (one component: no pairs)'
        : r.balance.strength2
          ? ` (${r.balance.pairs.length} pairs, ${[...new Set(pairTargets.map((c) => c[0]))].join('/')} times each)`
          : ` (${unequalPairs.length} of ${r.balance.pairs.length} pairs unequal)`),
  );
  out.push(`Min distance  ${r.minPairwiseDistance}  (minimum Hamming distance between two training harnesses, of ${k})`);
  out.push('');
  out.push(`Training harnesses H_tr (${r.training.length})`);
  r.training.forEach((id, i) => {
    const names = describeHarness(parseHarnessId(id, space), space)
      .map((x) => x.name)
      .join(' · ');
    out.push(`  ${String(i + 1).padStart(3)}  ${id}   ${names}`);
  });
  out.push('');
  out.push(`Held-out configurations H \\ H_tr (${r.heldOut.length}), by Hamming distance to the nearest training harness`);
  const maxCount = Math.max(1, ...r.heldOutHistogram.map((h) => h.count));
  for (const h of r.heldOutHistogram) {
    if (h.distance === 0) continue;
    if (h.count === 0 && h.distance > Math.max(...r.heldOutHistogram.filter((x) => x.count > 0).map((x) => x.distance), 1)) continue;
    const bar = '█'.repeat(Math.round((40 * h.count) / maxCount));
    out.push(`  d = ${h.distance}  ${String(h.count).padStart(6)}  ${bar}`);
  }
  out.push('');
  out.push('JSON: add --json (held-out ids with distances, full balance tables).');
  return out.join('\n') + '\n';
}

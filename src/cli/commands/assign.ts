/**
 * `hlab assign`: the K training harnesses of each task (docs/ARCHITECTURE.md "Harness space and design"), anchor first —
 * locality-aware (K−1 nearest to the anchor by Hamming distance) or random (ablation).
 */
import type { Command } from 'commander';
import { choiceOption, intOption, printJson, UsageError } from '../cli_util';
import { assignHarnesses, type AssignmentStrategy, type SelectionMethod } from '../../design';
import { levelsOption, runSelection, spaceForLevels } from './design';

interface AssignOpts {
  K: number;
  tasks: number;
  strategy: AssignmentStrategy;
  seed: number;
  levels?: number[];
  selection: SelectionMethod;
  selectionSeed: number;
  json?: boolean;
}

export function registerAssign(program: Command): void {
  program
    .command('assign')
    .description('assign K training harnesses to each task (anchor first; locality-aware or random)')
    .option('--K <n>', 'harnesses per task, 1..|H_tr|', intOption(1), 3)
    .option('--tasks <n>', 'number of tasks (ids 0..n-1)', intOption(1, 100_000), 8)
    .option(
      '--strategy <name>',
      'locality (anchor + K-1 nearest) | random (anchor + K-1 uniform)',
      choiceOption(['locality', 'random'] as const),
      'locality',
    )
    .option('--seed <n>', 'assignment seed', intOption(0, 2 ** 32 - 1), 0)
    .option('--levels <list>', 'realizations per component (default 3,3,3,3,3)', levelsOption)
    .option('--selection <method>', 'training set: oa | random', choiceOption(['oa', 'random'] as const), 'oa')
    .option('--selection-seed <n>', 'seed of a random training set', intOption(0, 2 ** 32 - 1), 0)
    .option('--json', 'print JSON only')
    .action((opts: AssignOpts) => {
      const space = spaceForLevels(opts.levels);
      const design = runSelection(space, opts.selection, undefined, opts.selectionSeed);
      const n = design.training.length;
      if (opts.K > n) throw new UsageError(`--K ${opts.K} is out of range: the training set has ${n} harnesses, so K must be in 1..${n}`);
      const assignments = assignHarnesses({
        training: design.training,
        K: opts.K,
        tasks: opts.tasks,
        strategy: opts.strategy,
        seed: opts.seed,
        space,
      });
      const report = {
        strategy: opts.strategy,
        K: opts.K,
        seed: opts.seed,
        selection: { method: design.method, construction: design.construction, seed: design.seed },
        training: design.training,
        assignments,
      };
      if (opts.json) {
        printJson(report);
        return;
      }
      const out: string[] = [];
      out.push(
        `${opts.strategy === 'locality' ? 'Locality-aware' : 'Random'} assignment: K = ${opts.K} harnesses per task, ${opts.tasks} tasks, seed ${opts.seed}`,
      );
      out.push(`Training set: ${n} harnesses (${design.construction})`);
      out.push('');
      out.push(`  task  anchor           others (Hamming distance to the anchor)`);
      for (const a of assignments) {
        const others = a.harnesses
          .slice(1)
          .map((h, i) => `${h} (${a.distances[i + 1]})`)
          .join('  ');
        out.push(`  ${String(a.task).padStart(4)}  ${a.harnesses[0]}   ${others}`);
      }
      const ds = assignments.flatMap((a) => a.distances.slice(1));
      if (ds.length > 0)
        out.push('', `Mean distance to the anchor over the K−1 others: ${(ds.reduce((x, y) => x + y, 0) / ds.length).toFixed(2)}`);
      process.stdout.write(out.join('\n') + '\n');
    });
}

/**
 * `hlab tasks [--suite NAME] [--json]`: without --suite, the suites and their families; with it, a suite's task families (description, flags), its tiers
 * with the canonical solver's tool-call count, and the per-cell counts of a default seeded
 * train/test draw (`taskSet`).
 */
import type { Command } from 'commander';
import { choiceOption, hlabCommand, intOption, printJson } from '../cli_util';
import { SEED_RANGES, SUITE_NAMES, TIERS, getSuite, runSolver, taskSet } from '../../tasks/index';
import type { SuiteName } from '../../tasks/types';

interface TasksOptions {
  suite?: SuiteName;
  train: number;
  test: number;
  seed: number;
  json?: boolean;
}

/** The report `hlab tasks` prints (JSON form). */
function tasksReport(name: SuiteName, train: number, test: number, seed: number) {
  const suite = getSuite(name);
  const draws = { train: taskSet(suite, 'train', train, seed), test: taskSet(suite, 'test', test, seed) };
  const count = (split: 'train' | 'test', family: string, tier: number) =>
    draws[split].filter((t) => t.family === family && t.tier === tier).length;
  const families = suite.families.map((f) => ({
    name: f.name,
    description: f.description,
    needsStateTracking: f.needsStateTracking,
    hasRecoverableError: f.hasRecoverableError,
    tiers: TIERS.map((tier) => {
      // Canonical solver calls (finish included) on the first train seed: the tier's meaning.
      const run = runSolver(suite, suite.generate(f.name, tier, SEED_RANGES.train.from));
      return { tier, solverCalls: run.calls, train: count('train', f.name, tier), test: count('test', f.name, tier) };
    }),
  }));
  return {
    suite: suite.name,
    seed,
    seedRanges: SEED_RANGES,
    totals: { families: families.length, tiers: TIERS.length, train: draws.train.length, test: draws.test.length },
    families,
  };
}

/** The suites and their family names (`hlab tasks` without --suite). */
function suitesReport(): Array<{ name: SuiteName; families: string[] }> {
  return SUITE_NAMES.map((name) => ({ name, families: getSuite(name).families.map((f) => f.name) }));
}

export function registerTasks(program: Command): void {
  program
    .command('tasks')
    .description('list a task suite: families, tiers (solver tool calls), flags, counts of a seeded train/test draw')
    .option('--suite <name>', `task suite (${SUITE_NAMES.join(', ')}); without it, list the suites`, choiceOption(SUITE_NAMES))
    .option('--train <n>', 'size of the train draw', intOption(0, 100_000), 360)
    .option('--test <n>', 'size of the test draw', intOption(0, 100_000), 90)
    .option('--seed <n>', 'seed of the draws', intOption(0), 0)
    .option('--json', 'print JSON only')
    .action((opts: TasksOptions) => {
      if (opts.suite === undefined) {
        const suites = suitesReport();
        if (opts.json) return printJson({ suites });
        for (const x of suites) console.log(`${x.name.padEnd(10)} ${x.families.length} families: ${x.families.join(', ')}`);
        console.log(`\ndetails of one suite: ${hlabCommand(['tasks', '--suite', suites[0].name])}`);
        return;
      }
      const r = tasksReport(opts.suite, opts.train, opts.test, opts.seed);
      if (opts.json) return printJson(r);
      console.log(
        `suite ${r.suite}: ${r.totals.families} families × ${r.totals.tiers} tiers; draw seed ${r.seed}: ${r.totals.train} train, ${r.totals.test} test`,
      );
      console.log(
        `seeds: train [${r.seedRanges.train.from}, ${r.seedRanges.train.to}], test [${r.seedRanges.test.from}, ${r.seedRanges.test.to}]`,
      );
      for (const f of r.families) {
        const flags = [f.needsStateTracking && 'state-tracking', f.hasRecoverableError && 'recoverable-error'].filter(Boolean).join(', ');
        console.log(`\n${f.name}${flags ? `  [${flags}]` : ''}\n  ${f.description}`);
        for (const t of f.tiers)
          console.log(
            `  t${t.tier}: ${String(t.solverCalls).padStart(2)} calls   train ${String(t.train).padStart(4)}   test ${String(t.test).padStart(4)}`,
          );
      }
    });
}

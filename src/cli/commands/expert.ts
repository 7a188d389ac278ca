/**
 * `hlab expert --suite NAME --tasks N --harnesses all|ID[,ID…] [--split test] [--seed S] [--json] [--strict]`:
 * run the scripted expert on N tasks (a seeded, family×tier-balanced `taskSet` draw) under each
 * harness and report the pass rate per harness. `all` = the 243 in-space ids + the black-box ids.
 * JSON: {suite, split, seed, tasks, results: [{harness, episodes, passRate, failures, dishonestRate}], totals}
 * (dishonestRate: episodes with an action whose facts its context did not show, src/harness/honesty.ts).
 * --strict exits 1 unless every harness has passRate 1; --perfect-memory runs the old replay.
 *
 * `hlab expert --spec FILE | --preset NAME [--json] [--strict]`: feasibility of the experiment
 * (src/experiment/feasibility.ts): the honest expert on every (task, harness) cell the spec
 * trains or evaluates, under the spec's turns (rollout.maxTurns tool-call turns plus each harness's
 * workflow overhead, src/harness/turn_budget.ts), max new tokens and context window with the real
 * tokenizer (public/tokenizer-v2.json), as the rollouts count; lists the infeasible cells with the reason (opening,
 * expert, turns, action). JSON: {spec, cells, infeasible: [...], byReason, byHarness, byFamily,
 * byTier, excluded: [{taskId, harnessId, reason, detail}]}. --strict exits 1 when any cell is infeasible.
 */
import type { Command } from 'commander';
import { choiceOption, intOption, printJson, shippedTokenizer, UsageError } from '../cli_util';
import { SUITE_NAMES, getSuite, taskSet, type Split } from '../../tasks/index';
import type { SuiteName } from '../../tasks/types';
import { allHarnessIds, createHarness } from '../../harness/registry';
import { runExpertEpisode } from '../../harness/expert';
import { honestyViolations } from '../../harness/honesty';
import { specFeasibility, type FeasibilityReport } from '../../experiment/feasibility';
import { loadSpec } from './run';

interface ExpertCliOptions {
  suite?: SuiteName;
  spec?: string;
  preset?: string;
  tasks: number;
  harnesses: string;
  split: Split;
  seed: number;
  json?: boolean;
  strict?: boolean;
  perfectMemory?: boolean;
}

interface ExpertHarnessResult {
  harness: string;
  episodes: number;
  passRate: number;
  /** Failed task ids with the first failing check or the driver error. */
  failures: { task: string; reason: string }[];
  /** Fraction of episodes with an action whose facts its context did not show (src/harness/honesty.ts). */
  dishonestRate: number;
}

/** Parse --harnesses: 'all' or a comma list of ids. @throws UsageError naming an unknown id. */
export function parseHarnessList(spec: string): string[] {
  if (spec.trim() === 'all') return allHarnessIds();
  const ids = spec
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (ids.length === 0) throw new UsageError(`--harnesses: expected 'all' or a comma-separated list of ids, got '${spec}'`);
  for (const id of ids) {
    try {
      createHarness(id);
    } catch (e) {
      throw new UsageError(`--harnesses: ${(e as Error).message}`);
    }
  }
  return ids;
}

/** Run the sweep. */
function expertSweep(suiteName: SuiteName, nTasks: number, harnesses: readonly string[], split: Split = 'test', seed = 0, honest = true) {
  const suite = getSuite(suiteName);
  const tasks = taskSet(suite, split, nTasks, seed);
  const t0 = performance.now();
  const results: ExpertHarnessResult[] = harnesses.map((harness) => {
    const failures: ExpertHarnessResult['failures'] = [];
    let dishonest = 0;
    for (const task of tasks) {
      const ep = runExpertEpisode(task, harness, { suite, honest });
      if (honestyViolations(ep.turns, ep.phrases ?? []).length) dishonest++;
      if (!ep.pass) {
        const bad = ep.verification.checks.find((c) => !c.pass);
        failures.push({ task: task.id, reason: ep.error ?? (bad ? `${bad.name}${bad.detail ? ': ' + bad.detail : ''}` : 'failed') });
      }
    }
    return {
      harness,
      episodes: tasks.length,
      passRate: tasks.length ? (tasks.length - failures.length) / tasks.length : 0,
      failures,
      dishonestRate: tasks.length ? dishonest / tasks.length : 0,
    };
  });
  const episodes = results.reduce((s, r) => s + r.episodes, 0);
  const passed = results.reduce((s, r) => s + r.episodes - r.failures.length, 0);
  return {
    suite: suite.name,
    split,
    seed,
    tasks: tasks.length,
    results,
    totals: {
      harnesses: results.length,
      episodes,
      passRate: episodes ? passed / episodes : 0,
      dishonestRate: episodes ? results.reduce((s, r) => s + r.dishonestRate * r.episodes, 0) / episodes : 0,
      seconds: Number(((performance.now() - t0) / 1000).toFixed(2)),
    },
  };
}

/** Lines of the human-readable feasibility report: totals, by reason/tier/family, the worst harnesses, examples. */
function feasibilityLines(name: string, r: FeasibilityReport, maxExamples = 20): string[] {
  const pctOf = (n: number) => `${n} (${((100 * n) / Math.max(1, r.cells)).toFixed(1)} %)`;
  const sorted = (o: Record<string, number>) => Object.entries(o).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const lines = [
    `spec ${name}: ${r.cells} (task, harness) cells trained or evaluated; infeasible under the spec's budgets: ${pctOf(r.infeasible.length)}`,
  ];
  if (!r.infeasible.length) return lines;
  lines.push(
    `  by reason: ${sorted(r.byReason)
      .filter(([, n]) => n)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
  );
  lines.push(
    `  by tier:   ${sorted(r.byTier)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
  );
  lines.push(
    `  by family: ${sorted(r.byFamily)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
  );
  const hs = sorted(r.byHarness);
  lines.push(
    `  harnesses with infeasible cells: ${hs.length}; most: ${hs
      .slice(0, 8)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
  );
  for (const c of r.infeasible.slice(0, maxExamples))
    lines.push(`  ${c.harnessId} ${c.taskId} [${c.roles.join('+')}]: ${c.reason}: ${c.detail}`);
  if (r.infeasible.length > maxExamples) lines.push(`  … ${r.infeasible.length - maxExamples} more (--json lists all)`);
  return lines;
}

export function registerExpert(program: Command): void {
  program
    .command('expert')
    .description(
      'run the scripted expert through harnesses and report pass rates (all = 243 ids + black-box); with --spec/--preset, check which (task, harness) cells of an experiment are feasible under its budgets',
    )
    .option('--suite <name>', `task suite (${SUITE_NAMES.join(', ')}); required without --spec/--preset`, choiceOption(SUITE_NAMES))
    .option('--spec <file>', 'feasibility of an experiment spec file under its own budgets')
    .option('--preset <name>', 'feasibility of a preset under its own budgets')
    .option('--tasks <n>', 'tasks per harness (a balanced seeded draw)', intOption(1, 10_000), 30)
    .option('--harnesses <list>', "'all' or comma-separated harness ids", 'all')
    .option('--split <split>', 'task split', choiceOption(['train', 'test'] as const), 'test')
    .option('--seed <n>', 'seed of the task draw', intOption(0), 0)
    .option('--json', 'print JSON only')
    .option('--strict', 'exit 1 unless every harness passes every task (with --spec: unless every cell is feasible)')
    .option('--perfect-memory', 'replay the solver with perfect memory (not honest to its context)')
    .action((opts: ExpertCliOptions) => {
      if (opts.spec || opts.preset) {
        if (opts.suite) throw new UsageError('--suite sweeps tasks × harnesses; --spec/--preset checks an experiment: give one of them');
        const { spec } = loadSpec(opts);
        const tok = shippedTokenizer();
        const r = specFeasibility(spec, tok);
        const excluded = r.infeasible.map((c) => ({ taskId: c.taskId, harnessId: c.harnessId, reason: c.reason, detail: c.detail }));
        if (opts.json)
          printJson({
            spec: spec.name,
            budgets: {
              maxTurns: spec.rollout.maxTurns,
              maxNewTokens: spec.rollout.maxNewTokens,
              contextTokens: spec.rollout.contextTokens,
            },
            ...r,
            excluded,
          });
        else for (const l of feasibilityLines(spec.name, r)) console.log(l);
        if (opts.strict && r.infeasible.length) process.exitCode = 1;
        return;
      }
      if (!opts.suite) throw new UsageError('give --suite NAME (a sweep) or --spec FILE / --preset NAME (feasibility of an experiment)');
      const ids = parseHarnessList(opts.harnesses);
      const r = expertSweep(opts.suite, opts.tasks, ids, opts.split, opts.seed, !opts.perfectMemory);
      if (opts.json) printJson(r);
      else {
        const bad = r.results.filter((x) => x.passRate < 1);
        console.log(
          `suite ${r.suite} (${r.split}, seed ${r.seed}): ${r.tasks} tasks × ${r.totals.harnesses} harnesses = ${r.totals.episodes} episodes in ${r.totals.seconds}s`,
        );
        console.log(
          `overall pass rate ${r.totals.passRate.toFixed(4)}; harnesses below 1: ${bad.length}; episodes with an action its context does not support: ${r.totals.dishonestRate.toFixed(4)}`,
        );
        for (const x of bad.slice(0, 20))
          console.log(`  ${x.harness}: ${x.passRate.toFixed(3)} — e.g. ${x.failures[0].task}: ${x.failures[0].reason}`);
      }
      if (opts.strict && r.results.some((x) => x.passRate < 1)) process.exitCode = 1;
    });
}

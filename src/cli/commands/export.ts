/**
 * `hlab export --format verl|slime --out DIR [--design oa|random] [--k N] [--design-seed S]
 *   [--K 4] [--strategy locality|random] [--suites workspace,errands] [--tasks N]
 *   [--eval-tasks N] [--heldout-per-distance N] [--max-tier N] [--max-turns N] [--seed S]`
 * or `hlab export --format … --out DIR (--preset NAME | --spec FILE) [--method NAME] [--seed S]`:
 * datasets for external RL engines (src/export/, docs/SCALE-OUT.md): one row per (task,
 * harness) of the task → harness schedule, plus held-out and black-box evaluation rows, with
 * design.json, schedule.json and manifest.json beside them. With a spec, the sets are the ones
 * the experiment runner plans for that method (the design options then do not apply).
 */
import type { Command } from 'commander';
import { resolve } from 'node:path';
import { choiceOption, intOption, parseSuiteList, printJson, UsageError } from '../cli_util';
import { loadSpec } from './run';
import { buildExport, buildSpecExport, type ExportOptions } from '../../export/dataset';
import { EXPORT_FORMATS, writeExport, type ExportFormat } from '../../export/writers';
import { SUITE_NAMES } from '../../tasks/index';
import { selectTraining } from '../../design';

/** The flags: the default export's options, plus the output and the spec-driven export's source. */
interface ExportCliOptions extends ExportOptions {
  format: ExportFormat;
  out: string;
  preset?: string;
  spec?: string;
  method?: string;
  json?: boolean;
}

const DESIGN_FLAGS = [
  'design',
  'k',
  'designSeed',
  'K',
  'strategy',
  'suites',
  'tasks',
  'evalTasks',
  'heldoutPerDistance',
  'maxTier',
  'maxTurns',
] as const;
const flagName = (k: string) => '--' + (k === 'K' ? 'K' : k.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase()));

/** Register `hlab export` on `program` (options above; a bad value is a one-line exit 2). */
export function registerExport(program: Command): void {
  program
    .command('export')
    .description(
      'write verl (parquet) or slime (jsonl) datasets: one row per (task, harness) of the schedule, plus held-out and black-box sets',
    )
    .requiredOption('--format <f>', 'verl | slime', choiceOption(EXPORT_FORMATS))
    .requiredOption('--out <dir>', 'output folder (created)')
    .option(
      '--design <method>',
      'training set: oa (strength-2 orthogonal array) | random (random-k)',
      choiceOption(['oa', 'random'] as const),
    )
    .option('--k <n>', 'size of a --design random training set (default 18)', intOption(1, 243))
    .option('--design-seed <n>', 'seed of a --design random draw (default 0)', intOption(0, 2 ** 32 - 1))
    .option('--K <n>', 'harnesses per task, anchor first (default 4)', intOption(1, 243))
    .option(
      '--strategy <s>',
      'locality (anchor + K-1 nearest) | random (anchor + K-1 uniform)',
      choiceOption(['locality', 'random'] as const),
    )
    .option('--suites <list>', `comma-separated suites (default ${SUITE_NAMES.join(',')})`, parseSuiteList)
    .option('--tasks <n>', 'train tasks per suite (default 16)', intOption(1, 10_000))
    .option('--eval-tasks <n>', 'test tasks per suite in the evaluation sets (default 8)', intOption(0, 10_000))
    .option('--heldout-per-distance <n>', 'held-out configurations per Hamming distance (default 2)', intOption(0, 243))
    .option('--max-tier <n>', 'only tasks of tier ≤ n (default 3)', intOption(1, 3))
    .option('--max-turns <n>', 'turn budget written on each row (default 16)', intOption(1, 1000))
    .option(
      '--seed <n>',
      'seed of the task draws and the assignment (with a spec: the run seed, default its first)',
      intOption(0, 2 ** 31 - 1),
    )
    .option('--preset <name>', 'export what an experiment preset plans (instead of the design options)')
    .option('--spec <file>', 'export what an experiment spec file plans')
    .option('--method <name>', "with --preset/--spec: the method's name (default its first method)")
    .option('--json', 'print the manifest as JSON only')
    .action((opts: ExportCliOptions) => {
      let ds;
      if (opts.preset !== undefined || opts.spec !== undefined) {
        const given = DESIGN_FLAGS.find((k) => opts[k] !== undefined);
        if (given) throw new UsageError(`${flagName(given)}: does not apply with --preset/--spec (the spec decides it)`);
        const { spec } = loadSpec({ preset: opts.preset, spec: opts.spec });
        const method = opts.method === undefined ? spec.methods[0] : spec.methods.find((m) => m.name === opts.method);
        if (!method)
          throw new UsageError(
            `--method '${opts.method}': not a method of spec '${spec.name}' (${spec.methods.map((m) => `'${m.name}'`).join(', ')})`,
          );
        try {
          ds = buildSpecExport(spec, method, opts.seed ?? spec.seeds[0]);
        } catch (e) {
          throw new UsageError(`--method '${method.name}': ${(e as Error).message}`);
        }
      } else {
        if (opts.method !== undefined) throw new UsageError('--method: applies only with --preset or --spec');
        if (opts.design !== 'random' && (opts.k !== undefined || opts.designSeed !== undefined))
          throw new UsageError(`${opts.k !== undefined ? '--k' : '--design-seed'}: applies only to --design random`);
        const K = opts.K ?? 4;
        const n = opts.design === 'random' ? (opts.k ?? 18) : selectTraining(undefined, { method: 'oa' }).runSize;
        if (K > n) throw new UsageError(`--K ${K}: the training set has ${n} harnesses, so K must be in 1..${n}`);
        ds = buildExport({ ...opts, K });
      }
      const command = ['hlab', ...process.argv.slice(2)].join(' ');
      const manifest = writeExport(ds, opts.format, resolve(opts.out), command);
      if (opts.json) return printJson(manifest);
      console.log(
        `wrote ${opts.format} to ${opts.out}: train ${manifest.rows.train} rows, heldout ${manifest.rows.heldout}, blackbox ${manifest.rows.blackbox}`,
      );
      for (const [s, d] of Object.entries(manifest.description)) console.log(`  ${s.padEnd(8)} ${d}`);
      console.log(`  plus design.json, schedule.json, manifest.json`);
    });
}

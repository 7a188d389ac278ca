/**
 * `hlab render --suite NAME --task TASK --harness ID [--diff ID2] [--side-by-side] [--json]`:
 * the exact context the policy would see at the start of an episode (role markers included),
 * or two harnesses' contexts as a unified diff / side by side.
 *
 * TASK is a task id ('family/tN/SEED' or 'suite/family/tN/SEED') or an integer SEED; with a
 * bare seed, --family (default: the suite's first) and --tier (default 1) pick the cell.
 * An unknown suite, family, task or harness id exits 2 with a message naming it.
 */
import type { Command } from 'commander';
import { choiceOption, intOption, printJson, UsageError } from '../cli_util';
import { SUITE_NAMES } from '../../tasks/index';
import { resolveTask, TaskRefError } from '../../tasks/task_ref';
import type { SuiteName, Task } from '../../tasks/types';
import { createHarness } from '../../harness/registry';
import { approxTokens } from '../../harness/render';
import { sideBySide, unifiedDiff } from '../../harness/diff';

interface RenderOptions {
  suite: SuiteName;
  task: string;
  harness: string;
  diff?: string;
  sideBySide?: boolean;
  family?: string;
  tier: number;
  json?: boolean;
}

/** Resolve --task (plus --family/--tier for a bare seed). @throws UsageError naming the bad value. */
function resolveTaskOption(suiteName: SuiteName, spec: string, family: string | undefined, tier: number): Task {
  try {
    return resolveTask(suiteName, spec, family, tier);
  } catch (e) {
    if (e instanceof TaskRefError) throw new UsageError(e.message);
    throw e;
  }
}

/** The opening context text of harness `id` on `task`. @throws UsageError naming an unknown id. */
function openingContext(id: string, task: Task): string {
  let h;
  try {
    h = createHarness(id);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  h.reset(task);
  return h.contextText();
}

export function registerRender(program: Command): void {
  program
    .command('render')
    .description('print the context a policy would see at the start of an episode (or diff two harnesses)')
    .requiredOption('--suite <name>', `task suite (${SUITE_NAMES.join(', ')})`, choiceOption(SUITE_NAMES))
    .requiredOption('--task <task>', "task seed (integer) or task id 'family/tN/SEED'")
    .requiredOption('--harness <id>', 'harness id, e.g. S0-T0-O0-C0-W0, bb-coding-cli, bb-assistant')
    .option('--diff <id2>', 'a second harness: print a unified diff of the two contexts')
    .option('--side-by-side', 'with --diff: two columns instead of a unified diff')
    .option('--family <name>', "family of a bare --task seed (default: the suite's first)")
    .option('--tier <n>', 'tier of a bare --task seed', intOption(1, 3), 1)
    .option('--json', 'print JSON only')
    .action((opts: RenderOptions) => {
      if (opts.sideBySide && opts.diff === undefined)
        throw new UsageError('--side-by-side needs --diff <id2> (the second harness to show beside --harness)');
      const task = resolveTaskOption(opts.suite, opts.task, opts.family, opts.tier);
      const a = openingContext(opts.harness, task);
      const b = opts.diff !== undefined ? openingContext(opts.diff, task) : undefined;
      if (opts.json) {
        const entry = (harness: string, context: string) => ({
          harness,
          chars: context.length,
          approxTokens: approxTokens(context),
          context,
        });
        return printJson({
          task: task.id,
          contexts: b === undefined ? [entry(opts.harness, a)] : [entry(opts.harness, a), entry(opts.diff!, b)],
        });
      }
      if (b === undefined) {
        process.stdout.write(`# task ${task.id} · harness ${opts.harness} · ${a.length} chars ≈ ${approxTokens(a)} tokens\n${a}`);
        return;
      }
      process.stdout.write(`# task ${task.id}\n`);
      process.stdout.write(
        (opts.sideBySide ? sideBySide(a, b, opts.harness, opts.diff!) : unifiedDiff(a, b, opts.harness, opts.diff!)) + '\n',
      );
    });
}

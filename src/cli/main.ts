/**
 * `hlab`: the Harness Lab command line (`npm run -s hlab -- <command> [options]`).
 *
 * Every command has --help; --json prints JSON alone on stdout; a bad flag or value prints
 * one line naming it and exits 2. Commands register themselves from src/cli/commands/.
 */
import { Command, CommanderError, type Option } from 'commander';
import { readFileSync } from 'node:fs';
import { printable, ReportedError, UsageError } from './cli_util';
import { registerDoctor } from './commands/doctor';
import { registerRender } from './commands/render';
import { registerExpert } from './commands/expert';
import { registerTasks } from './commands/tasks';
import { registerDesign } from './commands/design';
import { registerAssign } from './commands/assign';
import { registerTokenizer } from './commands/tokenizer';
import { registerBench } from './commands/bench';
import { registerPretrain } from './commands/pretrain';
import { registerRun } from './commands/run';
import { registerMerge } from './commands/merge';
import { registerServe } from './commands/serve';
import { registerExport } from './commands/export';
import { registerEvaluate } from './commands/evaluate';
import { registerHeldOut } from './commands/heldout';
// Each command file exports register<Name>(program); add one line per command here.

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

const program = new Command();
program
  .name('hlab')
  .version(pkg.version, '-V, --version', 'print the Harness Lab version')
  .description('Harness Lab: harness scaling for agentic RL, trained in the browser on WebGPU')
  .showHelpAfterError(false)
  .exitOverride()
  .configureOutput({
    // commander's own errors ("error: unknown option '--x'") are one line; keep them so.
    outputError: (str, write) => write(str.split('\n')[0] + '\n'),
  });

registerDoctor(program);
registerRender(program);
registerExpert(program);
registerTasks(program);
registerDesign(program);
registerAssign(program);
registerTokenizer(program);
registerBench(program);
registerPretrain(program);
registerRun(program);
registerMerge(program);
registerServe(program);
registerExport(program);
registerEvaluate(program);
registerHeldOut(program);

async function main(argv: string[]): Promise<number> {
  try {
    await program.parseAsync(argv);
    // A command that failed without throwing (doctor, an interrupted run) set its own code.
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      // Help and version are not failures; every parse error is a usage error (exit 2).
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return 0;
      return 2;
    }
    // One line each, with any bytes quoted from a file shown escaped.
    if (e instanceof UsageError) {
      process.stderr.write(`error: ${printable(e.message)}\n`);
      return 2;
    }
    if (e instanceof ReportedError) {
      process.stderr.write(`error: ${printable(e.message)}\n`);
      return e.exitCode;
    }
    process.stderr.write(`error: ${(e as Error).stack ?? String(e)}\n`);
    return 1;
  }
}

// Commands that must override subcommand behaviour call exitOverride themselves; this makes
// every subcommand inherit the override and the one-line error output.
for (const cmd of program.commands) {
  cmd.exitOverride();
  cmd.configureOutput({ outputError: (str, write) => write(str.split('\n')[0] + '\n') });
  markRequired(cmd);
}

/**
 * Required options say so in --help, and their missing-option error repeats the description
 * (which lists the choices, e.g. "task suite (workspace, errands)").
 */
function markRequired(cmd: Command): void {
  for (const o of cmd.options) if (o.mandatory && !o.description.startsWith('(required)')) o.description = `(required) ${o.description}`;
  // Commander's own hook (public in its JS, untyped in its .d.ts).
  (cmd as unknown as { missingMandatoryOptionValue: (o: Option) => void }).missingMandatoryOptionValue = function (
    this: Command,
    option: Option,
  ) {
    this.error(`error: required option '${option.flags}' not specified: ${option.description.replace(/^\(required\) /, '')}`, {
      code: 'commander.missingMandatoryOptionValue',
    });
  };
}

process.exitCode = await main(process.argv);

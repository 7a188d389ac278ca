/**
 * `hlab run --preset NAME | --spec FILE [--out DIR] [--resume] [--steps N]
 *   [--checkpoint-every N] [--json]`
 *
 * Runs an experiment (docs/ARCHITECTURE.md "Experiments, evaluation and results") in headless
 * Chromium: the command line's page (src/page/entries.ts 'run') runs src/experiment/runner.ts
 * and sends typed RunEvents back; the CLI shows a progress bar with the elapsed time
 * (cli-progress; no ETA, see eventReporter) and writes into DIR (default out/<spec name>):
 *   spec.json     the resolved spec that ran
 *   results.json  results_json.ts ResultsFile: the results, per-step curves, sampled
 *                 trajectories, warnings, command, the spec
 *   results.csv   one line per run (resultsCsv)
 *   results.md    the paper-style table (markdownTable), the command and the machine
 *   curves.csv    per run and RL step: reward, entropy, dropped-group share, validation points
 *   curves.svg    reward, validation pass@1, policy loss, entropy, dropped share; one line per run
 *   checkpoint.hlab  the latest checkpoint, exported from IndexedDB after every save
 * Ctrl-C asks the page to stop after the current step and checkpoint; `--resume` imports
 * DIR/checkpoint.hlab and continues. (The browser profile is not reused: the dev server's port,
 * hence IndexedDB's origin, changes between invocations, so the exported file is the durable
 * copy.) A bad spec exits 2 with one line per bad field; so do a `--base FILE` or a `--resume`
 * checkpoint that fails to verify (../checkpoint_files.ts, checked before the browser starts).
 */
import { fmtDuration } from '../../util/duration';
import type { Command } from 'commander';
import { fileURLToPath } from 'node:url';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import cliProgress from 'cli-progress';
import { choiceOption, intOption, printJson, ReportedError, shippedTokenizer, UsageError } from '../cli_util';
import { stringifyFinite } from '../../util/encoding';
import { DEVICE_LOST_TEXT } from '../../gpu/device_lost';
import { withBrowser } from '../browser';
import { parseSpec, SpecError, type ExperimentSpec } from '../../experiment/spec';
import { DEFAULT_PRESET, PRESET_NAMES, getPreset } from '../../experiment/presets';
import { markdownTable, resultsCsv, runStepsLine, segmentsText, withUnfinishedRuns, type BeforeEval } from '../../experiment/results';
import { resultsFile, type ResultsFile } from '../../experiment/results_json';
import type { ExperimentOutput } from '../../experiment/runner';
import type { PageRunRequest } from '../../page/entries';
import type { PageEvent } from '../../page/protocol';
import { checkSpecConsistency } from '../../experiment/plan';
import { curvesSvg } from '../../experiment/curves_svg';
import { checkShippedCheckpoints, readBaseFile, readRunCheckpointFile } from '../checkpoint_files';
import { curvesCsv, curvesMarkdown } from '../../experiment/learning_curves';

interface Opts {
  preset?: string;
  spec?: string;
  out?: string;
  resume?: boolean;
  steps?: number;
  checkpointEvery: number;
  base?: string;
  backend?: 'auto' | 'webgpu' | 'wasm';
  json?: boolean;
}

/** Load and validate the spec. @throws UsageError naming the bad field (exit 2). */
export function loadSpec(opts: { preset?: string; spec?: string }): { spec: ExperimentSpec; json: unknown } {
  if (opts.preset && opts.spec) throw new UsageError('give either --preset or --spec, not both');
  try {
    if (opts.spec) {
      let raw: unknown;
      try {
        raw = JSON.parse(readFileSync(opts.spec, 'utf8'));
      } catch (e) {
        throw new UsageError(`--spec ${opts.spec}: ${(e as Error).message.split('\n')[0]}`);
      }
      return { spec: checkSpecConsistency(parseSpec(raw, opts.spec), opts.spec), json: raw };
    }
    const name = opts.preset ?? DEFAULT_PRESET;
    if (!(PRESET_NAMES as readonly string[]).includes(name)) throw new UsageError(`--preset '${name}': expected one of ${PRESET_NAMES.join(', ')}`);
    const spec = checkSpecConsistency(getPreset(name), `preset ${name}`);
    return { spec, json: spec };
  } catch (e) {
    if (e instanceof SpecError) throw new UsageError(e.message);
    throw e;
  }
}

/**
 * Resolve --out and check it against --resume, creating nothing (createOut does, once every
 * input is checked): `--resume` needs a checkpoint there and a run that has not finished, rather
 * than silently running the whole job again or rewriting finished results.
 * @returns the folder and whether it holds an earlier run that this (fresh) run overwrites
 * @throws UsageError (exit 2) naming --resume.
 */
export function checkOut(dir: string, resume: boolean): { out: string; overwrites: boolean } {
  const out = resolve(dir);
  const ckpt = resolve(out, 'checkpoint.hlab');
  if (resume) {
    if (!existsSync(ckpt)) throw new UsageError(`--resume: no checkpoint at ${ckpt}; check --out, or run without --resume to start fresh`);
    // A finished run has nothing to continue; resuming it would only rewrite its results files.
    if (finishedRun(out))
      throw new UsageError(
        `--resume: the run in ${out} has finished (results.json status 'done'); nothing to resume: its results are there, or run without --resume to start it again`,
      );
    return { out, overwrites: false };
  }
  return { out, overwrites: existsSync(ckpt) || existsSync(resolve(out, 'results.json')) };
}

/**
 * Create the output folder `out` (given as `dir` on the command line).
 * @throws UsageError (exit 2) naming --out when the path cannot be a folder.
 */
export function createOut(dir: string, out: string): void {
  try {
    mkdirSync(out, { recursive: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOTDIR' || code === 'EEXIST' ? 'a file is in the way (a folder is needed)' : (e as Error).message.split('\n')[0];
    throw new UsageError(`--out ${dir}: cannot create the output folder: ${why}`);
  }
}

/** Whether `out` holds the results of a run that finished (results.json `status: 'done'`); an unreadable file is not. */
function finishedRun(out: string): boolean {
  try {
    return (JSON.parse(readFileSync(resolve(out, 'results.json'), 'utf8')) as { status?: unknown }).status === 'done';
  } catch {
    return false;
  }
}

/** The command that resumes `command` (adds --resume once). */
export function resumeCommand(command: string): string {
  return /(^|\s)--resume(\s|$)/.test(command) ? command : `${command} --resume`;
}

/**
 * A run that failed in the page, for the terminal: a lost GPU device is one line with the
 * command that resumes from the last checkpoint (or runs again when none was saved yet); any
 * other error is returned unchanged.
 */
export function runFailure(e: unknown, command: string, haveCheckpoint: boolean): unknown {
  const msg = String((e as Error)?.message ?? e);
  const at = msg.indexOf(DEVICE_LOST_TEXT);
  if (at < 0) return e;
  const line = msg
    .slice(at)
    .split('\n')[0]
    .replace(/; training stopped, resume from the last checkpoint on a new device$/, '; training stopped');
  return new ReportedError(
    haveCheckpoint
      ? `${line}; resume from the last checkpoint with: ${resumeCommand(command)}`
      : `${line} before the first checkpoint; run again: ${command.replace(/\s--resume(?=\s|$)/, '')}`,
  );
}

function writeAtomic(path: string, data: string | Uint8Array): void {
  writeFileSync(path + '.tmp', data);
  renameSync(path + '.tmp', path);
}

/**
 * The CLI's side of the page's events: a progress bar (or, without a terminal, a line per
 * change), log and warning lines, finished 'before' evaluations (kept for an interrupted
 * results.md) and the checkpoint mirror file.
 */
function eventReporter(json: boolean, ckptPath: string) {
  const err = (s: string) => process.stderr.write(s + '\n');
  const bar = new cliProgress.SingleBar(
    // Elapsed time since the command started, not an ETA: the units (an evaluation of thousands
    // of episodes, an RL step) differ by two orders of magnitude, so a rate-based ETA read "INF"
    // or half the truth; and the bar restarts after each log line, so its own clock would reset.
    { format: 'hlab run [{bar}] {percentage}% | {value}/{total} | elapsed {elapsed} | {phase}', hideCursor: true, stream: process.stderr },
    cliProgress.Presets.shades_classic,
  );
  let barStarted = false;
  let lastLine = '';
  const t0 = Date.now();
  const elapsed = () => fmtDuration((Date.now() - t0) / 1000);
  const beforeEvals: BeforeEval[] = [];
  const stopBar = () => {
    if (barStarted) bar.stop();
    barStarted = false;
  };
  const onEvent = (ev: PageEvent): void => {
    if (ev.type === 'checkpointFile') writeAtomic(ckptPath, ev.file);
    else if (ev.type === 'eval' && ev.when === 'before') beforeEvals.push(ev);
    else if (ev.type === 'progress') {
      // Without a terminal (CI logs, pipes) a redrawn bar only repeats itself: print a line
      // when the progress or the phase changes instead.
      if (!process.stderr.isTTY) {
        const line = `hlab run ${ev.done}/${ev.total} | ${ev.phase}`;
        if (line !== lastLine) err(line);
        lastLine = line;
      } else if (!barStarted) {
        bar.start(ev.total, ev.done, { phase: ev.phase, elapsed: elapsed() });
        barStarted = true;
      } else bar.update(ev.done, { phase: ev.phase, elapsed: elapsed() });
    } else if ((ev.type === 'log' && !json) || ev.type === 'warn') {
      stopBar();
      err(ev.type === 'warn' ? `\n${ev.message}\n` : ev.message);
    }
  };
  return { onEvent, beforeEvals, stopBar };
}

/** The feasibility note of the spec's infeasible cells (issue 17), or null when every cell is feasible. */
function feasibilityNote(infeasible: ReadonlyArray<{ reason: string }>): string | null {
  if (!infeasible.length) return null;
  const byReason = Object.entries(infeasible.reduce<Record<string, number>>((a, c) => ((a[c.reason] = (a[c.reason] ?? 0) + 1), a), {}));
  return `${infeasible.length} (task, harness) cells of this spec cannot be solved by the expert within its budgets (${byReason
    .map(([k, n]) => `${k}: ${n}`)
    .join(', ')}); they are left out of training and evaluation — listed in results.json infeasibleCells (hlab expert --spec for details)`;
}

/** results.md: the table (with an interrupted run's finished 'before' evaluation), curves, command, machine, engine, segments, warnings. */
function resultsMarkdown(spec: ExperimentSpec, file: ResultsFile, beforeEvals: readonly BeforeEval[], wallSeconds: number): { md: string; table: string } {
  const table = markdownTable(file.status === 'interrupted' ? withUnfinishedRuns(file, beforeEvals) : file);
  const md = [
    `# ${spec.name}: ${spec.description}`,
    '',
    table,
    '',
    'Steps per run:',
    '',
    ...file.runs.map((r) => `- ${runStepsLine(r)}`),
    '',
    curvesMarkdown(file.curves),
    '',
    `Command: \`${file.command}\` — ${file.status}, ${wallSeconds.toFixed(0)} s wall clock (${file.seconds.toFixed(0)} s in the page).`,
    `Machine: ${file.machine}.`,
    `Engine (this call, the last segment): ${file.engine.describe} (${file.engine.reason}).`,
    `Starting checkpoint: ${[...new Set(file.starts)].join('; ')}.`,
    '',
    segmentsText(file.segments),
    ...file.warnings.map((w) => `\n> ${w}`),
    '',
  ].join('\n');
  return { md, table };
}

/**
 * Run the experiment in the page: Ctrl-C asks it to stop after the current step (a second
 * Ctrl-C more than a second later quits at once).
 * @throws ReportedError for a lost GPU device (runFailure); the page's error otherwise
 */
async function runInPage(request: PageRunRequest, onEvent: (ev: PageEvent) => void, command: string, ckptPath: string): Promise<ExperimentOutput> {
  const err = (s: string) => process.stderr.write(s + '\n');
  return withBrowser(
    async (s) => {
      let firstInterrupt = 0;
      const onSigint = () => {
        // npx forwards the terminal's SIGINT to us a second time: only a Ctrl-C more than a
        // second after the first one quits at once.
        if (firstInterrupt && Date.now() - firstInterrupt > 1000) process.exit(130);
        if (firstInterrupt) return;
        firstInterrupt = Date.now();
        err('\nCtrl-C: stopping after the current step and saving a checkpoint (Ctrl-C again to quit now)…');
        void s.stop().catch(() => {});
      };
      process.on('SIGINT', onSigint);
      try {
        return await s.call('run', request);
      } finally {
        process.off('SIGINT', onSigint);
      }
    },
    { onEvent, keepBrowserOnSigint: true },
  ).catch((e: unknown) => {
    throw runFailure(e, command, existsSync(ckptPath));
  });
}

export function registerRun(program: Command): void {
  program
    .command('run')
    .description('run an experiment (preset or spec file) in headless Chromium; writes spec.json, results.json/.csv/.md, curves.svg/.csv and checkpoint.hlab into --out')
    .option('--preset <name>', `preset: ${PRESET_NAMES.join(' | ')} (default quick)`)
    .option('--spec <file>', 'experiment spec JSON (validated)')
    .option('--out <dir>', 'output folder (default out/<spec name>)')
    .option('--resume', 'continue from <out>/checkpoint.hlab where a previous run stopped (exit 2 when there is none)')
    .option('--steps <n>', 'override spec.rl.steps', intOption(0, 100_000))
    .option('--checkpoint-every <n>', 'save a checkpoint every n RL steps', intOption(1, 100_000), 1)
    .option(
      '--base <file>',
      "base checkpoint for model.init = base (default public/base-<model preset>.ckpt, the model preset being spec.model.preset or a method's modelPreset: public/base-mini.ckpt for every built-in --preset)",
    )
    .option(
      '--backend <name>',
      'policy engine, overriding spec.backend: auto (WebGPU on a hardware adapter, else the CPU engine) | webgpu | wasm',
      choiceOption(['auto', 'webgpu', 'wasm'] as const),
    )
    .option('--json', 'print results.json alone on stdout')
    .action(async (opts: Opts) => {
      const { spec, json } = loadSpec(opts);
      const outDir = opts.out ?? `out/${spec.name}`;
      const { out, overwrites } = checkOut(outDir, !!opts.resume);
      const ckptPath = resolve(out, 'checkpoint.hlab');
      const options: PageRunRequest['options'] = { runId: `run-${spec.name}`, resume: !!opts.resume, checkpointEvery: opts.checkpointEvery };
      if (opts.steps !== undefined) options.steps = opts.steps;
      if (opts.backend) options.backend = opts.backend;
      // Both files are verified here, before any browser starts: a bad one exits 2 naming it.
      if (opts.base) options.baseCheckpoint = await readBaseFile(opts.base, spec, shippedTokenizer());
      await checkShippedCheckpoints(spec, shippedTokenizer(), fileURLToPath(new URL('../../../public', import.meta.url)), !!opts.base);
      if (opts.resume) options.importCheckpoint = await readRunCheckpointFile(ckptPath);
      createOut(outDir, out);
      const err = (s: string) => process.stderr.write(s + '\n');
      if (overwrites) err(`note: ${out} holds an earlier run; this run overwrites it (continue that one with --resume, or pick another --out)`);
      const t0 = Date.now();
      const command = `hlab run ${process.argv.slice(3).join(' ')}`.trim();
      // Feasibility (issue 17): the honest expert under this spec's own budgets, before any browser.
      // Infeasible cells are left out of training and evaluation and listed (results.json `infeasibleCells`, a warning).
      const { excludedCells } = await import('../../experiment/feasibility');
      // With the policy's tokenizer and the workflow-extended turn cap, as the rollout environments count.
      const infeasible = excludedCells(spec, shippedTokenizer());
      const note = feasibilityNote(infeasible);
      if (note && !opts.json) err(note);
      options.excludeCells = infeasible.map((c) => ({ taskId: c.taskId, harnessId: c.harnessId }));
      // The resolved spec that runs, beside the results (the app's Results view points to it).
      writeAtomic(resolve(out, 'spec.json'), JSON.stringify(json, null, 2) + '\n');
      const events = eventReporter(!!opts.json, ckptPath);
      const result = await runInPage({ spec: json, options, mirror: true }, events.onEvent, command, ckptPath).finally(events.stopBar);
      const file = resultsFile(result, { command, specJson: json, infeasibleCells: infeasible, extraWarnings: note ? [note] : [] });
      writeAtomic(resolve(out, 'results.json'), stringifyFinite(file, 2) + '\n');
      writeAtomic(resolve(out, 'results.csv'), resultsCsv(file));
      const { md, table } = resultsMarkdown(spec, file, events.beforeEvals, (Date.now() - t0) / 1000);
      writeAtomic(resolve(out, 'results.md'), md);
      writeAtomic(resolve(out, 'curves.svg'), curvesSvg(file.curves));
      writeAtomic(resolve(out, 'curves.csv'), curvesCsv(file.curves));
      if (opts.json) printJson(file);
      else {
        process.stdout.write(`\n${table}\n\n`);
        for (const r of file.runs) process.stdout.write(`${runStepsLine(r)}\n`);
        for (const w of file.warnings) err(w);
        process.stdout.write(
          `${file.status === 'interrupted' ? `interrupted; resume with: ${resumeCommand(command)}\n` : ''}wrote ${out}/spec.json, results.{json,csv,md}, curves.{svg,csv}, checkpoint.hlab\n`,
        );
      }
      if (file.status === 'interrupted') process.exitCode = 130;
    });
}

/**
 * `hlab run --preset NAME | --spec FILE [--out DIR] [--resume | --fresh] [--steps N]
 *   [--checkpoint-every N] [--json]`: runs an experiment in headless Chromium (the page entry
 * 'run' runs src/experiment/runner.ts) and writes spec.json, results.{json,csv,md},
 * curves.{csv,svg}, checkpoint.hlab and run.json into DIR (default out/<spec name>).
 *
 * Invariant: DIR/checkpoint.hlab is the durable copy (the browser profile is not reused), so
 * Ctrl-C stops after a checkpoint and `--resume` continues it after checking DIR holds this run.
 * Bad input (spec, `--base`, `--resume` checkpoint) exits 2 before the browser starts; a file of
 * DIR that cannot be written exits 74 naming the last good checkpoint.
 */
import { fmtDuration } from '../../util/duration';
import type { Command } from 'commander';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import cliProgress from 'cli-progress';
import { choiceOption, hlabCommand, intListOption, intOption, printJson, shippedTokenizer, UsageError } from '../cli_util';
import { FolderWriteError, writeAtomic as writeAtomicTo, type WriteFs, nodeWriteFs } from '../atomic_write';
import { CHECKPOINT_FILE, checkOut, checkResume, prepareFolder, runIdentity, writeRecord } from '../run_folder';
import { readUserFile } from '../user_file';
import { folderFault, resumeCommand, runFailure } from '../run_failure';
import { withBrowser } from '../browser';
import { parseSpec, SpecError, type ExperimentSpec } from '../../experiment/spec';
import { DEFAULT_PRESET, PRESET_NAMES, getPreset } from '../../experiment/presets';
import { experimentTime, runStepsLine, type BeforeEval } from '../../report/results_markdown';
import { resultsFolderFiles } from '../results_folder';
import { resultsFile } from '../../report/results_json';
import type { ExperimentOutput } from '../../experiment/runner';
import type { PageRunRequest } from '../../page/entries';
import type { PageEvent } from '../../page/protocol';
import { checkSpecConsistency } from '../../experiment/plan';
import { checkShippedCheckpoints, publicAssetFetch, readBaseFile, readRunCheckpointFile } from '../checkpoint_files';
import { planExperiment } from '../../experiment/prepare';
import type { Tokenizer } from '../../model/tokenizer';

interface Opts {
  preset?: string;
  spec?: string;
  out?: string;
  resume?: boolean;
  fresh?: boolean;
  steps?: number;
  seeds?: number[];
  checkpointEvery: number;
  base?: string;
  backend?: 'auto' | 'webgpu' | 'wasm';
  json?: boolean;
}

/**
 * Load and validate the spec, with `seeds` (--seeds) in place of its seeds when given: a chunk of
 * the experiment that `hlab merge` joins with the others.
 * @throws UsageError naming the bad field (exit 2)
 */
export function loadSpec(opts: { preset?: string; spec?: string; seeds?: number[] }): { spec: ExperimentSpec; json: unknown } {
  if (opts.preset && opts.spec) throw new UsageError('give either --preset or --spec, not both');
  try {
    if (opts.spec) {
      const bytes = readUserFile('--spec', opts.spec);
      let raw: unknown;
      try {
        raw = JSON.parse(new TextDecoder().decode(bytes));
      } catch (e) {
        throw new UsageError(`--spec ${opts.spec}: ${(e as Error).message.split('\n')[0]}`);
      }
      if (opts.seeds) raw = { ...(raw as object), seeds: opts.seeds };
      return { spec: checkSpecConsistency(parseSpec(raw, opts.spec), opts.spec), json: raw };
    }
    const name = opts.preset ?? DEFAULT_PRESET;
    if (!(PRESET_NAMES as readonly string[]).includes(name))
      throw new UsageError(`--preset '${name}': expected one of ${PRESET_NAMES.join(', ')}`);
    const preset = getPreset(name);
    if (!opts.seeds) return { spec: checkSpecConsistency(preset, `preset ${name}`), json: preset };
    const json = { ...preset, seeds: opts.seeds };
    return { spec: checkSpecConsistency(parseSpec(json, `preset ${name} with --seeds`), `preset ${name}`), json };
  } catch (e) {
    if (e instanceof SpecError) throw new UsageError(e.message);
    throw e;
  }
}

/**
 * The CLI's side of the page's events: a progress bar (or, without a terminal, a line per
 * change), log and warning lines, finished 'before' evaluations (kept for an interrupted
 * results.md) and the checkpoint mirror file.
 */
function eventReporter(json: boolean, ckptPath: string, fs: WriteFs) {
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
  // The last checkpoint mirrored (its store step) and the first write that failed: the run stops
  // at that failure (the page's save rejects) and the CLI reports it in one line.
  const saved = { step: null as number | null, fault: null as FolderWriteError | null };
  const stopBar = () => {
    if (barStarted) bar.stop();
    barStarted = false;
  };
  const onEvent = (ev: PageEvent): void => {
    if (ev.type === 'checkpointFile') {
      try {
        writeAtomicTo(ckptPath, ev.file, fs);
      } catch (e) {
        if (e instanceof FolderWriteError) saved.fault ??= e;
        throw e;
      }
      saved.step = ev.step;
    } else if (ev.type === 'eval' && ev.when === 'before') beforeEvals.push(ev);
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
  return { onEvent, beforeEvals, stopBar, saved };
}

/** The feasibility note of the spec's infeasible cells, or null when every cell is feasible. */
function feasibilityNote(infeasible: ReadonlyArray<{ reason: string }>): string | null {
  if (!infeasible.length) return null;
  const byReason = Object.entries(infeasible.reduce<Record<string, number>>((a, c) => ((a[c.reason] = (a[c.reason] ?? 0) + 1), a), {}));
  return `${infeasible.length} (task, harness) cells of this spec cannot be solved by the expert within its budgets (${byReason
    .map(([k, n]) => `${k}: ${n}`)
    .join(
      ', ',
    )}); they are left out of training and evaluation — listed in results.json infeasibleCells (${hlabCommand(['expert', '--help'])}: the expert's pass rate per harness)`;
}

/**
 * Run the experiment in the page: Ctrl-C or SIGTERM asks it to stop after the current step and
 * save a checkpoint (a second signal more than a second later quits at once).
 * @throws ReportedError for a lost GPU device (runFailure) or an output file that could not be
 *   written (folderFault, exit 74); the page's error otherwise
 */
async function runInPage(
  request: PageRunRequest,
  events: ReturnType<typeof eventReporter>,
  command: string,
  ckptPath: string,
): Promise<ExperimentOutput> {
  const err = (s: string) => process.stderr.write(s + '\n');
  return withBrowser(
    async (s) => {
      let firstInterrupt = 0;
      const onSignal = (sig: NodeJS.Signals) => {
        // npm forwards the terminal's SIGINT to us a second time: only a signal more than a
        // second after the first one quits at once.
        if (firstInterrupt && Date.now() - firstInterrupt > 1000) process.exit(130);
        if (firstInterrupt) return;
        firstInterrupt = Date.now();
        err(`\n${sig === 'SIGINT' ? 'Ctrl-C' : sig}: stopping after the current step and saving a checkpoint (Ctrl-C again to quit now)…`);
        void s.stop().catch(() => {});
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      try {
        return await s.call('run', request);
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    },
    { onEvent: events.onEvent, keepBrowserOnSignals: true },
  ).catch((e: unknown) => {
    // A mirror write that failed made the page's save fail: report the write, not the page's echo of it.
    if (events.saved.fault) throw folderFault(events.saved.fault, ckptPath, events.saved.step, command);
    throw runFailure(e, command, existsSync(ckptPath));
  });
}

/** The shipped assets (tokenizer, base checkpoints) next to the code. */
const publicDir = fileURLToPath(new URL('../../../public', import.meta.url));

/**
 * The plan `hlab run` runs (prepare.ts planExperiment with the base checkpoints read from public/
 * or the --base file), made before any browser starts.
 * @param o.steps --steps; o.baseCheckpoint the --base file's bytes
 */
export function planRun(spec: ExperimentSpec, json: unknown, tok: Tokenizer, o: { steps?: number; baseCheckpoint?: Uint8Array } = {}) {
  return planExperiment(spec, tok, {
    specJson: json,
    ...(o.steps !== undefined ? { steps: o.steps } : {}),
    fetchAsset: publicAssetFetch(publicDir),
    ...(o.baseCheckpoint ? { baseCheckpoint: o.baseCheckpoint } : {}),
  });
}

export function registerRun(program: Command): void {
  program
    .command('run')
    .description(
      'run an experiment (preset or spec file) in headless Chromium; writes spec.json, results.json/.csv/.md, curves.svg/.csv and checkpoint.hlab into --out',
    )
    .option('--preset <name>', `preset: ${PRESET_NAMES.join(' | ')} (default quick)`)
    .option('--spec <file>', 'experiment spec JSON (validated)')
    .option('--out <dir>', 'output folder (default out/<spec name>)')
    .option(
      '--resume',
      'continue the run in --out from its checkpoint.hlab; exit 2 when there is none or it is another run (another spec, base checkpoint or evaluation set)',
    )
    .option(
      '--fresh',
      'start over in an --out that holds an earlier run: its files are moved into <out>/earlier-<time>/ (without it such a folder is refused)',
    )
    .option('--steps <n>', 'override spec.rl.steps', intOption(0, 100_000))
    .option(
      '--seeds <list>',
      'run only these seeds (comma-separated), in place of spec.seeds: a chunk that `hlab merge` joins',
      intListOption,
    )
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
      // What was typed after `hlab`, as a command a newcomer can paste in the project root.
      const args = process.argv.slice(2);
      const command = hlabCommand(args);
      const { out, holdsRun } = checkOut(outDir, { resume: !!opts.resume, fresh: !!opts.fresh }, args);
      const ckptPath = resolve(out, CHECKPOINT_FILE);
      const options: PageRunRequest['options'] = {
        runId: `run-${spec.name}`,
        resume: !!opts.resume,
        checkpointEvery: opts.checkpointEvery,
      };
      if (opts.backend) options.backend = opts.backend;
      const tok = shippedTokenizer();
      // Every input is verified here, before any browser starts and before the folder changes: a bad one exits 2 naming it.
      if (opts.base) options.baseCheckpoint = await readBaseFile(opts.base, spec, tok);
      await checkShippedCheckpoints(spec, tok, publicDir, !!opts.base);
      const resumed = opts.resume ? await readRunCheckpointFile(ckptPath) : null;
      // The plan, before any browser: infeasible cells (the honest expert under this spec's own
      // budgets) are left out of training and evaluation and listed (results.json `infeasibleCells`, a warning).
      const { plan, bases } = await planRun(spec, json, tok, { steps: opts.steps, baseCheckpoint: options.baseCheckpoint });
      const infeasible = plan.infeasible;
      const identity = await runIdentity(plan, bases, opts.base);
      if (resumed) {
        checkResume(out, resumed.manifest, spec, identity);
        options.importCheckpoint = resumed.bytes;
      }
      const aside = prepareFolder(outDir, out, holdsRun && !opts.resume);
      const err = (s: string) => process.stderr.write(s + '\n');
      if (aside) err(`--fresh: moved the earlier run in ${out} to ${aside}`);
      const note = feasibilityNote(infeasible);
      if (note && !opts.json) err(note);
      const t0 = Date.now();
      const fs = nodeWriteFs;
      const events = eventReporter(!!opts.json, ckptPath, fs);
      // Every write into the folder: a failure ends the call in one line (folderFault, exit 74).
      const write = (name: string, data: string) => {
        try {
          writeAtomicTo(resolve(out, name), data, fs);
        } catch (e) {
          throw e instanceof FolderWriteError ? folderFault(e, ckptPath, events.saved.step, command) : e;
        }
      };
      const record = (segments: Parameters<typeof writeRecord>[2]) => {
        try {
          writeRecord(out, identity, segments, fs);
        } catch (e) {
          throw e instanceof FolderWriteError ? folderFault(e, ckptPath, events.saved.step, command) : e;
        }
      };
      // The resolved spec that runs, beside the results (the app's Results view points to it).
      write('spec.json', JSON.stringify(json, null, 2) + '\n');
      // A fresh run names itself in the folder now; a resumed one keeps the record it was checked against.
      if (!opts.resume) record([]);
      const result = await runInPage({ plan, options, mirror: true }, events, command, ckptPath).finally(events.stopBar);
      const file = resultsFile(result, { command, specJson: json, infeasibleCells: infeasible, extraWarnings: note ? [note] : [] });
      const timing = `${((Date.now() - t0) / 1000).toFixed(0)} s wall clock this call; ${experimentTime(file.seconds, file.runs)}`;
      const { files, table } = resultsFolderFiles(spec, file, timing, events.beforeEvals);
      for (const [name, data] of files) write(name, data);
      record(file.segments);
      if (opts.json) printJson(file);
      else {
        process.stdout.write(`\n${table}\n\n`);
        for (const r of file.runs) process.stdout.write(`${runStepsLine(r)}\n`);
        for (const w of file.warnings) err(w);
        process.stdout.write(
          `${file.status === 'interrupted' ? `interrupted; resume with: ${resumeCommand(command)}\n` : ''}wrote ${out}/spec.json, results.{json,csv,md}, curves.{svg,csv}, checkpoint.hlab, run.json\n`,
        );
      }
      if (file.status === 'interrupted') process.exitCode = 130;
    });
}

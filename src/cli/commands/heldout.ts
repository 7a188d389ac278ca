/**
 * `hlab heldout --init base|FILE [--preset mini] [--harnesses training|all|ids] [--suites workspace,errands]
 *   [--max-tier 1] [--tasks 24] [--seed 1234] [--threads 2] [--json]`
 *
 * Teacher-forced held-out action loss of a base checkpoint (nats/token, on the CPU engine in
 * Node, no browser): the honest expert on test tasks, cut by the checkpoint's own budget, scored
 * under
 *  - the three sets of pretraining's learning curve (src/pretrain/heldout.ts: procedural,
 *    training, base), and
 *  - every task under every harness of --harnesses (default the 18 training harnesses), with the
 *    level means per component (S, T, O, C, W) — where transfer fails, by realization.
 * This is how docs/PRETRAIN.md chooses pretraining data: this table shows which
 * components (e.g. T1's positional shell, W1's plan) cost the most. `--json` prints
 *   {checkpoint, tasks, seed, budget: {maxT, actionReserve}, sets: {procedural, training, base},
 *    perHarness: [{harness, loss, episodes, rows, tokens}], levelMeans: {S: {S0: x, …}, …}, seconds}
 */
import type { Command } from 'commander';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { choiceOption, intOption, parseSuiteList, printJson, shippedTokenizer, UsageError } from '../cli_util';
import { decodeBaseCheckpoint } from '../../model/checkpoint';
import { checkpointBudget } from '../../episode/budget';
import { heldOutByHarness, heldOutLoss, heldOutSets, heldOutTasks, levelMeans, type HarnessLoss } from '../../pretrain/heldout';
import { PRESET_NAMES, type PresetName } from '../../model/config';
import { selectTrainingOA } from '../../design/selection';
import { parseHarnessList } from './expert';

interface Opts {
  init: string;
  preset: PresetName;
  harnesses: string;
  suites: string;
  maxTier: number;
  tasks: number;
  seed: number;
  threads: number;
  batch: number;
  json?: boolean;
}

/** What `hlab heldout` measures (the `--json` shape, module doc). */
interface HeldOutReport {
  checkpoint: string;
  tasks: number;
  seed: number;
  budget: { maxT: number; actionReserve: number };
  sets: Record<string, number>;
  perHarness: HarnessLoss[];
  levelMeans: Record<string, Record<string, number>>;
  seconds: number;
}

/** --harnesses: 'training' (the 18 orthogonal-array harnesses) or what `hlab expert` takes. @throws UsageError */
function heldOutHarnessList(spec: string): string[] {
  return spec.trim() === 'training' ? [...selectTrainingOA().training] : parseHarnessList(spec);
}

/**
 * Measure a checkpoint (module doc). Validates every option before any work.
 * @throws UsageError (exit 2, one line) naming a bad option, a missing shipped base or an unreadable checkpoint.
 */
async function heldOutReport(opts: Opts): Promise<HeldOutReport> {
  const suites = parseSuiteList(opts.suites);
  const harnesses = heldOutHarnessList(opts.harnesses);
  const publicDir = fileURLToPath(new URL('../../../public', import.meta.url));
  const path = opts.init === 'base' ? join(publicDir, `base-${opts.preset}.ckpt`) : opts.init;
  if (!existsSync(path))
    throw new UsageError(
      `--init: ${opts.init === 'base' ? `no shipped base for --preset ${opts.preset} (${path} does not exist)` : `no such file '${path}'`}`,
    );
  let ck;
  try {
    ck = await decodeBaseCheckpoint(new Uint8Array(readFileSync(path)));
  } catch (e) {
    throw new UsageError(`--init ${path}: ${(e as Error).message.split('\n')[0]}`);
  }
  const tok = shippedTokenizer();
  const cfg = ck.header.config;
  if (cfg.vocabSize !== tok.vocabSize)
    throw new UsageError(`--init ${path}: vocabSize ${cfg.vocabSize} differs from the shipped tokenizer's ${tok.vocabSize}`);
  // Rows must be cut as the checkpoint's training rows were: without a recorded budget that cut is unknown.
  const limits = checkpointBudget(cfg.maxT, ck.header.metadata);
  if (limits === null)
    throw new UsageError(`--init ${path}: the checkpoint records no action reserve, so its training cut (maxT − reserve) is unknown`);

  const t0 = performance.now();
  const tasks = heldOutTasks(opts.tasks, opts.seed, opts.maxTier as 1 | 2 | 3, suites);
  // The engine loads lazily, as in `hlab pretrain`: other commands need no WebAssembly.
  const { startCpuEngine } = await import('../../engine/choose');
  const engine = await startCpuEngine('hlab heldout', { threads: opts.threads });
  try {
    const score = engine.createScorer(cfg, ck.params).nll;
    const sets: Record<string, number> = {};
    for (const s of heldOutSets(tok, tasks, limits, opts.seed))
      sets[s.name] = heldOutLoss(s.rows, opts.batch, tok.padId, limits.maxT, score);
    const perHarness = heldOutByHarness(tok, tasks, harnesses, limits, opts.batch, score);
    return {
      checkpoint: path,
      tasks: tasks.length,
      seed: opts.seed,
      budget: { maxT: limits.maxT, actionReserve: limits.actionReserve },
      sets,
      perHarness,
      levelMeans: levelMeans(perHarness),
      seconds: Number(((performance.now() - t0) / 1000).toFixed(1)),
    };
  } finally {
    engine.destroy();
  }
}

/** The human-readable report: the three sets, one line per harness, then the level means. */
function heldOutLines(r: HeldOutReport): string[] {
  const f = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : '—');
  const lines = [
    `held-out action loss (nats/token) of ${r.checkpoint}: ${r.tasks} test tasks, seed ${r.seed}, budget ${r.budget.maxT} − ${r.budget.actionReserve}; ${r.seconds} s`,
    `  sets: ${Object.entries(r.sets)
      .map(([k, v]) => `${k} ${f(v)}`)
      .join(', ')}`,
    '  harness           loss   episodes  rows  tokens',
    ...r.perHarness.map(
      (h) =>
        `  ${h.harness.padEnd(16)} ${f(h.loss).padStart(6)}  ${String(h.episodes).padStart(8)}  ${String(h.rows).padStart(4)}  ${String(h.tokens).padStart(6)}`,
    ),
  ];
  for (const [c, lvs] of Object.entries(r.levelMeans))
    lines.push(
      `  level means ${c}: ${Object.entries(lvs)
        .map(([lv, v]) => `${lv} ${f(v)}`)
        .join('  ')}`,
    );
  return lines;
}

export function registerHeldOut(program: Command): void {
  program
    .command('heldout')
    .description(
      "teacher-forced held-out action loss of a base checkpoint on the CPU engine: pretraining's three sets and every harness, with level means per component",
    )
    .requiredOption('--init <base|file>', "'base' (public/base-<preset>.ckpt) or a checkpoint file")
    .option('--preset <name>', `with --init base: which shipped base (${PRESET_NAMES.join(', ')})`, choiceOption(PRESET_NAMES), 'mini')
    .option('--harnesses <list>', "'training' (the 18 orthogonal-array harnesses), 'all', or comma-separated ids", 'training')
    .option('--suites <list>', 'comma-separated suites', 'workspace,errands')
    .option('--max-tier <n>', 'task tiers ≤ n', intOption(1, 3), 1)
    .option('--tasks <n>', 'test tasks (an equal share per suite)', intOption(1, 1000), 24)
    .option('--seed <n>', 'seed of the task draw and the procedural set', intOption(0), 1234)
    .option('--threads <n>', 'CPU engine threads', intOption(1, 64), 2)
    .option('--batch <n>', 'rows per forward pass', intOption(1, 256), 8)
    .option('--json', 'print the report as JSON only')
    .action(async (opts: Opts) => {
      const r = await heldOutReport(opts);
      if (opts.json) printJson(r);
      else for (const l of heldOutLines(r)) console.log(l);
    });
}

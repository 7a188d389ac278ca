/**
 * `hlab evaluate --init base|FILE [--preset mini] [--harnesses base,training] [--suites workspace,errands]
 *   [--max-tier 3] [--tasks 24] [--samples 2] [--temperature 1] [--seed 0] [--max-turns 12]
 *   [--max-new-tokens N] [--context-tokens N] [--allow-budget-mismatch] [--workers 4]
 *   [--backend webgpu] [--json]`
 *
 * Evaluate a base checkpoint (the shipped public/base-<preset>.ckpt, or a file) on harness sets
 * (base, training, inSpace, blackbox, all, or ids) × test tasks × samples, sampling at τ, in
 * headless Chromium on WebGPU (src/experiment/evaluate_page.ts, launched like `hlab run`).
 * The budget defaults to the checkpoint's (maxT, action reserve); a different one is an error
 * unless --allow-budget-mismatch. `--json` prints
 *   {checkpoint, passAt1: {base, training, inSpace, blackbox: {id: x}}, score: {…same keys…},
 *    perHarness: {id: {passAt1, score, episodes, parseErrorRate}},
 *    perFamily: {base|training|inSpace|<black-box id>: {'suite/family': {passAt1, score, episodes}}},
 *    entropy: {base, training, inSpace, blackbox: {id: x}, overall}, inSpaceExcluded?: {pretrainMix, mix}, episodes}
 * with pass@1 and scores as fractions in [0, 1] (null: set not evaluated), entropy as the
 * policy's mean entropy per sampled token in nats; inSpace leaves out the checkpoint's pretraining mix. It runs in
 * the page on the engine --backend chooses (src/engine).
 */
import type { Command } from 'commander';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { choiceOption, intOption, parseSuiteList, printJson, UsageError } from '../cli_util';
import { withBrowser } from '../browser';
import { decodeBaseCheckpoint } from '../../model/checkpoint';
import { BudgetMismatchError, evaluationBudget } from '../../episode/budget';
import { evalTaskIds, resolveEvalHarnesses, type CheckpointEvalReport } from '../../report/evaluate_report';
import type { EvalPageRequest } from '../../experiment/evaluate_page';
import { familyCellText, familyMatrix } from '../../report/per_family';

/** The flags: the page request's fields, with the ones commander hands over as text. */
type Opts = Omit<EvalPageRequest, 'init' | 'suites' | 'temperature' | 'watchdogMs' | 'backend'> & {
  init: string;
  suites: string;
  temperature: string;
  backend: NonNullable<EvalPageRequest['backend']>;
  json?: boolean;
};

/**
 * The page request of the options (validated here, before a browser starts).
 * @throws UsageError naming a bad option (exit 2).
 */
function evaluateRequest(opts: Opts): EvalPageRequest {
  const suites = parseSuiteList(opts.suites);
  const temperature = Number(opts.temperature);
  if (!(temperature >= 0 && temperature <= 10))
    throw new UsageError(`--temperature: expected a number in [0, 10], got '${opts.temperature}'`);
  try {
    resolveEvalHarnesses(opts.harnesses);
    evalTaskIds(suites, opts.maxTier, opts.tasks, opts.seed);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  let init: EvalPageRequest['init'] = 'base';
  if (opts.init !== 'base') {
    if (!existsSync(opts.init)) throw new UsageError(`--init ${opts.init}: no such file (or use --init base)`);
    init = { base64: readFileSync(opts.init).toString('base64'), name: basename(opts.init) };
  }
  const req: EvalPageRequest = {
    init,
    preset: opts.preset,
    harnesses: opts.harnesses,
    suites,
    maxTier: opts.maxTier,
    tasks: opts.tasks,
    samples: opts.samples,
    temperature,
    seed: opts.seed,
    maxTurns: opts.maxTurns,
    workers: opts.workers,
    allowBudgetMismatch: opts.allowBudgetMismatch === true,
    backend: opts.backend,
  };
  if (opts.maxNewTokens !== undefined) req.maxNewTokens = opts.maxNewTokens;
  if (opts.contextTokens !== undefined) req.contextTokens = opts.contextTokens;
  return req;
}

const pct = (x: number | null | undefined) => (x === null || x === undefined ? '—' : x.toFixed(3));

/**
 * Human summary of a report: one line per set (pass@1, score, entropy per token), the in-space
 * exclusion, the per-family table (pass@1 (episodes) per set), then one line per harness.
 */
function formatEvalReport(r: CheckpointEvalReport): string {
  const lines = [
    `checkpoint ${String(r.checkpoint.source)} (digest ${String(r.checkpoint.digest ?? '').slice(0, 12)}), ${r.episodes} episodes`,
  ];
  const ent = (x: number | null | undefined) => (x === null || x === undefined ? '—' : `${x.toFixed(3)} nats`);
  for (const k of ['base', 'training', 'inSpace'] as const)
    if (r.passAt1[k] !== null)
      lines.push(`  ${k.padEnd(9)} pass@1 ${pct(r.passAt1[k])}  score ${pct(r.score[k])}  entropy/token ${ent(r.entropy[k])}`);
  for (const [b, v] of Object.entries(r.passAt1.blackbox))
    lines.push(`  ${b.padEnd(9)} pass@1 ${pct(v)}  score ${pct(r.score.blackbox[b])}  entropy/token ${ent(r.entropy.blackbox[b])}`);
  lines.push(`  policy entropy per sampled token, all episodes: ${ent(r.entropy.overall)}`);
  if (r.inSpaceExcluded)
    lines.push(
      `  inSpace leaves out ${r.inSpaceExcluded.pretrainMix} held-out configurations of the checkpoint's pretraining mix (${r.inSpaceExcluded.mix})`,
    );
  const m = familyMatrix(r.perFamily);
  if (m.rows.length) {
    const w = Math.max(6, ...m.rows.map((x) => x.family.length));
    const cw = m.columns.map((c) => Math.max(c.length, 10));
    lines.push('  per family: pass@1 (episodes)');
    lines.push(`    ${'family'.padEnd(w)}  ${m.columns.map((c, i) => c.padStart(cw[i])).join('  ')}`);
    for (const row of m.rows)
      lines.push(`    ${row.family.padEnd(w)}  ${row.cells.map((c, i) => familyCellText(c).padStart(cw[i])).join('  ')}`);
  }
  lines.push('  per harness: id  pass@1  score  episodes  parse-error rate');
  for (const [id, v] of Object.entries(r.perHarness))
    lines.push(`    ${id.padEnd(16)} ${pct(v.passAt1)}  ${pct(v.score)}  ${v.episodes}  ${pct(v.parseErrorRate)}`);
  return lines.join('\n');
}

/**
 * Budget check before a browser starts: the checkpoint (its file, or public/base-<preset>.ckpt for
 * `--init base`) must have been trained on contexts cut like this evaluation's (episode/budget.ts
 * `checkRunBudget`), unless --allow-budget-mismatch. The page repeats the check on what it loads.
 * @throws UsageError (exit 2, one line) on a mismatch, an unreadable checkpoint or a missing shipped base.
 */
async function checkEvaluateBudget(
  req: EvalPageRequest,
  publicDir: string = fileURLToPath(new URL('../../../public', import.meta.url)),
): Promise<void> {
  const path = req.init === 'base' ? join(publicDir, `base-${req.preset}.ckpt`) : null;
  if (path !== null && !existsSync(path))
    throw new UsageError(`--init base: no shipped base for --preset ${req.preset} (${path} does not exist)`);
  const bytes = path !== null ? new Uint8Array(readFileSync(path)) : Buffer.from((req.init as { base64: string }).base64, 'base64');
  let ck;
  try {
    ck = await decodeBaseCheckpoint(bytes);
  } catch (e) {
    throw new UsageError(`--init ${path ?? (req.init as { name: string }).name}: ${(e as Error).message.split('\n')[0]}`);
  }
  try {
    evaluationBudget(ck.header.config.maxT, ck.header.metadata, { ...req, allowMismatch: req.allowBudgetMismatch === true });
  } catch (e) {
    if (e instanceof BudgetMismatchError) throw new UsageError(e.message);
    throw e;
  }
}

export function registerEvaluate(program: Command): void {
  program
    .command('evaluate')
    .description('evaluate a base checkpoint on harness sets × test tasks × samples (WebGPU in headless Chromium)')
    .option('--init <base|file>', "'base' (public/base-<preset>.ckpt) or a checkpoint file", 'base')
    .option('--preset <name>', 'preset whose shipped base --init base loads', 'mini')
    .option('--harnesses <list>', 'comma-separated: base, training, inSpace, blackbox, all, or harness ids', 'base,training')
    .option('--suites <list>', 'comma-separated suites: workspace, errands', 'workspace,errands')
    .option('--max-tier <n>', 'only tasks of tier ≤ n', intOption(1, 3), 3)
    .option('--tasks <n>', 'test tasks per suite (family × tier balanced, seeded)', intOption(1, 10_000), 24)
    .option('--samples <n>', 'episodes per (harness, task)', intOption(1, 64), 2)
    .option('--temperature <t>', 'sampling temperature τ (0 = greedy)', '1')
    .option('--seed <n>', 'seed of the task draw and the sampler', intOption(0, 2 ** 31 - 1), 0)
    .option(
      '--max-turns <n>',
      "tool-call turns per episode; each harness's cap adds its workflow's turns (plan, todo lists, re-reads; src/harness/turn_budget.ts)",
      intOption(1, 200),
      12,
    )
    .option('--max-new-tokens <n>', "new tokens per action (default: the checkpoint's action reserve)", intOption(1, 4096))
    .option('--context-tokens <n>', "context budget incl. the action (default: the checkpoint's maxT)", intOption(16, 8192))
    .option('--allow-budget-mismatch', "evaluate although the budget differs from the checkpoint's")
    .option('--workers <n>', 'environment workers', intOption(1, 64), 4)
    .option(
      '--backend <name>',
      'policy engine in headless Chromium: auto (WebGPU on a hardware adapter, else the CPU engine) | webgpu | wasm',
      choiceOption(['auto', 'webgpu', 'wasm'] as const),
      'auto',
    )
    .option('--json', 'print the JSON report only')
    .action(async (opts: Opts) => {
      const req = evaluateRequest(opts);
      await checkEvaluateBudget(req);
      const text = await withBrowser(async (s) => s.call('evaluate', req));
      const report = JSON.parse(text) as CheckpointEvalReport;
      if (opts.json) printJson(report);
      else process.stdout.write(formatEvalReport(report) + '\n');
    });
}

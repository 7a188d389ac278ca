/**
 * `hlab pretrain [--preset tiny|mini|small] [--steps N] [--batch N] [--lr X] [--demos N] [--seed N]
 *   [--max-tier 1|2|3] [--suites workspace,errands] [--out FILE] [--blackbox bb-coding-cli]
 *   [--eval-tasks N] [--eval-harnesses N] [--backend webgpu|wasm|cpu] [--save-every N] [--json]`
 *
 * SFT of the base model on expert demonstrations under the pretraining harness mix (--mix,
 * src/pretrain/mix.ts, docs/PRETRAIN.md), or with --blackbox the black-box SFT baseline. Backends: `webgpu` (default;
 * headless Chromium on its WebGPU adapter, the CPU engine in the page when WebGPU is unavailable: said so),
 * `wasm` (Node, our CPU engine: WebAssembly SIMD on --threads threads, src/engine/wasm; the fast path
 * on a machine without a GPU), `cpu` (the CPU engine in the page).
 * Prints the loss every
 * --log-every steps, writes the checkpoint (src/model/checkpoint.ts) and a sidecar JSON
 * `<out>.json` (command, seed, digest, steps, final loss, time, loss curve, evaluation), then
 * reports a quick greedy pass@1 on train tasks under the first --eval-harnesses training
 * harnesses. Seeded and reproducible on one adapter.
 */
import type { Command } from 'commander';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { choiceOption, intOption, numberOption, printJson, shippedTokenizer, UsageError } from '../cli_util';
import { withBrowser } from '../browser';
import { BLACKBOX_IDS } from '../../harness/registry';
import type { PretrainEvent, PretrainPageOptions } from '../../pretrain/page';
import type { PretrainPageResult } from '../../pretrain/drivers';
import type { PageEvent } from '../../page/protocol';
import { DEFAULT_MIX_SPEC, MixSpecError, resolveMix } from '../../pretrain/mix';

interface Opts {
  preset: 'tiny' | 'mini' | 'small';
  backend: 'webgpu' | 'wasm' | 'cpu';
  suites: string;
  saveEvery: number;
  evalEvery: number;
  heldOutTasks: number;
  threads?: number;
  init?: string;
  steps: number;
  batch: number;
  lr: number;
  demos: number;
  seed: number;
  maxTier: number;
  actionReserve?: number;
  contextLossWeight: number;
  out?: string;
  blackbox?: string;
  mix?: string;
  evalTasks: number;
  evalHarnesses: number;
  logEvery: number;
  cpu?: boolean;
  json?: boolean;
}

/** The terminal line of one page pretraining event: "[pretrain] step 5/20 loss 6.6486 gradNorm 0.859 lr 2.82e-3 824 tok/s 9.5 s". */
function pretrainLine(ev: PretrainEvent): string {
  if (ev.type === 'pretrainNote') return `[pretrain] ${ev.message}`;
  const s = ev.progress;
  return `[pretrain] step ${s.step}/${ev.steps} loss ${s.loss.toFixed(4)} gradNorm ${s.gradNorm.toFixed(3)} lr ${s.lr.toExponential(2)} ${s.tokensPerSec.toFixed(0)} tok/s ${(s.elapsedMs / 1000).toFixed(1)} s`;
}

export function registerPretrain(program: Command): void {
  program
    .command('pretrain')
    .description(
      'SFT the base model on expert demonstrations under the harness mix --mix (or --blackbox) in headless Chromium; writes a checkpoint + sidecar JSON',
    )
    .option('--preset <name>', 'model preset: tiny | mini | small', choiceOption(['tiny', 'mini', 'small'] as const), 'tiny')
    .option('--steps <n>', 'optimizer steps', intOption(1, 1_000_000), 200)
    .option('--batch <n>', 'rows per step', intOption(1, 256), 8)
    .option('--lr <x>', 'peak learning rate (warm-up, cosine to 10%)', numberOption(1e-6, 0.1), 3e-3)
    .option('--demos <n>', 'expert episodes (both suites, half each)', intOption(2, 100_000), 200)
    .option('--seed <n>', 'seed of tasks, harness draws, init and batch order', intOption(0, 2 ** 31 - 1), 1)
    .option('--max-tier <n>', 'curriculum: only train tasks of tier ≤ n', intOption(1, 3), 3)
    .option('--action-reserve <n>', 'tokens reserved for the action (default maxT/4, ≥ 48)', intOption(8, 4096))
    .option(
      '--context-loss-weight <w>',
      'loss weight of context tokens (prompt, task, observations) beside 1 on action tokens; 0 = actions only',
      numberOption(0, 1),
      0,
    )
    .option(
      '--out <file>',
      'checkpoint path (default public/base-<preset>.ckpt, or out/sft-<blackbox>-<preset>.ckpt with --blackbox: a research checkpoint, not shipped)',
    )
    .option(
      '--mix <spec>',
      `base model: harness mix of the demonstrations, e.g. '${DEFAULT_MIX_SPEC}' (the default; kinds base, one-factor, random:N, procedural; docs/PRETRAIN.md)`,
    )
    .option(
      '--blackbox <id>',
      `black-box SFT baseline through one black-box harness (${BLACKBOX_IDS.join(' | ')})`,
      choiceOption(BLACKBOX_IDS),
    )
    .option('--eval-tasks <n>', 'greedy evaluation: train tasks (tier 1 first); 0 skips', intOption(0, 1000), 4)
    .option('--eval-harnesses <n>', 'greedy evaluation: first n training harnesses of the OA design', intOption(0, 18), 3)
    .option('--log-every <n>', 'print the loss every n steps', intOption(1, 1_000_000), 10)
    .option('--suites <list>', 'demonstration suites, comma-separated: workspace, errands', 'workspace,errands')
    .option(
      '--backend <name>',
      'webgpu (headless Chromium) | wasm (Node, the CPU engine: WebAssembly SIMD, threaded; fastest without a GPU) | cpu (the CPU engine in the page)',
      choiceOption(['webgpu', 'wasm', 'cpu'] as const),
      'webgpu',
    )
    .option('--threads <n>', "wasm backend: CPU engine threads (default: the machine's cores, at most 8)", intOption(1, 64))
    .option('--save-every <n>', 'wasm backend: also write the checkpoint every n steps (0 = only at the end)', intOption(0, 1_000_000), 0)
    .option(
      '--eval-every <n>',
      'wasm backend: every n steps, held-out action loss (a validation split of train seeds, none a demonstration task, under procedural, training and base harnesses) and greedy pass@1 of --eval-tasks of its tier-1 tasks under the base and --eval-harnesses training harnesses (0 = never)',
      intOption(0, 1_000_000),
      0,
    )
    .option('--held-out-tasks <n>', 'wasm backend: validation tasks per held-out set', intOption(1, 1000), 24)
    .option(
      '--init <file>',
      'wasm backend: continue from this base checkpoint (same preset and tokenizer; fresh optimizer and lr schedule)',
    )
    .option('--cpu', 'same as --backend cpu')
    .option('--json', 'print JSON only (the sidecar content)')
    .action(runPretrain);
}

/**
 * The `hlab pretrain` action (module doc).
 * @throws UsageError (exit 2) on a bad option value or combination
 */
async function runPretrain(opts: Opts): Promise<void> {
  if (opts.actionReserve !== undefined && opts.actionReserve >= 512)
    throw new UsageError(`--action-reserve ${opts.actionReserve} must be below the preset's maxT (512)`);
  const suites = opts.suites.split(',').map((x) => x.trim());
  for (const x of suites)
    if (x !== 'workspace' && x !== 'errands') throw new UsageError(`--suites: '${x}' is not a suite (workspace, errands)`);
  if (opts.cpu) opts.backend = 'cpu';
  if (opts.mix !== undefined) {
    if (opts.blackbox) throw new UsageError(`--mix applies to the base model only, not with --blackbox ${opts.blackbox}`);
    try {
      resolveMix(opts.mix, opts.seed);
    } catch (e) {
      if (e instanceof MixSpecError) throw new UsageError(`--mix: ${e.message}`);
      throw e;
    }
  }
  if (opts.init && opts.backend !== 'wasm') throw new UsageError('--init is supported with --backend wasm only');
  if (opts.threads !== undefined && opts.backend !== 'wasm') throw new UsageError('--threads is supported with --backend wasm only');
  if (opts.evalEvery > 0 && opts.backend !== 'wasm') throw new UsageError('--eval-every is supported with --backend wasm only');
  const out = resolve(opts.out ?? (opts.blackbox ? `out/sft-${opts.blackbox}-${opts.preset}.ckpt` : `public/base-${opts.preset}.ckpt`));
  const command = `hlab pretrain ${process.argv.slice(3).join(' ')}`.trim();
  const page: PretrainPageOptions = {
    preset: opts.preset,
    steps: opts.steps,
    batchSize: opts.batch,
    lr: opts.lr,
    seed: opts.seed,
    demos: opts.demos,
    blackbox: opts.blackbox ?? null,
    ...(opts.mix !== undefined ? { mix: opts.mix } : {}),
    maxTier: opts.maxTier as 1 | 2 | 3,
    logEvery: opts.logEvery,
    evalTasks: opts.evalTasks,
    evalHarnesses: opts.evalHarnesses,
    cpu: opts.backend === 'cpu',
    suites: suites as Array<'workspace' | 'errands'>,
    contextLossWeight: opts.contextLossWeight,
    command,
  };
  if (opts.actionReserve !== undefined) page.actionReserve = opts.actionReserve;
  const t0 = Date.now();
  mkdirSync(dirname(out), { recursive: true });
  const writeAtomic = (path: string, data: Uint8Array | string) => {
    writeFileSync(path + '.tmp', data);
    renameSync(path + '.tmp', path);
  };
  let r: PretrainPageResult;
  if (opts.backend === 'wasm') {
    const { pretrainWasm } = await import('../../pretrain/wasm_run');
    const tok = shippedTokenizer();
    let init: { params: Float32Array; digest: string } | undefined;
    if (opts.init) {
      const { decodeBaseCheckpoint } = await import('../../model/checkpoint');
      let ck;
      try {
        ck = await decodeBaseCheckpoint(new Uint8Array(readFileSync(opts.init)));
      } catch (e) {
        throw new UsageError(`--init ${opts.init}: ${(e as Error).message.split('\n')[0]}`);
      }
      if (ck.header.tokenizer.name !== tok.name)
        throw new UsageError(`--init ${opts.init}: trained with tokenizer '${ck.header.tokenizer.name}', this build uses '${tok.name}'`);
      init = { params: ck.params, digest: ck.header.digest };
    }
    r = await pretrainWasm(
      tok,
      { ...page, saveEvery: opts.saveEvery, evalEvery: opts.evalEvery, heldOutTasks: opts.heldOutTasks, init, threads: opts.threads },
      (line) => {
        if (!opts.json) process.stderr.write(line + '\n');
      },
      (bytes) => writeAtomic(out, bytes),
    );
  } else {
    r = await withBrowser((s) => s.call('pretrain', page), {
      onEvent: (ev: PageEvent) => {
        if (!opts.json && (ev.type === 'pretrainStep' || ev.type === 'pretrainNote')) process.stderr.write(pretrainLine(ev) + '\n');
      },
    });
  }
  const bytes = Buffer.from(r.checkpointBase64, 'base64');
  writeAtomic(out, bytes);
  const { checkpointBase64: _drop, digest, steps, finalLoss, ...rest } = r;
  const sidecar = {
    command,
    // The same command as a user types it from the repository root.
    rebuild: `npm run -s hlab -- ${command.replace(/^hlab /, '')}`,
    seed: opts.seed,
    digest,
    checkpoint: out,
    bytes: bytes.length,
    steps,
    finalLoss,
    wallSeconds: (Date.now() - t0) / 1000,
    ...rest,
  };
  writeAtomic(out + '.json', JSON.stringify(sidecar, null, 2) + '\n');
  if (opts.json) {
    printJson(sidecar);
    return;
  }
  console.log(`backend      ${r.backend}${r.fallbackReason ? ` (fallback: ${r.fallbackReason})` : ''} on ${r.adapter}`);
  console.log(`model        ${opts.preset}, P=${r.paramCount}, maxT=${r.config.maxT}`);
  console.log(
    `demos        ${r.demos.episodes} episodes (${r.demos.source}), ${r.demos.rows} rows, mean ${r.demos.meanRowTokens.toFixed(0)} tokens, ${r.demos.truncatedRows} truncated`,
  );
  console.log(
    `training     ${r.steps} steps in ${(r.trainMs / 1000).toFixed(1)} s = ${r.tokensPerSec.toFixed(0)} tokens/s; loss ${r.losses[0].toFixed(3)} → ${r.finalLoss.toFixed(3)} (mean of last 10)`,
  );
  if (r.eval) {
    console.log(
      `greedy eval  pass@1 ${r.eval.passAt1.toFixed(3)} on ${r.eval.tasks.length} tasks × ${r.eval.harnesses.length} harnesses, valid actions ${(100 * r.eval.validActionRate).toFixed(1)}% (${(r.eval.ms / 1000).toFixed(1)} s)`,
    );
    for (const [h, p] of Object.entries(r.eval.byHarness)) console.log(`             ${h}: ${p.toFixed(3)}`);
  }
  console.log(`checkpoint   ${out} (${bytes.length} bytes, sha256 ${r.digest})`);
  console.log(`sidecar      ${out}.json`);
}

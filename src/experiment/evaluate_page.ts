/**
 * `hlab evaluate`, page side (either engine, src/engine): load a base checkpoint (the shipped one of a preset, or
 * a file passed as base64), check its budget against the requested one (src/episode/budget.ts)
 * and that every opening fits, sample episodes of every (harness, test task, sample) in one
 * rollout batch (rollout/rollout.ts: the engine's KV-cache sampler, env worker pool) and report them
 * (evaluate_report.ts; its inSpace set without the checkpoint's pretraining mix). Called by the CLI through `withBrowser` like `hlab run`.
 */
import { base64ToBytes, stringifyFinite } from '../util/encoding';
import { maxRows } from '../model/config';
import { loadTokenizer } from '../model/tokenizer';
import { checkOpeningsFit, evaluationBudget } from '../episode/budget';
import { decodeBaseCheckpoint } from '../model/checkpoint';
import { runEpisodes, type EpisodeRequest } from '../rollout/rollout';
import { envWorkerPool } from '../episode/host_pool';
import { taskFromId } from '../tasks';
import type { SuiteName } from '../tasks/types';
import { assetFetch, baseCheckpointUrl } from '../util/asset_fetch';
import { Rng } from '../util/rng';
import { evalReport, evalTaskIds, resolveEvalHarnesses } from '../report/evaluate_report';
import { describeMix, pretrainMixOf } from '../pretrain/mix';
import { chooseEngine } from '../engine/choose';
import type { BackendChoice } from '../engine/engine_api';

/** JSON-safe request of one evaluation. */
export interface EvalPageRequest {
  /** 'base' (public/base-<preset>.ckpt) or a checkpoint file's bytes in base64. */
  init: 'base' | { base64: string; name: string };
  /** Preset whose shipped base `init: 'base'` loads. */
  preset: string;
  /** Set names and/or harness ids, comma-separated (evaluate_report.ts). */
  harnesses: string;
  suites: SuiteName[];
  maxTier: number;
  /** Test tasks per suite. */
  tasks: number;
  /** Episodes per (harness, task). */
  samples: number;
  /** τ ≥ 0 (0 = greedy). */
  temperature: number;
  seed: number;
  /** Tool-call turns per episode; the env host's cap adds the harness's workflow turns (harness/turn_budget.ts `turnCap`). */
  maxTurns: number;
  /** Default: the checkpoint's action reserve. */
  maxNewTokens?: number;
  /** Default: the checkpoint's maxT. */
  contextTokens?: number;
  allowBudgetMismatch?: boolean;
  workers: number;
  watchdogMs?: number;
  /** Policy engine (default 'auto'). */
  backend?: BackendChoice;
}

/**
 * Run the evaluation in the page.
 * @returns the report (evaluate_report.ts `CheckpointEvalReport`) as JSON (NaN → null)
 * @throws Error when the checkpoint is missing or corrupt, was trained with another tokenizer,
 *   its budget differs without `allowBudgetMismatch`, an opening does not fit, or the chosen engine cannot start.
 */
export async function evaluateCheckpointInPage(req: EvalPageRequest): Promise<string> {
  const t0 = performance.now();
  const taskIds = evalTaskIds(req.suites, req.maxTier, req.tasks, req.seed);
  const tok = await loadTokenizer();
  let bytes: Uint8Array;
  let source: string;
  if (req.init === 'base') {
    const url = baseCheckpointUrl(req.preset);
    const res = await assetFetch(url);
    if (!res.ok || (res.headers.get('content-type') ?? '').includes('text/html'))
      throw new Error(`evaluate: ${url} not found (no shipped base for preset '${req.preset}')`);
    bytes = new Uint8Array(await res.arrayBuffer());
    source = `public${url}`;
  } else {
    bytes = base64ToBytes(req.init.base64);
    source = req.init.name;
  }
  const ck = await decodeBaseCheckpoint(bytes);
  // The in-space set leaves out the configurations the checkpoint was pretrained under.
  const mix = pretrainMixOf(ck.header.metadata);
  const plan = resolveEvalHarnesses(req.harnesses, { harnesses: mix.harnesses, label: describeMix(mix) });
  const cfg = ck.header.config;
  if (ck.header.tokenizer.name !== tok.name)
    throw new Error(`evaluate: ${source} was trained with tokenizer '${ck.header.tokenizer.name}', the app loads '${tok.name}'`);
  const { limits, maxNewTokens, contextTokens, warning } = evaluationBudget(cfg.maxT, ck.header.metadata, {
    ...req,
    allowMismatch: req.allowBudgetMismatch === true,
  });
  const warnings: string[] = [];
  if (warning) warnings.push(warning);
  checkOpeningsFit(tok, plan.ids, taskIds.map(taskFromId), limits);

  const engine = await chooseEngine(req.backend ?? 'auto');
  const policy = engine.createPolicy(cfg, ck.params, maxRows(cfg));
  const env = envWorkerPool(req.workers, req.watchdogMs ?? 30_000, tok);
  try {
    const reqs: EpisodeRequest[] = [];
    for (const h of plan.ids)
      for (const t of taskIds) for (let s = 0; s < req.samples; s++) reqs.push({ taskId: t, harnessId: h, group: reqs.length });
    const { trajectories, stats } = await runEpisodes(reqs, {
      tok,
      policy,
      env,
      maxTurns: req.maxTurns,
      maxNewTokens,
      contextTokens,
      temperature: req.temperature,
      seed: Rng.derive(req.seed, 'evaluate').int(2 ** 31),
    });
    if (engine.errors().length) throw new Error(`WebGPU errors during evaluation: ${engine.errors().join('; ')}`);
    const report = evalReport(plan, trajectories, {
      source,
      digest: ck.header.digest,
      config: cfg,
      tokenizer: ck.header.tokenizer.name,
      command: ck.header.metadata.command ?? null,
      pretrainMix: mix.spec,
      budget: { maxT: limits.maxT, maxNewTokens, contextBudget: limits.maxT - maxNewTokens },
      tasks: taskIds.length,
      suites: req.suites,
      maxTier: req.maxTier,
      samples: req.samples,
      temperature: req.temperature,
      seed: req.seed,
      maxTurns: req.maxTurns,
      droppedContextTokens: stats.droppedContextTokens,
      envFailures: stats.envFailures,
      seconds: Number(((performance.now() - t0) / 1000).toFixed(1)),
      machine: `${engine.describe} (${engine.reason})`,
      warnings,
    });
    return stringifyFinite(report);
  } finally {
    env.terminate();
    policy.destroy();
    engine.destroy();
  }
}

/** What the page-side (page.ts) and the Node-side (wasm_run.ts) pretraining drivers share. DOM- and GPU-free. */
import { bytesToBase64 } from '../util/encoding';
import { paramLayout } from '../model/layout';
import { taskSet } from '../tasks';
import type { SuiteName, Task, Tier } from '../tasks/types';
import { Rng } from '../util/rng';
import type { Row } from '../episode/rows';
import type { DemoFailure } from '../episode/demonstrations';
import type { DemoSet, resolveSftConfig, SftResult } from './sft';
import type { GreedyReport } from './eval_greedy';

/** What a pretraining run reports, on either driver (page.ts in the page, wasm_run.ts in Node); JSON-safe. */
export interface PretrainPageResult {
  /** The engine that trained: 'gpu' (WebGPU) or 'wasm' (the CPU engine, in the page or in Node). */
  backend: 'gpu' | 'wasm';
  fallbackReason: string | null;
  adapter: string;
  config: Record<string, number>;
  paramCount: number;
  demos: {
    episodes: number;
    failed: number;
    failedBy: Record<DemoFailure, number>;
    source: string;
    rows: number;
    truncatedRows: number;
    meanRowTokens: number;
  };
  losses: number[];
  finalLoss: number;
  steps: number;
  tokens: number;
  trainMs: number;
  tokensPerSec: number;
  prepMs: number;
  digest: string;
  checkpointBase64: string;
  eval: (GreedyReport & { ms: number; harnesses: string[]; tasks: string[] }) | null;
}

/** Evaluation tasks: `n` train tasks of `suites` (default both), lowest tier first (seeded). */
export function evalTaskList(n: number, seed: number, suites: readonly SuiteName[] = ['workspace', 'errands']): Task[] {
  const pool = suites.flatMap((s) =>
    taskSet(s, 'train', 3 * n, Rng.derive(seed, 'eval-tasks', s === 'workspace' ? 'w' : 'e').int(2 ** 31)),
  );
  const byTier = (t: Tier) => pool.filter((x) => x.tier === t);
  return [...byTier(1), ...byTier(2), ...byTier(3)].slice(0, n);
}

/**
 * The driver-independent part of a pretraining result.
 * @param rows the demonstration rows trained on
 */
export function pretrainSummary(
  cfg: ReturnType<typeof resolveSftConfig>,
  demos: DemoSet,
  rows: readonly Row[],
  res: SftResult,
  extra: Pick<PretrainPageResult, 'backend' | 'fallbackReason' | 'adapter' | 'prepMs' | 'digest' | 'eval'> & { bytes: Uint8Array },
): PretrainPageResult {
  const rowTokens = rows.reduce((a, r) => a + r.ids.length, 0);
  const { bytes, ...rest } = extra;
  return {
    ...rest,
    config: { ...cfg.model },
    paramCount: paramLayout(cfg.model).total,
    demos: {
      episodes: demos.episodes.length,
      failed: demos.failed,
      failedBy: demos.failedBy,
      source: demos.source,
      rows: rows.length,
      truncatedRows: res.truncatedRows,
      meanRowTokens: rowTokens / Math.max(1, rows.length),
    },
    losses: res.losses,
    finalLoss: res.finalLoss,
    steps: cfg.steps,
    tokens: res.tokens,
    trainMs: res.ms,
    tokensPerSec: res.tokens / (res.ms / 1000),
    checkpointBase64: bytesToBase64(bytes),
  };
}

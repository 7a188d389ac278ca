/**
 * `hlab pretrain --backend wasm`: the same pretraining as page.ts (demonstrations → rows →
 * seeded SFT → checkpoint → greedy evaluation), run in Node on our CPU engine (src/engine/wasm:
 * WebAssembly SIMD, multi-threaded) instead of a browser. DOM-free; the caller loads the
 * tokenizer and writes files.
 *
 * Long runs write an intermediate checkpoint every `saveEvery` steps through `onCheckpoint`
 * (same file format; metadata says which step), so a run cut short still leaves its latest
 * parameters, and the loss curve so far is in the metadata.
 */
import { paramCount } from '../model/layout';
import { TOKENIZER_FORMAT_VERSION, type Tokenizer } from '../model/tokenizer';
import { selectTrainingOA } from '../design/selection';
import { encodeBaseCheckpoint } from '../model/checkpoint';
import { evaluateGreedy, type GreedyReport } from './eval_greedy';
import { evalTaskList, pretrainSummary, type PretrainPageResult } from './drivers';
import type { PretrainPageOptions } from './page';
import { describeDropped } from '../episode/demonstrations';
import { demoTasks, prepareSft, trainSft } from './sft';
import { startCpuEngine } from '../engine/choose';
import type { BatchNll } from '../engine/engine_api';
import { BASE_HARNESS } from '../design/space';
import { mixMetadata } from './mix';
import { HELD_OUT_SETS, heldOutLoss, heldOutSets, heldOutTasks, type HeldOutName } from './heldout';
import type { Task } from '../tasks/types';

interface WasmPretrainOptions extends PretrainPageOptions {
  /** Write an intermediate checkpoint every this many steps (0 = only at the end). */
  saveEvery: number;
  /**
   * Continue from these parameters instead of a fresh init (a second phase: fresh AdamW moments
   * and lr schedule); `initDigest` is recorded in the metadata so the chain of commands is known.
   */
  init?: { params: Float32Array; digest: string };
  /** CPU engine threads including the calling one (default: the machine's cores, at most 8). */
  threads?: number;
  /**
   * Every this many steps (0 = never): held-out action loss (heldout.ts: validation tasks of train seeds, none a demonstration's, under
   * procedural, training and base harnesses) and greedy pass@1 of `evalTasks` held-out tier-1
   * tasks under the base harness and the first `evalHarnesses` training harnesses.
   */
  evalEvery?: number;
  /** Held-out tasks per set (default 24). */
  heldOutTasks?: number;
}

/** One point of the held-out learning curve. */
interface HeldOutPoint {
  step: number;
  /** Action loss (nats/token) per held-out set. */
  loss: Record<HeldOutName, number>;
  /** Greedy pass@1 per harness id on the held-out tier-1 tasks (empty when evalTasks is 0). */
  greedy: Record<string, number>;
  validActionRate: number;
}

/**
 * Run pretraining on the CPU engine (module doc).
 * @param log progress lines (already formatted)
 * @param onCheckpoint receives every checkpoint (intermediate and final) with its step
 * @throws Error from SFT (bad config, non-finite loss) or the CPU engine
 */
export async function pretrainWasm(
  tok: Tokenizer,
  o: WasmPretrainOptions,
  log: (line: string) => void,
  onCheckpoint: (bytes: Uint8Array, digest: string, step: number) => void,
): Promise<PretrainPageResult & { heldOut: HeldOutPoint[] }> {
  const t0 = performance.now();
  const p = prepareSft(tok, o);
  const cfg = p.cfg;
  const rowTokens = p.rows.reduce((a, r) => a + r.ids.length, 0);
  if (o.init && o.init.params.length !== p.init.length)
    throw new Error(`--init: the checkpoint has ${o.init.params.length} parameters, preset ${cfg.preset} needs ${p.init.length}`);
  const engine = await startCpuEngine('hlab pretrain --backend wasm', { threads: o.threads });
  log(
    `[pretrain] ${p.demos.episodes.length} expert episodes (${p.demos.source}, ${describeDropped(p.demos)}${p.longActionTurns ? `; ${p.longActionTurns} turns dropped: action too long for maxT − opening` : ''}; suites ${cfg.suites.join('+')}, tier ≤ ${cfg.maxTier}) → ${p.rows.length} rows, mean ${(rowTokens / Math.max(1, p.rows.length)).toFixed(0)} tokens; model ${cfg.preset} P=${paramCount(cfg.model)} maxT=${cfg.model.maxT}; backend wasm (${engine.describe})`,
  );
  if (cfg.contextLossWeight > 0)
    log(
      `[pretrain] objective: next-token loss on action tokens (weight 1) and context tokens (weight ${cfg.contextLossWeight}); the step loss below is that weighted mean, the held-out loss is action tokens only`,
    );
  const trainer = engine.createSftTrainer(cfg.model, o.init?.params ?? p.init, cfg);
  const limits = { maxT: cfg.model.maxT, actionReserve: cfg.actionReserve };
  // Greedy pass@1: the engine's policy at τ = 0 over the trainer's current parameters.
  const greedyPass = async (tasks: readonly Task[], harnesses: readonly string[]) => {
    const policy = engine.createPolicy(cfg.model, await trainer.params(), GREEDY_ROWS);
    try {
      return await evaluateGreedy(tok, policy, tasks, harnesses, limits, 8);
    } finally {
      policy.destroy();
    }
  };
  const evalEvery = o.evalEvery ?? 0;
  const { curve, measure, greedyHarnesses } = heldOutCurve(tok, o, cfg, trainer.nll, greedyPass, log);
  const prepMs = performance.now() - t0;
  const tokMeta = { name: tok.name, vocabSize: tok.vocabSize, formatVersion: TOKENIZER_FORMAT_VERSION };
  const meta = (step: number, losses: number[]) => ({
    command: o.command,
    seed: cfg.seed,
    steps: cfg.steps,
    stepsDone: step,
    batchSize: cfg.batchSize,
    lr: cfg.lr,
    demos: cfg.demos,
    source: p.demos.source,
    suites: cfg.suites.join(','),
    actionReserve: cfg.actionReserve,
    budgetMaxT: cfg.model.maxT,
    maxTier: cfg.maxTier,
    backend: 'wasm',
    contextLossWeight: cfg.contextLossWeight,
    init: o.init ? o.init.digest : 'fresh',
    ...(cfg.mix ? mixMetadata(cfg.mix) : {}),
    finalLoss: losses.slice(-10).reduce((a, b) => a + b, 0) / Math.max(1, Math.min(10, losses.length)),
    lossCurve: windowMeans(losses, o.logEvery),
    heldOutSteps: curve.map((c) => c.step),
    ...Object.fromEntries(HELD_OUT_SETS.map((n) => [`heldOutLoss_${n}`, curve.map((c) => round4(c.loss[n]))])),
    ...Object.fromEntries(greedyHarnesses.map((h) => [`greedyPass_${h}`, curve.map((c) => c.greedy[h] ?? -1)])),
  });
  const losses: number[] = [];
  const res = await trainSft(
    p.rows,
    cfg,
    trainer,
    tok.padId,
    (s) => {
      losses.push(s.loss);
      if (s.step === 1 || s.step % o.logEvery === 0 || s.step === cfg.steps) {
        const recent = losses.slice(-o.logEvery);
        log(
          `[pretrain] step ${s.step}/${cfg.steps} loss ${s.loss.toFixed(4)} (mean of last ${recent.length}: ${(recent.reduce((a, b) => a + b, 0) / recent.length).toFixed(4)}) gradNorm ${s.gradNorm.toFixed(3)} lr ${s.lr.toExponential(2)} ${s.tokensPerSec.toFixed(0)} tok/s ${(s.elapsedMs / 1000).toFixed(1)} s`,
        );
      }
    },
    async (step, params) => {
      if (evalEvery > 0 && step % evalEvery === 0) await measure(step);
      if (o.saveEvery > 0 && step % o.saveEvery === 0 && step < cfg.steps) {
        const { bytes, digest } = await encodeBaseCheckpoint(cfg.model, params, tokMeta, meta(step, losses));
        onCheckpoint(bytes, digest, step);
        log(`[pretrain] checkpoint at step ${step} (sha256 ${digest.slice(0, 12)}…)`);
      }
    },
    gcd(o.saveEvery, evalEvery),
  );
  if (evalEvery > 0 && cfg.steps % evalEvery !== 0) await measure(cfg.steps);
  const { bytes, digest } = await encodeBaseCheckpoint(cfg.model, res.params, tokMeta, meta(cfg.steps, res.losses));
  onCheckpoint(bytes, digest, cfg.steps);
  let evalOut: PretrainPageResult['eval'] = null;
  if (o.evalTasks > 0 && o.evalHarnesses > 0) {
    const e0 = performance.now();
    const harnesses = o.blackbox ? [o.blackbox] : selectTrainingOA().training.slice(0, o.evalHarnesses);
    const tasks = evalTaskList(o.evalTasks, cfg.seed, cfg.suites);
    log(`[pretrain] greedy evaluation: ${tasks.length} train tasks × ${harnesses.length} harnesses (${harnesses.join(', ')})`);
    const rep = await greedyPass(tasks, harnesses);
    evalOut = { ...rep, ms: performance.now() - e0, harnesses, tasks: tasks.map((t) => t.id) };
    log(`[pretrain] greedy pass@1 ${rep.passAt1.toFixed(3)}, valid actions ${(100 * rep.validActionRate).toFixed(1)}%`);
  }
  engine.destroy();
  return {
    ...pretrainSummary(cfg, p.demos, p.rows, res, {
      backend: 'wasm',
      fallbackReason: null,
      adapter: engine.describe,
      prepMs,
      digest,
      eval: evalOut,
      bytes,
    }),
    heldOut: curve,
  };
}

/**
 * The held-out curve of a run (WasmPretrainOptions.evalEvery): a validation split of train seeds
 * disjoint from the demonstrations' tasks (choices are tuned there, never on test tasks), its
 * rows under the held-out harness sets, and `measure(step)`, which appends one point to `curve`
 * (action loss per set by `nll`; greedy pass@1 of the tier-1 tasks by `greedyPass`) and logs it.
 */
function heldOutCurve(
  tok: Tokenizer,
  o: WasmPretrainOptions,
  cfg: ReturnType<typeof prepareSft>['cfg'],
  nll: BatchNll,
  greedyPass: (tasks: readonly Task[], harnesses: readonly string[]) => Promise<GreedyReport>,
  log: (line: string) => void,
) {
  const evalEvery = o.evalEvery ?? 0;
  const limits = { maxT: cfg.model.maxT, actionReserve: cfg.actionReserve };
  const demoIds = new Set(demoTasks(cfg.demos, cfg.seed, cfg.maxTier, cfg.suites).map((t) => t.id));
  const hoTasks = evalEvery > 0 ? heldOutTasks(o.heldOutTasks ?? 24, cfg.seed, cfg.maxTier, cfg.suites, 'train', demoIds) : [];
  const sets = evalEvery > 0 ? heldOutSets(tok, hoTasks, limits, cfg.seed) : [];
  if (evalEvery > 0)
    log(
      `[pretrain] held-out: ${hoTasks.length} validation tasks (train seeds, none a demonstration's); rows ${sets.map((x) => `${x.name} ${x.rows.length}`).join(', ')}; every ${evalEvery} steps`,
    );
  const greedyTasks = hoTasks.filter((t) => t.tier === 1).slice(0, o.evalTasks);
  const greedyHarnesses = [
    BASE_HARNESS,
    ...selectTrainingOA()
      .training.filter((h) => h !== BASE_HARNESS)
      .slice(0, o.evalHarnesses),
  ];
  const curve: HeldOutPoint[] = [];
  const measure = async (step: number) => {
    const loss = {} as Record<HeldOutName, number>;
    for (const x of sets) loss[x.name] = heldOutLoss(x.rows, cfg.batchSize, tok.padId, cfg.model.maxT, nll);
    let greedy: Record<string, number> = {};
    let validActionRate = Number.NaN;
    if (greedyTasks.length > 0) {
      const rep = await greedyPass(greedyTasks, greedyHarnesses);
      greedy = rep.byHarness;
      validActionRate = rep.validActionRate;
    }
    curve.push({ step, loss, greedy, validActionRate });
    log(
      `[pretrain] held-out at step ${step}: loss ${HELD_OUT_SETS.map((n) => `${n} ${loss[n].toFixed(3)}`).join(', ')}${
        greedyTasks.length
          ? `; greedy pass@1 ${Object.entries(greedy)
              .map(([h, p]) => `${h} ${p.toFixed(2)}`)
              .join(', ')} (${greedyTasks.length} tier-1 validation tasks), valid actions ${(100 * validActionRate).toFixed(0)}%`
          : ''
      }`,
    );
  };
  return { curve, measure, greedyHarnesses };
}

/** Prompts per greedy sampler call. */
const GREEDY_ROWS = 16;
const round4 = (x: number) => Math.round(x * 1e4) / 1e4;
const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/** Means of consecutive windows of `w` values (the last may be shorter), rounded to 1e-4. */
function windowMeans(xs: readonly number[], w: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < xs.length; i += w) {
    const c = xs.slice(i, i + w);
    out.push(round4(c.reduce((a, b) => a + b, 0) / c.length));
  }
  return out;
}

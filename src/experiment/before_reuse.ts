/**
 * Reuse of 'before' evaluations across the methods of a seed (docs/ARCHITECTURE.md "Experiments,
 * evaluation and results"): methods of one seed usually start from the same parameters, and
 * then each batch of their 'before' evaluation (evaluate.ts: the shared batch — base harness,
 * in-space set, black-box harnesses — and the method's batch of training harnesses) is the same
 * episodes with the same seeds whenever its key is, so the runner evaluates it once and reuses
 * it: the shared batch in every method of the seed, the method's batch in methods with the same
 * training harnesses (the K or algorithm arms of one design). Two runs share a batch only when
 * the SHA-256 of their starting parameters, their model preset and the batch's key (label,
 * tasks, harnesses, exclusions, samples, τ, seed and budgets: evaluate.ts `batchKey`) are all
 * equal. Memory of one runner call only: a run whose source run finished in an earlier call
 * (before a resume) evaluates the batch again.
 */
import type { EvalBatch } from './evaluate';

/** The run whose 'before' evaluation ran a shared batch. */
interface BeforeSource {
  method: string;
  seed: number;
}

/** The 'before' batches of one runner call, by starting point and batch key. */
export class SharedBeforeBatches {
  private readonly byKey = new Map<string, { batch: EvalBatch; from: BeforeSource }>();

  private static key(paramsDigest: string, preset: string, batchKey: string): string {
    return JSON.stringify([paramsDigest, preset, batchKey]);
  }

  /**
   * The batch of an identical evaluation and the run that ran it; undefined when none ran in
   * this call.
   * @param paramsDigest SHA-256 hex of the starting parameters (runner.ts paramsDigest)
   * @param batchKey the batch's key (evaluate.ts EvalBatch.key)
   */
  find(paramsDigest: string, preset: string, batchKey: string): { batch: EvalBatch; from: BeforeSource } | undefined {
    return this.byKey.get(SharedBeforeBatches.key(paramsDigest, preset, batchKey));
  }

  /** Keep a batch a run evaluated (keyed by the batch's own key); the first one for a key stays. */
  remember(paramsDigest: string, preset: string, batch: EvalBatch, from: BeforeSource): void {
    const k = SharedBeforeBatches.key(paramsDigest, preset, batch.key);
    if (!this.byKey.has(k)) this.byKey.set(k, { batch, from });
  }
}

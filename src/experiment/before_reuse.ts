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
import type { BatchLookup, EvalBatch } from './evaluate';

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

  /**
   * One run's use of the cache: `lookup` for its 'before' evaluation (evaluate.ts), then, for each
   * batch the evaluation returns, `provenance`: where it came from when it was reused, else
   * undefined after remembering it for the runs after this one.
   */
  reuseFor(
    paramsDigest: string,
    preset: string,
    run: BeforeSource,
  ): { lookup: BatchLookup; provenance: (batch: EvalBatch) => (BeforeSource & { episodes: number }) | undefined } {
    const hits = new Map<string, BeforeSource>();
    return {
      lookup: (key) => {
        const f = this.find(paramsDigest, preset, key);
        if (f) hits.set(key, f.from);
        return f?.batch;
      },
      provenance: (batch) => {
        const from = hits.get(batch.key);
        if (!from) this.remember(paramsDigest, preset, batch, run);
        return from && { ...from, episodes: batch.outcomes.length };
      },
    };
  }

  /** Keep a batch a run evaluated (keyed by the batch's own key); the first one for a key stays. */
  remember(paramsDigest: string, preset: string, batch: EvalBatch, from: BeforeSource): void {
    const k = SharedBeforeBatches.key(paramsDigest, preset, batch.key);
    if (!this.byKey.has(k)) this.byKey.set(k, { batch, from });
  }
}

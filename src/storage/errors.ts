/**
 * The one error type of the checkpoint store. Pure (no DOM): the serialization module throws it
 * in Node too.
 *
 * `code` says what went wrong so that callers can branch without parsing messages; `runId`,
 * `step`, `tensor` and `chunk` name the checkpoint (and, where known, the tensor and chunk)
 * concerned. The message always repeats them in words.
 */
type CheckpointErrorCode =
  /** Bad argument (message names the field and the value). */
  | 'invalid-input'
  /** A digest does not match: manifest, chunk or whole tensor. */
  | 'corrupt'
  /** A chunk (or the manifest of a pointed-to checkpoint) is absent: a partial checkpoint. */
  | 'partial'
  /** No checkpoint with that run id and step. */
  | 'not-found'
  /** The commit transaction aborted with QuotaExceededError; nothing was written. */
  | 'quota'
  /** The commit transaction aborted for another reason; nothing was written. */
  | 'write-failed'
  /** This connection was closed (another tab upgraded the schema, or the browser closed it). */
  | 'closed'
  /** Opening with a newer schema waited too long on another tab that keeps the old one open. */
  | 'upgrade-blocked'
  /** The database was created by a newer build (higher schema version) than this one. */
  | 'newer-schema'
  /** An exported checkpoint file is malformed or fails its digests. */
  | 'invalid-file'
  /** The target of an import already exists and `overwrite` was not set. */
  | 'exists';

interface CheckpointErrorContext {
  runId?: string;
  step?: number;
  tensor?: string;
  chunk?: number;
  /** For a save that failed: the store step of the run's checkpoint that is still the latest (absent: none). */
  keptStep?: number;
  cause?: unknown;
}

export class CheckpointError extends Error {
  override readonly name = 'CheckpointError';
  readonly code: CheckpointErrorCode;
  readonly runId?: string;
  readonly step?: number;
  readonly tensor?: string;
  readonly chunk?: number;
  readonly keptStep?: number;

  constructor(code: CheckpointErrorCode, message: string, ctx: CheckpointErrorContext = {}) {
    super(message, ctx.cause === undefined ? undefined : { cause: ctx.cause });
    this.code = code;
    this.runId = ctx.runId;
    this.step = ctx.step;
    this.tensor = ctx.tensor;
    this.chunk = ctx.chunk;
    this.keptStep = ctx.keptStep;
  }
}

/** "checkpoint run 'r' step 12" — the prefix every message about one checkpoint starts with. */
export function describeCheckpoint(runId: string, step: number): string {
  return `checkpoint run '${runId}' step ${step}`;
}

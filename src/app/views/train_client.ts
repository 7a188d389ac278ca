/**
 * The Train view's side of the training worker (src/app/train_worker.ts): starting it (early,
 * at app load, so a run later needs no network), replacing it when it crashed or lost its GPU
 * device, and the checkpoint commands (list, load history, export to a file, import, delete).
 * Training itself is `api().start`; the view (views/train.ts) draws what it reports.
 */
import { wrap, type Remote } from 'comlink';
import { checkpointPosition } from '../../experiment/run_checkpoint';
import type { CheckpointRow, StoredHistory, TrainWorkerApi } from '../train_worker';
import { downloadBlob } from '../download';

function newTrainWorker(): Worker {
  return new Worker(new URL('../train_worker.ts', import.meta.url), { type: 'module' });
}

/** A training worker started at app load (`prewarmTrainWorker`), not yet taken by a client; null once taken or when it died. */
let prewarmed: { worker: Worker; api: Remote<TrainWorkerApi>; dead: boolean } | null = null;
let prewarmReady: Promise<boolean> | null = null;

/**
 * Start the training worker now, before the Train view is opened (src/app/shell.ts calls it at
 * load): its scripts (and, in the dev server, its whole module graph) load while the app is
 * online, so opening Train and starting a run later makes no network request (works offline).
 * The first TrainClient takes it over. Idempotent (later calls return the first promise).
 * @returns resolves true once the worker answers (its scripts are loaded), false if it failed to load
 */
export function prewarmTrainWorker(): Promise<boolean> {
  if (prewarmReady) return prewarmReady;
  const worker = newTrainWorker();
  // One comlink wrapper per worker, handed to the client: a second one would, when garbage
  // collected, send comlink's release message and end the worker's exposure.
  const p = { worker, api: wrap<TrainWorkerApi>(worker), dead: false };
  prewarmed = p;
  prewarmReady = new Promise<boolean>((resolve) => {
    // A worker whose scripts failed to load is useless: the client starts a fresh one instead.
    p.worker.addEventListener('error', (ev) => {
      ev.preventDefault();
      p.dead = true;
      resolve(false);
    });
    // The worker's comlink endpoint exists only after its module graph loaded and ran.
    void p.api.ping().then(
      () => resolve(true),
      () => resolve(false),
    );
  });
  return prewarmReady;
}

function takePrewarmedWorker(): { worker: Worker; api: Remote<TrainWorkerApi> } | null {
  const p = prewarmed;
  prewarmed = null;
  if (!p) return null;
  if (!p.dead) return p;
  p.worker.terminate();
  return null;
}

/** File name of an exported checkpoint: run id and position ('…-run1-step3.hlab', '…-after-run1.hlab'), not the store's step number. */
function checkpointFileName(runId: string, step: number): string {
  const p = checkpointPosition(step);
  return `${runId}-${p.finished ? `after-run${p.runIndex}` : p.rlStep < 0 ? `run${p.runIndex + 1}-start` : `run${p.runIndex + 1}-step${p.rlStep}`}.hlab`;
}

/** A byte count in KiB or MiB, one decimal. */
export const fmtBytes = (n: number): string => (n < 1 << 20 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / (1 << 20)).toFixed(1)} MiB`);

/** One training worker at a time, started on first use. */
export class TrainClient {
  private worker: Worker | null = null;
  private remote: Remote<TrainWorkerApi> | null = null;

  /** @param onCrash called when the worker reports an uncaught error (it is then unusable): why, in words. */
  constructor(private readonly onCrash: (why: string) => void) {}

  /** The worker's API; starts (or takes over the prewarmed) worker when there is none. */
  api(): Remote<TrainWorkerApi> {
    if (this.remote) return this.remote;
    const pre = takePrewarmedWorker();
    const w = pre?.worker ?? newTrainWorker();
    w.addEventListener('error', (ev) => {
      ev.preventDefault();
      this.onCrash(`the training worker crashed${ev.message ? ` (${ev.message})` : ''}`);
    });
    this.worker = w;
    this.remote = pre?.api ?? wrap<TrainWorkerApi>(w);
    return this.remote;
  }

  /** Whether a worker is running (a stop request has somewhere to go). */
  get started(): boolean {
    return this.remote !== null;
  }

  /** Drop the worker (a crashed one, or one whose GPU device was lost): the next command starts a fresh one. */
  drop(): void {
    this.worker?.terminate();
    this.worker = null;
    this.remote = null;
  }

  /** Every stored checkpoint, newest first. */
  listCheckpoints(): Promise<CheckpointRow[]> {
    return this.api().listCheckpoints();
  }

  /** A run's stored history at its latest checkpoint (null: none). */
  loadHistory(runId: string): Promise<StoredHistory | null> {
    return this.api().loadHistory(runId);
  }

  /** Download one checkpoint as an export file. @returns a note for the user (what happened, or why it failed). */
  async exportCheckpoint(row: CheckpointRow): Promise<string> {
    try {
      const bytes = await this.api().exportCheckpoint(row.runId, row.step);
      downloadBlob(
        checkpointFileName(row.runId, row.step),
        new Blob([bytes as Uint8Array<ArrayBuffer>], { type: 'application/octet-stream' }),
      );
      return `Exported ${row.runId} step ${row.step} (${fmtBytes(bytes.byteLength)}).`;
    } catch (e) {
      return `Export failed: ${(e as Error).message}`;
    }
  }

  /**
   * Verify and store an export file. `editorRunId`: the run id of the spec in the editor, to say
   * when the import is of another run. @returns a note for the user
   */
  async importCheckpoint(file: File, editorRunId: string | undefined): Promise<string> {
    try {
      const r = await this.api().importCheckpoint(new Uint8Array(await file.arrayBuffer()));
      return (
        `Imported ${file.name}: run ${r.runId}, step ${r.step}.` +
        (editorRunId && editorRunId !== r.runId
          ? ` Resume continues the run of the spec in the editor (${editorRunId}); open the spec this checkpoint was written for to resume it.`
          : '')
      );
    } catch (e) {
      return `Import of ${file.name} failed: ${(e as Error).message}`;
    }
  }

  /** Delete one checkpoint. @returns a note for the user */
  async deleteCheckpoint(row: CheckpointRow): Promise<string> {
    try {
      await this.api().deleteCheckpoint(row.runId, row.step);
      return `Deleted ${row.runId} step ${row.step}.`;
    } catch (e) {
      return `Delete failed: ${(e as Error).message}`;
    }
  }
}

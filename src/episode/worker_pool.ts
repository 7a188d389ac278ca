/**
 * A pool of Web Workers driven through comlink, with a watchdog and retry on a fresh worker
 * (docs/ARCHITECTURE.md "Rollouts").
 *
 * Rollout workers own sandboxes and harness runtimes; a policy that emits garbage, a harness
 * bug, or a worker that hangs or dies must never crash a run. A job is a function of the
 * worker's comlink proxy. When the job throws, the worker reports an uncaught error, or the
 * job outlives the watchdog, that worker is terminated and replaced, and the job is run again
 * from the start on the fresh worker (jobs must therefore be restartable: an episode is
 * re-run from its initial state). After `maxRetries` failed retries the last error is thrown.
 *
 * DOM-free apart from the Worker constructor the caller passes in (works in pages and workers).
 */
import { wrap, releaseProxy, type Remote } from 'comlink';

interface WorkerPoolOptions {
  /** Number of workers, ≥ 1. */
  size: number;
  /** Makes worker number `index` (called again for each replacement). */
  create: (index: number) => Worker;
  /** A job running longer than this (ms) is abandoned and its worker replaced. */
  watchdogMs: number;
  /** Retries of one job on fresh workers before its error is thrown (default 2). */
  maxRetries?: number;
  /**
   * Starts one attempt's watchdog: call `fire` after `ms`; returns the cancel function. Default
   * setTimeout. A seam so callers (tests of a hung job) decide when it fires, not the clock.
   */
  startWatchdog?: WatchdogTimer;
}

/** See `WorkerPoolOptions.startWatchdog`. */
export type WatchdogTimer = (fire: () => void, ms: number) => () => void;

const clockWatchdog: WatchdogTimer = (fire, ms) => {
  const t = setTimeout(fire, ms);
  return () => clearTimeout(t);
};

/** Counters shown in the run's metrics. */
export interface WorkerPoolStats {
  /** Jobs completed successfully. */
  completed: number;
  /** Job attempts that were retried on a fresh worker. */
  retries: number;
  /** Attempts that threw inside the worker. */
  thrown: number;
  /** Attempts that hit the watchdog. */
  timeouts: number;
  /** Attempts whose worker died (uncaught error event or termination). */
  crashes: number;
  /** Workers replaced so far. */
  replaced: number;
}

interface Slot<T> {
  index: number;
  worker: Worker;
  api: Remote<T>;
  busy: boolean;
  /** Why the worker died (error event or termination), once it has. */
  died?: Error;
  /** Rejects the running attempt, if any; set per attempt and cleared after it. */
  abort?: (why: Error) => void;
}

class WatchdogError extends Error {}
class WorkerDiedError extends Error {}

export class WorkerPool<T> {
  private readonly slots: Slot<T>[] = [];
  /** Calls waiting for a free worker; `terminate` rejects them. */
  private readonly waiting: Array<{ resolve: (s: Slot<T>) => void; reject: (e: Error) => void }> = [];
  private closed = false;
  readonly stats: WorkerPoolStats = { completed: 0, retries: 0, thrown: 0, timeouts: 0, crashes: 0, replaced: 0 };
  private readonly maxRetries: number;

  /** @throws Error when size < 1, watchdogMs ≤ 0 or maxRetries < 0 (naming the option). */
  constructor(private readonly opts: WorkerPoolOptions) {
    if (!Number.isInteger(opts.size) || opts.size < 1) throw new Error(`WorkerPool: size must be an integer ≥ 1, got ${opts.size}`);
    if (!(opts.watchdogMs > 0)) throw new Error(`WorkerPool: watchdogMs must be > 0, got ${opts.watchdogMs}`);
    this.maxRetries = opts.maxRetries ?? 2;
    if (!Number.isInteger(this.maxRetries) || this.maxRetries < 0) {
      throw new Error(`WorkerPool: maxRetries must be an integer ≥ 0, got ${opts.maxRetries}`);
    }
    for (let i = 0; i < opts.size; i++) this.slots.push(this.spawn(i));
  }

  get size(): number {
    return this.slots.length;
  }

  private spawn(index: number): Slot<T> {
    const worker = this.opts.create(index);
    const slot: Slot<T> = { index, worker, api: wrap<T>(worker), busy: false };
    worker.addEventListener('error', (ev) => {
      ev.preventDefault();
      this.kill(slot, new WorkerDiedError(`worker ${index} died: ${(ev as ErrorEvent).message ?? 'error event'}`));
    });
    return slot;
  }

  /** Mark `slot` dead and reject its running attempt (a later attempt on it rejects at once). */
  private kill(slot: Slot<T>, why: Error): void {
    slot.died ??= why;
    slot.abort?.(why);
  }

  /**
   * A promise that rejects when `slot`'s worker dies during this attempt. One per attempt, and
   * `slot.abort` is cleared afterwards: a single long-lived "dead" promise raced by every job
   * would keep every race's reaction — and through it every job's result — alive for the
   * worker's lifetime (≈ 56 KB per `hlab serve` episode).
   */
  private deathOf(slot: Slot<T>): Promise<never> {
    return new Promise<never>((_, reject) => {
      if (slot.died) reject(slot.died);
      else slot.abort = reject;
    });
  }

  private replace(slot: Slot<T>): Slot<T> {
    try {
      slot.api[releaseProxy]();
    } catch {
      /* the port may already be gone */
    }
    slot.worker.terminate();
    this.kill(slot, new WorkerDiedError(`worker ${slot.index} terminated`));
    const fresh = this.spawn(slot.index);
    this.slots[this.slots.indexOf(slot)] = fresh;
    this.stats.replaced++;
    return fresh;
  }

  private acquire(): Promise<Slot<T>> {
    if (this.closed) return Promise.reject(new Error('WorkerPool: closed'));
    const free = this.slots.find((s) => !s.busy);
    if (free) {
      free.busy = true;
      return Promise.resolve(free);
    }
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  private release(slot: Slot<T>): void {
    const next = this.waiting.shift();
    if (next) next.resolve(slot);
    else slot.busy = false;
  }

  /**
   * Run `job` on an idle worker (waiting for one if all are busy), with the watchdog and
   * retries described above.
   * @param watchdogMs per-call override of the pool's watchdog
   * @throws the job's last error after maxRetries retries, or Error when the pool is closed.
   */
  async run<R>(job: (api: Remote<T>, workerIndex: number) => Promise<R>, watchdogMs = this.opts.watchdogMs): Promise<R> {
    let slot = await this.acquire();
    let attempt = 0;
    try {
      for (;;) {
        const attemptSlot = slot;
        let cancel = () => {};
        const watchdog = new Promise<never>((_, reject) => {
          cancel = (this.opts.startWatchdog ?? clockWatchdog)(
            () => reject(new WatchdogError(`job exceeded the ${watchdogMs} ms watchdog on worker ${slot.index}`)),
            watchdogMs,
          );
        });
        try {
          const out = await Promise.race([job(slot.api, slot.index), watchdog, this.deathOf(slot)]);
          this.stats.completed++;
          return out;
        } catch (e) {
          if (e instanceof WatchdogError) this.stats.timeouts++;
          else if (e instanceof WorkerDiedError) this.stats.crashes++;
          else this.stats.thrown++;
          if (this.closed) throw e;
          // A worker that failed may hold corrupted state: never reuse it.
          slot.busy = false;
          const fresh = this.replace(slot);
          fresh.busy = true;
          slot = fresh;
          if (attempt >= this.maxRetries) throw e;
          attempt++;
          this.stats.retries++;
        } finally {
          cancel();
          attemptSlot.abort = undefined;
        }
      }
    } finally {
      if (!this.closed) this.release(slot);
    }
  }

  /** Terminate every worker; pending calls (running or waiting for a worker) and future `run` calls reject. */
  terminate(): void {
    this.closed = true;
    for (const w of this.waiting.splice(0)) w.reject(new Error('WorkerPool: closed while the call waited for a worker'));
    for (const s of this.slots) {
      s.worker.terminate();
      this.kill(s, new WorkerDiedError(`worker ${s.index} terminated (pool closed)`));
    }
  }
}

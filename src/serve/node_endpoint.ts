/**
 * node:worker_threads ↔ the Web Worker shape that comlink and src/episode/worker_pool.ts use:
 * `nodeEndpoint` turns a MessagePort / parentPort into a comlink endpoint, `WebWorkerShim`
 * makes a worker_threads Worker look like a DOM Worker (message and error events,
 * terminate), so the rollout `WorkerPool` — watchdog, retry on a fresh worker — is reused
 * unchanged for the serve workers.
 */
import { Worker as NodeWorker, type MessagePort, type WorkerOptions } from 'node:worker_threads';
import type { Endpoint } from 'comlink';

type Listener = ((ev: unknown) => void) | { handleEvent(ev: unknown): void };
const call = (l: Listener, ev: unknown) => (typeof l === 'function' ? l(ev) : l.handleEvent(ev));

/** A comlink endpoint over a worker_threads port (messages arrive as `{ data }` events). */
export function nodeEndpoint(port: MessagePort | NodeWorker): Endpoint {
  const wrapped = new Map<Listener, (data: unknown) => void>();
  return {
    postMessage: (msg: unknown, transfer?: Transferable[]) => port.postMessage(msg, transfer as never),
    addEventListener: (_type: string, l: Listener) => {
      const f = (data: unknown) => call(l, { data });
      wrapped.set(l, f);
      port.on('message', f);
    },
    removeEventListener: (_type: string, l: Listener) => {
      const f = wrapped.get(l);
      if (f) port.off('message', f);
      wrapped.delete(l);
    },
  } as Endpoint;
}

/**
 * A worker_threads Worker behind the DOM Worker surface WorkerPool needs: postMessage,
 * add/removeEventListener('message' | 'error'), terminate. An 'error' event (uncaught
 * exception) or an unexpected exit is reported as an `error` event with a `message`.
 */
export class WebWorkerShim {
  private readonly w: NodeWorker;
  private readonly ep: Endpoint;
  private readonly errorListeners = new Set<Listener>();
  private terminated = false;

  /** @param url the worker module; `options` go to node's Worker (workerData, execArgv …). */
  constructor(url: URL, options: WorkerOptions = {}) {
    this.w = new NodeWorker(url, options);
    this.ep = nodeEndpoint(this.w);
    const fail = (message: string) => {
      for (const l of this.errorListeners) call(l, { message, preventDefault() {} });
    };
    this.w.on('error', (e) => fail((e as Error).message));
    this.w.on('exit', (code) => {
      if (!this.terminated) fail(`worker thread exited with code ${code}`);
    });
    this.w.unref(); // never keeps the process alive by itself; the server's socket does
  }

  postMessage(msg: unknown, transfer?: Transferable[]): void {
    this.ep.postMessage(msg, transfer);
  }

  addEventListener(type: string, l: Listener): void {
    if (type === 'error') this.errorListeners.add(l);
    else if (type === 'message') this.ep.addEventListener('message', l as never);
  }

  removeEventListener(type: string, l: Listener): void {
    if (type === 'error') this.errorListeners.delete(l);
    else if (type === 'message') this.ep.removeEventListener('message', l as never);
  }

  terminate(): void {
    this.terminated = true;
    void this.w.terminate();
  }
}

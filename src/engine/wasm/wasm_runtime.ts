/**
 * The CPU engine's runtime: one WebAssembly module (src/engine/wasm/as, AssemblyScript with SIMD128)
 * instantiated on the calling thread and on `threads − 1` workers over one shared memory.
 *
 * A dispatch writes a task (op code + i32 arguments) into shared memory, wakes the workers
 * (Atomics.notify on a generation word), runs thread 0's share on the calling thread and waits
 * until every worker has decremented the pending count. Every kernel partitions its outputs so
 * that each element is written by one thread in a fixed reduction order: results are
 * bit-identical for any thread count (tested).
 *
 * Runs in Node (worker_threads) and in browsers (Web Workers; SharedArrayBuffer needs the
 * cross-origin isolation the app and the test pages have). Where the calling thread may not
 * block (a page's main thread), it spins on the pending count instead of Atomics.wait.
 *
 * Memory: JS allocates by a bump pointer (`alloc`) above the module's static data; the shared
 * memory grows as needed up to 2 GiB. `mark()`/`release()` free everything allocated since a
 * mark (per-step scratch). Views (`f32`, `i32`) must be re-made after an allocation, which may
 * grow the memory; `Arr` handles keep the pointer and make fresh views on demand.
 */
import { ENGINE_WASM_BASE64, ENGINE_WASM_RELAXED_BASE64 } from './engine.gen';

/** What the module exports (src/engine/wasm/as/index.ts). */
interface EngineExports {
  run(task: number, tid: number, nth: number): void;
  heapBase(): number;
  [op: `OP_${string}`]: WebAssembly.Global;
}

/** Control words (i32 index into the control block). */
const GEN = 0;
const PENDING = 1;
const STOP = 2;
/** 1 when a kernel trapped in a worker (reset after the dispatch reports it). */
const TRAPPED = 3;
/** 1 once a worker died: every later dispatch throws. */
const BROKEN = 4;
const CTRL_WORDS = 16;
const TASK_WORDS = 64;
const PAGE = 65536;
const MAX_PAGES = 32768;
/** Below this many flops an op runs on the calling thread alone: waking the workers costs ~10–50 µs, more than a decode step's small products take. */
const PARALLEL_MIN_WORK = 1_500_000;

/**
 * The worker's whole program, as source text so it needs no bundler or loader: it instantiates
 * the module on the shared memory and runs tasks until told to stop. `onInit` is the platform's
 * message hook (Node's parentPort or a worker's self).
 */
const WORKER_LOOP = `
async function start(d, done) {
  const inst = await WebAssembly.instantiate(d.module, { env: { memory: d.memory, abort() { throw new Error('wasm abort'); } } });
  const run = inst.exports.run;
  const ctrl = new Int32Array(d.memory.buffer, d.ctrl, ${CTRL_WORDS});
  done();
  let seen = 0;
  for (;;) {
    let g = Atomics.load(ctrl, ${GEN});
    for (let spin = 0; g === seen && spin < 20000; spin++) g = Atomics.load(ctrl, ${GEN});
    if (g === seen) { Atomics.wait(ctrl, ${GEN}, seen); continue; }
    seen = g;
    if (Atomics.load(ctrl, ${STOP}) !== 0) break;
    try { run(d.task, d.tid, d.nth); } catch (e) { Atomics.store(ctrl, ${TRAPPED}, 1); }
    if (Atomics.sub(ctrl, ${PENDING}, 1) === 1) Atomics.notify(ctrl, ${PENDING});
  }
}`;
const NODE_WORKER = `${WORKER_LOOP}
const { parentPort, workerData } = require('node:worker_threads');
start(workerData, () => parentPort.postMessage('ready'));`;
const WEB_WORKER = `${WORKER_LOOP}
self.onmessage = (e) => start(e.data, () => self.postMessage('ready'));`;

function decode(b64: string): Uint8Array<ArrayBuffer> {
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

/**
 * Whether this runtime runs WebAssembly relaxed SIMD (Chromium ≥ 114, Node ≥ 22; Node 20 only
 * with --experimental-wasm-relaxed-simd): whether it validates the relaxed build of the engine.
 */
function relaxedSimdSupported(): boolean {
  relaxedOk ??= WebAssembly.validate(decode(ENGINE_WASM_RELAXED_BASE64));
  return relaxedOk;
}
let relaxedOk: boolean | undefined;

const compiled = new Map<boolean, Promise<WebAssembly.Module>>();
/** The compiled engine module, relaxed-SIMD build or baseline (each compiled once per realm). */
function engineModule(relaxed: boolean): Promise<WebAssembly.Module> {
  let m = compiled.get(relaxed);
  if (!m) compiled.set(relaxed, (m = WebAssembly.compile(decode(relaxed ? ENGINE_WASM_RELAXED_BASE64 : ENGINE_WASM_BASE64))));
  return m;
}

const isNode = typeof process !== 'undefined' && !!process.versions?.node && typeof window === 'undefined' && typeof self === 'undefined';

/** A float or int array in engine memory: a pointer and a length, views made fresh on demand. */
export class Arr {
  constructor(
    readonly engine: WasmEngine,
    readonly ptr: number,
    readonly length: number,
    readonly label: string,
  ) {}
  /** A live f32 view (re-made: memory may have grown since). */
  f32(): Float32Array {
    return new Float32Array(this.engine.memory.buffer, this.ptr, this.length);
  }
  i32(): Int32Array {
    return new Int32Array(this.engine.memory.buffer, this.ptr, this.length);
  }
  /**
   * Copy `src` in. @throws Error naming this array when the length differs.
   */
  write(src: ArrayLike<number>): void {
    if (src.length !== this.length) throw new Error(`${this.label}: expected ${this.length} values, got ${src.length}`);
    if (src instanceof Int32Array) this.i32().set(src);
    else this.f32().set(src);
  }
  /** A copy out (f32). */
  read(): Float32Array {
    return this.f32().slice();
  }
  zero(): void {
    this.f32().fill(0);
  }
}

export interface WasmEngineOptions {
  /** Threads including the calling one (default: hardware concurrency, at most 8). */
  threads?: number;
  /**
   * Ops of fewer flops run on the calling thread alone (default PARALLEL_MIN_WORK). 0 splits
   * every op across all threads (the thread-count identity tests use it on small shapes).
   */
  parallelMinWork?: number;
  /**
   * Fused multiply-adds (the relaxed-SIMD build, as/simd_math.ts `madd`): default where the
   * runtime supports it (`relaxedSimdSupported`); false forces the baseline build, whose results
   * are those of separate multiply and add. true where unsupported is an error.
   */
  relaxedSimd?: boolean;
}

export class WasmEngine {
  private top: number;
  private readonly taskPtr: number;
  private readonly ctrl: Int32Array;
  private destroyed = false;
  /** Dispatches so far (a cost counter for tests and benchmarks). */
  dispatches = 0;

  private constructor(
    readonly memory: WebAssembly.Memory,
    private readonly ex: EngineExports,
    readonly threads: number,
    /** Whether this engine runs the relaxed-SIMD build (fused multiply-adds). */
    readonly relaxedSimd: boolean,
    private readonly workers: Array<{ terminate(): unknown }>,
    ctrlPtr: number,
    taskPtr: number,
    top: number,
    private readonly canBlock: boolean,
    private readonly parallelMinWork: number,
  ) {
    this.taskPtr = taskPtr;
    this.top = top;
    this.ctrl = new Int32Array(memory.buffer, ctrlPtr, CTRL_WORDS);
  }

  /**
   * Start the engine: compile (once), instantiate on this thread and on threads − 1 workers.
   * @throws Error when threads are requested where SharedArrayBuffer is unavailable (a page
   *   without cross-origin isolation), threads is not a positive integer, or relaxedSimd is
   *   true on a runtime without relaxed SIMD.
   */
  static async create(o: WasmEngineOptions = {}): Promise<WasmEngine> {
    const hc =
      typeof navigator !== 'undefined' && navigator.hardwareConcurrency
        ? navigator.hardwareConcurrency
        : isNode
          ? (await import('node:os')).availableParallelism()
          : 1;
    const threads = o.threads ?? Math.min(8, Math.max(1, hc));
    if (!Number.isInteger(threads) || threads < 1 || threads > 64)
      throw new Error(`WasmEngine: threads must be an integer in [1, 64], got ${threads}`);
    if (typeof SharedArrayBuffer === 'undefined') {
      // The module imports a shared memory (threads), which browsers give only to cross-origin-isolated pages.
      throw new Error(
        'WasmEngine: the CPU engine needs SharedArrayBuffer (a cross-origin-isolated page: COOP same-origin + COEP require-corp)',
      );
    }
    const relaxedOk = relaxedSimdSupported();
    const relaxedSimd = o.relaxedSimd ?? relaxedOk;
    if (relaxedSimd && !relaxedOk)
      throw new Error('WasmEngine: relaxedSimd is true but this runtime does not support WebAssembly relaxed SIMD');
    const module = await engineModule(relaxedSimd);
    const memory = new WebAssembly.Memory({ initial: 64, maximum: MAX_PAGES, shared: true });
    const inst = await WebAssembly.instantiate(module, {
      env: {
        memory,
        abort: () => {
          throw new Error('wasm abort');
        },
      },
    });
    const ex = inst.exports as unknown as EngineExports;
    const base = ex.heapBase();
    const ctrlPtr = base;
    const taskPtr = base + CTRL_WORDS * 4;
    const top = taskPtr + TASK_WORDS * 4;
    let canBlock = true;
    try {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 1);
    } catch {
      canBlock = false; // a page's main thread
    }
    const workers: Array<{ terminate(): unknown }> = [];
    const ready: Promise<void>[] = [];
    for (let tid = 1; tid < threads; tid++) {
      const data = { module, memory, ctrl: ctrlPtr, task: taskPtr, tid, nth: threads };
      if (isNode) {
        const { Worker } = await import('node:worker_threads');
        const w = new Worker(NODE_WORKER, { eval: true, workerData: data });
        w.unref();
        workers.push(w);
        ready.push(
          new Promise((res, rej) => {
            w.once('message', () => res());
            w.once('error', rej);
          }),
        );
        w.on('error', () => WasmEngine.workerDied(memory, ctrlPtr));
        w.on('exit', () => WasmEngine.workerDied(memory, ctrlPtr));
      } else {
        const url = URL.createObjectURL(new Blob([WEB_WORKER], { type: 'text/javascript' }));
        const w = new Worker(url, { name: `wasm-engine-${tid}` });
        workers.push(w);
        ready.push(
          new Promise((res, rej) => {
            w.onmessage = () => res();
            w.onerror = (e) => {
              WasmEngine.workerDied(memory, ctrlPtr);
              rej(new Error(`wasm engine worker ${tid}: ${e.message}`));
            };
          }),
        );
        w.postMessage(data);
      }
    }
    await Promise.all(ready);
    return new WasmEngine(
      memory,
      ex,
      threads,
      relaxedSimd,
      workers,
      ctrlPtr,
      taskPtr,
      top,
      canBlock,
      o.parallelMinWork ?? PARALLEL_MIN_WORK,
    );
  }

  /**
   * A worker died (crash, out of memory, terminated): flag the engine broken and release a
   * dispatch waiting for it, which then throws instead of hanging.
   */
  private static workerDied(memory: WebAssembly.Memory, ctrlPtr: number): void {
    const ctrl = new Int32Array(memory.buffer, ctrlPtr, CTRL_WORDS);
    if (Atomics.load(ctrl, STOP) !== 0) return; // destroy() in progress
    Atomics.store(ctrl, BROKEN, 1);
    Atomics.store(ctrl, PENDING, 0);
    Atomics.notify(ctrl, PENDING);
  }

  /** Op code of `name` (e.g. 'GEMM'), read from the module. @throws Error for an unknown op. */
  op(name: string): number {
    const g = this.ex[`OP_${name}`];
    if (!g) throw new Error(`WasmEngine: the module has no op ${name}`);
    return g.value as number;
  }

  /** An exported i32 constant of the module (e.g. 'SUMSQ_CHUNK_SIZE'). @throws Error when absent. */
  constant(name: string): number {
    const g = (this.ex as unknown as Record<string, WebAssembly.Global | undefined>)[name];
    if (!g) throw new Error(`WasmEngine: the module has no constant ${name}`);
    return g.value as number;
  }

  /**
   * Allocate `n` 4-byte elements (16-byte aligned), growing memory when needed.
   * @param fill 'zero' (default) zero-fills; 'none' leaves what a released step left there, for
   *   an output a kernel writes in full: zero-filling a training step's activations cost small
   *   ≈ 16 ms of a 250 ms step (133 MB, on the calling thread alone).
   * @throws Error naming `label` when the 2 GiB maximum would be exceeded.
   */
  alloc(n: number, label: string, fill: 'zero' | 'none' = 'zero'): Arr {
    if (!Number.isInteger(n) || n < 0) throw new Error(`WasmEngine.alloc(${label}): size must be a non-negative integer, got ${n}`);
    const ptr = (this.top + 15) & ~15;
    const end = ptr + n * 4;
    if (end > MAX_PAGES * PAGE) throw new Error(`WasmEngine.alloc(${label}): ${n} values would exceed the engine's 2 GiB memory`);
    const have = this.memory.buffer.byteLength;
    if (end > have) this.memory.grow(Math.ceil((end - have) / PAGE));
    this.top = end;
    const a = new Arr(this, ptr, n, label);
    if (fill === 'zero') a.zero();
    return a;
  }

  /** The allocation top, to `release` to later. */
  mark(): number {
    return this.top;
  }
  /** Free everything allocated after `mark` (its Arr handles become invalid). */
  release(mark: number): void {
    this.top = mark;
  }

  /**
   * Run op `name` with i32 arguments on all threads, or on this one only when `work` (about
   * the op's flops) is below the engine's parallelMinWork, where waking the workers costs more than it
   * saves (a decode step's small products). The result is the same either way.
   * f32 arguments are passed as their bit patterns (see `f32bits`).
   * @throws Error when a thread trapped in the kernel.
   */
  dispatch(op: number, args: readonly number[], work = Infinity): void {
    const parallel = work >= this.parallelMinWork;
    if (this.destroyed) throw new Error('WasmEngine: used after destroy()');
    if (Atomics.load(this.ctrl, BROKEN) !== 0)
      throw new Error('WasmEngine: a worker thread died; create a new engine (the run can resume from its last checkpoint)');
    if (args.length + 1 > TASK_WORDS) throw new Error(`WasmEngine.dispatch: ${args.length} arguments exceed ${TASK_WORDS - 1}`);
    const task = new Int32Array(this.memory.buffer, this.taskPtr, TASK_WORDS);
    task[0] = op;
    for (let i = 0; i < args.length; i++) task[i + 1] = args[i];
    this.dispatches++;
    const nth = this.threads;
    if (nth === 1 || !parallel) {
      this.ex.run(this.taskPtr, 0, 1);
      return;
    }
    const ctrl = this.ctrl;
    Atomics.store(ctrl, PENDING, nth - 1);
    Atomics.add(ctrl, GEN, 1);
    Atomics.notify(ctrl, GEN);
    let err: unknown = null;
    try {
      this.ex.run(this.taskPtr, 0, nth);
    } catch (e) {
      err = e;
    }
    for (;;) {
      const p = Atomics.load(ctrl, PENDING);
      if (p === 0) break;
      if (this.canBlock) Atomics.wait(ctrl, PENDING, p, 50);
    }
    if (err) throw err;
    if (Atomics.load(ctrl, BROKEN) !== 0)
      throw new Error(
        'WasmEngine: a worker thread died during the dispatch; create a new engine (the run can resume from its last checkpoint)',
      );
    if (Atomics.load(ctrl, TRAPPED) !== 0) {
      Atomics.store(ctrl, TRAPPED, 0);
      throw new Error('WasmEngine: a worker trapped in the kernel');
    }
  }

  /** Stop the workers; the engine is unusable afterwards. */
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    Atomics.store(this.ctrl, STOP, 1);
    Atomics.add(this.ctrl, GEN, 1);
    Atomics.notify(this.ctrl, GEN);
    for (const w of this.workers) w.terminate();
  }
}

const f32buf = new Float32Array(1);
const i32buf = new Int32Array(f32buf.buffer);
/** The bit pattern of `x` as f32, for passing a float in an i32 task argument. */
export function f32bits(x: number): number {
  f32buf[0] = x;
  return i32buf[0];
}

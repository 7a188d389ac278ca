/**
 * The PyTorch CPU peer of `hlab bench` (Node side): starts src/bench/pytorch_peer.py under a
 * Python that has torch (HLAB_PYTHON, else `python3`, else /usr/bin/python3 — Debian's
 * python3-torch installs there) and runs its training steps one at a time, so the page's bench
 * can interleave them with ours (cpu_engine.ts asks the CLI for them: src/page/protocol.ts
 * PageQueries, answered in cli/commands/bench.ts). Node-only module.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SCRIPT = resolve(dirname(fileURLToPath(import.meta.url)), 'pytorch_peer.py');

/** The model and batch of one peer: the preset's dims, B rows of T ids, `threads` intra-op threads. */
export interface PytorchPeerModel {
  C: number;
  L: number;
  NH: number;
  V: number;
  B: number;
  T: number;
  threads: number;
  seed: number;
}

/**
 * The BLAS library torch's GEMMs bind to (pytorch_peer.py `blas_in_use`): Debian's python3-torch
 * uses whatever libblas.so.3 points at, OpenBLAS (libopenblas0-pthread) or the netlib
 * reference BLAS (libblas3), which is several times slower (docs/PERFORMANCE.md).
 */
interface PeerBlas {
  path: string | null;
  kind: 'openblas' | 'mkl' | 'blis' | 'reference' | 'unknown';
  /** OPENBLAS_NUM_THREADS as the peer saw it (peerEnv sets 1), null when unset. */
  threads: number | null;
}

/** What the peer reports when its model is built. */
export interface PeerInfo {
  torch: string;
  threads: number;
  blas: PeerBlas;
}

/**
 * A one-line warning when the peer's BLAS makes its speed unrepresentative of PyTorch on this
 * CPU (the reference BLAS, or none found); null for an optimized BLAS.
 */
export function peerBlasWarning(b: Pick<PeerBlas, 'path' | 'kind'>): string | null {
  if (b.kind === 'openblas' || b.kind === 'mkl' || b.kind === 'blis') return null;
  const what = b.kind === 'reference' ? `the netlib reference BLAS (${b.path})` : `an unidentified BLAS (${b.path ?? 'none found'})`;
  return `PyTorch peer runs on ${what}: its GEMMs are several times slower than with OpenBLAS, so ratioVsPytorch overstates ours (Debian: apt-get install libopenblas0-pthread)`;
}

/** The first candidate interpreter that imports torch, or null. */
function findTorchPython(candidates = [process.env.HLAB_PYTHON, 'python3', '/usr/bin/python3']): string | null {
  for (const py of candidates) {
    if (!py) continue;
    const r = spawnSync(py, ['-c', 'import torch'], { stdio: 'ignore', timeout: 60_000 });
    if (r.status === 0) return py;
  }
  return null;
}

/**
 * The peer's environment: OpenBLAS single-threaded under torch's intra-op threads (2). With both
 * at 2, two cores run four busy threads (OpenBLAS's pthreads spin between calls while torch's
 * pool runs the elementwise ops), and the peer's steps swung from its best to 2–5× it within one
 * bench run, so the ratio measured the oversubscription. Standalone on this 2-core machine
 * (`pytorch_peer.py`, B 8, T 256, 12 / 8 steps): torch 2 + BLAS 2 mini 49–249 ms,
 * small 259–424 ms; torch 2 + BLAS 1 38–48 and 164–169 (the fastest and steadiest); torch 1 +
 * BLAS 2 43–52 and 166–181; torch 1 + BLAS 1 48–58 and 196–216.
 */
function peerEnv(base: Readonly<Record<string, string | undefined>>): Record<string, string | undefined> {
  return { ...base, OPENBLAS_NUM_THREADS: '1' };
}

export class PytorchPeer {
  private readonly lines: AsyncIterator<string>;
  private constructor(
    private readonly proc: ChildProcessWithoutNullStreams,
    rl: Interface,
    /** The interpreter running the peer. */
    readonly python: string,
  ) {
    this.lines = rl[Symbol.asyncIterator]();
  }

  /** Start the peer, or return why it cannot run (one line, for the bench's note). */
  static start(): PytorchPeer | { absent: string } {
    const py = findTorchPython();
    if (!py) return { absent: 'PyTorch peer skipped: no python3 with torch (Debian: apt-get install python3-torch; or set HLAB_PYTHON)' };
    const proc = spawn(py, [SCRIPT], { stdio: ['pipe', 'pipe', 'pipe'], env: peerEnv(process.env) });
    proc.stderr.on('data', (d) => process.stderr.write(`[bench] pytorch: ${d}`));
    return new PytorchPeer(proc, createInterface({ input: proc.stdout }), py);
  }

  private async call<T>(cmd: object): Promise<T> {
    this.proc.stdin.write(`${JSON.stringify(cmd)}\n`);
    const r = await this.lines.next();
    if (r.done) throw new Error(`PyTorch peer (${this.python}) exited (its stderr is above)`);
    const o = JSON.parse(r.value) as T & { error?: string };
    if (o.error) throw new Error(`PyTorch peer: ${o.error}`);
    return o;
  }

  /** Build the model, its AdamW and the batch. @returns torch's version, its thread count and its BLAS */
  model(m: PytorchPeerModel): Promise<PeerInfo> {
    return this.call({ op: 'model', ...m });
  }

  /** One training step (module doc of pytorch_peer.py). @returns its wall time in ms */
  async step(): Promise<number> {
    return (await this.call<{ ms: number }>({ op: 'step' })).ms;
  }

  close(): void {
    this.proc.stdin.end();
    this.proc.kill();
  }
}

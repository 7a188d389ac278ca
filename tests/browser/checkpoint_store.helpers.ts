// Page-side helpers of the checkpoint store tests (checkpoint_store.entry.ts, storage_*.entry.ts):
// deterministic training-like checkpoints, bit-exact comparison, error summaries.
import { CheckpointError, type Checkpoint, type CheckpointInput } from '../../src/storage';
import { Rng } from '../../src/util/rng';

/** Small chunks so that every tensor spans several of them. */
export const CHUNK = 4096;

/** A training-like checkpoint: params, AdamW moments, an RNG mid-stream, schedule and metrics. */
export function makeCheckpoint(runId: string, step: number, seed: number, n = 3000): { input: CheckpointInput; rng: Rng } {
  const rng = new Rng(seed);
  const params = Float32Array.from({ length: n }, () => rng.normal());
  const bits = new Uint32Array(params.buffer);
  bits[0] = 0x7fc01234; // NaN with a payload: must survive bit for bit
  bits[1] = 0x80000000; // -0
  bits[2] = 0x00000001; // subnormal
  bits[3] = 0xff800000; // -Inf
  const adamM = Float32Array.from({ length: n }, () => rng.normal() * 1e-3);
  const adamV = Float32Array.from({ length: n }, () => rng.float() * 1e-6);
  const sampler = Rng.derive(seed, 'sampler');
  for (let i = 0; i < 17; i++) sampler.nextU32(); // mid-stream state
  return {
    rng: sampler,
    input: {
      meta: {
        runId,
        step,
        createdAt: 1_700_000_000_000 + step * 1000,
        config: { seed, lr: 3e-4, betas: [0.9, 0.999], model: { layers: 2, dModel: 64 } },
        rngStates: { sampler: sampler.state(), schedule: Rng.derive(seed, 'schedule').state() },
        scheduleState: { cursor: step % 7, order: [3, 1, 2] },
        metricHistory: Array.from({ length: step }, (_, i) => ({ step: i + 1, loss: 1 / (i + 1) })),
      },
      tensors: { params, adamM, adamV, stepCounter: Uint32Array.of(step, 0xffffffff) },
    },
  };
}

/** Number of elements whose bits differ (-1 on a length or type mismatch). */
function bitMismatches(a: Float32Array | Uint32Array | undefined, b: Float32Array | Uint32Array): number {
  if (a === undefined || a.length !== b.length || a.constructor !== b.constructor) return -1;
  const x = new Uint32Array(a.buffer, a.byteOffset, a.length);
  const y = new Uint32Array(b.buffer, b.byteOffset, b.length);
  let n = 0;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) n++;
  return n;
}

/** JSON with object keys sorted at every level (a loaded manifest's key order is canonical). */
function sortedJson(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x !== null && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : x,
  );
}

/** Per tensor: bit mismatches between a loaded checkpoint and what was saved; metadata equality. */
export function compare(got: Checkpoint | null, want: CheckpointInput) {
  if (got === null) return { found: false, step: -1, mismatches: {}, metaEqual: false };
  const mismatches: Record<string, number> = {};
  for (const [k, t] of Object.entries(want.tensors)) mismatches[k] = bitMismatches(got.tensors[k], t);
  const { schemaVersion: _v, ...meta } = got.meta;
  return {
    found: true,
    step: got.meta.step,
    mismatches,
    extraTensors: Object.keys(got.tensors).filter((k) => !(k in want.tensors)),
    metaEqual: sortedJson(meta) === sortedJson(want.meta),
  };
}

export function errorSummary(e: unknown) {
  if (e instanceof CheckpointError) {
    return {
      code: e.code,
      message: e.message,
      runId: e.runId,
      step: e.step,
      tensor: e.tensor,
      chunk: e.chunk,
      keptStep: e.keptStep,
      causeName: (e.cause as Error | undefined)?.name,
    };
  }
  return { code: 'not-a-CheckpointError', message: String(e) };
}

export async function expectError(p: Promise<unknown>) {
  try {
    await p;
    return { code: 'no-error', message: '' };
  } catch (e) {
    return errorSummary(e);
  }
}

/** A hang guard with a clear message, not a speed bound: `ms` is far above any expected time (a loaded machine included). */
export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([p, new Promise<T>((_, rej) => setTimeout(() => rej(new Error(`${what} did not settle within ${ms} ms`)), ms))]);
}

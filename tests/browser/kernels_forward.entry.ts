// Runs in the page: every forward kernel against its CPU reference on random inputs, including
// odd sizes, non-zero offsets, fully padded rows, huge logits and tiny/huge activations.
// Each check returns small JSON summaries (CloseReport per output); the spec states tolerances.
import { createGpu, type Gpu } from '../../src/engine/webgpu/device';
import { checked } from './lib/checked';
import { createStorage, readF32, uploadStorage } from '../../src/engine/webgpu/buffers';
import { encodePrepared, type PreparedDispatch } from '../../src/engine/webgpu/kernels/dispatch_plan';
import { allClose } from './lib/compare';
import { Rng } from '../../src/util/rng';
import { prepareEncoderForward } from '../../src/engine/webgpu/kernels/encoder_forward';
import { encoderForwardRef } from '../../src/reference/encoder_forward.ref';
import { prepareLayernormForward } from '../../src/engine/webgpu/kernels/layernorm_forward';
import { layernormForwardRef } from '../../src/reference/layernorm_forward.ref';
import { prepareMatmulForward } from '../../src/engine/webgpu/kernels/matmul_forward';
import { matmulForwardRef } from '../../src/reference/matmul_forward.ref';
import { prepareAttentionForward } from '../../src/engine/webgpu/kernels/attention_forward';
import { attentionForwardRef } from '../../src/reference/attention_forward.ref';
import { prepareGeluForward } from '../../src/engine/webgpu/kernels/gelu_forward';
import { geluForwardRef } from '../../src/reference/gelu_forward.ref';
import { prepareLogprobForward } from '../../src/engine/webgpu/kernels/logprob_forward';
import { logprobForwardRef } from '../../src/reference/logprob_forward.ref';
import { prepareCrossentropyForward } from '../../src/engine/webgpu/kernels/crossentropy_forward';
import { crossentropyForwardRef } from '../../src/reference/crossentropy_forward.ref';
import { prepareKvCacheWrite } from '../../src/engine/webgpu/kernels/kv_cache_write';
import { prepareSampleTokens } from '../../src/engine/webgpu/kernels/sample_tokens';
import { prepareGatherRows } from '../../src/engine/webgpu/kernels/gather_rows';
import { sampleTokensRef, type SampleBan } from '../../src/reference/sample_tokens.ref';

type Tol = [atol: number, rtol: number];

function normals(rng: Rng, n: number, scale = 1): Float32Array {
  return Float32Array.from({ length: n }, () => rng.normal() * scale);
}

/** Encode `ds` in one pass, submit inside error scopes (a validation error throws). */
async function run(gpu: Gpu, what: string, build: () => PreparedDispatch[]): Promise<void> {
  await checked(gpu.device, what, () => {
    const ds = build();
    const enc = gpu.device.createCommandEncoder({ label: what });
    const pass = enc.beginComputePass({ label: what });
    encodePrepared(pass, ds);
    pass.end();
    gpu.device.queue.submit([enc.finish()]);
  });
}

/** Put `data` at element `offset` of a fresh buffer (garbage before it) to test offsets. */
function uploadAt(gpu: Gpu, label: string, data: Float32Array, offset: number): GPUBuffer {
  const all = new Float32Array(offset + data.length).fill(12345);
  all.set(data, offset);
  return uploadStorage(gpu.device, label, all);
}

// One device per page (a test's cases share it; the page closes after the test).
let shared: Promise<Gpu> | null = null;
async function withGpu<T>(fn: (gpu: Gpu) => Promise<T>): Promise<T> {
  shared ??= createGpu();
  return fn(await shared);
}

const CHECKS: Record<string, (...args: never[]) => Promise<unknown>> = {};

/**
 * Run several checks of this module in one page, in order: `cases` is a list of
 * [exportName, ...args]. @returns one result per case, labelled by its index and arguments.
 */
export async function runCases(cases: Array<[string, ...unknown[]]>): Promise<Array<{ label: string; result: unknown }>> {
  const out: Array<{ label: string; result: unknown }> = [];
  for (const [name, ...args] of cases) {
    const f = CHECKS[name] as unknown as (...a: unknown[]) => Promise<unknown>;
    if (!f) throw new Error(`runCases: no check named ${name}`);
    out.push({ label: `${name}(${JSON.stringify(args)})`, result: await f(...args) });
  }
  return out;
}

export function encoderCheck(B: number, T: number, C: number, V: number, maxT: number, seed: number) {
  return withGpu(async (gpu) => {
    const rng = new Rng(seed);
    const ids = Int32Array.from({ length: B * T }, () => rng.int(V));
    const wte = normals(rng, V * C);
    const wpe = normals(rng, maxT * C);
    const out = createStorage(gpu.device, 'out', B * T * C * 4);
    const idsBuf = uploadStorage(gpu.device, 'ids', ids);
    const wteBuf = uploadAt(gpu, 'wte', wte, 5);
    const wpeBuf = uploadAt(gpu, 'wpe', wpe, 3);
    await run(gpu, 'encoder_forward', () => [
      prepareEncoderForward(gpu, {
        B,
        T,
        C,
        V,
        maxT,
        ids: idsBuf,
        wte: { buffer: wteBuf, offset: 5 },
        wpe: { buffer: wpeBuf, offset: 3 },
        out: { buffer: out },
      }),
    ]);
    const ref = encoderForwardRef(ids, wte, wpe, { B, T, C, V, maxT });
    return { out: allClose(await readF32(gpu.device, out, B * T * C), ref, 0, 0) };
  });
}

/** mode 'normal' | 'huge' (x ~ 1e4 + N(0,1e3)) | 'tiny' (x ~ 1e-3·N(0,1), var ≪ eps on some rows) | 'const' (constant rows). */
export function layernormCheck(N: number, C: number, mode: string, seed: number, tol: Tol) {
  return withGpu(async (gpu) => {
    const rng = new Rng(seed);
    const inp = new Float32Array(N * C);
    for (let i = 0; i < N * C; i++) {
      const z = rng.normal();
      inp[i] = mode === 'huge' ? 1e4 + 1e3 * z : mode === 'tiny' ? 1e-3 * z : mode === 'const' ? 3.5 : z;
    }
    const w = normals(rng, C);
    const b = normals(rng, C);
    const bufs = {
      inp: uploadStorage(gpu.device, 'inp', inp),
      w: uploadAt(gpu, 'w', w, 7),
      b: uploadAt(gpu, 'b', b, 1),
      out: createStorage(gpu.device, 'out', N * C * 4),
      mean: createStorage(gpu.device, 'mean', N * 4),
      rstd: createStorage(gpu.device, 'rstd', N * 4),
    };
    await run(gpu, 'layernorm_forward', () => [
      prepareLayernormForward(gpu, {
        N,
        C,
        inp: { buffer: bufs.inp },
        w: { buffer: bufs.w, offset: 7 },
        b: { buffer: bufs.b, offset: 1 },
        out: { buffer: bufs.out },
        mean: { buffer: bufs.mean },
        rstd: { buffer: bufs.rstd },
      }),
    ]);
    const ref = layernormForwardRef(inp, w, b, { N, C });
    const [atol, rtol] = tol;
    return {
      out: allClose(await readF32(gpu.device, bufs.out, N * C), ref.out, atol, rtol),
      mean: allClose(await readF32(gpu.device, bufs.mean, N), ref.mean, atol, rtol),
      rstd: allClose(await readF32(gpu.device, bufs.rstd, N), ref.rstd, atol, rtol),
    };
  });
}

/** inpOffset/wOffset ≠ multiple of 4 forces the scalar entry point. */
export function matmulCheck(
  N: number,
  K: number,
  M: number,
  bias: boolean,
  residual: boolean,
  inpOffset: number,
  wOffset: number,
  scale: number,
  seed: number,
  tol: Tol,
) {
  return withGpu(async (gpu) => {
    const rng = new Rng(seed);
    const inp = normals(rng, N * K, scale);
    const w = normals(rng, M * K);
    const bv = bias ? normals(rng, M) : null;
    const res = residual ? normals(rng, N * M, 10) : null;
    const out = createStorage(gpu.device, 'out', N * M * 4);
    const inpB = uploadAt(gpu, 'inp', inp, inpOffset);
    const wB = uploadAt(gpu, 'w', w, wOffset);
    const bB = bv ? uploadAt(gpu, 'bias', bv, 2) : null;
    const rB = res ? uploadStorage(gpu.device, 'res', res) : null;
    await run(gpu, 'matmul_forward', () => [
      prepareMatmulForward(gpu, {
        N,
        K,
        M,
        inp: { buffer: inpB, offset: inpOffset },
        weight: { buffer: wB, offset: wOffset },
        bias: bB ? { buffer: bB, offset: 2 } : null,
        residual: rB ? { buffer: rB } : null,
        out: { buffer: out },
      }),
    ]);
    const ref = matmulForwardRef(inp, w, bv, { N, K, M });
    if (res) for (let i = 0; i < ref.length; i++) ref[i] = Math.fround(ref[i] + res[i]);
    return { out: allClose(await readF32(gpu.device, out, N * M), ref, tol[0], tol[1]) };
  });
}

export function attentionCheck(B: number, T: number, C: number, NH: number, qScale: number, seed: number, tol: Tol) {
  return withGpu(async (gpu) => {
    const rng = new Rng(seed);
    const qkv = normals(rng, B * T * 3 * C);
    for (let i = 0; i < B * T; i++) for (let c = 0; c < C; c++) qkv[i * 3 * C + c] *= qScale;
    const qkvB = uploadAt(gpu, 'qkv', qkv, 8);
    const att = createStorage(gpu.device, 'att', B * NH * T * T * 4);
    const out = createStorage(gpu.device, 'out', B * T * C * 4);
    // Pre-fill att with garbage: the kernel must overwrite the upper triangle with zeros.
    gpu.device.queue.writeBuffer(att, 0, new Float32Array(B * NH * T * T).fill(7));
    await run(gpu, 'attention_forward', () => [
      prepareAttentionForward(gpu, { B, T, C, NH, qkv: { buffer: qkvB, offset: 8 }, att: { buffer: att }, out: { buffer: out } }),
    ]);
    const ref = attentionForwardRef(qkv, { B, T, C, NH });
    return {
      out: allClose(await readF32(gpu.device, out, B * T * C), ref.out, tol[0], tol[1]),
      att: allClose(await readF32(gpu.device, att, B * NH * T * T), ref.att, tol[0], tol[1]),
    };
  });
}

export function geluCheck(n: number, seed: number, tol: Tol) {
  return withGpu(async (gpu) => {
    const rng = new Rng(seed);
    const special = [0, -0, 1e-30, -1e-30, 1e-6, 3, -3, 10, -10, 1e4, -1e4, 1e20, -1e20, 3e38, -3e38];
    const inp = Float32Array.from({ length: n }, (_, i) => (i < special.length ? special[i] : rng.normal() * 4));
    const inB = uploadAt(gpu, 'inp', inp, 3);
    const out = createStorage(gpu.device, 'out', n * 4);
    await run(gpu, 'gelu_forward', () => [prepareGeluForward(gpu, { n, inp: { buffer: inB, offset: 3 }, out: { buffer: out } })]);
    return { out: allClose(await readF32(gpu.device, out, n), geluForwardRef(inp), tol[0], tol[1]) };
  });
}

/** Rows: random N(0,3²); every 3rd row shifted by ±1e4 (large logits); row 1 constant (uniform). */
function logitRows(rng: Rng, N: number, V: number, big: number): Float32Array {
  const z = normals(rng, N * V, 3);
  for (let i = 0; i < N; i++) {
    if (i % 3 === 2) for (let j = 0; j < V; j++) z[i * V + j] += i % 2 ? big : -big;
    if (i === 1) z.fill(0.25, V, 2 * V);
  }
  return z;
}

/** logprob_forward vs logprobForwardRef at temperature τ (default 1: plain log softmax). */
export function logprobCheck(N: number, V: number, big: number, seed: number, tol: Tol, temperature = 1) {
  return withGpu(async (gpu) => {
    const rng = new Rng(seed);
    const logits = logitRows(rng, N, V, big);
    const targets = Int32Array.from({ length: N }, () => rng.int(V));
    const lB = uploadAt(gpu, 'logits', logits, 4);
    const tB = uploadStorage(gpu.device, 'targets', targets);
    const lp = createStorage(gpu.device, 'logprob', N * 4);
    const lse = createStorage(gpu.device, 'lse', N * 4);
    await run(gpu, 'logprob_forward', () => [
      prepareLogprobForward(gpu, {
        N,
        V,
        logits: { buffer: lB, offset: 4 },
        targets: { buffer: tB },
        logprob: { buffer: lp },
        lse: { buffer: lse },
        temperature,
      }),
    ]);
    const ref = logprobForwardRef(logits, targets, { N, V }, temperature);
    return {
      logprob: allClose(await readF32(gpu.device, lp, N), ref.logprob, tol[0], tol[1]),
      lse: allClose(await readF32(gpu.device, lse, N), ref.lse, tol[0], tol[1]),
    };
  });
}

/** maskMode 'mixed' (0/1 with fully padded rows, one weight 0.5) | 'zero' (nothing valid). */
export function crossentropyCheck(N: number, V: number, big: number, maskMode: string, seed: number, tol: Tol) {
  return withGpu(async (gpu) => {
    const rng = new Rng(seed);
    const logits = logitRows(rng, N, V, big);
    const targets = Int32Array.from({ length: N }, () => rng.int(V));
    const mask = Float32Array.from({ length: N }, (_, i) => (maskMode === 'zero' || i % 4 === 3 ? 0 : i === 2 ? 0.5 : 1));
    const b = {
      logits: uploadAt(gpu, 'logits', logits, 4),
      targets: uploadStorage(gpu.device, 'targets', targets),
      mask: uploadStorage(gpu.device, 'mask', mask),
      loss: createStorage(gpu.device, 'loss', N * 4),
      lse: createStorage(gpu.device, 'lse', N * 4),
      stats: createStorage(gpu.device, 'stats', 8),
    };
    await run(gpu, 'crossentropy_forward', () =>
      prepareCrossentropyForward(gpu, {
        N,
        V,
        logits: { buffer: b.logits, offset: 4 },
        targets: b.targets,
        mask: b.mask,
        loss: b.loss,
        lse: b.lse,
        stats: b.stats,
      }),
    );
    const ref = crossentropyForwardRef(logits, targets, mask, { N, V });
    const stats = await readF32(gpu.device, b.stats, 2);
    return {
      loss: allClose(await readF32(gpu.device, b.loss, N), ref.loss, tol[0], tol[1]),
      lse: allClose(await readF32(gpu.device, b.lse, N), ref.lse, tol[0], tol[1]),
      mean: allClose(stats, [ref.meanLoss, ref.maskSum], tol[0], tol[1]),
    };
  });
}

/** kv_cache_write is a copy: exact. Writes T positions per row at pos0[b] (some past Tmax: dropped). */
export function kvCacheWriteCheck(B: number, T: number, C: number, Tmax: number, seed: number) {
  return withGpu(async (gpu) => {
    const rng = new Rng(seed);
    const qkv = normals(rng, B * T * 3 * C);
    const pos0 = Int32Array.from({ length: B }, (_, b) => (b * 3) % Tmax);
    const init = normals(rng, B * Tmax * 2 * C);
    const bufs = {
      qkv: uploadStorage(gpu.device, 'qkv', qkv),
      pos0: uploadStorage(gpu.device, 'pos0', pos0),
      cache: uploadStorage(gpu.device, 'cache', init),
    };
    await run(gpu, 'kv_cache_write', () => [
      prepareKvCacheWrite(gpu, { B, T, C, Tmax, qkv: { buffer: bufs.qkv }, pos0: bufs.pos0, cache: { buffer: bufs.cache } }),
    ]);
    const ref = init.slice();
    for (let b = 0; b < B; b++) {
      for (let t = 0; t < T; t++) {
        const d = pos0[b] + t;
        if (d >= Tmax) continue;
        for (let c = 0; c < 2 * C; c++) ref[(b * Tmax + d) * 2 * C + c] = qkv[(b * T + t) * 3 * C + C + c];
      }
    }
    return { cache: allClose(await readF32(gpu.device, bufs.cache, ref.length), ref, 0, 0) };
  });
}

/** gather_rows is a copy: exact (row indices in range). */
export function gatherRowsCheck(B: number, C: number, R: number, seed: number) {
  return withGpu(async (gpu) => {
    const rng = new Rng(seed);
    const inp = normals(rng, R * C);
    const idx = Int32Array.from({ length: B }, () => rng.int(R));
    const out = createStorage(gpu.device, 'out', B * C * 4);
    const bufs = { inp: uploadStorage(gpu.device, 'inp', inp), idx: uploadStorage(gpu.device, 'idx', idx) };
    await run(gpu, 'gather_rows', () => [prepareGatherRows(gpu, { B, C, R, inp: bufs.inp, idx: bufs.idx, out })]);
    const ref = new Float32Array(B * C);
    for (let b = 0; b < B; b++) ref.set(inp.subarray(idx[b] * C, (idx[b] + 1) * C), b * C);
    return { out: allClose(await readF32(gpu.device, out, B * C), ref, 0, 0) };
  });
}

/**
 * sample_tokens vs sampleTokensRef over `draws` steps for B rows of random logits (one row
 * with ±1e4 offsets). Returns id agreement and the log-prob and entropy comparisons.
 */
export function sampleCheck(
  B: number,
  V: number,
  temperature: number,
  topP: number,
  draws: number,
  seed: number,
  tol: Tol,
  ban?: SampleBan,
) {
  return withGpu(async (gpu) => {
    const rng = new Rng(seed);
    const R = B + 2;
    const logits = logitRows(rng, R, V, 1e4);
    // With a ban: the banned ids (and the allowed one among them) carry most of the mass.
    if (ban) for (let r = 0; r < R; r++) for (let j = ban.lo; j < ban.hi; j++) logits[r * V + j] += 8;
    let bannedDraws = 0;
    let allowDraws = 0;
    const lB = uploadStorage(gpu.device, 'logits', logits);
    const rowsBuf = createStorage(gpu.device, 'rows', B * 2 * 4);
    const ids = createStorage(gpu.device, 'ids', B * 4);
    const lp = createStorage(gpu.device, 'logprob', B * 4);
    const ent = createStorage(gpu.device, 'entropy', B * 4);
    const d = prepareSampleTokens(gpu, {
      B,
      V,
      R,
      logits: { buffer: lB },
      rows: rowsBuf,
      ids,
      logprob: lp,
      entropy: ent,
      seed: 99,
      temperature,
      topP,
      ...(ban ? { ban } : {}),
    });
    let idMismatches = 0;
    const gotLp: number[] = [];
    const refLp: number[] = [];
    const gotEnt: number[] = [];
    const refEnt: number[] = [];
    const distinct = new Set<number>();
    for (let s = 0; s < draws; s++) {
      const rows = Int32Array.from({ length: B }, (_, b) => (b + s) % R);
      const steps = Int32Array.from({ length: B }, () => s);
      const rs = new Uint32Array(2 * B);
      for (let b = 0; b < B; b++) {
        rs[2 * b] = rows[b];
        rs[2 * b + 1] = steps[b];
      }
      gpu.device.queue.writeBuffer(rowsBuf, 0, rs);
      await run(gpu, 'sample_tokens', () => [d]);
      const gi = new Int32Array((await readF32(gpu.device, ids, B)).buffer);
      const gl = await readF32(gpu.device, lp, B);
      const ge = await readF32(gpu.device, ent, B);
      const ref = sampleTokensRef(logits, V, rows, steps, { seed: 99, temperature, topP, ...(ban ? { ban } : {}) });
      for (let b = 0; b < B; b++) {
        if (gi[b] !== ref.ids[b]) idMismatches++;
        if (ban && gi[b] >= ban.lo && gi[b] < ban.hi) {
          if (gi[b] === ban.allow) allowDraws++;
          else bannedDraws++;
        }
        distinct.add(gi[b]);
        gotLp.push(gl[b]);
        refLp.push(ref.logprob[b]);
        gotEnt.push(ge[b]);
        refEnt.push(ref.entropy[b]);
      }
    }
    return {
      idMismatches,
      distinct: distinct.size,
      bannedDraws,
      allowDraws,
      logprob: allClose(gotLp, refLp, tol[0], tol[1]),
      entropy: allClose(gotEnt, refEnt, tol[0], tol[1]),
    };
  });
}

Object.assign(CHECKS, {
  encoderCheck,
  layernormCheck,
  matmulCheck,
  attentionCheck,
  geluCheck,
  logprobCheck,
  crossentropyCheck,
  kvCacheWriteCheck,
  sampleCheck,
  gatherRowsCheck,
});

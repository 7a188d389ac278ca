// Runs in the page: every backward kernel, AdamW and the global norm against its CPU reference.
// Each check returns allClose reports (small JSON) plus the tolerance it used; inputs sit at
// non-zero element offsets inside buffers pre-filled with a sentinel, so wrong offsets show.
import { createGpu, type Gpu } from '../../src/engine/webgpu/device';
import { checked } from './lib/checked';
import { createStorage, readF32 } from '../../src/engine/webgpu/buffers';
import { allClose, type CloseReport } from './lib/compare';
import { encodePrepared, type PreparedDispatch, type TensorView } from '../../src/engine/webgpu/kernels/dispatch_plan';
import { Rng } from '../../src/util/rng';
import { prepareMatmulBackward } from '../../src/engine/webgpu/kernels/matmul_backward';
import { matmulBackwardRef } from '../../src/reference/matmul_backward.ref';
import { prepareLayernormBackward } from '../../src/engine/webgpu/kernels/layernorm_backward';
import { layernormBackwardRef } from '../../src/reference/layernorm_backward.ref';
import { layernormForwardRef } from '../../src/reference/layernorm_forward.ref';
import { prepareAttentionBackward } from '../../src/engine/webgpu/kernels/attention_backward';
import { attentionBackwardRef } from '../../src/reference/attention_backward.ref';
import { attentionForwardRef } from '../../src/reference/attention_forward.ref';
import { prepareEncoderBackward, TokenBucketBuffers } from '../../src/engine/webgpu/kernels/encoder_backward';
import { encoderBackwardRef } from '../../src/reference/encoder_backward.ref';
import { prepareGeluBackward } from '../../src/engine/webgpu/kernels/gelu_backward';
import { geluBackwardRef } from '../../src/reference/gelu_backward.ref';
import { prepareLogprobBackward } from '../../src/engine/webgpu/kernels/logprob_backward';
import { logprobBackwardRef } from '../../src/reference/logprob_backward.ref';
import { logprobForwardRef } from '../../src/reference/logprob_forward.ref';
import { prepareCrossentropyBackward } from '../../src/engine/webgpu/kernels/crossentropy_backward';
import { crossentropyBackwardRef } from '../../src/reference/crossentropy_backward.ref';
import { crossentropyScale } from '../../src/reference/crossentropy_forward.ref';
import { AdamWUpdate } from '../../src/engine/webgpu/kernels/adamw_update';
import { adamwUpdateRef } from '../../src/reference/adamw_update.ref';
import { prepareGlobalNorm } from '../../src/engine/webgpu/kernels/global_norm_forward';
import { globalNormForwardRef } from '../../src/reference/global_norm_forward.ref';

const SENTINEL = 7777;

let shared: Promise<Gpu> | null = null;
/** One device per page: pipelines compile once (SwiftShader compiles each in ~0.5 s). */
function sharedGpu(): Promise<Gpu> {
  return (shared ??= createGpu());
}

/** Upload `data` at element `offset` of a fresh buffer whose other words hold SENTINEL. */
function put(gpu: Gpu, label: string, data: Float32Array | Int32Array, offset: number, extra = 3): TensorView {
  const n = offset + data.length + extra;
  const buf = createStorage(gpu.device, label, n * 4);
  const host = data instanceof Int32Array ? new Int32Array(n).fill(SENTINEL) : new Float32Array(n).fill(SENTINEL);
  host.set(data as never, offset);
  gpu.device.queue.writeBuffer(buf, 0, host.buffer, 0, host.byteLength);
  return { buffer: buf, offset };
}

async function get(gpu: Gpu, v: TensorView, count: number): Promise<Float32Array> {
  const all = await readF32(gpu.device, v.buffer);
  return all.slice(v.offset ?? 0, (v.offset ?? 0) + count);
}

/** The words of a buffer outside [offset, offset+count) must still be SENTINEL. */
async function untouched(gpu: Gpu, v: TensorView, count: number): Promise<boolean> {
  const all = await readF32(gpu.device, v.buffer);
  const o = v.offset ?? 0;
  for (let i = 0; i < all.length; i++) if ((i < o || i >= o + count) && all[i] !== SENTINEL) return false;
  return true;
}

async function run(gpu: Gpu, what: string, make: () => PreparedDispatch[]): Promise<void> {
  await checked(gpu.device, what, () => {
    const ds = make();
    const enc = gpu.device.createCommandEncoder({ label: what });
    const pass = enc.beginComputePass({ label: what });
    encodePrepared(pass, ds);
    pass.end();
    gpu.device.queue.submit([enc.finish()]);
  });
}

function randn(rng: Rng, n: number, scale = 1): Float32Array {
  return Float32Array.from({ length: n }, () => rng.normal() * scale);
}

type Reports = Record<string, CloseReport & { atol: number; rtol: number }>;
function rep(got: Float32Array, ref: ArrayLike<number>, atol: number, rtol: number) {
  return { ...allClose(got, ref, atol, rtol), atol, rtol };
}

/**
 * matmul_backward vs matmulBackwardRef: dinp written (or accumulated), dweight/dbias accumulated
 * into random prior values. `scale` multiplies dout (large/tiny value cases).
 */
export async function matmulCheck(N: number, K: number, M: number, seed: number, scale: number, bias: boolean, accDinp: boolean) {
  const gpu = await sharedGpu();
  const rng = new Rng(seed);
  const dout = randn(rng, N * M, scale);
  // Fully padded rows: the last row's upstream gradient is zero.
  dout.fill(0, (N - 1) * M, N * M);
  const inp = randn(rng, N * K);
  const weight = randn(rng, M * K, 0.5);
  const dw0 = randn(rng, M * K, 0.1);
  const db0 = randn(rng, M, 0.1);
  const dinp0 = randn(rng, N * K, 0.1);
  // Offsets multiple of 4 keep the vec4 path when M, K allow it.
  const vDout = put(gpu, 'dout', dout, 8);
  const vInp = put(gpu, 'inp', inp, 4);
  const vW = put(gpu, 'weight', weight, 12);
  const vDinp = put(gpu, 'dinp', dinp0, 4);
  // dweight and dbias in one grads buffer, as in the flat layout.
  const gh = new Float32Array(8 + M * K + 4 + M + 4).fill(SENTINEL);
  gh.set(dw0, 8);
  gh.set(db0, 8 + M * K + 4);
  const gbuf = put(gpu, 'grads', gh, 0, 0).buffer;
  const vDw = { buffer: gbuf, offset: 8 };
  const vDb = { buffer: gbuf, offset: 8 + M * K + 4 };
  await run(gpu, 'matmul_backward', () => [
    prepareMatmulBackward(gpu, {
      N,
      K,
      M,
      dout: vDout,
      inp: vInp,
      weight: vW,
      dinp: vDinp,
      dweight: vDw,
      dbias: bias ? vDb : null,
      accumulateDinp: accDinp,
    }),
  ]);
  const ref = matmulBackwardRef(dout, inp, weight, { N, K, M }, { dweight: dw0.slice(), dbias: bias ? db0.slice() : null });
  const refDinp = accDinp ? ref.dinp.map((x, i) => x + dinp0[i]) : ref.dinp;
  const atol = 1e-5 * scale * Math.sqrt(Math.max(N, M)) + 1e-6;
  const rtol = 1e-4;
  const out: Reports = {
    dinp: rep(await get(gpu, vDinp, N * K), refDinp, atol, rtol),
    dweight: rep(await get(gpu, vDw, M * K), ref.dweight, atol, rtol),
    dbias: rep(await get(gpu, vDb, M), bias ? ref.dbias! : db0, atol, rtol),
  };
  const vec4 = M % 4 === 0 && K % 4 === 0;
  const clean = (await untouched(gpu, vDinp, N * K)) && (await untouched(gpu, vDout, N * M));
  return { reports: out, vec4, clean };
}

/** layernorm_backward vs layernormBackwardRef, with a padded row, a huge-value row and a tiny-value row. */
export async function layernormCheck(N: number, C: number, seed: number) {
  const gpu = await sharedGpu();
  const rng = new Rng(seed);
  const inp = randn(rng, N * C);
  for (let c = 0; c < C; c++) {
    inp[C + c] *= 1e3; // large values
    inp[2 * C + c] *= 1e-3; // tiny values (rstd ≈ 1e3)
  }
  const w = randn(rng, C);
  const b = randn(rng, C);
  const { mean, rstd } = layernormForwardRef(inp, w, b, { N, C });
  const dout = randn(rng, N * C);
  dout.fill(0, (N - 1) * C); // fully padded last row
  const dinp0 = randn(rng, N * C, 0.1);
  const dw0 = randn(rng, C, 0.1);
  const db0 = randn(rng, C, 0.1);
  const gh = new Float32Array(4 + 2 * C + 8);
  gh.set(dw0, 4);
  gh.set(db0, 4 + C + 4);
  const g = put(gpu, 'grads', gh, 0, 0);
  const vdinp = put(gpu, 'dinp', dinp0, 4);
  const vdw = { buffer: g.buffer, offset: 4 };
  const vdb = { buffer: g.buffer, offset: 8 + C };
  await run(gpu, 'layernorm_backward', () => [
    prepareLayernormBackward(gpu, {
      N,
      C,
      dout: put(gpu, 'dout', dout, 4),
      inp: put(gpu, 'inp', inp, 8),
      w: put(gpu, 'w', w, 1),
      mean: put(gpu, 'mean', mean, 3),
      rstd: put(gpu, 'rstd', rstd, 2),
      dinp: vdinp,
      dw: vdw,
      db: vdb,
    }),
  ]);
  const ref = layernormBackwardRef(dout, inp, w, mean, rstd, { N, C }, { dinp: dinp0.slice(), dw: dw0.slice(), db: db0.slice() });
  // rstd reaches 1e3 on the tiny row: errors scale with it, hence rtol 1e-4 and atol 1e-4.
  const atol = 1e-4;
  const rtol = 1e-4;
  const out: Reports = {
    dinp: rep(await get(gpu, vdinp, N * C), ref.dinp, atol, rtol),
    dw: rep(await get(gpu, vdw, C), ref.dw, atol, rtol),
    db: rep(await get(gpu, vdb, C), ref.db, atol, rtol),
  };
  return out;
}

/** attention_backward vs attentionBackwardRef; batch row 1 is padded after len = ceil(T/2). */
export async function attentionCheck(B: number, T: number, C: number, NH: number, seed: number, qscale: number, aligned: boolean) {
  const gpu = await sharedGpu();
  const rng = new Rng(seed);
  const qkv = randn(rng, B * T * 3 * C, qscale);
  const { att } = attentionForwardRef(qkv, { B, T, C, NH });
  const dout = randn(rng, B * T * C);
  if (B > 1) dout.fill(0, (1 * T + Math.ceil(T / 2)) * C, 2 * T * C);
  // Aligned offsets (and HS % 4 = 0) select the vec4 entry points; odd offsets the scalar ones.
  const o = aligned ? [4, 8, 12] : [5, 3, 7];
  const vdq = put(gpu, 'dqkv', new Float32Array(B * T * 3 * C), 4);
  await run(gpu, 'attention_backward', () =>
    prepareAttentionBackward(gpu, {
      B,
      T,
      C,
      NH,
      dout: put(gpu, 'dout', dout, o[0]),
      qkv: put(gpu, 'qkv', qkv, o[1]),
      att: put(gpu, 'att', att, o[2]),
      dqkv: vdq,
    }),
  );
  const ref = attentionBackwardRef(dout, qkv, att, { B, T, C, NH });
  const atol = 1e-5 * Math.max(1, qscale);
  const rtol = 1e-4;
  const out: Reports = { dqkv: rep(await get(gpu, vdq, B * T * 3 * C), ref, atol, rtol) };
  return out;
}

/** encoder_backward vs encoderBackwardRef (accumulating into random priors; repeated and absent ids). */
export async function encoderCheck(B: number, T: number, C: number, V: number, maxT: number, seed: number) {
  const gpu = await sharedGpu();
  const rng = new Rng(seed);
  const ids = Int32Array.from({ length: B * T }, () => rng.int(Math.max(1, Math.floor(V / 2)))); // half the vocabulary absent
  const dout = randn(rng, B * T * C);
  const dwte0 = randn(rng, V * C, 0.1);
  const dwpe0 = randn(rng, maxT * C, 0.1);
  const gh = new Float32Array(4 + V * C + maxT * C);
  gh.set(dwte0, 4);
  gh.set(dwpe0, 4 + V * C);
  const g = put(gpu, 'grads', gh, 0);
  const vwte = { buffer: g.buffer, offset: 4 };
  const vwpe = { buffer: g.buffer, offset: 4 + V * C };
  const buckets = new TokenBucketBuffers(gpu, V, B * T);
  buckets.write(ids);
  await run(gpu, 'encoder_backward', () => [
    prepareEncoderBackward(gpu, { B, T, C, V, dout: put(gpu, 'dout', dout, 2), buckets, dwte: vwte, dwpe: vwpe }),
  ]);
  const ref = encoderBackwardRef(dout, ids, { B, T, C, V, maxT }, { dwte: dwte0.slice(), dwpe: dwpe0.slice() });
  const atol = 1e-5;
  const rtol = 1e-5;
  const out: Reports = {
    dwte: rep(await get(gpu, vwte, V * C), ref.dwte, atol, rtol),
    dwpe: rep(await get(gpu, vwpe, maxT * C), ref.dwpe, atol, rtol),
  };
  return out;
}

/** gelu_backward vs geluBackwardRef over normal values plus huge, tiny and zero inputs. */
export async function geluCheck(n: number, seed: number) {
  const gpu = await sharedGpu();
  const rng = new Rng(seed);
  const inp = randn(rng, n, 3);
  const special = [0, -0, 1e-30, -1e-30, 1e5, -1e5, 1e12, -1e12, 3e38, -3e38, 8, -8];
  inp.set(special.slice(0, Math.min(n, special.length)));
  const dout = randn(rng, n);
  const vd = put(gpu, 'dinp', new Float32Array(n), 4);
  await run(gpu, 'gelu_backward', () => [
    prepareGeluBackward(gpu, { n, dout: put(gpu, 'dout', dout, 1), inp: put(gpu, 'inp', inp, 2), dinp: vd }),
  ]);
  const atol = 1e-5;
  const rtol = 1e-4;
  const out: Reports = { dinp: rep(await get(gpu, vd, n), geluBackwardRef(dout, inp), atol, rtol) };
  return out;
}

function logitsCase(rng: Rng, N: number, V: number, big: number) {
  const logits = randn(rng, N * V, 3);
  // Row 0: large logits (|z| ≈ big), row 1: one dominant logit.
  for (let j = 0; j < V; j++) logits[j] = big * (rng.float() * 2 - 1);
  if (N > 1) logits[V + 1] = 50;
  const targets = Int32Array.from({ length: N }, () => rng.int(V));
  return { logits, targets };
}

/** logprob_backward vs logprobBackwardRef at temperature τ (large logits; a padded row with dlogprob = 0), |got − ref| ≤ 1e-6 + rtol·|ref|. */
export async function logprobCheck(N: number, V: number, seed: number, temperature = 1, rtol = 1e-4) {
  const gpu = await sharedGpu();
  const rng = new Rng(seed);
  const { logits, targets } = logitsCase(rng, N, V, 1e4);
  const { lse } = logprobForwardRef(logits, targets, { N, V }, temperature);
  const dlogprob = randn(rng, N);
  dlogprob[N - 1] = 0;
  const vd = put(gpu, 'dlogits', new Float32Array(N * V), 4);
  await run(gpu, 'logprob_backward', () => [
    prepareLogprobBackward(gpu, {
      N,
      V,
      logits: put(gpu, 'logits', logits, 4),
      targets: put(gpu, 'targets', targets, 1),
      lse: put(gpu, 'lse', lse, 2),
      dlogprob: put(gpu, 'dlogprob', dlogprob, 3),
      dlogits: vd,
      temperature,
    }),
  ]);
  const atol = 1e-6;
  const out: Reports = {
    dlogits: rep(await get(gpu, vd, N * V), logprobBackwardRef(logits, targets, lse, dlogprob, { N, V }, temperature), atol, rtol),
  };
  return out;
}

/** crossentropy_backward vs crossentropyBackwardRef (mask with zeros; all-masked batch gives zeros). */
export async function crossentropyCheck(N: number, V: number, seed: number, allMasked: boolean) {
  const gpu = await sharedGpu();
  const rng = new Rng(seed);
  const { logits, targets } = logitsCase(rng, N, V, 1e4);
  const { lse } = logprobForwardRef(logits, targets, { N, V });
  const mask = Float32Array.from({ length: N }, (_, i) => (allMasked || i % 3 === 2 ? 0 : 1));
  const scale = crossentropyScale(mask);
  const vd = put(gpu, 'dlogits', new Float32Array(N * V).fill(-1), 4);
  await run(gpu, 'crossentropy_backward', () => [
    prepareCrossentropyBackward(gpu, {
      N,
      V,
      logits: put(gpu, 'logits', logits, 4),
      targets: put(gpu, 'targets', targets, 1),
      mask: put(gpu, 'mask', mask, 2),
      lse: put(gpu, 'lse', lse, 3),
      scale: put(gpu, 'scale', new Float32Array([scale]), 5),
      dlogits: vd,
    }),
  ]);
  const atol = 1e-7;
  const rtol = 1e-4;
  const out: Reports = {
    dlogits: rep(await get(gpu, vd, N * V), crossentropyBackwardRef(logits, targets, mask, lse, scale, { N, V }), atol, rtol),
  };
  return out;
}

/** Three AdamW steps vs adamwUpdateRef, gradScale read from a GPU word; large and tiny gradients. */
export async function adamwCheck(P: number, seed: number, gradScale: number) {
  const gpu = await sharedGpu();
  const rng = new Rng(seed);
  const params = randn(rng, P);
  const m = new Float32Array(P);
  const v = new Float32Array(P);
  const pbuf = put(gpu, 'params', params, 4);
  const mbuf = createStorage(gpu.device, 'm', P * 4);
  const vbuf = createStorage(gpu.device, 'v', P * 4);
  const sbuf = put(gpu, 'scale', new Float32Array([gradScale]), 1);
  const gv = put(gpu, 'grads', new Float32Array(P), 2);
  const opt = new AdamWUpdate(gpu, { P, params: pbuf, grads: gv, m: mbuf, v: vbuf, gradScale: sbuf });
  const ref = params.slice();
  for (let step = 1; step <= 3; step++) {
    const grads = randn(rng, P);
    grads[0] = 1e4;
    grads[1] = 1e-20;
    grads[2] = 0;
    gpu.device.queue.writeBuffer(gv.buffer, 8, grads.buffer as ArrayBuffer, 0, grads.byteLength);
    const hp = { lr: 1e-2 * step, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.1, step };
    opt.setHyper(hp);
    await run(gpu, 'adamw_update', () => [opt.dispatch]);
    adamwUpdateRef(ref, grads, m, v, { ...hp, gradScale });
  }
  const atol = 1e-6;
  const rtol = 1e-5;
  const out: Reports = {
    params: rep(await get(gpu, pbuf, P), ref, atol, rtol),
    m: rep(await readF32(gpu.device, mbuf, P), m, atol, rtol),
    v: rep(await readF32(gpu.device, vbuf, P), v, atol, rtol),
  };
  return out;
}

/** global_norm_forward vs globalNormForwardRef: norm and the clip multiplier, run twice (bitwise equal). */
export async function globalNormCheck(P: number, seed: number, maxNorm: number | null) {
  const gpu = await sharedGpu();
  const rng = new Rng(seed);
  const grads = randn(rng, P, 1e-2);
  grads[0] = 30;
  grads[P - 1] = 1e-30;
  const vg = put(gpu, 'grads', grads, 4);
  const vout = put(gpu, 'out', new Float32Array(2), 3);
  const words: number[][] = [];
  for (let r = 0; r < 2; r++) {
    await run(gpu, 'global_norm', () => prepareGlobalNorm(gpu, { P, grads: vg, out: vout, maxNorm: maxNorm ?? undefined }));
    words.push(Array.from(new Uint32Array((await readF32(gpu.device, vout.buffer)).buffer)));
  }
  const got = await get(gpu, vout, 2);
  const ref = globalNormForwardRef(grads, maxNorm ?? Infinity);
  const atol = 0;
  const rtol = 1e-5;
  const out: Reports = { normAndScale: rep(got, [ref.norm, ref.gradScale], atol, rtol) };
  return { reports: out, repeatable: JSON.stringify(words[0]) === JSON.stringify(words[1]), norm: got[0], scale: got[1] };
}

/**
 * Shared launcher plumbing of the RL kernels (src/kernels/{ratio,grpo_advantage,gae,
 * adv_normalize,surrogate,value_loss,kl,entropy,rl_metrics}_*.ts, nonfinite_check.ts): the
 * LossParams uniform they share, the view and dimension checks, and one helper that prepares an
 * entry point. Each launcher is `prepare<Op>(gpu, args)` with a typed args object of dims and
 * `TensorView`s, every view checked against the dims (`wholeView`).
 */
import type { Gpu } from '../device';
import { uploadUniform } from '../buffers';
import { bindAll, checkView, grid, type PreparedDispatch, type TensorView } from './dispatch_plan';
import { AGGREGATION_CODE, type LossAggregation, type StepNormalizer } from '../../../reference/rl_math';

/**
 * Prepare entry `entry` of `code` with `bindings` ([binding index, buffer], the uniform
 * included) over ceil(count / WG) workgroups (folded into y past 65535): a PreparedDispatch the
 * training step can encode every step without creating anything. With layout 'auto' each entry
 * point's bind group holds exactly the bindings it uses.
 */
export function prepareEntry(
  gpu: Gpu,
  label: string,
  code: string,
  entry: string,
  WG: number,
  count: number,
  bindings: ReadonlyArray<readonly [number, GPUBuffer]>,
  useWG = true,
): PreparedDispatch {
  const pipeline = gpu.pipelines.get(label, code, entry, useWG ? { WG } : {});
  const bindGroup = bindAll(
    gpu,
    `${label}.${entry}-bind`,
    pipeline,
    bindings.map(([b, buf]) => [b, buf]),
  );
  return { label: `${label}.${entry}`, pipeline, bindGroup, groups: grid(Math.ceil(count / WG)), flops: 0, bytes: 0 };
}

/** Prepared dispatches of a loss kernel and its LossParams uniform (rewritable per step). */
export interface LossPrepared {
  dispatches: PreparedDispatch[];
  /** The LossParams uniform; `writeNormalizer` updates its step-global counts in place. */
  uniform: GPUBuffer;
}

/** Byte offset of n_tokens, n_seqs, token_sum_norm in LossParams. */
const NORM_BYTE_OFFSET = 48;

/**
 * Rewrite the step-global normalizer of prepared LossParams uniforms (queue write, ordered
 * before the next submit), so a step prepared once can serve batches with other token counts.
 */
export function writeNormalizer(gpu: Gpu, uniforms: readonly GPUBuffer[], norm: StepNormalizer): void {
  const data = new Float32Array([norm.globalTokens, norm.globalSeqs, norm.tokenSumNorm]);
  for (const u of uniforms) gpu.device.queue.writeBuffer(u, NORM_BYTE_OFFSET, data);
}

/** A labelled 16-byte-padded uniform from u32 and f32 fields, packed in order (4 bytes each). */
export function packUniform(gpu: Gpu, label: string, fields: ReadonlyArray<{ u32: number } | { f32: number }>): GPUBuffer {
  const n = Math.max(4, Math.ceil(fields.length / 4) * 4);
  const buf = new ArrayBuffer(n * 4);
  const u = new Uint32Array(buf);
  const f = new Float32Array(buf);
  fields.forEach((x, i) => {
    if ('u32' in x) u[i] = x.u32;
    else f[i] = x.f32;
  });
  return uploadUniform(gpu.device, label, buf);
}

/** Fields of the LossParams uniform shared by the RL loss shaders (see their shared block). */
interface LossParamsInput {
  B: number;
  T: number;
  /** Vocabulary (entropy kernels only). */
  V?: number;
  aggregation: LossAggregation;
  norm: StepNormalizer;
  /** Dual clip on (surrogate), estimator code (kl), value clip on (value loss). */
  opt?: number;
  clipLow?: number;
  clipHigh?: number;
  dualClip?: number;
  /** Term coefficient (klCoef, vfCoef, entCoef). */
  coef?: number;
  vfClip?: number;
  /** Softmax temperature τ of the entropy kernels (slot `temperature`; 1 when absent). */
  temperature?: number;
}

/** The LossParams uniform buffer (64 bytes). */
export function lossParams(gpu: Gpu, label: string, p: LossParamsInput): GPUBuffer {
  return packUniform(gpu, `${label}-params`, [
    { u32: p.B },
    { u32: p.T },
    { u32: p.V ?? 0 },
    { u32: AGGREGATION_CODE[p.aggregation] },
    { u32: p.opt ?? 0 },
    { f32: p.temperature ?? 1 },
    { u32: 0 },
    { u32: 0 },
    { f32: p.clipLow ?? 0 },
    { f32: p.clipHigh ?? 0 },
    { f32: p.dualClip ?? 0 },
    { f32: p.coef ?? 0 },
    { f32: p.norm.globalTokens },
    { f32: p.norm.globalSeqs },
    { f32: p.norm.tokenSumNorm },
    { f32: p.vfClip ?? 0 },
  ]);
}

/** @throws Error unless every dimension in `dims` is a positive integer (names the launcher and field). */
export function checkDims(op: string, dims: Readonly<Record<string, number>>): void {
  for (const [k, v] of Object.entries(dims)) {
    if (!Number.isInteger(v) || v <= 0) throw new Error(`${op}: ${k} must be a positive integer, got ${v}`);
  }
}

/** @throws Error unless B and T are positive integers (names the launcher and field). */
export function checkRowDims(op: string, B: number, T: number): void {
  checkDims(op, { B, T });
}

/**
 * The buffer of tensor `name` after checking its view: offset 0 (the RL shaders bind whole buffers
 * and read no offsets) and room for `count` f32 elements.
 * @throws Error naming the launcher, the tensor and the sizes.
 */
export function wholeView(op: string, name: string, v: TensorView, count: number): GPUBuffer {
  if ((v.offset ?? 0) !== 0) throw new Error(`${op}: ${name}.offset must be 0 (the RL kernels bind whole buffers), got ${v.offset}`);
  checkView(op, name, v, count);
  return v.buffer;
}

/** A tensor argument of an RL loss shader: name (for errors), view, element count. */
export type LossTensor = readonly [name: string, view: TensorView, count: number];

/**
 * The LossParams uniform of an RL loss kernel over (B,T) rows, after checking B and T.
 * @throws Error naming the launcher and a bad dimension.
 */
export function lossUniform(gpu: Gpu, op: string, p: LossParamsInput): GPUBuffer {
  checkRowDims(op, p.B, p.T);
  return lossParams(gpu, op, p);
}

/**
 * Prepare entry `entry` of an RL loss shader bound as 0 = `params`, then `tensors` at bindings
 * 1, 2, … in order, each checked by `wholeView`, over ceil(count / WG) workgroups.
 */
export function prepareLossEntry(
  gpu: Gpu,
  op: string,
  code: string,
  entry: string,
  WG: number,
  count: number,
  params: GPUBuffer,
  tensors: readonly LossTensor[],
): PreparedDispatch {
  const bindings = tensors.map(([name, v, n], i) => [i + 1, wholeView(op, name, v, n)] as const);
  return prepareEntry(gpu, op, code, entry, WG, count, [[0, params], ...bindings]);
}

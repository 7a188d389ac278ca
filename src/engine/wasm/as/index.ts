// The engine's single entry point: `run(task, tid, nth)` executes thread tid's share of the
// task described at `task` (i32 words: op code, then arguments; pointers are byte offsets into
// the shared memory, f32 arguments are passed as their bit patterns). The calling thread and
// every pool worker call it with the same task. Op codes are exported as globals so the
// TypeScript launchers (src/engine/wasm/wasm_kernels.ts) read them from the module: one source of truth.
import { gemmTask, transposeTask, biasGradTask, packArea, PACK_AREA_BYTES } from './matmul';
import { layernormForwardTask, layernormBackwardDinpTask, layernormBackwardDwDbTask } from './layernorm';
import { geluForwardTask, geluBackwardTask, addTask, gatherRowsTask, scatterAddRowsTask, encoderForwardTask, encoderBackwardTask } from './elementwise';
import { attentionForwardTask, attentionBackwardTask } from './attention';
import { decodeStepTask, DECODE_HEAD_WORDS, DECODE_LAYER_WORDS } from './decode';
import { sampleTokensTask } from './sample';
import { logprobForwardTask, logprobBackwardTask, sumsqTask, adamwTask, SUMSQ_CHUNK } from './heads';

export const OP_GEMM: i32 = 1;
export const OP_TRANSPOSE: i32 = 2;
export const OP_BIAS_GRAD: i32 = 3;
export const OP_LAYERNORM_FORWARD: i32 = 4;
export const OP_LAYERNORM_BACKWARD_DINP: i32 = 5;
export const OP_LAYERNORM_BACKWARD_DWDB: i32 = 6;
export const OP_GELU_FORWARD: i32 = 7;
export const OP_GELU_BACKWARD: i32 = 8;
export const OP_ADD: i32 = 9;
export const OP_GATHER_ROWS: i32 = 10;
export const OP_SCATTER_ADD_ROWS: i32 = 11;
export const OP_ENCODER_FORWARD: i32 = 12;
export const OP_ENCODER_BACKWARD: i32 = 13;
export const OP_ATTENTION_FORWARD: i32 = 14;
export const OP_ATTENTION_BACKWARD: i32 = 15;
export const OP_LOGPROB_FORWARD: i32 = 17;
export const OP_LOGPROB_BACKWARD: i32 = 18;
export const OP_SUMSQ: i32 = 19;
export const OP_ADAMW: i32 = 20;
export const OP_DECODE_STEP: i32 = 21;
export const OP_SAMPLE_TOKENS: i32 = 22;
export const SUMSQ_CHUNK_SIZE: i32 = SUMSQ_CHUNK;
export const DECODE_TABLE_HEAD: i32 = DECODE_HEAD_WORDS;
export const DECODE_TABLE_LAYER: i32 = DECODE_LAYER_WORDS;

// @ts-ignore: decorator
@inline
function a(task: usize, i: i32): i32 {
  return load<i32>(task + (<usize>i << 2));
}
// @ts-ignore: decorator
@inline
function f(task: usize, i: i32): f32 {
  return reinterpret<f32>(load<i32>(task + (<usize>i << 2)));
}

/** Where JS may start allocating (after this module's static data and the GEMM's packing panels). */
export function heapBase(): usize {
  return packArea() + PACK_AREA_BYTES;
}

export function run(t: usize, tid: i32, nth: i32): void {
  const op = a(t, 0);
  switch (op) {
    case OP_GEMM: gemmTask(a(t, 1), a(t, 2), a(t, 3), a(t, 4), a(t, 5), a(t, 6), a(t, 7), a(t, 8), a(t, 9), a(t, 10), a(t, 11), a(t, 12), tid, nth); break;
    case OP_TRANSPOSE: transposeTask(a(t, 1), a(t, 2), a(t, 3), a(t, 4), tid, nth); break;
    case OP_BIAS_GRAD: biasGradTask(a(t, 1), a(t, 2), a(t, 3), a(t, 4), tid, nth); break;
    case OP_LAYERNORM_FORWARD: layernormForwardTask(a(t, 1), a(t, 2), a(t, 3), a(t, 4), a(t, 5), a(t, 6), a(t, 7), a(t, 8), tid, nth); break;
    case OP_LAYERNORM_BACKWARD_DINP: layernormBackwardDinpTask(a(t, 1), a(t, 2), a(t, 3), a(t, 4), a(t, 5), a(t, 6), a(t, 7), a(t, 8), tid, nth); break;
    case OP_LAYERNORM_BACKWARD_DWDB: layernormBackwardDwDbTask(a(t, 1), a(t, 2), a(t, 3), a(t, 4), a(t, 5), a(t, 6), a(t, 7), a(t, 8), tid, nth); break;
    case OP_GELU_FORWARD: geluForwardTask(a(t, 1), a(t, 2), a(t, 3), tid, nth); break;
    case OP_GELU_BACKWARD: geluBackwardTask(a(t, 1), a(t, 2), a(t, 3), a(t, 4), tid, nth); break;
    case OP_ADD: addTask(a(t, 1), a(t, 2), a(t, 3), a(t, 4), tid, nth); break;
    case OP_GATHER_ROWS: gatherRowsTask(a(t, 1), a(t, 2), a(t, 3), a(t, 4), a(t, 5), tid, nth); break;
    case OP_SCATTER_ADD_ROWS: scatterAddRowsTask(a(t, 1), a(t, 2), a(t, 3), a(t, 4), a(t, 5), tid, nth); break;
    case OP_ENCODER_FORWARD: encoderForwardTask(a(t, 1), a(t, 2), a(t, 3), a(t, 4), a(t, 5), a(t, 6), a(t, 7), tid, nth); break;
    case OP_ENCODER_BACKWARD: encoderBackwardTask(a(t, 1), a(t, 2), a(t, 3), a(t, 4), a(t, 5), a(t, 6), a(t, 7), tid, nth); break;
    case OP_ATTENTION_FORWARD: attentionForwardTask(a(t, 1), a(t, 2), a(t, 3), a(t, 4), a(t, 5), a(t, 6), a(t, 7), a(t, 8), a(t, 9), tid, nth); break;
    case OP_ATTENTION_BACKWARD: attentionBackwardTask(a(t, 1), a(t, 2), a(t, 3), a(t, 4), a(t, 5), a(t, 6), a(t, 7), a(t, 8), a(t, 9), a(t, 10), tid, nth); break;
    case OP_LOGPROB_FORWARD: logprobForwardTask(a(t, 1), a(t, 2), a(t, 3), a(t, 4), a(t, 5), a(t, 6), f(t, 7), tid, nth); break;
    case OP_LOGPROB_BACKWARD: logprobBackwardTask(a(t, 1), a(t, 2), a(t, 3), a(t, 4), a(t, 5), a(t, 6), a(t, 7), f(t, 8), tid, nth); break;
    case OP_SUMSQ: sumsqTask(a(t, 1), a(t, 2), a(t, 3), tid, nth); break;
    case OP_ADAMW: adamwTask(a(t, 1), a(t, 2), a(t, 3), a(t, 4), a(t, 5), a(t, 6), f(t, 7), f(t, 8), f(t, 9), f(t, 10), f(t, 11), f(t, 12), f(t, 13), tid, nth); break;
    case OP_DECODE_STEP: decodeStepTask(a(t, 1), tid, nth); break;
    case OP_SAMPLE_TOKENS: sampleTokensTask(a(t, 1), a(t, 2), a(t, 3), a(t, 4), a(t, 5), a(t, 6), a(t, 7), a(t, 8), f(t, 9), f(t, 10), a(t, 11), a(t, 12), a(t, 13), tid, nth); break;
    default: unreachable();
  }
}

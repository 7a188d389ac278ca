/**
 * Launcher of shaders/kl_forward.wgsl. CPU reference: kl_forward.ref.ts.
 */
import common from '../../shaders/rl_loss_common.wgsl?raw';
import body from '../../shaders/kl_forward.wgsl?raw';

const code = common + body;
import type { Gpu } from '../gpu/device';
import type { TensorView } from './dispatch_plan';
import { KL_ESTIMATOR_CODE } from './rl_math';
import { checkRowDims, lossParams, prepareEntry, wholeView, type LossPrepared } from './rl_launch';
import { ROW_STATS } from './rl_metrics';
import type { KlParams } from './kl_forward.ref';

/** Inputs of the KL kernels: (B,T) f32 each. */
export interface KlInputs {
  B: number;
  T: number;
  logprobs: TensorView;
  refLogprobs: TensorView;
  mask: TensorView;
  p: KlParams;
}

export interface KlForwardArgs extends KlInputs {
  /** (B, ROW_STATS) f32: columns KL_SUM and KL_LOSS written. */
  rowStats: TensorView;
}

/** @internal The LossParams of the KL kernels (coef = klCoef), after checking the dimensions and inputs. */
export function klSetup(op: string, gpu: Gpu, a: KlInputs, coef = 0): { params: GPUBuffer; inputs: GPUBuffer[] } {
  checkRowDims(op, a.B, a.T);
  const n = a.B * a.T;
  const inputs = (['logprobs', 'refLogprobs', 'mask'] as const).map((k) => wholeView(op, k, a[k], n));
  const params = lossParams(gpu, op, { B: a.B, T: a.T, aggregation: a.p.aggregation, norm: a.p.norm, opt: KL_ESTIMATOR_CODE[a.p.estimator], coef });
  return { params, inputs };
}

/**
 * Prepare the KL-to-reference rowStats columns. One invocation per row.
 * @throws Error naming a bad dimension or a view outside its buffer.
 */
export function prepareKlForward(gpu: Gpu, a: KlForwardArgs): LossPrepared {
  const op = 'kl_forward';
  const { params, inputs } = klSetup(op, gpu, a);
  const rowStats = wholeView(op, 'rowStats', a.rowStats, a.B * ROW_STATS);
  const d = prepareEntry(gpu, op, code, 'main', 64, a.B, [[0, params], ...inputs.map((b, i) => [i + 1, b] as const), [4, rowStats]]);
  return { dispatches: [d], uniform: params };
}

/**
 * Launcher of shaders/value_loss_forward.wgsl. CPU reference: value_loss_forward.ref.ts.
 */
import common from '../../shaders/rl_loss_common.wgsl?raw';
import body from '../../shaders/value_loss_forward.wgsl?raw';

const code = common + body;
import type { Gpu } from '../gpu/device';
import type { TensorView } from './dispatch_plan';
import { checkRowDims, lossParams, prepareEntry, wholeView, type LossPrepared } from './rl_launch';
import { ROW_STATS } from './rl_metrics';
import type { ValueLossParams } from './value_loss_forward.ref';

/** Inputs of the value-loss kernels: (B,T) f32 each. */
export interface ValueLossInputs {
  B: number;
  T: number;
  values: TensorView;
  oldValues: TensorView;
  returns: TensorView;
  mask: TensorView;
  p: ValueLossParams;
}

export interface ValueLossForwardArgs extends ValueLossInputs {
  /** (B, ROW_STATS) f32: columns VF_LOSS … RES_M2 written. */
  rowStats: TensorView;
}

/** @internal The LossParams of the value-loss kernels (coef = vfCoef), after checking the dimensions and inputs. */
export function valueLossSetup(op: string, gpu: Gpu, a: ValueLossInputs, coef = 0): { params: GPUBuffer; inputs: GPUBuffer[] } {
  checkRowDims(op, a.B, a.T);
  const n = a.B * a.T;
  const inputs = (['values', 'oldValues', 'returns', 'mask'] as const).map((k) => wholeView(op, k, a[k], n));
  const { p } = a;
  const params = lossParams(gpu, op, { B: a.B, T: a.T, aggregation: p.aggregation, norm: p.norm, opt: p.vfClip !== null ? 1 : 0, vfClip: p.vfClip ?? 0, coef });
  return { params, inputs };
}

/**
 * Prepare the value-loss rowStats columns. One invocation per row.
 * @throws Error naming a bad dimension or a view outside its buffer.
 */
export function prepareValueLossForward(gpu: Gpu, a: ValueLossForwardArgs): LossPrepared {
  const op = 'value_loss_forward';
  const { params, inputs } = valueLossSetup(op, gpu, a);
  const rowStats = wholeView(op, 'rowStats', a.rowStats, a.B * ROW_STATS);
  const d = prepareEntry(gpu, op, code, 'main', 64, a.B, [[0, params], ...inputs.map((b, i) => [i + 1, b] as const), [5, rowStats]]);
  return { dispatches: [d], uniform: params };
}

/**
 * SFT on the CPU engine (`hlab pretrain --backend wasm`): the masked next-token cross-entropy
 * of src/pretrain/sft.ts (token mean over action tokens, weights from the row mask) with the
 * LM head only at the scored positions, then global-norm clipping and AdamW (β = 0.9, 0.95,
 * ε = 1e-8, the rule of refSftTrainer and the WGSL step).
 */
import { ADAMW_MOMENTS } from '../../model/optimizer';
import type { ModelConfig } from '../../model/config';
import { sftTargets } from '../../model/cpu_model';
import type { RowBatch } from '../../episode/rows';
import type { SftHyper, SftTrainer } from '../engine_api';
import type { Arr, WasmEngine } from './wasm_runtime';
import { logprobBackward, logprobForward } from './wasm_kernels';
import { WasmModel } from './wasm_model';

/** Positions that count (mask > 0) as flat indices, their targets and weights. */
function scoredPositions(targets: Int32Array, mask: Float32Array): { pos: Int32Array; tgt: Int32Array; w: Float32Array } {
  const pos: number[] = [];
  for (let i = 0; i < mask.length; i++) if (mask[i] > 0) pos.push(i);
  return { pos: Int32Array.from(pos), tgt: Int32Array.from(pos, (i) => targets[i]), w: Float32Array.from(pos, (i) => mask[i]) };
}

/**
 * Forward to the batch's scored (action) positions and their log-probs: Σ w·(−log p) and Σ w,
 * plus what the backward pass needs (engine scratch, valid until `model.endStep()`).
 */
function scoredForward(model: WasmModel, batch: RowBatch) {
  const V = model.cfg.vocabSize;
  const { targets, mask } = sftTargets(batch.ids, batch.lengths, { B: batch.B, T: batch.T }, batch.mask);
  const { pos, tgt, w } = scoredPositions(targets, mask);
  const S = pos.length;
  const f = model.forward(batch.ids, batch.lengths, batch.B, batch.T, pos, false);
  let nll = 0;
  let tokens = 0;
  let heads: { tg: Arr; lse: Arr } | null = null;
  if (S > 0) {
    const tg = model.scratch(S, 'targets');
    tg.i32().set(tgt);
    const lse = model.scratch(S, 'lse');
    const logp = model.scratch(S, 'logp');
    logprobForward(model.engine, f.logits, tg, lse, logp, { S, V });
    const lp = logp.f32();
    for (let s = 0; s < S; s++) {
      nll -= w[s] * lp[s];
      tokens += w[s];
    }
    heads = { tg, lse };
  }
  return { f, S, V, w, nll, tokens, heads };
}

/**
 * Loss and gradients of one SFT batch into model.grads (no optimizer step).
 * @returns token-mean loss (nats) over the action tokens and their count (Σ mask)
 */
export function sftLossAndGrads(model: WasmModel, batch: RowBatch): { loss: number; tokens: number } {
  const { f, S, V, w, nll, tokens, heads } = scoredForward(model, batch);
  const dl = model.scratch(Math.max(1, S) * V, 'dlogits', 'none');
  const loss = heads ? nll / tokens : 0;
  if (heads) {
    const coef = model.scratch(S, 'coef');
    coef.f32().set(w.map((x) => x / tokens));
    logprobBackward(model.engine, f.logits, heads.tg, heads.lse, coef, dl, { S, V });
  }
  model.backward(f, dl, null);
  model.endStep();
  return { loss, tokens };
}

/**
 * Forward only: Σ mask·(−log p) of the batch's action tokens and Σ mask (held-out loss,
 * src/pretrain/heldout.ts). Parameters and gradients are untouched.
 */
export function sftBatchNll(model: WasmModel, batch: RowBatch): { nll: number; tokens: number } {
  const { nll, tokens } = scoredForward(model, batch);
  model.endStep();
  return { nll, tokens };
}

/**
 * The CPU engine's SFT trainer (`CpuEngine.createSftTrainer`).
 * @throws Error (from step) when the gradient norm is not finite: nothing is applied then.
 */
export function cpuSftTrainer(engine: WasmEngine, cfg: ModelConfig, init: Float32Array, hp: SftHyper): SftTrainer & { model: WasmModel } {
  const model = WasmModel.create(engine, cfg, { decayAll: hp.decayAll });
  model.writeParams(init);
  return {
    name: `wasm (${engine.threads} thread${engine.threads === 1 ? '' : 's'})`,
    model,
    async step(batch, lr, step) {
      const { loss, tokens } = sftLossAndGrads(model, batch);
      const r = model.optimizerStep({ lr, ...ADAMW_MOMENTS, weightDecay: hp.weightDecay, maxNorm: hp.maxNorm, step });
      if (!r.applied) throw new Error(`wasm SFT: gradient norm is ${r.norm}; step ${step} skipped, parameters unchanged`);
      return { loss, gradNorm: r.norm, tokens };
    },
    params: async () => model.readParams(),
  };
}

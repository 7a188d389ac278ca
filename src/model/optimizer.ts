/**
 * The optimizer every trainer uses (GPU, CPU reference, CPU engine; SFT and RL): AdamW with bias
 * correction and global-norm clipping (docs/ARCHITECTURE.md, RL objective). β1, β2 and ε are one
 * constant here; the learning rate, weight decay and clip threshold come from the run.
 */
import type { AdamWParams } from '../reference/adamw_update.ref';

/** Hyper-parameters of one optimizer step (AdamW + global-norm clipping). */
export type OptimizerStep = Omit<AdamWParams, 'gradScale'> & {
  /** Global-norm clipping threshold (Infinity = off). */
  maxNorm: number;
};

/** AdamW's moment decays and ε, the same in every trainer (nanoGPT-like, for small transformers). */
export const ADAMW_MOMENTS: Readonly<Pick<AdamWParams, 'beta1' | 'beta2' | 'eps'>> = Object.freeze({ beta1: 0.9, beta2: 0.95, eps: 1e-8 });

/** Defaults of a trainer whose caller names no learning rate, weight decay or clip threshold. */
export const DEFAULT_OPTIMIZER: Readonly<Omit<OptimizerStep, 'step'>> = Object.freeze({
  lr: 3e-4,
  ...ADAMW_MOMENTS,
  weightDecay: 0.01,
  maxNorm: 1,
});

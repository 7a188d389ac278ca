/**
 * The RL objective of Harness Lab (DESIGN.md §9): configuration, CPU references, GPU loss head.
 *
 * - Config: `RlLossConfig`, `rlLossConfig(overrides)` (validated, defaults = GRPO with DAPO
 *   clip-higher 0.2/0.28, token-mean).
 * - Advantages: GRPO groups (`grpoAdvantageForwardRef`, GPU `encodeGrpoAdvantages`), GAE over
 *   policy tokens (`gaeForwardRef`, GPU `encodePpoAdvantages`), masked whitening.
 * - Loss: `rlLossRef` / `rlStepRef` (CPU, the specification) and `encodeRlLossHead`,
 *   `encodeRlEntropyBackward`, `encodeRlStepBegin/End`, `readRlMetrics` (GPU).
 * - Metrics: `RL_METRIC_NAMES`, `decodeRlMetrics`, non-finite bits `NONFINITE`.
 *
 * Sources: PPO (Schulman et al. 2017), GAE (Schulman et al. 2016), GRPO (Shao et al. 2024),
 * Dr. GRPO (Liu et al. 2025), DAPO (Yu et al. 2025), k3 (Schulman, "Approximating KL
 * Divergence", 2020), verl `core_algos.py` (`agg_loss`, `compute_policy_loss`, `kl_penalty`).
 */
export {
  AGGREGATION_CODE,
  DEFAULT_RL_LOSS_CONFIG,
  KL_ESTIMATOR_CODE,
  rlLossConfig,
  validateRlLossConfig,
  type KlEstimator,
  type LossAggregation,
  type RlLossConfig,
} from './config';
export {
  ClipState,
  LOG_RATIO_CLAMP,
  clampLogRatio,
  k3,
  klEstimate,
  ratio,
  rowWeight,
  stepNormalizer,
  surrogateToken,
  valueLossToken,
  type ClipParams,
  type StepNormalizer,
} from './math';
export {
  F32_MAX,
  METRIC,
  NONFINITE,
  RL_METRICS,
  RL_METRIC_NAMES,
  ROW,
  ROW_STATS,
  decodeRlMetrics,
  nonfiniteSources,
  type NonfiniteSource,
  type RlMetricName,
  type RlMetrics,
} from './metrics';
export { rlLossRef, rlStepRef, stepNormalizerOf, type RlBatch, type RlLossOutput } from './loss_ref';
export {
  copyGradNormToMetrics,
  createRlStepState,
  encodeGrpoAdvantages,
  encodePpoAdvantages,
  encodeRlEntropyBackward,
  encodeRlLossHead,
  prepareRlLossHead,
  type PreparedRlLossHead,
  encodeRlStepBegin,
  encodeRlStepEnd,
  readRlMetrics,
  type RlLossBuffers,
  type RlStepState,
} from './gpu_loss';
export { grpoAdvantageForwardRef, type GrpoParams } from '../kernels/grpo_advantage_forward.ref';
export { gaeForwardRef } from '../kernels/gae_forward.ref';
export { advNormalizeForwardRef } from '../kernels/adv_normalize_forward.ref';
export { ratioForwardRef, type RowDims } from '../kernels/ratio_forward.ref';
export { writeNormalizer, type LossPrepared } from './gpu_util';

/**
 * The metrics of one RL update, summed over its optimizer steps and averaged at the end: the one
 * bookkeeping both engines' trainers share (src/engine/webgpu/gpu_rl_trainer.ts on WebGPU, src/engine/wasm/wasm_rl_trainer.ts
 * on the CPU engine). Engine-free.
 */
import type { RlUpdateMetrics } from './update';

/** What one applied optimizer step measured (clipFrac = low + high clipped fraction). */
export interface StepMetrics {
  policyLoss: number;
  valueLoss: number;
  clipFrac: number;
  approxKl: number;
  klRef: number;
  gradNorm: number;
}

/** Sums of an update's optimizer steps; `metrics()` averages them over the applied steps. */
export class UpdateMetricsAccumulator {
  private readonly sum: StepMetrics = { policyLoss: 0, valueLoss: 0, clipFrac: 0, approxKl: 0, klRef: 0, gradNorm: 0 };
  private applied = 0;
  private attempted = 0;
  private skipped = 0;
  private readonly entSum: number;
  private readonly tokens: number;

  /**
   * @param rows the update's rows: (B,T) f32 mask and old log-probs; the entropy estimate is the
   *   mean −log π_old over valid tokens (τ = 1 samples).
   */
  constructor(private readonly rows: { B: number; T: number; mask: Float32Array; oldLogprobs: Float32Array }) {
    let entSum = 0;
    let tokens = 0;
    for (let i = 0; i < rows.B * rows.T; i++) if (rows.mask[i] > 0) (entSum -= rows.oldLogprobs[i]), tokens++;
    this.entSum = entSum;
    this.tokens = tokens;
  }

  /** Record one optimizer step: its metrics when applied, null when skipped (non-finite). */
  add(m: StepMetrics | null): void {
    this.attempted++;
    if (!m) {
      this.skipped++;
      return;
    }
    this.applied++;
    for (const k of Object.keys(this.sum) as Array<keyof StepMetrics>) this.sum[k] += m[k];
  }

  /** Means over the applied steps (0 when none was applied), counts, and the wall time since t0 (ms, performance.now()). */
  metrics(t0: number): RlUpdateMetrics {
    const k = Math.max(1, this.applied);
    const s = this.sum;
    return {
      policyLoss: s.policyLoss / k,
      valueLoss: s.valueLoss / k,
      clipFrac: s.clipFrac / k,
      approxKl: s.approxKl / k,
      klRef: s.klRef / k,
      entropy: this.tokens > 0 ? this.entSum / this.tokens : 0,
      gradNorm: s.gradNorm / k,
      optimizerSteps: this.attempted,
      skippedSteps: this.skipped,
      rows: this.rows.B,
      tokens: this.tokens,
      droppedGroups: 0,
      ms: performance.now() - t0,
    };
  }
}

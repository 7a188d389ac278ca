/**
 * Transformer configuration and presets (docs/ARCHITECTURE.md "Two engines for the policy", docs/KERNELS.md "Model").
 *
 * Decoder-only, pre-LayerNorm GPT-2 style: learned positions, causal multi-head attention,
 * GELU MLP of width 4C, tied embeddings, scalar value head.
 */

export interface ModelConfig {
  /** Vocabulary size V (the tokenizer's, ≤ 1024 for the shipped tokenizer). */
  vocabSize: number;
  /** Maximum sequence length (rows of the position table). */
  maxT: number;
  /** Channels (model width). */
  C: number;
  /** Transformer blocks. */
  L: number;
  /** Attention heads; head size HS = C/NH. */
  NH: number;
}

export type PresetName = 'tiny' | 'mini' | 'small' | 'base';
export const PRESET_NAMES: readonly PresetName[] = ['tiny', 'mini', 'small', 'base'];

const PRESETS: Record<PresetName, Omit<ModelConfig, 'vocabSize'>> = {
  /**
   * Tests: ~78k parameters at V = 1024. maxT 512: the context cut never drops the opening
   * and the training harnesses' openings take up to ~340 tokens (tokenizer v2).
   */
  tiny: { C: 32, L: 2, NH: 2, maxT: 512 },
  /**
   * CPU machines (the `quick` preset): ≈ 0.2M parameters at V = 1024. maxT 512 because the
   * training harnesses' opening prompts alone take 230–300 tokens (docs/PRETRAIN.md); C and L
   * as small as still copies arguments (2 layers: induction heads).
   */
  mini: { C: 64, L: 2, NH: 2, maxT: 512 },
  /** Default: ≈ 1.0M parameters at V = 1024. */
  small: { C: 128, L: 4, NH: 4, maxT: 512 },
  /** Real GPUs: ≈ 5.1M parameters at V = 1024. */
  base: { C: 256, L: 6, NH: 8, maxT: 512 },
};

/**
 * The preset `name` with the tokenizer's vocabulary size.
 * @throws Error naming `name` or `vocabSize` when invalid.
 */
export function presetConfig(name: PresetName, vocabSize: number): ModelConfig {
  if (!(PRESET_NAMES as readonly string[]).includes(name)) {
    throw new Error(`presetConfig: name must be one of ${PRESET_NAMES.join(', ')}, got '${name}'`);
  }
  return validateConfig({ vocabSize, ...PRESETS[name] });
}

/** Largest row count per forward such that the (B, maxT, V) f32 logits stay well inside a 128 MiB binding (at most 64). */
export function maxRows(cfg: Pick<ModelConfig, 'maxT' | 'vocabSize'>): number {
  return Math.max(1, Math.min(64, Math.floor((96 << 20) / (cfg.maxT * cfg.vocabSize * 4))));
}

/**
 * Checks a config and returns it unchanged.
 * @throws Error naming the first bad field: every field a positive integer, C divisible by NH.
 */
export function validateConfig(cfg: ModelConfig): ModelConfig {
  for (const k of ['vocabSize', 'maxT', 'C', 'L', 'NH'] as const) {
    const v = cfg[k];
    if (!Number.isInteger(v) || v <= 0) throw new Error(`ModelConfig.${k} must be a positive integer, got ${v}`);
  }
  if (cfg.C % cfg.NH !== 0) throw new Error(`ModelConfig.C = ${cfg.C} must be divisible by NH = ${cfg.NH}`);
  return cfg;
}

/**
 * The pretraining harness mix a base checkpoint records (issue 23): which harness
 * configurations its demonstrations were rendered under, read from the checkpoint header's
 * metadata (src/pretrain/checkpoint.ts `header.metadata`):
 *   pretrainMix: string             the mix spec as given ("base:0.2,one-factor:0.4,random:60:0.4")
 *   pretrainMixHarnesses: string[]  every harness id the demonstrations were rendered under
 *   pretrainMixWeights: number[]    each one's share of the demonstrations, same order
 * Older checkpoints (the shipped public/base-mini.ckpt) record none: an empty mix, "no mix recorded".
 * In-space evaluation sets leave the mix out (plan.ts `inSpaceEvalSet`, evaluate_report.ts).
 */
import type { CheckpointMetadata } from '../pretrain/checkpoint';

export interface PretrainMix {
  /** The mix spec as given; null when the checkpoint records no mix. */
  spec: string | null;
  /** Harness ids, each once. */
  harnesses: string[];
  /** Share of demonstrations per harness, same order. */
  weights: number[];
}

/** The mix of a checkpoint that records none. */
export const NO_MIX: PretrainMix = Object.freeze({ spec: null, harnesses: [], weights: [] }) as PretrainMix;

/**
 * The mix recorded in `metadata` (NO_MIX when `pretrainMix` is absent).
 * @throws Error naming the field and value when a recorded mix is malformed: pretrainMix not a
 *   string, harnesses not an array of strings, weights not finite numbers ≥ 0, or lengths that differ.
 */
export function pretrainMixOf(metadata: CheckpointMetadata): PretrainMix {
  const spec = metadata.pretrainMix;
  if (spec === undefined || spec === null) return NO_MIX;
  const show = (v: unknown) => JSON.stringify(v)?.slice(0, 80);
  if (typeof spec !== 'string') throw new Error(`checkpoint metadata.pretrainMix: expected a string, got ${show(spec)}`);
  const hs = metadata.pretrainMixHarnesses;
  const ws = metadata.pretrainMixWeights;
  if (!Array.isArray(hs) || !hs.every((h) => typeof h === 'string')) throw new Error(`checkpoint metadata.pretrainMixHarnesses: expected an array of harness ids, got ${show(hs)}`);
  if (!Array.isArray(ws) || !ws.every((w) => typeof w === 'number' && Number.isFinite(w) && w >= 0))
    throw new Error(`checkpoint metadata.pretrainMixWeights: expected an array of numbers ≥ 0, got ${show(ws)}`);
  if (hs.length !== ws.length) throw new Error(`checkpoint metadata.pretrainMixWeights: ${ws.length} weights for ${hs.length} pretrainMixHarnesses`);
  return { spec, harnesses: hs as string[], weights: ws as number[] };
}

/** One line naming the mix: its spec and harness count, or "no mix recorded". */
export function describeMix(mix: PretrainMix): string {
  return mix.spec === null ? 'no mix recorded' : `mix '${mix.spec}' (${mix.harnesses.length} harnesses)`;
}

/**
 * The union of several checkpoints' mixes (a spec whose methods start from bases of different
 * presets): every harness id once, in first-seen order, and a label naming each.
 * @param mixes [name, mix] per checkpoint; names are shown only when there are several
 */
export function mixUnion(mixes: ReadonlyArray<readonly [string, PretrainMix]>): { ids: string[]; label: string } {
  const ids = new Set<string>();
  for (const [, m] of mixes) for (const h of m.harnesses) ids.add(h);
  const label = mixes.map(([name, m]) => (mixes.length > 1 ? `${name}: ${describeMix(m)}` : describeMix(m))).join('; ');
  return { ids: [...ids], label: label || describeMix(NO_MIX) };
}

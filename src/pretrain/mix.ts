/**
 * The pretraining harness mix (docs/PRETRAIN.md "The protocol"): under which harnesses the base
 * model's demonstrations are rendered, with weights. A base checkpoint records its mix
 * (`mixMetadata`, read back by `pretrainMixOf`), and in-space evaluation leaves the mix's
 * configurations out. Invariant: the default OA-18 training configurations and the black-box
 * harnesses are never in a mix, so what RL through them adds stays measurable.
 */
import {
  BASE_HARNESS,
  DEFAULT_SPACE,
  configFromIndex,
  formatHarnessId,
  parseHarnessId,
  spaceLevels,
  spaceSize,
  type HarnessSpace,
} from '../design/space';
import { selectTrainingOA } from '../design/selection';
import { Rng } from '../util/rng';
import type { CheckpointMetadata } from '../model/checkpoint';

/** The default mix (docs/PRETRAIN.md "The protocol": the base, its variants and random configurations, chosen by scouting runs). */
export const DEFAULT_MIX_SPEC = 'base:0.25,one-factor:0.35,random:48:0.4';

/** One term of a mix spec. */
type MixTerm =
  | { kind: 'base' | 'one-factor' | 'procedural' | 'procedural-envelope'; weight: number }
  | { kind: 'random'; count: number; weight: number };

/** A resolved mix: concrete configurations with their shares. */
export interface PretrainMix {
  /** The spec as given. */
  spec: string;
  /** Configuration ids (S?-T?-O?-C?-W?), in spec order; no duplicates. */
  harnesses: string[];
  /** Share of demonstrations of each configuration (same order). */
  weights: number[];
  /** Share of demonstrations under procedural harnesses. */
  procedural: number;
  /** Share under procedural-envelope harnesses. harnesses' weights + procedural + this = 1. */
  proceduralEnvelope: number;
}

/** A malformed mix spec: the message names the term and what is wrong. */
export class MixSpecError extends Error {}

/**
 * Parse a mix spec (`hlab pretrain --mix`): comma-separated `kind:weight` terms,
 *   base:W                 the base harness
 *   one-factor:W           the configurations one realization away from the base
 *   random:N:W             N seeded configurations from the space minus the base, its
 *                          one-factor variants and the OA-18 training set
 *   procedural:W           a fresh procedural harness per demonstration
 *   procedural-envelope:W  a procedural harness in T0's envelope (procedural_envelope.ts)
 * A weight W > 0 is the term's share of demonstrations (normalized to sum to 1), spread evenly
 * over its configurations.
 * @throws MixSpecError naming the offending term (unknown kind, bad weight or count, repeated kind, empty spec)
 */
function parseMixSpec(spec: string): MixTerm[] {
  const parts = spec
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (parts.length === 0) throw new MixSpecError(`mix '${spec}': no terms (e.g. ${DEFAULT_MIX_SPEC})`);
  const terms: MixTerm[] = [];
  const seen = new Set<string>();
  for (const p of parts) {
    const f = p.split(':');
    const kind = f[0];
    if (seen.has(kind)) throw new MixSpecError(`mix term '${p}': '${kind}' appears twice`);
    seen.add(kind);
    const weightOf = (s: string | undefined) => {
      const w = Number(s);
      if (s === undefined || s === '' || !Number.isFinite(w) || w <= 0)
        throw new MixSpecError(`mix term '${p}': weight must be a number > 0, got '${s ?? ''}'`);
      return w;
    };
    if (kind === 'base' || kind === 'one-factor' || kind === 'procedural' || kind === 'procedural-envelope') {
      if (f.length !== 2) throw new MixSpecError(`mix term '${p}': expected '${kind}:weight'`);
      terms.push({ kind, weight: weightOf(f[1]) });
    } else if (kind === 'random') {
      if (f.length !== 3) throw new MixSpecError(`mix term '${p}': expected 'random:count:weight'`);
      const n = Number(f[1]);
      if (!Number.isInteger(n) || n < 1) throw new MixSpecError(`mix term '${p}': count must be an integer ≥ 1, got '${f[1]}'`);
      terms.push({ kind, count: n, weight: weightOf(f[2]) });
    } else throw new MixSpecError(`mix term '${p}': unknown kind '${kind}' (base, one-factor, random, procedural, procedural-envelope)`);
  }
  return terms;
}

/** The configurations one realization away from the base harness (Σ(levels − 1) of them), in component then level order. */
function oneFactorVariants(space: HarnessSpace = DEFAULT_SPACE): string[] {
  const base = parseHarnessId(BASE_HARNESS, space);
  const out: string[] = [];
  spaceLevels(space).forEach((s, i) => {
    for (let l = 1; l < s; l++) {
      const v = base.slice();
      v[i] = l;
      out.push(formatHarnessId(v, space));
    }
  });
  return out;
}

/**
 * Resolve a spec into configurations and shares. Random configurations come from stream
 * `Rng.derive(seed, 'pretrain/mix-random')`, drawn without replacement from the space minus the
 * base, its one-factor variants and the default OA-18 training set.
 * @throws MixSpecError for a bad spec, or when `random:N` asks for more configurations than remain
 */
export function resolveMix(spec: string, seed: number, space: HarnessSpace = DEFAULT_SPACE): PretrainMix {
  const terms = parseMixSpec(spec);
  const total = terms.reduce((a, t) => a + t.weight, 0);
  const oneFactor = oneFactorVariants(space);
  const excluded = new Set([BASE_HARNESS, ...oneFactor, ...selectTrainingOA(space).training]);
  const harnesses: string[] = [];
  const weights: number[] = [];
  let procedural = 0;
  let proceduralEnvelope = 0;
  const add = (ids: string[], w: number) => {
    for (const id of ids) {
      harnesses.push(id);
      weights.push(w / total / ids.length);
    }
  };
  for (const t of terms) {
    if (t.kind === 'base') add([BASE_HARNESS], t.weight);
    else if (t.kind === 'one-factor') add(oneFactor, t.weight);
    else if (t.kind === 'procedural') procedural = t.weight / total;
    else if (t.kind === 'procedural-envelope') proceduralEnvelope = t.weight / total;
    else if (t.kind === 'random') {
      const levels = spaceLevels(space);
      const pool: string[] = [];
      for (let i = 0; i < spaceSize(space); i++) {
        const id = formatHarnessId(configFromIndex(i, levels), space);
        if (!excluded.has(id)) pool.push(id);
      }
      if (t.count > pool.length)
        throw new MixSpecError(
          `mix term 'random:${t.count}:${t.weight}': only ${pool.length} configurations remain outside the base, its one-factor variants and OA-18`,
        );
      const rng = Rng.derive(seed, 'pretrain/mix-random');
      for (let i = 0; i < t.count; i++) {
        const j = i + rng.int(pool.length - i);
        [pool[i], pool[j]] = [pool[j], pool[i]];
      }
      add(pool.slice(0, t.count), t.weight);
    }
  }
  return { spec, harnesses, weights, procedural, proceduralEnvelope };
}

/**
 * Draw the harness of one demonstration: a configuration id, 'procedural' or 'procedural-envelope'.
 * @param rng the caller's seeded stream (one draw of `rng.float()` per call)
 */
export function drawMixHarness(mix: PretrainMix, rng: Rng): string {
  let u = rng.float();
  for (let i = 0; i < mix.harnesses.length; i++) {
    u -= mix.weights[i];
    if (u < 0) return mix.harnesses[i];
  }
  // Procedural, then procedural-envelope, take what is left (rounding included): a mix without the
  // envelope kind draws exactly as before it existed.
  if (mix.proceduralEnvelope > 0 && u >= mix.procedural) return 'procedural-envelope';
  return mix.procedural > 0 || mix.harnesses.length === 0 ? 'procedural' : mix.harnesses[mix.harnesses.length - 1];
}

/** Checkpoint metadata of a mix (read by in-space evaluation: `pretrainMixHarnesses`). */
export function mixMetadata(mix: PretrainMix): {
  pretrainMix: string;
  pretrainMixHarnesses: string[];
  pretrainMixWeights: number[];
  pretrainMixProcedural: number;
  pretrainMixProceduralEnvelope: number;
} {
  const r6 = (w: number) => Math.round(w * 1e6) / 1e6;
  return {
    pretrainMix: mix.spec,
    pretrainMixHarnesses: mix.harnesses,
    pretrainMixWeights: mix.weights.map(r6),
    pretrainMixProcedural: r6(mix.procedural),
    pretrainMixProceduralEnvelope: r6(mix.proceduralEnvelope),
  };
}

/** The mix a base checkpoint records (`mixMetadata`'s fields read back; the procedural shares are not configurations, so not read). */
interface RecordedMix {
  /** The mix spec as given; null when the checkpoint records no mix. */
  spec: string | null;
  /** Harness ids, each once. */
  harnesses: string[];
  /** Share of demonstrations per harness, same order. */
  weights: number[];
}

/** The mix of a checkpoint that records none. */
export const NO_MIX: RecordedMix = Object.freeze({ spec: null, harnesses: [], weights: [] }) as RecordedMix;

/**
 * The mix recorded in a base checkpoint's `metadata` (NO_MIX when `pretrainMix` is absent:
 * checkpoints from before the mix). In-space evaluation sets leave it out (plan.ts `inSpaceEvalSet`).
 * @throws Error naming the field and value when a recorded mix is malformed: pretrainMix not a
 *   string, harnesses not an array of strings, weights not finite numbers ≥ 0, or lengths that differ.
 */
export function pretrainMixOf(metadata: CheckpointMetadata): RecordedMix {
  const spec = metadata.pretrainMix;
  if (spec === undefined || spec === null) return NO_MIX;
  const show = (v: unknown) => JSON.stringify(v)?.slice(0, 80);
  if (typeof spec !== 'string') throw new Error(`checkpoint metadata.pretrainMix: expected a string, got ${show(spec)}`);
  const hs = metadata.pretrainMixHarnesses;
  const ws = metadata.pretrainMixWeights;
  if (!Array.isArray(hs) || !hs.every((h) => typeof h === 'string'))
    throw new Error(`checkpoint metadata.pretrainMixHarnesses: expected an array of harness ids, got ${show(hs)}`);
  if (!Array.isArray(ws) || !ws.every((w) => typeof w === 'number' && Number.isFinite(w) && w >= 0))
    throw new Error(`checkpoint metadata.pretrainMixWeights: expected an array of numbers ≥ 0, got ${show(ws)}`);
  if (hs.length !== ws.length)
    throw new Error(`checkpoint metadata.pretrainMixWeights: ${ws.length} weights for ${hs.length} pretrainMixHarnesses`);
  return { spec, harnesses: hs as string[], weights: ws as number[] };
}

/** One line naming the mix: its spec and harness count, or "no mix recorded". */
export function describeMix(mix: RecordedMix): string {
  return mix.spec === null ? 'no mix recorded' : `mix '${mix.spec}' (${mix.harnesses.length} harnesses)`;
}

/**
 * The union of several checkpoints' mixes (a spec whose methods start from bases of different
 * presets): every harness id once, in first-seen order, and a label naming each.
 * @param mixes [name, mix] per checkpoint; names are shown only when there are several
 */
export function mixUnion(mixes: ReadonlyArray<readonly [string, RecordedMix]>): { ids: string[]; label: string } {
  const ids = new Set<string>();
  for (const [, m] of mixes) for (const h of m.harnesses) ids.add(h);
  const label = mixes.map(([name, m]) => (mixes.length > 1 ? `${name}: ${describeMix(m)}` : describeMix(m))).join('; ');
  return { ids: [...ids], label: label || describeMix(NO_MIX) };
}

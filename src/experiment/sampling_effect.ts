/**
 * What dynamic sampling changed: one place of the map (base exposure, budget) run without and
 * with rl.dynamicSampling (DAPO's refill of all-equal-reward groups), read on the seeds both ran
 * as a pair of conditions (paired_conditions.ts): the same checkpoint and the same (seed, task,
 * harness, sample) cells, so each method's with − without, the change of the HS − single gap and
 * the cost of the refill are paired cell by cell.
 *
 * Source: Yu et al., "DAPO: an open-source LLM reinforcement learning system at scale", 2025
 * (dynamic sampling). Pure and DOM-free: scripts/claims.ts writes the RESULTS.md block from it.
 */
import type { CommittedResults } from './claims';
import { conditionsMap } from './conditions_map';
import { pairConditions, pairMarkdown, type ConditionPair } from './paired_conditions';

/** One place run both ways: A is without dynamic sampling, B with it. */
interface SamplingEffect extends ConditionPair {
  exposure: string;
  steps: number;
}

/**
 * Every place of the map run both without and with dynamic sampling (conditions_map.ts cells of
 * the same exposure and budget and the same arms), compared on the seeds both ran.
 * @param results committed results by preset (claims.ts CommittedResults)
 */
export function samplingEffects(results: ReadonlyMap<string, CommittedResults>): SamplingEffect[] {
  const cells = conditionsMap(results);
  const out: SamplingEffect[] = [];
  for (const on of cells.filter((c) => c.dynamicSampling)) {
    const off = cells.find((c) => !c.dynamicSampling && c.exposure === on.exposure && c.steps === on.steps);
    if (!off || off.single !== on.single || off.scaling !== on.scaling) continue;
    const side = (preset: string) => ({ preset, runs: results.get(preset)?.runs ?? [], specJson: results.get(preset)?.specJson });
    const pair = pairConditions(side(off.preset), side(on.preset), { single: on.single, scaling: on.scaling });
    if (pair) out.push({ ...pair, exposure: on.exposure, steps: on.steps });
  }
  return out;
}

/** The effects as markdown (RESULTS.md's `sampling` block), one pair per place. */
export function samplingMarkdown(effects: readonly SamplingEffect[]): string {
  if (!effects.length) return '_No place of the map has been run both without and with dynamic sampling._';
  return effects.map((e) => pairMarkdown(e, { title: `${e.exposure} base, ${e.steps} steps`, a: 'without', b: 'with' })).join('\n\n');
}

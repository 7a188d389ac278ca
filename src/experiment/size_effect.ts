/**
 * The main comparison at two model sizes: `main` (the mini model) and `sizes` (the same spec from
 * the small base, public/base-small.ckpt), read on the seeds both ran as a pair of conditions
 * (paired_conditions.ts). Both evaluate the same (seed, task, harness, sample) cells, so the
 * HS − single gap at each size, what the larger model changes per method, and whether size moves
 * the gap (the interaction) are paired cell by cell. The paper's claim "the in-space gain holds
 * across model sizes" reads as the gap at each size; the interaction says whether they differ.
 *
 * Pure and DOM-free: scripts/claims.ts writes RESULTS.md's `sizes` block from it.
 */
import type { CommittedResults } from './claims';
import { comparedArms } from './conditions_map';
import { pairConditions, pairMarkdown, type ConditionPair } from './paired_conditions';

/** The presets of the size pair: A (the smaller model) and B. */
const SIZE_PAIR = { a: 'main', b: 'sizes' } as const;

/** Spec fields the two sides may differ in: the model is the condition, the rest names and counts. */
const FREE_FIELDS = new Set(['model', 'name', 'seeds', 'description']);

/** The pair read, with each side's model preset and the spec fields they differ in beyond the model. */
interface SizeEffect extends ConditionPair {
  models: { a: string; b: string };
  /** Top-level spec fields other than model, name, seeds and description that differ (empty: a clean comparison). */
  alsoDiffer: string[];
}

const modelOf = (specJson: unknown): string => (specJson as { model?: { preset?: string } } | undefined)?.model?.preset ?? '?';

/**
 * The size pair from committed results, or null when either side is missing, the arms differ, or
 * no seed ran both arms at both sizes.
 * @param results committed results by preset (claims.ts CommittedResults); `sizes` merged from its chunks
 */
export function sizeEffect(results: ReadonlyMap<string, CommittedResults>): SizeEffect | null {
  const [a, b] = [results.get(SIZE_PAIR.a), results.get(SIZE_PAIR.b)];
  if (!a || !b) return null;
  const [armsA, armsB] = [comparedArms(a.specJson), comparedArms(b.specJson)];
  if (!armsA || !armsB || armsA.single !== armsB.single || armsA.scaling !== armsB.scaling) return null;
  const pair = pairConditions(
    { preset: SIZE_PAIR.a, runs: a.runs, specJson: a.specJson },
    { preset: SIZE_PAIR.b, runs: b.runs, specJson: b.specJson },
    armsB,
  );
  if (!pair) return null;
  const [sa, sb] = [(a.specJson ?? {}) as Record<string, unknown>, (b.specJson ?? {}) as Record<string, unknown>];
  const alsoDiffer = [...new Set([...Object.keys(sa), ...Object.keys(sb)])]
    .filter((k) => !FREE_FIELDS.has(k) && JSON.stringify(sa[k]) !== JSON.stringify(sb[k]))
    .sort();
  return { ...pair, models: { a: modelOf(a.specJson), b: modelOf(b.specJson) }, alsoDiffer };
}

/** The pair as markdown (RESULTS.md's `sizes` block), or a line saying what is missing. */
export function sizeMarkdown(e: SizeEffect | null): string {
  if (!e)
    return `_No size pair yet: \`${SIZE_PAIR.b}\` (the main comparison from the small base) is not merged, or it shares no seed and arms with \`${SIZE_PAIR.a}\`._`;
  const md = pairMarkdown(e, { title: `${e.models.a} → ${e.models.b} model`, a: e.models.a, b: e.models.b });
  const caveat = e.alsoDiffer.length
    ? `\n- The two specs also differ in ${e.alsoDiffer.map((k) => `\`${k}\``).join(', ')}: the size is not the only change.`
    : `\n- The two specs differ only in the model (and name, seeds, description).`;
  return md + caveat;
}

/**
 * Between methods in the Compare view: the Results view's panel (comparison_panel.ts)
 * over every ticked output's runs, methods named `<tag> · <method>` as scaling.ts comparedRuns
 * names them, so any two can be picked — within one output or across two. Arms pair on the same
 * (seed, task, harness, sample) cells; across outputs seed n of one is paired with seed n of the
 * other, and outputs evaluated on other seeds, configurations or tasks pair on what they share
 * only: the panel says which (method_verdict.ts pairCoverage) instead of a verdict on nothing.
 *
 * URL parameters a, b: the picked arms (as Results keeps them), dropped when the ticked outputs change.
 */
import type { TemplateResult } from 'lit-html';
import { byMethod } from '../../report/results_table';
import type { RunResult } from '../../report/results_schema';
import { comparisonSection, type MethodPair } from './comparison_panel';

/** One ticked output as the panel sees it: its letter, display name and runs (methods not yet renamed). */
interface BetweenOutput {
  tag: string;
  name: string;
  runs: readonly RunResult[];
}

/** A method's name in Compare: `<tag> · <method>` (scaling.ts comparedRuns). */
const tagged = (tag: string, method: string) => `${tag} · ${method}`;

/**
 * The default pair: the first two methods of the first output that has two (within an output,
 * e.g. `A · harness scaling (GRPO, K=4)` − `A · single harness (GRPO)`), else the first method of
 * the first two outputs; null with fewer than two methods in all.
 */
export function compareDefaultPair(outputs: readonly Pick<BetweenOutput, 'tag' | 'runs'>[]): MethodPair | null {
  const methods = outputs.map((o) => [...byMethod(o.runs).keys()].map((m) => tagged(o.tag, m)));
  const within = methods.find((ms) => ms.length >= 2);
  if (within) return { a: within[0], b: within[1] };
  const firsts = methods.filter((ms) => ms.length).map((ms) => ms[0]);
  return firsts.length >= 2 ? { a: firsts[0], b: firsts[1] } : null;
}

/** The pair of the URL parameters a, b; null unless both are given. */
export const pairFromParams = (params: Record<string, string>): MethodPair | null =>
  params.a && params.b ? { a: params.a, b: params.b } : null;

/** The output a `<tag> · <method>` name belongs to. */
const outputOf = (outputs: readonly BetweenOutput[], method: string) => outputs.find((o) => method.startsWith(`${o.tag} · `));

/**
 * The panel over the ticked outputs.
 * @param runs comparedRuns of the outputs (the same array between draws, so the panel's cache holds)
 * @param want the pair asked for in the URL or picked; when it names a method not ticked, the default
 * @param loading tags of outputs whose per-episode outcomes are still loading
 */
export function betweenSection(
  outputs: readonly BetweenOutput[],
  runs: readonly RunResult[],
  want: MethodPair | null,
  onPair: (p: MethodPair) => void,
  loading: ReadonlySet<string>,
): TemplateResult {
  const methods = new Set(runs.map((r) => r.method));
  const valid = want && want.a !== want.b && methods.has(want.a) && methods.has(want.b) ? want : null;
  const pair = valid ?? compareDefaultPair(outputs);
  const waiting = pair
    ? [...new Set([pair.b, pair.a].map((m) => outputOf(outputs, m)).filter((o): o is BetweenOutput => !!o && loading.has(o.tag)))]
    : [];
  return comparisonSection(runs, pair, onPair, {
    id: 'compare-between',
    note: `Any two methods of the ticked outputs (A · method, B · method, …), within one output or across two. Across outputs, seed n of one is paired with seed n of the other (independent training runs scored on the same test episodes), so outputs evaluated on other seeds, harness configurations or tasks pair on what they share only, and the panel says so.`,
    loading: waiting.length
      ? `Loading the per-episode outcomes of ${waiting.map((o) => `${o.tag} (${o.name})`).join(' and ')}: the comparison follows.`
      : undefined,
  });
}

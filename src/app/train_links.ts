/**
 * Links from the Design and Inspect views into the Train view's lesson (the app's default
 * preset, presets.ts APP_DEFAULT_PRESET; docs/APP.md "The lesson"): a `#/train` route with the
 * lesson and, for a design, the JSON Merge Patch (spec_patch.ts) that trains through it.
 * Pure, DOM-free.
 */
import { BASE_HARNESS, DEFAULT_SPACE } from '../design';
import { APP_DEFAULT_PRESET, getPreset } from '../experiment/presets';
import type { MethodSpec } from '../experiment/spec';
import { formatRoute } from './route';

/** What the Design view shows, as validated there. */
interface DesignChoice {
  /** Components' level counts (the experiments' space is DEFAULT_SPACE: 3,3,3,3,3). */
  levels: readonly number[];
  method: 'oa' | 'random';
  /** Size of the training set (random-k: k; the orthogonal array: its run size). */
  size: number;
  /** Random-k draw and assignment seed (spec.design.seed). */
  seed: number;
  /** Harnesses per task. */
  K: number;
  assign: 'locality' | 'random';
}

/** The lesson, as it is (`#/train?preset=lesson`). */
export function lessonRoute(): string {
  return formatRoute({ view: 'train', params: { preset: APP_DEFAULT_PRESET } });
}

/**
 * What the lesson trains, from its preset: `harness` is the base harness id when every method
 * trains through it alone ('single'), else null; the suites and the highest task tier.
 */
export function lessonScope(): LessonScope {
  if (scope) return scope;
  const spec = getPreset(APP_DEFAULT_PRESET);
  scope = {
    harness: spec.methods.every((m) => m.harnesses === 'single') ? BASE_HARNESS : null,
    methods: spec.methods.map((m) => m.name),
    suites: [...spec.suites],
    maxTier: spec.maxTier,
  };
  return scope;
}
interface LessonScope {
  harness: string | null;
  methods: string[];
  suites: string[];
  maxTier: number;
}
// The preset is embedded: parse it once (the Inspect view asks on every redraw).
let scope: LessonScope | null = null;

/** Whether the experiments can train a design of these levels: only the S·T·O·C·W space they run in. */
export function trainableLevels(levels: readonly number[]): boolean {
  const space = DEFAULT_SPACE.components.map((c) => c.realizations.length);
  return levels.length === space.length && levels.every((l, i) => l === space[i]);
}

/**
 * The merge patch that trains the lesson's harness scaling through the design `d` instead:
 * spec.design = {method, k, seed}; the lesson's single-harness methods stay (the comparison the
 * lesson teaches) and its other methods give way to one GRPO method that trains through the
 * design's training set, K harnesses per task, locality-aware ('scaling') or random
 * ('random-assignment') assignment; its own name and description, so its runs are not taken
 * for the lesson's.
 * @throws Error when the levels are not the experiments' space (trainableLevels).
 */
function lessonEditsForDesign(d: DesignChoice): Record<string, unknown> {
  if (!trainableLevels(d.levels))
    throw new Error(
      `levels: training runs in the ${DEFAULT_SPACE.components.map((c) => c.realizations.length).join(',')} space, got ${d.levels.join(',')}`,
    );
  const method: MethodSpec = {
    name: d.assign === 'locality' ? `harness scaling (GRPO, K=${d.K})` : `random assignment (GRPO, K=${d.K})`,
    harnesses: d.assign === 'locality' ? 'scaling' : 'random-assignment',
    K: d.K,
    algorithm: 'grpo',
  };
  const kept = getPreset(APP_DEFAULT_PRESET).methods.filter((m) => m.harnesses === 'single');
  const set = d.method === 'oa' ? `the orthogonal array (${d.size} harnesses)` : `random-k (k = ${d.size}, seed ${d.seed})`;
  return {
    name: `${APP_DEFAULT_PRESET}-design`,
    description: `The lesson trained through a design from the Design view: GRPO through ${set}, K=${d.K} harnesses per task, ${d.assign} assignment, design seed ${d.seed}${kept.length ? `, against ${kept.map((m) => m.name).join(', ')} as in the lesson` : ''}; otherwise as preset '${APP_DEFAULT_PRESET}'.`,
    design: d.method === 'oa' ? { method: 'oa', seed: d.seed } : { method: 'random', k: d.size, seed: d.seed },
    methods: [...kept, method],
  };
}

/** `#/train?preset=lesson&edits=…` training through the design `d` (lessonEditsForDesign). */
export function lessonRouteForDesign(d: DesignChoice): string {
  return formatRoute({ view: 'train', params: { preset: APP_DEFAULT_PRESET, edits: JSON.stringify(lessonEditsForDesign(d)) } });
}

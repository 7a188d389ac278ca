/**
 * Whether one experiment spec is a smaller version of another: the same condition (what is
 * trained, from which base, through which harnesses, with which algorithm and sampling, measured
 * on which kind of in-space set) at a smaller size (seeds, RL steps, learning rate, evaluation
 * and validation sizes). The app's lesson must be a smaller version of the map cell it
 * demonstrates (docs/APP.md "The lesson"); this says so, or names every condition that differs.
 * Pure, DOM-free.
 */
import type { ExperimentSpec } from './spec';
import { getPreset, PRESET_NAMES } from './presets';
import { canonicalJson } from '../storage/serialize';

/** One field that differs in size: its path and both values, as short text. */
interface SizeDifference {
  field: string;
  small: string;
  large: string;
}

/** The comparison of a spec with the larger one it should be a version of. */
interface VersionCheck {
  /** Condition fields that differ (empty: `small` is a smaller version of `large`). */
  conditions: string[];
  /** Size fields that differ, in a fixed order. */
  sizes: SizeDifference[];
}

/** A field's value as canonical JSON (storage/serialize.ts; keys sorted, absent fields dropped), so equal values compare equal. */
const canon = (v: unknown): string => canonicalJson(JSON.parse(JSON.stringify({ v })), 'spec field');

/** `obj`'s fields as 'prefix.key' entries, less the keys in `skip`. */
function prefixed(prefix: string, obj: object, skip: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(obj).flatMap(([k, v]) => (skip.includes(k) ? [] : [[`${prefix}.${k}`, v]])));
}

/** The condition of a spec: every field that decides what is trained and how, names left out. */
function condition(s: ExperimentSpec): Record<string, unknown> {
  const { mode, ...inSpace } = s.evaluation.inSpace;
  const { perDistance: _p, seed: _s, tasksPerConfig: _t, ...inSpaceKind } = inSpace as Record<string, unknown>;
  return {
    model: s.model,
    suites: s.suites,
    maxTier: s.maxTier,
    families: s.families,
    design: s.design,
    methods: s.methods.map(({ name: _n, ...m }) => m),
    ...prefixed('rl', s.rl, ['steps', 'lr', 'trainTasks']),
    ...prefixed('rollout', s.rollout, ['workers', 'watchdogMs']),
    'evaluation.inSpace': { mode, ...inSpaceKind },
    'evaluation.temperature': s.evaluation.temperature,
  };
}

/** The size of a spec: fields a smaller version may change, as short text. */
function size(s: ExperimentSpec): [string, string][] {
  const v = s.evaluation.validation;
  const inSpace = s.evaluation.inSpace;
  return [
    ['seeds', String(s.seeds.length)],
    ['rl.steps', String(s.rl.steps)],
    ['rl.lr', String(s.rl.lr)],
    ['rl.trainTasks', String(s.rl.trainTasks)],
    ['evaluation.testTasks', String(s.evaluation.testTasks)],
    ['evaluation.samples', String(s.evaluation.samples)],
    ['evaluation.inSpace.perDistance', inSpace.mode === 'stratified' ? String(inSpace.perDistance) : 'all'],
    ['evaluation.inSpace.tasksPerConfig', String(inSpace.tasksPerConfig ?? 'all')],
    ['evaluation.blackbox', s.evaluation.blackbox.join(', ') || 'none'],
    ['evaluation.validation', v ? `${v.tasks} tasks × ${v.samples}, every ${v.every}, on ${(v.sets ?? ['training']).join(', ')}` : 'off'],
  ];
}

/**
 * Compare `small` with `large`: the condition fields that differ (names ignored; rollout workers
 * and watchdog are machine settings) and the size fields that differ.
 * @returns conditions empty when `small` is a smaller version of `large`
 */
export function smallerVersion(small: ExperimentSpec, large: ExperimentSpec): VersionCheck {
  const a = condition(small);
  const b = condition(large);
  const conditions = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => canon(a[k]) !== canon(b[k]));
  const sb = new Map(size(large));
  const sizes = size(small)
    .filter(([k, v]) => sb.get(k) !== v)
    .map(([field, v]) => ({ field, small: v, large: sb.get(field)! }));
  return { conditions, sizes };
}

/**
 * The preset `spec` is a smaller version of at full size: the first of PRESET_NAMES (other than
 * `spec.name`) with the same condition and RL steps and more seeds, or null when none is. The
 * lesson is one seed of `map-broad-240`; `quick` is one seed of `main`.
 */
export function presetVersionOf(spec: ExperimentSpec): string | null {
  return (
    PRESET_NAMES.find((name) => {
      if (name === spec.name) return false;
      const large = getPreset(name);
      return (
        large.rl.steps === spec.rl.steps && spec.seeds.length < large.seeds.length && smallerVersion(spec, large).conditions.length === 0
      );
    }) ?? null
  );
}

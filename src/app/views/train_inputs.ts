/**
 * The Train view's inputs (views/train.ts): the URL parameters, their validation into an
 * effective spec and run id, the spec editor's knobs and demo patch, and what the inputs imply
 * (engine availability, the name a finished run is saved under, an evaluation's size).
 * Pure: no DOM, no worker.
 */
import { fmtUtc } from '../../util/duration';
import { parseSpec, SpecError, type ExperimentSpec } from '../../experiment/spec';
import { APP_DEFAULT_PRESET, getPreset, PRESET_NAMES } from '../../experiment/presets';
import { BASE_HARNESS } from '../../design';
import { inSpaceEvalSet, inSpaceTasks, specConsistencyIssues, testTasks, trainingHarnesses } from '../../experiment/plan';
import type { WebGpuStatus } from '../../engine/webgpu_status';
import { parseChoice, parseIntField } from '../fields';
import { applyMergePatch, mergePatch, specHash } from '../spec_patch';

/** The view's URL parameters and their defaults (an empty string: not given); `#/train` alone opens the lesson (APP_DEFAULT_PRESET). */
export const TRAIN_DEFAULTS: Readonly<Inputs> = { preset: APP_DEFAULT_PRESET, edits: '', seed: '', steps: '' };
export type Inputs = Record<'preset' | 'edits' | 'seed' | 'steps', string>;

/** The validated inputs: an effective spec (seed override applied) or the errors to show. */
export interface TrainInputs {
  errors: { preset?: string; spec: string[]; seed?: string; steps?: string };
  /** The spec JSON as run (seeds replaced when a seed is given). */
  specJson?: Record<string, unknown>;
  spec?: ExperimentSpec;
  steps?: number;
  runId?: string;
}

/**
 * Validate the view's inputs: the editor text must be JSON and a valid spec (errors: one line
 * per bad field, `spec.rl.steps: …`), seed an integer in [0, 2^31 − 1], steps in [0, 100 000].
 */
export function validateTrainInputs(inp: Inputs, text: string): TrainInputs {
  const errors: TrainInputs['errors'] = { spec: [] };
  const preset = parseChoice('preset', inp.preset, PRESET_NAMES);
  if (!preset.ok) errors.preset = preset.error;
  const seed = inp.seed.trim() === '' ? null : parseIntField('seed', inp.seed, 0, 2 ** 31 - 1);
  if (seed && !seed.ok) errors.seed = seed.error;
  const steps = inp.steps.trim() === '' ? null : parseIntField('steps', inp.steps, 0, 100_000);
  if (steps && !steps.ok) errors.steps = steps.error;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    errors.spec.push(`spec: not valid JSON (${(e as Error).message})`);
    return { errors };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    errors.spec.push('spec: must be a JSON object');
    return { errors };
  }
  const specJson = { ...(json as Record<string, unknown>) };
  if (seed?.ok) specJson.seeds = [seed.value];
  // The step override is part of the spec (and so of the run id): runs of different lengths
  // must not share checkpoints or a "finished" state.
  if (steps?.ok && specJson.rl && typeof specJson.rl === 'object')
    specJson.rl = { ...(specJson.rl as Record<string, unknown>), steps: steps.value };
  let spec: ExperimentSpec | undefined;
  try {
    spec = parseSpec(specJson, 'spec');
  } catch (e) {
    if (!(e instanceof SpecError)) throw e;
    errors.spec.push(...e.issues);
  }
  // Constraints between fields (K vs the training-set size, τ, budgets): the CLI's checks, as you type.
  if (spec) {
    const cross = specConsistencyIssues(spec);
    if (cross.length) {
      errors.spec.push(...cross);
      spec = undefined;
    }
  }
  const out: TrainInputs = { errors, specJson };
  if (spec) {
    out.spec = spec;
    out.runId = `app-${spec.name}-${specHash(spec)}`;
  }
  if (steps?.ok) out.steps = steps.value;
  return out;
}

/** Whether any input has an error (Start is disabled). */
export const hasErrors = (v: TrainInputs) => !!(v.errors.preset || v.errors.seed || v.errors.steps || v.errors.spec.length);

/**
 * Whether a run can be trained in this browser: `spec.backend` 'webgpu' needs a WebGPU adapter,
 * 'wasm' the CPU engine (SharedArrayBuffer: the page is cross-origin isolated), 'auto' either.
 * The Start/Resume buttons and the note under them follow this function only.
 */
export function engineAvailable(
  spec: ExperimentSpec | undefined,
  gpu: WebGpuStatus | null,
  cpuEngine = globalThis.crossOriginIsolated === true,
): boolean {
  const webgpu = gpu === null || gpu.available;
  const backend = spec?.backend ?? 'auto';
  return backend === 'webgpu' ? webgpu : backend === 'wasm' ? cpuEngine : webgpu || cpuEngine;
}

/**
 * The name a finished run is saved under in Results: what it is (spec name, methods, model and
 * init, RL steps, seeds), the spec hash (the run id's) and the time in UTC, e.g.
 * 'quick · GRPO K=4 · mini/base · 12 steps · seed 0 · 3f2a9c1e · 2026-12-01 21:18 UTC'.
 */
export function runName(spec: ExperimentSpec, runId: string): string {
  const methods = spec.methods.map((m) => m.name).join(' + ');
  const hash = runId.split('-').at(-1) ?? '';
  return `${spec.name} · ${methods} · ${spec.model.preset}/${spec.model.init} · ${spec.rl.steps} steps · seed ${spec.seeds.join(',')} · ${hash} · ${fmtUtc(Date.now())}`.slice(
    0,
    200,
  );
}

/** Episodes of one evaluation of run `runIndex`: (base + held-out in-space + black-box + training harnesses) × test tasks × samples. */
export function evalEpisodes(spec: ExperimentSpec, runIndex: number): { episodes: number; harnesses: number; tasks: number } {
  const plan = spec.seeds.flatMap((seed) => spec.methods.map((method) => ({ seed, method })));
  const r = plan[Math.min(runIndex, plan.length - 1)];
  const training = trainingHarnesses(spec, r.method, r.seed);
  const tests = testTasks(spec, r.seed);
  const inSpace = inSpaceEvalSet(spec).ids;
  const cellTasks = inSpaceTasks(spec, tests, inSpace);
  const others = [...new Set([BASE_HARNESS, ...spec.evaluation.blackbox, ...training])].filter((h) => !inSpace.includes(h));
  const cells = others.length * tests.length + inSpace.reduce((a, h) => a + (cellTasks?.get(h)?.length ?? tests.length), 0);
  return { episodes: cells * spec.evaluation.samples, harnesses: others.length + inSpace.length, tasks: tests.length };
}

/**
 * The "demo" setting (a JSON Merge Patch on the preset): the pretrained mini model, tier-1
 * tasks, 6 RL steps of 2 tasks × 8 rollouts, a small evaluation and a small validation split
 * (4 tasks per suite, one sample, every 3 steps, under the sets the preset asks for). Measured on
 * this project's 2-core machine: the lesson's demo, `hlab run --spec` of demoText, 34 s wall
 * (22 s of runs; a map chunk ran beside it at the lowest priority).
 */
const DEMO_PATCH = {
  maxTier: 1,
  model: { preset: 'mini', init: 'base' },
  rl: { steps: 6, tasksPerStep: 2, groupSize: 8 },
  evaluation: {
    testTasks: 2,
    samples: 1,
    inSpace: { mode: 'stratified', perDistance: 1, seed: 0 },
    blackbox: ['bb-assistant'],
    validation: { tasks: 4, every: 3, samples: 1 },
  },
} as const;

/** The common knobs shown as form controls beside the spec editor: path in the spec, label, kind. */
export const KNOBS: {
  path: readonly string[];
  id: string;
  label: string;
  options?: readonly string[];
  min?: number;
  max?: number;
  hint?: string;
}[] = [
  { path: ['model', 'preset'], id: 'knob-model', label: 'Model', options: ['tiny', 'mini', 'small', 'base'] },
  { path: ['model', 'init'], id: 'knob-init', label: 'Init', options: ['base', 'scratch'], hint: 'base = pretrained checkpoint' },
  {
    path: ['backend'],
    id: 'knob-backend',
    label: 'Engine',
    options: ['auto', 'webgpu', 'wasm'],
    hint: 'auto: WebGPU on a hardware GPU, else the CPU engine (WebAssembly SIMD)',
  },
  { path: ['rl', 'tasksPerStep'], id: 'knob-tasks', label: 'Tasks per step', min: 1, max: 4096 },
  { path: ['rl', 'groupSize'], id: 'knob-group', label: 'Group size', min: 1, max: 256, hint: 'rollouts per task (GRPO group)' },
  { path: ['evaluation', 'testTasks'], id: 'knob-eval', label: 'Eval tasks', min: 1, max: 1000, hint: 'test tasks per suite' },
];

/** The value at `path` in a JSON value (undefined where absent). */
export function getPath(json: unknown, path: readonly string[]): unknown {
  let cur: unknown = json;
  for (const k of path) cur = cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[k] : undefined;
  return cur;
}

/**
 * Set `path` in the spec text to `value`; an edit of a preset also gets its own name
 * ('<preset>-edited', unless renamed already) and a description that lists what differs from
 * the preset, so its runs are not confused with the preset's.
 * @returns the new text, or null when the text is not a JSON object
 */
export function setKnob(text: string, preset: string, path: readonly string[], value: unknown): string | null {
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) return null;
  let cur = json;
  for (const k of path.slice(0, -1)) {
    if (!cur[k] || typeof cur[k] !== 'object') cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  cur[path[path.length - 1]] = value;
  const base = getPreset(preset) as unknown as Record<string, unknown>;
  if (json.name === base.name) json.name = `${String(base.name)}-edited`;
  if (json.name === `${String(base.name)}-edited`) {
    const { name: _n, description: _d, ...rest } = json;
    const { name: _bn, description: _bd, ...baseRest } = base;
    const patch = mergePatch(baseRest, rest) as Record<string, unknown> | undefined;
    const flat: string[] = [];
    const walk = (o: unknown, pre: string) => {
      if (o && typeof o === 'object' && !Array.isArray(o)) for (const [k, v] of Object.entries(o)) walk(v, pre ? `${pre}.${k}` : k);
      else flat.push(`${pre} = ${JSON.stringify(o)}`);
    };
    walk(patch ?? {}, '');
    json.description = `Preset '${preset}' edited in the app: ${flat.join(', ') || 'no changes'}.`.slice(0, 500);
  }
  return JSON.stringify(json, null, 2);
}

/** The preset named by the inputs, or the default preset when the name is not one. */
export function presetName(inp: Inputs): string {
  return (PRESET_NAMES as readonly string[]).includes(inp.preset) ? inp.preset : TRAIN_DEFAULTS.preset;
}

/**
 * The editor text for URL inputs: the preset with the edits applied (the preset alone when the
 * edits are unreadable, with `editsError` saying why).
 */
export function presetText(inp: Inputs): { text: string; editsError: string | null } {
  let editsError: string | null = null;
  let spec: unknown = getPreset(presetName(inp));
  if (inp.edits.trim() !== '') {
    try {
      spec = applyMergePatch(spec, JSON.parse(inp.edits));
    } catch (e) {
      editsError = `edits (from the URL) are not valid JSON, showing the preset instead: ${(e as Error).message}`;
    }
  }
  return { text: JSON.stringify(spec, null, 2), editsError };
}

/**
 * The `edits` parameter for editor text: a JSON Merge Patch from the preset.
 * @returns '' when the text equals the preset; throws SyntaxError when the text is not JSON
 */
export function editsFor(inp: Inputs, text: string): string {
  const patch = mergePatch(getPreset(presetName(inp)), JSON.parse(text));
  return patch === undefined ? '' : JSON.stringify(patch);
}

/** The editor text of the demo setting (DEMO_PATCH) on the inputs' preset, with its own name and description. */
export function demoText(inp: Inputs): string {
  const name = presetName(inp);
  const spec = applyMergePatch(getPreset(name), {
    ...DEMO_PATCH,
    name: `${name}-demo`,
    description: `Demo of preset '${name}': pretrained mini model, tier-1 tasks, 6 RL steps of 2 tasks × 8 rollouts, a small evaluation (a few minutes on a CPU).`,
  });
  return JSON.stringify(spec, null, 2);
}

/**
 * One line of what a spec runs, for where presets are chosen: its methods (compared or alone),
 * seeds and RL steps, e.g. 'compares 2 methods in one run each (one seed): single harness (GRPO)
 * vs harness scaling (GRPO, K=4); 60 RL steps per run'.
 */
export function presetSummary(spec: ExperimentSpec): string {
  const names = spec.methods.map((m) => m.name);
  const n = spec.seeds.length;
  const runs = n * names.length;
  const steps = `${spec.rl.steps} RL steps per run`;
  if (names.length === 1) return `one method, ${names[0]}; ${n === 1 ? 'one seed' : `${n} seeds`}, ${steps}`;
  const how = n === 1 ? 'in one run each (one seed)' : `over ${n} seeds (${runs} runs)`;
  return `compares ${names.length} methods ${how}: ${names.join(' vs ')}; ${steps}`;
}

/** How method `i` of a spec trains, in words ("GRPO through the base harness alone"). */
export function trainsThrough(spec: ExperimentSpec, i: number): string {
  const m = spec.methods[i];
  const algo = m.algorithm === 'sft' ? 'SFT' : m.algorithm.toUpperCase();
  switch (m.harnesses) {
    case 'single':
      return `${algo} through the base harness alone`;
    case 'blackbox':
      return `${algo} through the black-box harness ${m.blackbox}`;
    case 'none':
      return 'no training (the starting checkpoint)';
    case 'random-k':
      return `${algo} through ${spec.design.k ?? 'k'} random harnesses, K = ${m.K} per task`;
    default:
      return `${algo} through the design's ${spec.design.method === 'oa' ? 'orthogonal array' : 'training set'}, K = ${m.K} harnesses per task (${m.harnesses === 'random-assignment' ? 'random' : 'locality-aware'} assignment)`;
  }
}

/**
 * The Train view (issue 7, docs/ARCHITECTURE.md "Experiments, evaluation and results"): choose a preset or edit its spec (validated as you
 * type by the spec schema, each error naming its field), start / pause / resume a run, watch
 * live charts and a progress bar with ETA, manage checkpoints (export, import, delete), and
 * open the finished run in Results.
 *
 * Training runs in a dedicated worker (src/app/train_worker.ts): this file only validates
 * inputs, posts commands and draws what the worker reports. Charts and the progress bar are
 * redrawn at most every REDRAW_MS, so the main thread stays idle while a run goes on.
 *
 * URL parameters (shareable): preset · edits (a JSON Merge Patch from the preset to the edited
 * spec, e.g. {"rl":{"steps":3}}) · seed (replaces spec.seeds by [seed]) · steps (overrides
 * spec.rl.steps). The checkpoint run id is derived from the effective spec ('app-<name>-<hash>'),
 * so reopening the same URL finds the run's checkpoints and offers Resume.
 */
import { checkpointPosition } from '../../experiment/run_checkpoint';
import { html, nothing, render, type TemplateResult } from 'lit-html';
import { live } from 'lit-html/directives/live.js';
import { proxy, wrap, type Remote } from 'comlink';
import { parseSpec, SpecError, type ExperimentSpec } from '../../experiment/spec';
import { getPreset, PRESET_NAMES } from '../../experiment/presets';
import type { RunEvent, StepRecord } from '../../experiment/runner';
import type { CheckpointRow, StoredHistory, TrainOutcome, TrainWorkerApi } from '../train_worker';
import { BASE_HARNESS } from '../../design';
import { inSpaceEvalSet, specConsistencyIssues, testTasks, trainingHarnesses } from '../../experiment/plan';
import { probeWebGpu, type WebGpuStatus } from '../webgpu_status';
import { errorId, field, parseChoice, parseIntField } from '../fields';
import { applyMergePatch, mergePatch, specHash } from '../spec_patch';
import { SERIES_COLORS, type LineChartSpec } from '../line_chart';
import { downloadBlob } from './results';
import '../line_chart';
import './train.css';

export const TRAIN_DEFAULTS = { preset: 'quick', edits: '', seed: '', steps: '' } as const;
type Inputs = Record<keyof typeof TRAIN_DEFAULTS, string>;

/** Minimum interval between redraws while a run streams events, ms. */
const REDRAW_MS = 400;
/** Minimum interval between checkpoint-list refreshes during a run, ms. */
const CKPT_REFRESH_MS = 1500;
const MAX_MESSAGES = 12;

type Phase = 'idle' | 'running' | 'stopping' | 'paused' | 'done' | 'failed';

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
function validateTrainInputs(inp: Inputs, text: string): TrainInputs {
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
  if (steps?.ok && specJson.rl && typeof specJson.rl === 'object') specJson.rl = { ...(specJson.rl as Record<string, unknown>), steps: steps.value };
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

const hasErrors = (v: TrainInputs) => !!(v.errors.preset || v.errors.seed || v.errors.steps || v.errors.spec.length);

/** Group of a harness for the pass@1 chart: Hamming distance to the base harness, or the black-box id. */
function harnessGroup(id: string): string {
  const m = /^S(\d)-T(\d)-O(\d)-C(\d)-W(\d)$/.exec(id);
  if (!m) return id;
  const d = m.slice(1).filter((l) => l !== '0').length;
  return d === 0 ? 'base (d=0)' : `d=${d}`;
}

function fmtDuration(s: number): string {
  if (!Number.isFinite(s) || s < 0) return '—';
  if (s < 60) return `${Math.round(s)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
}

const fmtBytes = (n: number) => (n < 1 << 20 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / (1 << 20)).toFixed(1)} MiB`);
/** pass@1 (a fraction) in %, one decimal: the unit of the Results view and results.md. */
const fmtPct = (v: number | null | undefined) => (v === null || v === undefined || !Number.isFinite(v) ? '—' : (v * 100).toFixed(1));

const runLabel = (method: string, seed: number) => `${method} · seed ${seed}`;

/** A checkpoint position in words: 'after run 1', 'run 1, before evaluation', 'run 2, step 3'. */
function positionText(p: { runIndex: number; rlStep: number; finished: boolean }): string {
  return p.finished ? `after run ${p.runIndex}` : p.rlStep < 0 ? `run ${p.runIndex + 1}, before evaluation` : `run ${p.runIndex + 1}, step ${p.rlStep}`;
}

/** File name of an exported checkpoint: run id and position ('…-run1-step3.hlab', '…-after-run1.hlab'), not the store's step number. */
function checkpointFileName(runId: string, step: number): string {
  const p = checkpointPosition(step);
  return `${runId}-${p.finished ? `after-run${p.runIndex}` : p.rlStep < 0 ? `run${p.runIndex + 1}-start` : `run${p.runIndex + 1}-step${p.rlStep}`}.hlab`;
}

/** Optimizer steps a step's update applied (attempted minus skipped as non-finite): 0 = the parameters did not change. */
export const appliedUpdates = (r: StepRecord) => (r.optimizerSteps ?? 0) - (r.skippedSteps ?? 0);

/**
 * Whether a run can be trained in this browser: `spec.backend` 'webgpu' needs a WebGPU adapter,
 * 'wasm' the CPU engine (SharedArrayBuffer: the page is cross-origin isolated), 'auto' either.
 * The Start/Resume buttons and the note under them follow this function only.
 */
function engineAvailable(spec: ExperimentSpec | undefined, gpu: WebGpuStatus | null, cpuEngine = globalThis.crossOriginIsolated === true): boolean {
  const webgpu = gpu === null || gpu.available;
  const backend = spec?.backend ?? 'auto';
  return backend === 'webgpu' ? webgpu : backend === 'wasm' ? cpuEngine : webgpu || cpuEngine;
}

/**
 * The name a finished run is saved under in Results: what it is (spec name, methods, model and
 * init, RL steps, seeds), the spec hash (the run id's) and the time in UTC, e.g.
 * 'quick · GRPO K=4 · mini/base · 12 steps · seed 0 · 3f2a9c1e · 2026-12-01 21:18 UTC'.
 */
function runName(spec: ExperimentSpec, runId: string): string {
  const methods = spec.methods.map((m) => m.name).join(' + ');
  const hash = runId.split('-').at(-1) ?? '';
  const stamp = new Date().toISOString().replace('T', ' ').slice(0, 16);
  return `${spec.name} · ${methods} · ${spec.model.preset}/${spec.model.init} · ${spec.rl.steps} steps · seed ${spec.seeds.join(',')} · ${hash} · ${stamp} UTC`.slice(0, 200);
}

/** Episodes of one evaluation of run `runIndex`: (base + held-out in-space + black-box + training harnesses) × test tasks × samples. */
function evalEpisodes(spec: ExperimentSpec, runIndex: number): { episodes: number; harnesses: number; tasks: number } {
  const plan = spec.seeds.flatMap((seed) => spec.methods.map((method) => ({ seed, method })));
  const r = plan[Math.min(runIndex, plan.length - 1)];
  const training = r.method.harnesses === 'none' || r.method.algorithm === 'sft' ? [] : trainingHarnesses(spec, r.method);
  const harnesses = new Set([BASE_HARNESS, ...inSpaceEvalSet(spec).ids, ...spec.evaluation.blackbox, ...training]).size;
  const tasks = testTasks(spec, r.seed).length;
  return { episodes: harnesses * tasks * spec.evaluation.samples, harnesses, tasks };
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * The "demo" setting (a JSON Merge Patch on the preset): the pretrained mini model, tier-1
 * tasks, 6 RL steps of 2 tasks × 8 rollouts and a small evaluation. Measured on this project's
 * 2-core SwiftShader (CPU WebGPU) machine under load: 81 s with groups of 4, 269 s with groups
 * of 8 — and with the current base-mini checkpoint every rollout fails (no learning signal).
 */
export const DEMO_PATCH = {
  maxTier: 1,
  model: { preset: 'mini', init: 'base' },
  rl: { steps: 6, tasksPerStep: 2, groupSize: 8 },
  evaluation: { testTasks: 2, samples: 1, inSpace: { mode: 'stratified', perDistance: 1, seed: 0 }, blackbox: ['bb-assistant'] },
} as const;

/** The common knobs shown as form controls beside the spec editor: path in the spec, label, kind. */
const KNOBS: { path: readonly string[]; id: string; label: string; options?: readonly string[]; min?: number; max?: number; hint?: string }[] = [
  { path: ['model', 'preset'], id: 'knob-model', label: 'Model', options: ['tiny', 'mini', 'small', 'base'] },
  { path: ['model', 'init'], id: 'knob-init', label: 'Init', options: ['base', 'scratch'], hint: 'base = pretrained checkpoint' },
  { path: ['backend'], id: 'knob-backend', label: 'Engine', options: ['auto', 'webgpu', 'wasm'], hint: 'auto: WebGPU on a hardware GPU, else the CPU engine (WebAssembly SIMD)' },
  { path: ['rl', 'tasksPerStep'], id: 'knob-tasks', label: 'Tasks per step', min: 1, max: 4096 },
  { path: ['rl', 'groupSize'], id: 'knob-group', label: 'Group size', min: 1, max: 256, hint: 'rollouts per task (GRPO group)' },
  { path: ['evaluation', 'testTasks'], id: 'knob-eval', label: 'Eval tasks', min: 1, max: 1000, hint: 'test tasks per suite' },
];

function getPath(json: unknown, path: readonly string[]): unknown {
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
function setKnob(text: string, preset: string, path: readonly string[], value: unknown): string | null {
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

interface Curve {
  label: string;
  steps: StepRecord[];
}

type EvalEv = Extract<RunEvent, { type: 'eval' }>;

function newTrainWorker(): Worker {
  return new Worker(new URL('../train_worker.ts', import.meta.url), { type: 'module' });
}

/** A training worker started at app load (`prewarmTrainWorker`), not yet taken by the view; null once taken or when it died. */
let prewarmed: { worker: Worker; api: Remote<TrainWorkerApi>; dead: boolean } | null = null;

/**
 * Start the training worker now, before the Train view is opened (src/app/main.ts calls it at
 * load): its scripts (and, in the dev server, its whole module graph) load while the app is
 * online, so opening Train and starting a run later makes no network request (works offline).
 * The first TrainView takes it over. Idempotent (later calls return the first promise).
 * @returns resolves true once the worker answers (its scripts are loaded), false if it failed to load
 */
export function prewarmTrainWorker(): Promise<boolean> {
  if (prewarmReady) return prewarmReady;
  const worker = newTrainWorker();
  // One comlink wrapper per worker, handed to the view: a second one would, when garbage
  // collected, send comlink's release message and end the worker's exposure.
  const p = { worker, api: wrap<TrainWorkerApi>(worker), dead: false };
  prewarmed = p;
  prewarmReady = new Promise<boolean>((resolve) => {
    // A worker whose scripts failed to load is useless: the view starts a fresh one instead.
    p.worker.addEventListener('error', (ev) => {
      ev.preventDefault();
      p.dead = true;
      resolve(false);
    });
    // The worker's comlink endpoint exists only after its module graph loaded and ran.
    void p.api.ping().then(
      () => resolve(true),
      () => resolve(false),
    );
  });
  return prewarmReady;
}
let prewarmReady: Promise<boolean> | null = null;

function takePrewarmedWorker(): { worker: Worker; api: Remote<TrainWorkerApi> } | null {
  const p = prewarmed;
  prewarmed = null;
  if (!p) return null;
  if (!p.dead) return p;
  p.worker.terminate();
  return null;
}

export class TrainView {
  private inputs: Inputs = { ...TRAIN_DEFAULTS };
  private text = '';
  private editsError: string | null = null;
  private paramsKey: string | null = null;
  private validCache: { inputs: Inputs; text: string; v: TrainInputs } | null = null;

  private worker: Worker | null = null;
  private api: Remote<TrainWorkerApi> | null = null;
  private phase: Phase = 'idle';
  /** Run id and inputs of the run in progress (or last run). */
  private activeRunId: string | null = null;
  private progress = { done: 0, total: 0, phase: '' };
  private eta: { t0: number; done0: number } | null = null;
  private curves: Curve[] = [];
  private currentRun = 0;
  private runSteps = 0;
  private evals: EvalEv[] = [];
  private messages: { kind: 'log' | 'warn'; text: string }[] = [];
  private failure: string | null = null;
  private outcome: TrainOutcome | null = null;
  private checkpoints: CheckpointRow[] = [];
  private ckptNote: string | null = null;
  private ckptLoaded = false;
  /** Run id the shown curves and evaluations belong to (a run of this session or a checkpoint's stored history). */
  private curvesRunId: string | null = null;
  /** Run id whose stored history was (being) loaded. */
  private historyFor: string | null = null;
  /** Position of the last checkpoint this session's run wrote (the pause message names it). */
  private lastCkpt: { runIndex: number; rlStep: number; finished: boolean } | null = null;
  /** Measured cost of work units this session: evaluations and RL steps (ms), for the ETA. */
  private evalMs: number[] = [];
  private stepMs: number[] = [];
  private lastStepAt: number | null = null;
  /** When the evaluation in progress started (performance.now), and which. */
  private evalStart: { at: number; phase: string } | null = null;
  /** Episodes finished / total of the evaluation that is running (runner 'evalProgress' events). */
  private evalDone: { done: number; total: number } | null = null;
  private gpu: WebGpuStatus | null = null;
  private evalSizeCache: { spec: ExperimentSpec; runIndex: number; n: ReturnType<typeof evalEpisodes> } | null = null;

  private redrawTimer: ReturnType<typeof setTimeout> | null = null;
  private lastDraw = 0;
  private ckptTimer: ReturnType<typeof setTimeout> | null = null;

  /** @param setParams called with the non-default inputs whenever the user changes one (→ URL). */
  constructor(
    private readonly el: HTMLElement,
    private readonly setParams: (p: Record<string, string>) => void,
  ) {
    void probeWebGpu().then((g) => {
      this.gpu = g;
      this.draw();
    });
  }

  /** Show the view for URL parameters (missing ones take their defaults). A run in progress is kept. */
  show(params: Record<string, string>): void {
    const inputs: Inputs = { ...TRAIN_DEFAULTS };
    for (const key of Object.keys(TRAIN_DEFAULTS) as (keyof Inputs)[]) if (params[key] !== undefined) inputs[key] = params[key];
    const key = JSON.stringify(inputs);
    if (key !== this.paramsKey) {
      this.paramsKey = key;
      this.inputs = inputs;
      this.text = this.textFor(inputs);
    }
    this.ensureWorker();
    if (!this.ckptLoaded) void this.refreshCheckpoints();
    this.draw();
  }

  /** The editor text for URL inputs: the preset with the edits applied (the preset alone when the edits are unreadable). */
  private textFor(inp: Inputs): string {
    this.editsError = null;
    const name = (PRESET_NAMES as readonly string[]).includes(inp.preset) ? inp.preset : TRAIN_DEFAULTS.preset;
    let spec: unknown = getPreset(name);
    if (inp.edits.trim() !== '') {
      try {
        spec = applyMergePatch(spec, JSON.parse(inp.edits));
      } catch (e) {
        this.editsError = `edits (from the URL) are not valid JSON, showing the preset instead: ${(e as Error).message}`;
      }
    }
    return JSON.stringify(spec, null, 2);
  }

  private pushParams(): void {
    const p: Record<string, string> = {};
    for (const key of Object.keys(TRAIN_DEFAULTS) as (keyof Inputs)[]) if (this.inputs[key] !== TRAIN_DEFAULTS[key]) p[key] = this.inputs[key];
    this.paramsKey = JSON.stringify(this.inputs);
    this.setParams(p);
  }

  private setInput(name: keyof Inputs, value: string): void {
    this.inputs = { ...this.inputs, [name]: value };
    if (name === 'preset' && (PRESET_NAMES as readonly string[]).includes(value)) {
      this.inputs = { ...this.inputs, edits: '' };
      this.text = this.textFor(this.inputs);
    }
    this.pushParams();
    this.draw();
  }

  private onEdit(text: string): void {
    this.text = text;
    this.editsError = null;
    // The URL keeps the last edit that is JSON (valid or not as a spec), so a shared link shows
    // exactly the spec and its errors; text that is not JSON yet leaves the URL as it was.
    try {
      const json = JSON.parse(text);
      const name = (PRESET_NAMES as readonly string[]).includes(this.inputs.preset) ? this.inputs.preset : TRAIN_DEFAULTS.preset;
      const patch = mergePatch(getPreset(name), json);
      this.inputs = { ...this.inputs, edits: patch === undefined ? '' : JSON.stringify(patch) };
      this.pushParams();
    } catch {
      /* not JSON yet: the error is listed next to the editor */
    }
    this.draw();
  }

  private knob(path: readonly string[], value: unknown): void {
    const name = (PRESET_NAMES as readonly string[]).includes(this.inputs.preset) ? this.inputs.preset : TRAIN_DEFAULTS.preset;
    const t = setKnob(this.text, name, path, value);
    if (t !== null) this.onEdit(t);
  }

  private applyDemo(): void {
    const name = (PRESET_NAMES as readonly string[]).includes(this.inputs.preset) ? this.inputs.preset : TRAIN_DEFAULTS.preset;
    const spec = applyMergePatch(getPreset(name), {
      ...DEMO_PATCH,
      name: `${name}-demo`,
      description: `Demo of preset '${name}': pretrained mini model, tier-1 tasks, 6 RL steps of 2 tasks × 8 rollouts, a small evaluation (a few minutes on a CPU).`,
    });
    this.inputs = { ...this.inputs, steps: '' };
    this.onEdit(JSON.stringify(spec, null, 2));
  }

  private knobsForm(v: TrainInputs, busy: boolean): TemplateResult {
    const json = v.specJson;
    return html`<form class="card controls train-knobs" aria-label="Common settings" @submit=${(e: Event) => e.preventDefault()}>
      ${KNOBS.map((k) => {
        const cur = getPath(json, k.path);
        return field(
          k.id,
          k.label,
          k.options
            ? html`<select id=${k.id} ?disabled=${busy || !json} @change=${(e: Event) => this.knob(k.path, (e.target as HTMLSelectElement).value)}>
                ${k.options.map((o) => html`<option value=${o} .selected=${live(cur === o)}>${o}</option>`)}
              </select>`
            : html`<input id=${k.id} type="number" min=${k.min ?? 0} max=${k.max ?? 1e9} step="1" style="width:6rem" ?disabled=${busy || !json} .value=${live(cur === undefined ? '' : String(cur))}
                @change=${(e: Event) => {
                  const n = Number((e.target as HTMLInputElement).value);
                  if (Number.isInteger(n)) this.knob(k.path, n);
                }} />`,
          null,
          k.hint,
        );
      })}
      <div class="field"><span class="label-like">Size</span>
        <button type="button" id="train-demo" class="secondary" ?disabled=${busy} @click=${() => this.applyDemo()}
          title="pretrained mini model, tier-1 tasks, 6 RL steps of 2 × 8 rollouts, a small evaluation (2 test tasks, one black-box harness); measured 1.5–4.5 min on a busy 2-core SwiftShader machine">Demo (small run)</button></div>
    </form>`;
  }

  private resetToPreset(): void {
    this.inputs = { ...this.inputs, edits: '' };
    this.text = this.textFor(this.inputs);
    this.pushParams();
    this.draw();
  }

  // ---- worker ------------------------------------------------------------------------------

  private ensureWorker(): Remote<TrainWorkerApi> {
    if (this.api) return this.api;
    const pre = takePrewarmedWorker();
    const w = pre?.worker ?? newTrainWorker();
    w.addEventListener('error', (ev) => {
      ev.preventDefault();
      this.onWorkerDied(`the training worker crashed${ev.message ? ` (${ev.message})` : ''}`);
    });
    this.worker = w;
    this.api = pre?.api ?? wrap<TrainWorkerApi>(w);
    return this.api;
  }

  /** Drop the worker (a crashed one, or one whose GPU device was lost): the next command starts a fresh one. */
  private dropWorker(): void {
    this.worker?.terminate();
    this.worker = null;
    this.api = null;
  }

  private onWorkerDied(why: string): void {
    if (this.phase !== 'running' && this.phase !== 'stopping') {
      this.dropWorker();
      return;
    }
    this.fail(why);
    this.dropWorker();
  }

  private fail(why: string): void {
    this.phase = 'failed';
    this.failure = why;
    this.eta = null;
    void this.refreshCheckpoints();
    this.draw();
  }

  private async refreshCheckpoints(): Promise<void> {
    try {
      this.checkpoints = await this.ensureWorker().listCheckpoints();
      this.ckptLoaded = true;
      this.historyFor = null; // the stored history may have changed: read it again when idle
    } catch (e) {
      this.ckptNote = `Could not list checkpoints: ${(e as Error).message}`;
    }
    this.scheduleDraw();
  }

  private scheduleCheckpointRefresh(): void {
    if (this.ckptTimer) return;
    this.ckptTimer = setTimeout(() => {
      this.ckptTimer = null;
      void this.refreshCheckpoints();
    }, CKPT_REFRESH_MS);
  }

  /**
   * When idle, show what is stored for the spec in the editor: its latest checkpoint's curves,
   * evaluations and progress (after a reload the charts are not empty while a checkpoint
   * exists), or nothing when the spec has no checkpoint. Called by every draw; loads once per
   * run id and checkpoint list.
   */
  private syncStoredHistory(v: TrainInputs): void {
    if (this.phase === 'running' || this.phase === 'stopping' || !this.ckptLoaded) return;
    const runId = v.runId ?? null;
    if (runId === this.historyFor) return;
    this.historyFor = runId;
    const latest = runId ? this.checkpoints.find((c) => c.runId === runId && c.isLatest) : undefined;
    if (!runId || !latest || !v.spec) {
      if (this.curvesRunId !== runId && this.phase !== 'failed') this.clearShown(runId);
      return;
    }
    // A run of this session that ended here already shows everything (and its live ETA data).
    if (this.curvesRunId === runId && (this.phase === 'paused' || this.phase === 'done' || this.phase === 'failed')) return;
    const spec = v.spec;
    void this.ensureWorker()
      .loadHistory(runId)
      .then((h) => {
        if (this.historyFor !== runId || this.phase === 'running' || this.phase === 'stopping') return;
        if (h) this.showStored(runId, spec, h);
        else this.clearShown(runId);
        this.scheduleDraw();
      })
      .catch((e: Error) => {
        this.messages = [{ kind: 'warn', text: `Could not read the stored history: ${e.message}` }];
        this.scheduleDraw();
      });
  }

  private clearShown(runId: string | null): void {
    this.curves = [];
    this.evals = [];
    this.messages = [];
    this.currentRun = 0;
    this.runSteps = 0;
    this.progress = { done: 0, total: 0, phase: '' };
    this.curvesRunId = runId;
  }

  /** Draw a checkpoint's stored history as the charts, evaluation table and progress of the run. */
  private showStored(runId: string, spec: ExperimentSpec, h: StoredHistory): void {
    const plan = spec.seeds.flatMap((seed) => spec.methods.map((m) => ({ seed, method: m.name })));
    this.curves = h.curves.map((c) => ({ label: runLabel(c.method, c.seed), steps: c.steps }));
    if (h.runIndex < plan.length) this.curves[h.runIndex] = { label: runLabel(plan[h.runIndex].method, plan[h.runIndex].seed), steps: h.current.history };
    this.currentRun = Math.min(h.runIndex, plan.length - 1);
    this.runSteps = spec.rl.steps;
    const evals: EvalEv[] = [];
    h.results.forEach((r, i) => {
      evals.push({
        type: 'eval',
        runIndex: i,
        method: r.method,
        seed: r.seed,
        when: 'before',
        passAt1: r.before,
        training: r.trainHarnesses.before,
        episodes: NaN,
        restored: true,
      });
      evals.push({ type: 'eval', runIndex: i, method: r.method, seed: r.seed, when: 'after', passAt1: r.after, training: r.trainHarnesses.after, episodes: NaN, restored: true });
    });
    if (h.current.before && h.runIndex < plan.length)
      evals.push({ type: 'eval', runIndex: h.runIndex, method: plan[h.runIndex].method, seed: plan[h.runIndex].seed, when: 'before', ...h.current.before, restored: true });
    this.evals = evals;
    const unitsPerRun = spec.rl.steps + 2;
    const done = h.results.length * unitsPerRun + (h.runIndex < plan.length ? (h.current.before ? 1 : 0) + h.current.history.length : 0);
    this.progress = { done, total: plan.length * unitsPerRun, phase: `stored in this browser (checkpoint: ${positionText(h)})` };
    this.messages = [];
    this.curvesRunId = runId;
  }

  private async run(resume: boolean): Promise<void> {
    const v = this.validated();
    if (hasErrors(v) || !v.spec || !v.runId || !v.specJson) return;
    const hasCkpt = this.checkpoints.some((c) => c.runId === v.runId && c.isLatest);
    if (!resume && hasCkpt && !window.confirm(`Start over? This deletes the checkpoints of ${v.runId} (export them first to keep them) and trains from the beginning.`)) return;
    const api = this.ensureWorker();
    this.phase = 'running';
    this.failure = null;
    this.outcome = null;
    this.activeRunId = v.runId;
    this.progress = { done: 0, total: 0, phase: resume ? 'resuming…' : 'starting…' };
    this.eta = null;
    // A resume keeps what is shown until the worker sends the checkpoint's history (the
    // 'resume' event replaces the curves), so the step counter never drops back to 0.
    if (!resume) this.curves = [];
    this.curvesRunId = v.runId;
    this.historyFor = v.runId;
    this.lastCkpt = null;
    this.evalMs = [];
    this.stepMs = [];
    this.lastStepAt = null;
    this.evalStart = null;
    this.evals = [];
    this.messages = [];
    this.draw();
    const saveAs = runName(v.spec, v.runId);
    try {
      const out = await api.start(
        v.specJson,
        { runId: v.runId, resume, saveAs, ...(v.steps !== undefined ? { steps: v.steps } : {}) },
        proxy((ev: RunEvent) => this.onEvent(ev)),
      );
      if ((this.phase as Phase) === 'failed') return; // the worker died meanwhile; its message stays
      this.outcome = out;
      this.phase = out.output.status === 'done' ? 'done' : 'paused';
      this.eta = null;
      void this.refreshCheckpoints();
      this.draw();
    } catch (e) {
      if ((this.phase as Phase) === 'failed') return;
      const msg = (e as Error).message ?? String(e);
      const lost = msg.startsWith('WebGPU device lost');
      this.fail(msg);
      // A lost device is not recovered in this worker: Resume starts a fresh one.
      if (lost || /device|GPU/i.test(msg)) this.dropWorker();
    }
  }

  private pause(): void {
    if (this.phase !== 'running' || !this.api) return;
    this.phase = 'stopping';
    void this.api.requestStop();
    this.draw();
  }

  private onEvent(ev: RunEvent): void {
    switch (ev.type) {
      case 'progress':
        if (!this.eta || ev.done < this.eta.done0) this.eta = { t0: performance.now(), done0: ev.done };
        this.progress = { done: ev.done, total: ev.total, phase: ev.phase };
        if (ev.phase.startsWith('eval ')) {
          if (this.evalStart?.phase !== ev.phase) {
            this.evalStart = { at: performance.now(), phase: ev.phase };
            this.evalDone = null;
          }
        } else this.evalStart = null;
        if (!ev.phase.startsWith('RL ')) this.lastStepAt = null;
        break;
      case 'run':
        this.currentRun = ev.runIndex;
        this.runSteps = ev.steps;
        this.curves[ev.runIndex] ??= { label: runLabel(ev.method, ev.seed), steps: [] };
        break;
      case 'resume':
        this.curves = ev.curves.map((c) => ({ label: runLabel(c.method, c.seed), steps: c.steps }));
        this.currentRun = ev.runIndex;
        break;
      case 'step': {
        const c = (this.curves[ev.runIndex] ??= { label: runLabel(ev.method, ev.seed), steps: [] });
        c.steps.push(ev.record);
        this.currentRun = ev.runIndex;
        // Wall time between consecutive steps (rollouts, update, checkpoint); the first step of a segment: rollouts + update.
        const now = performance.now();
        this.stepMs.push(this.lastStepAt !== null ? now - this.lastStepAt : ev.record.rolloutMs + ev.record.updateMs);
        this.lastStepAt = now;
        break;
      }
      case 'evalProgress':
        this.evalDone = { done: ev.done, total: ev.total };
        break;
      case 'eval':
        this.evalDone = null;
        this.evals.push(ev);
        if (!ev.restored && this.evalStart) this.evalMs.push(performance.now() - this.evalStart.at);
        this.evalStart = null;
        break;
      case 'checkpoint':
        this.lastCkpt = checkpointPosition(ev.step);
        this.scheduleCheckpointRefresh();
        break;
      case 'log':
      case 'warn':
        this.messages.push({ kind: ev.type, text: ev.message });
        if (this.messages.length > MAX_MESSAGES) this.messages.splice(0, this.messages.length - MAX_MESSAGES);
        break;
    }
    this.scheduleDraw();
  }

  /** Redraw at most every REDRAW_MS (events can come in bursts). */
  private scheduleDraw(): void {
    if (this.redrawTimer) return;
    const wait = Math.max(0, REDRAW_MS - (performance.now() - this.lastDraw));
    this.redrawTimer = setTimeout(() => {
      this.redrawTimer = null;
      this.draw();
    }, wait);
  }

  // ---- checkpoints -------------------------------------------------------------------------

  private async exportCheckpoint(row: CheckpointRow): Promise<void> {
    try {
      const bytes = await this.ensureWorker().exportCheckpoint(row.runId, row.step);
      downloadBlob(checkpointFileName(row.runId, row.step), new Blob([bytes as Uint8Array<ArrayBuffer>], { type: 'application/octet-stream' }));
      this.ckptNote = `Exported ${row.runId} step ${row.step} (${fmtBytes(bytes.byteLength)}).`;
    } catch (e) {
      this.ckptNote = `Export failed: ${(e as Error).message}`;
    }
    this.draw();
  }

  private async importCheckpoint(input: HTMLInputElement): Promise<void> {
    const file = input.files?.[0];
    if (!file) return;
    try {
      const r = await this.ensureWorker().importCheckpoint(new Uint8Array(await file.arrayBuffer()));
      const v = this.validated();
      this.ckptNote =
        `Imported ${file.name}: run ${r.runId}, step ${r.step}.` +
        (v.runId && v.runId !== r.runId ? ` Resume continues the run of the spec in the editor (${v.runId}); open the spec this checkpoint was written for to resume it.` : '');
    } catch (e) {
      this.ckptNote = `Import of ${file.name} failed: ${(e as Error).message}`;
    }
    input.value = '';
    await this.refreshCheckpoints();
  }

  private async deleteCheckpoint(row: CheckpointRow): Promise<void> {
    if (!window.confirm(`Delete the checkpoint of ${row.runId} at ${positionText(row)}? This cannot be undone (export it first to keep it).`)) return;
    try {
      await this.ensureWorker().deleteCheckpoint(row.runId, row.step);
      this.ckptNote = `Deleted ${row.runId} step ${row.step}.`;
    } catch (e) {
      this.ckptNote = `Delete failed: ${(e as Error).message}`;
    }
    await this.refreshCheckpoints();
  }

  // ---- drawing -----------------------------------------------------------------------------

  /**
   * validateTrainInputs of the current inputs, recomputed only when they change: draws come
   * every REDRAW_MS during a run and would otherwise re-parse and re-hash the spec each time.
   * (Every input change replaces `this.inputs` or `this.text`, so identity is the key.)
   */
  private validated(): TrainInputs {
    const c = this.validCache;
    if (c && c.inputs === this.inputs && c.text === this.text) return c.v;
    const v = validateTrainInputs(this.inputs, this.text);
    this.validCache = { inputs: this.inputs, text: this.text, v };
    return v;
  }

  private draw(): void {
    this.lastDraw = performance.now();
    const v = this.validated();
    this.syncStoredHistory(v);
    render(this.template(v), this.el);
    // An evaluation sends no event until it ends: redraw once a second meanwhile, so its
    // running time and the ETA move.
    if (this.evalStart && (this.phase === 'running' || this.phase === 'stopping') && !this.tick) {
      this.tick = setTimeout(() => {
        this.tick = null;
        this.scheduleDraw();
      }, 1000);
    }
  }
  private tick: ReturnType<typeof setTimeout> | null = null;

  private template(v: TrainInputs): TemplateResult {
    const busy = this.phase === 'running' || this.phase === 'stopping';
    const latest = v.runId ? this.checkpoints.find((c) => c.runId === v.runId && c.isLatest) : undefined;
    const invalid = hasErrors(v);
    return html`
      <section class="intro">
        <h1 tabindex="-1">Train</h1>
        <p>Pick a preset or edit its spec, then <strong>Start</strong>. Training runs in a background worker on
          WebGPU on a hardware GPU, else on the CPU engine (WebAssembly SIMD; Engine picks); every RL step is checkpointed in this browser, so <strong>Pause</strong>, a reload or a lost GPU
          loses at most one step — <strong>Resume</strong> continues from the last checkpoint.</p>
      </section>
      <div class="train-layout">
        <div class="train-left">
          <form class="card controls train-controls" aria-label="Run inputs" @submit=${(e: Event) => e.preventDefault()}>
            ${field(
              'train-preset',
              'Preset',
              html`<select id="train-preset" ?disabled=${busy} aria-invalid=${v.errors.preset ? 'true' : 'false'} aria-describedby=${errorId('train-preset')}
                @change=${(e: Event) => this.setInput('preset', (e.target as HTMLSelectElement).value)}>
                ${PRESET_NAMES.map((n) => html`<option value=${n} ?selected=${this.inputs.preset === n}>${n}</option>`)}
                ${(PRESET_NAMES as readonly string[]).includes(this.inputs.preset) ? nothing : html`<option value=${this.inputs.preset} selected>${this.inputs.preset} (invalid)</option>`}
              </select>`,
              v.errors.preset,
            )}
            ${this.textField('seed', 'Seed', v.errors.seed, busy, `default: spec.seeds (${v.spec?.seeds.join(', ') ?? '…'})`)}
            ${this.textField('steps', 'RL steps', v.errors.steps, busy, `default: spec.rl.steps (${v.spec?.rl.steps ?? '…'})`)}
          </form>
          ${this.knobsForm(v, busy)}
          <section class="card" aria-labelledby="train-spec-label">
            <div class="train-spec-head">
              <label id="train-spec-label" for="train-spec"><strong>Spec</strong> <span class="sub">JSON, checked as you type</span></label>
              <button type="button" class="small secondary" ?disabled=${busy || this.inputs.edits === ''} @click=${() => this.resetToPreset()}>Reset to preset</button>
            </div>
            <textarea id="train-spec" spellcheck="false" autocomplete="off" rows="18" ?readonly=${busy}
              aria-invalid=${v.errors.spec.length ? 'true' : 'false'} aria-describedby="train-spec-errors"
              .value=${live(this.text)} @input=${(e: Event) => this.onEdit((e.target as HTMLTextAreaElement).value)}></textarea>
            <div id="train-spec-errors" class="train-spec-errors" role=${v.errors.spec.length ? 'alert' : nothing}>
              ${this.editsError ? html`<p class="error">${this.editsError}</p>` : nothing}
              ${
                v.errors.spec.length
                  ? html`<p class="error-title">${v.errors.spec.length} error${v.errors.spec.length > 1 ? 's' : ''} — Start is disabled until fixed:</p>
                    <ul class="errors">${v.errors.spec.map((e) => html`<li>${e}</li>`)}</ul>`
                  : v.spec
                    ? html`<p class="ok">Valid spec: ${v.spec.methods.length} method${v.spec.methods.length > 1 ? 's' : ''} × ${v.spec.seeds.length} seed${v.spec.seeds.length > 1 ? 's' : ''},
                      ${v.steps ?? v.spec.rl.steps} RL steps each, model ${v.spec.model.preset} (${v.spec.model.init}). Run id <code>${v.runId}</code>.</p>`
                    : nothing
              }
            </div>
          </section>
        </div>
        <div class="train-right">
          ${this.statusCard(v, busy, invalid, latest)}
          ${this.chartsCard(v.spec)}
        </div>
      </div>
      ${this.resultsCard()}
      ${this.checkpointsCard(v, busy)}
    `;
  }

  private textField(name: 'seed' | 'steps', label: string, err: string | undefined, busy: boolean, hint: string): TemplateResult {
    return field(
      `train-${name}`,
      label,
      html`<input id=${`train-${name}`} type="text" inputmode="numeric" autocomplete="off" style="width:7rem" ?disabled=${busy}
        placeholder="from spec" .value=${live(this.inputs[name])} aria-invalid=${err ? 'true' : 'false'} aria-describedby=${errorId(`train-${name}`)}
        @change=${(e: Event) => this.setInput(name, (e.target as HTMLInputElement).value)} />`,
      err,
      hint,
    );
  }

  /** Episodes of the evaluation of run `runIndex` (cached per spec). */
  private evalSize(spec: ExperimentSpec, runIndex: number): ReturnType<typeof evalEpisodes> | null {
    const c = this.evalSizeCache;
    if (c && c.spec === spec && c.runIndex === runIndex) return c.n;
    try {
      const n = evalEpisodes(spec, runIndex);
      this.evalSizeCache = { spec, runIndex, n };
      return n;
    } catch {
      return null;
    }
  }

  /**
   * Seconds left, weighing each kind of work unit by its measured cost: the mean of the last
   * RL steps for the steps left, the mean measured evaluation for the evaluations left (before
   * one was measured: a step's cost per rollout episode × the evaluation's episodes), minus the
   * time the evaluation in progress has run. null while a needed cost is unknown.
   */
  private etaSeconds(spec: ExperimentSpec | undefined): number | null {
    const p = this.progress;
    if (!spec || !p.total) return null;
    const runs = spec.seeds.length * spec.methods.length;
    const stepsDone = this.curves.reduce((a, c) => a + (c?.steps.length ?? 0), 0);
    const stepsLeft = Math.max(0, runs * spec.rl.steps - stepsDone);
    const evalsLeft = Math.max(0, p.total - p.done - stepsLeft);
    const recent = this.stepMs.slice(-5);
    const stepCost = recent.length ? mean(recent) : null;
    const size = this.evalSize(spec, this.currentRun);
    const stepEpisodes = spec.rl.tasksPerStep * spec.rl.groupSize;
    const evalCost = this.evalMs.length ? mean(this.evalMs) : stepCost !== null && size ? (stepCost * size.episodes) / stepEpisodes : null;
    if ((stepsLeft > 0 && stepCost === null) || (evalsLeft > 0 && evalCost === null)) return null;
    let ms = stepsLeft * (stepCost ?? 0) + evalsLeft * (evalCost ?? 0);
    if (this.evalStart && evalCost !== null) ms -= Math.min(evalCost, performance.now() - this.evalStart.at);
    return Math.max(0, ms / 1000);
  }

  /** The updates of the current run: applied optimizer steps, dropped groups, and the "no learning signal" banner when nothing was applied. */
  private updatesBlock(spec: ExperimentSpec | undefined): TemplateResult {
    const cur = this.curves[this.currentRun];
    const steps = cur?.steps ?? [];
    if (!steps.length) return html``;
    const applied = steps.reduce((a, r) => a + appliedUpdates(r), 0);
    const noUpdate = steps.filter((r) => appliedUpdates(r) === 0);
    const dropped = steps.reduce((a, r) => a + (r.droppedGroups ?? 0), 0);
    const skipped = steps.reduce((a, r) => a + (r.skippedSteps ?? 0), 0);
    const groups = (spec?.rl.tasksPerStep ?? 0) * steps.length;
    const allDropped = noUpdate.length === steps.length && spec !== undefined && steps.every((r) => r.droppedGroups >= spec.rl.tasksPerStep);
    return html`<p class="train-updates" id="train-updates">${cur.label}: <strong>${applied}</strong> optimizer step${applied === 1 ? '' : 's'} applied in
        ${steps.length - noUpdate.length} of ${steps.length} RL step${steps.length === 1 ? '' : 's'} ·
        dropped groups (equal rewards): <strong>${dropped}</strong>${groups ? ` of ${groups}` : ''}${skipped ? html` · skipped (non-finite): <strong>${skipped}</strong>` : nothing}
        ${noUpdate.length && noUpdate.length < steps.length ? html` · no update at step${noUpdate.length > 1 ? 's' : ''} ${noUpdate.map((r) => r.step).join(', ')} (shaded in the charts)` : nothing}</p>
      ${
        noUpdate.length === steps.length
          ? html`<div class="no-signal" id="train-no-signal" role="status">
            ${
              allDropped
                ? html`<strong>No learning signal: all groups had equal rewards, 0 updates</strong> (${steps.length} RL step${steps.length === 1 ? '' : 's'}, ${dropped} group${dropped === 1 ? '' : 's'} dropped).
                  GRPO learns from the differences between the rewards of one group's rollouts; when they are all equal (typically all 0 for a weak model)
                  the advantages are 0 and the group is left out. The parameters are unchanged, so loss, KL, clip fraction and gradient norm are not measured
                  (shaded in the charts) and "after" will equal "before".${this.noSignalAdvice(spec)}`
                : html`<strong>0 updates applied</strong> in ${steps.length} RL step${steps.length === 1 ? '' : 's'}${skipped ? ` (${skipped} optimizer step${skipped === 1 ? '' : 's'} skipped: non-finite loss or gradient)` : ''}: the parameters are unchanged.`
            }
          </div>`
          : nothing
      }`;
  }

  /** What to change when no group had a learning signal: only the settings not already tried. */
  private noSignalAdvice(spec: ExperimentSpec | undefined): string {
    if (!spec) return '';
    const tips: string[] = [];
    if (spec.model.init === 'scratch') tips.push('the pretrained init (a scratch model fails every task)');
    if (spec.rl.groupSize < 16) tips.push(`a larger group size (now ${spec.rl.groupSize}: more rollouts per task, more chances that one differs)`);
    if (spec.maxTier > 1) tips.push('tier-1 tasks (maxTier 1)');
    const before = this.evals.filter((e) => e.when === 'before' && e.runIndex === this.currentRun);
    const zero = before.length > 0 && before.every((e) => e.passAt1.base === 0 && (e.training === 0 || !Number.isFinite(e.training)));
    return (
      (zero ? ` The starting model passes none of the evaluation tasks (pass@1 0 before training), so its rollouts all fail alike.` : '') +
      (tips.length ? ` Try ${tips.join(', ')}.` : ' A stronger starting checkpoint (more pretraining) is what is missing.')
    );
  }

  private statusCard(v: TrainInputs, busy: boolean, invalid: boolean, latest: CheckpointRow | undefined): TemplateResult {
    const p = this.progress;
    const frac = p.total ? p.done / p.total : 0;
    let etaText = '';
    if (this.phase === 'running' || this.phase === 'stopping') {
      const eta = this.etaSeconds(v.spec);
      etaText = eta === null ? 'ETA: estimating… (after the first RL step)' : `ETA ${fmtDuration(eta)}`;
    }
    const cur = this.curves[this.currentRun];
    const step = cur?.steps.at(-1)?.step ?? 0;
    const where = latest ? positionText(latest) : '';
    // A checkpoint after the last (seed × method) run has nothing left to resume: Resume would
    // only redo the final evaluation and save a duplicate result ("at run 2/1").
    const totalRuns = v.spec ? v.spec.seeds.length * v.spec.methods.length : Infinity;
    const complete = !!latest && latest.finished && latest.runIndex >= totalRuns;
    const canTrain = engineAvailable(v.spec, this.gpu);
    // The pause message names the checkpoint this run wrote last (the list may not be refreshed yet).
    const pausedAt = this.lastCkpt && this.curvesRunId === v.runId ? positionText(this.lastCkpt) : where;
    const phaseText: Record<Phase, string> = {
      idle: complete
        ? `This spec has a finished run (${where}): its results are in Results; Start over trains it again.`
        : latest
          ? `A checkpoint of this spec exists (${where}): its history is shown below; Resume continues from it.`
          : 'Ready.',
      running: 'Training…',
      stopping: 'Pausing: finishing the current step, then saving a checkpoint…',
      paused: `Paused${pausedAt ? ` (checkpoint: ${pausedAt})` : ''}. Resume continues from it.`,
      done: 'Finished.',
      failed: 'Stopped by an error.',
    };
    const evalNow = this.evalStart && v.spec ? this.evalSize(v.spec, this.currentRun) : null;
    const bb = [...new Set([...(v.spec?.evaluation.blackbox ?? []), ...this.evals.flatMap((e) => Object.keys(e.passAt1.blackbox ?? {}))])];
    return html`<section class="card train-status" aria-labelledby="train-status-h">
      <h2 id="train-status-h">Run</h2>
      <div class="train-buttons">
        <button id="train-start" type="button" ?disabled=${busy || invalid || !canTrain} @click=${() => void this.run(false)}
          title=${latest ? 'Start from the beginning (this spec’s checkpoints are deleted; export them first to keep them)' : 'Start a new run'}>${latest ? 'Start over' : 'Start'}</button>
        <button id="train-pause" type="button" ?disabled=${this.phase !== 'running'} @click=${() => this.pause()}>Pause</button>
        <button id="train-resume" type="button" ?disabled=${busy || invalid || !latest || complete || !canTrain} @click=${() => void this.run(true)}
          title=${complete ? 'Nothing to resume: every run of this spec is finished' : 'Continue from the latest checkpoint of this spec'}>Resume</button>
      </div>
      ${
        canTrain
          ? nothing
          : html`<p class="error-box" id="train-no-engine">${
              (v.spec?.backend ?? 'auto') === 'webgpu'
                ? 'This spec asks for WebGPU (backend "webgpu"), which this browser does not offer (see the banner above for how to enable it); choose Engine auto or wasm to train on the CPU engine.'
                : 'Training needs WebGPU or the CPU engine; the CPU engine needs a cross-origin-isolated page (SharedArrayBuffer), which this one is not.'
            }
            Stored checkpoints and their history stay readable here.</p>`
      }
      <p id="train-phase" class="train-phase" role="status" data-phase=${this.phase}>${phaseText[this.phase]}</p>
      ${
        this.failure
          ? html`<div id="train-failure" class="error-box" role="alert">
            <strong>Training stopped: ${this.failure}</strong><br />
            ${
              latest
                ? html`Nothing is lost up to the last checkpoint (${where}). Press <strong>Resume</strong> to continue from it.
                  ${/device lost|GPU/i.test(this.failure) ? html`If the GPU is lost again, reload the page or close other GPU-heavy tabs, then Resume.` : nothing}`
                : html`No checkpoint was written, so there is nothing to resume: fix the cause${/device lost|GPU/i.test(this.failure) ? ' (reload the page or close other GPU-heavy tabs)' : ''}, then <strong>Start</strong> again.`
            }
          </div>`
          : nothing
      }
      <div class="train-progress">
        <progress id="train-progress" max=${Math.max(1, p.total)} .value=${p.done} aria-label="Run progress"></progress>
        <span class="train-progress-text">
          <span id="train-units">${p.done}/${p.total || '…'} units</span> ·
          <span id="train-step" data-step=${step}>step ${step}/${this.runSteps || v.steps || v.spec?.rl.steps || 0}</span>
          ${etaText ? html` · <span id="train-eta">${etaText}</span>` : nothing}
        </span>
        <div class="train-progress-phase">${p.phase} ${p.total ? html`(${(frac * 100).toFixed(0)}%)` : nothing}
          ${
            evalNow && this.evalStart
              ? html`<span id="train-eval-now"> · ${this.evalDone ? html`<span id="train-eval-done">${this.evalDone.done} / ${this.evalDone.total} episodes done</span> of ` : nothing}${evalNow.episodes} episodes (${evalNow.harnesses} harness${evalNow.harnesses === 1 ? '' : 'es'} × ${evalNow.tasks} test task${evalNow.tasks === 1 ? '' : 's'} × ${v.spec!.evaluation.samples} sample${v.spec!.evaluation.samples === 1 ? '' : 's'}), running for ${fmtDuration((performance.now() - this.evalStart.at) / 1000)}</span>`
              : nothing
          }</div>
      </div>
      ${this.updatesBlock(v.spec)}
      ${
        this.evals.length
          ? html`<div class="scroll-x"><table class="compact train-evals" id="train-evals">
            <caption>Evaluations (pass@1, %)${this.evals.some((e) => e.restored) ? ' · "stored": read from the checkpoint' : ''}</caption>
            <thead><tr><th scope="col">run</th><th scope="col">when</th><th scope="col">base</th><th scope="col">in-space</th>${bb.map((b) => html`<th scope="col" data-bb=${b}>${b}</th>`)}<th scope="col">training harnesses</th><th scope="col">episodes</th></tr></thead>
            <tbody>${this.evals.map((e) => html`<tr><td>${e.method} · seed ${e.seed}</td><td>${e.when}${e.restored ? ' (stored)' : ''}</td><td class="num">${fmtPct(e.passAt1.base)}</td><td class="num">${fmtPct(e.passAt1.inSpace)}</td>${bb.map((b) => html`<td class="num" data-bb=${b}>${fmtPct(e.passAt1.blackbox?.[b])}</td>`)}<td class="num">${fmtPct(e.training)}</td><td class="num">${Number.isFinite(e.episodes) ? e.episodes : '—'}</td></tr>`)}</tbody>
          </table></div>`
          : nothing
      }
      ${this.messages.length ? html`<ul class="train-messages" aria-label="Run messages">${this.messages.map((m) => html`<li class=${m.kind}>${m.text}</li>`)}</ul>` : nothing}
    </section>`;
  }

  /**
   * Series labels of the charts: one per (seed, method) run in the runner's order, known from the
   * spec before anything runs, so the charts are built once and training only updates their data.
   */
  private runLabels(spec: ExperimentSpec | undefined): string[] {
    if (spec) return spec.seeds.flatMap((seed) => spec.methods.map((m) => runLabel(m.name, seed)));
    return this.curves.map((c) => c?.label ?? '');
  }

  /** Series per run of one StepRecord metric, aligned on the union of steps. */
  /**
   * @param ofUpdate the metric exists only when the step applied an update (loss, KL, clip
   *   fraction, gradient norm): steps without one have no value (a gap) and are shaded.
   */
  private metricChart(labels: string[], id: string, title: string, pick: (r: StepRecord) => number | null | undefined, yLabel = title, ofUpdate = false): TemplateResult {
    const xs = [...new Set(this.curves.flatMap((c) => c?.steps.map((s) => s.step) ?? []))].sort((a, b) => a - b);
    const value = (r: StepRecord) => (ofUpdate && appliedUpdates(r) === 0 ? null : (pick(r) ?? null));
    // x where no run that has this step applied an update.
    const noData = ofUpdate ? xs.filter((x) => this.curves.every((c) => !c || c.steps.every((r) => r.step !== x || appliedUpdates(r) === 0))) : undefined;
    const spec: LineChartSpec = {
      x: xs,
      xLabel: 'RL step',
      yLabel,
      ...(noData ? { noData } : {}),
      series: labels.map((label, i) => {
        const by = new Map((this.curves[i]?.steps ?? []).map((s) => [s.step, value(s)]));
        return { label, color: SERIES_COLORS[i % SERIES_COLORS.length], values: xs.map((x) => by.get(x) ?? null) };
      }),
    };
    return html`<figure class="train-chart"><figcaption>${title}</figcaption><hl-line-chart id=${id} .spec=${spec}></hl-line-chart></figure>`;
  }

  /** pass@1 of the current run's rollouts per harness group (distance to the base harness), per step. */
  private passByGroupChart(spec: ExperimentSpec | undefined): TemplateResult {
    const cur = this.curves[this.currentRun];
    const steps = cur?.steps ?? [];
    // Fixed groups (every distance a 5-component harness can have, and the spec's black-box
    // training harnesses), so the chart's series never change during a run.
    const bb = spec ? spec.methods.flatMap((m) => (m.harnesses === 'blackbox' && m.blackbox ? [m.blackbox] : [])) : [];
    const groups = [...new Set(['base (d=0)', 'd=1', 'd=2', 'd=3', 'd=4', 'd=5', ...bb, ...steps.flatMap((s) => Object.keys(s.passByHarness ?? {}).map(harnessGroup))])];
    const chart: LineChartSpec = {
      x: steps.map((s) => s.step),
      xLabel: 'RL step',
      yLabel: 'pass@1',
      series: groups.map((g, i) => ({
        label: g,
        color: SERIES_COLORS[i % SERIES_COLORS.length],
        values: steps.map((s) => {
          const vals = Object.entries(s.passByHarness ?? {})
            .filter(([h]) => harnessGroup(h) === g)
            .map(([, p]) => p);
          return vals.length ? vals.reduce((a, b) => a + b, 0) / vals.length : null;
        }),
      })),
    };
    return html`<figure class="train-chart"><figcaption>Rollout pass@1 by harness group <span class="sub">${cur ? `${cur.label}, ` : ''}d = distance to the base harness</span></figcaption>
      <hl-line-chart id="chart-pass-group" .spec=${chart}></hl-line-chart></figure>`;
  }

  private chartsCard(spec: ExperimentSpec | undefined): TemplateResult {
    const l = this.runLabels(spec);
    return html`<section class="card" aria-labelledby="train-charts-h">
      <h2 id="train-charts-h">Training curves <span class="sub">one point per RL step; hover for values; shaded: no update applied at that step (nothing to measure)</span></h2>
      <div class="train-charts">
        ${this.metricChart(l, 'chart-reward', 'Reward (mean verifier pass)', (r) => r.reward, 'reward')}
        ${this.passByGroupChart(spec)}
        ${this.metricChart(l, 'chart-policy-loss', 'Policy loss', (r) => r.policyLoss, 'Policy loss', true)}
        ${this.metricChart(l, 'chart-clip-frac', 'Clip fraction', (r) => r.clipFrac, 'Clip fraction', true)}
        ${this.metricChart(l, 'chart-approx-kl', 'Approx. KL (old ‖ new)', (r) => r.approxKl, 'approx KL', true)}
        ${this.metricChart(l, 'chart-entropy', 'Entropy (nats)', (r) => r.entropy, 'entropy')}
        ${this.metricChart(l, 'chart-grad-norm', 'Gradient norm (before clipping)', (r) => r.gradNorm, 'grad norm', true)}
        ${this.metricChart(l, 'chart-tokens', 'Sampling throughput', (r) => r.tokensPerSec, 'tokens/s')}
      </div>
    </section>`;
  }

  private resultsCard(): TemplateResult {
    const o = this.outcome;
    if (!o || o.output.status !== 'done') return html``;
    const runs = o.output.results.runs;
    const pair = (a: number | null | undefined, b: number | null | undefined) => `${fmtPct(a)} → ${fmtPct(b)}`;
    const bb = [...new Set(runs.flatMap((r) => [...Object.keys(r.before.blackbox ?? {}), ...Object.keys(r.after.blackbox ?? {})]))];
    return html`<section class="card" aria-labelledby="train-results-h" id="train-results">
      <h2 id="train-results-h">Results <span class="sub">${o.output.results.spec}, ${fmtDuration(runs.reduce((a, r) => a + (r.seconds ?? 0), 0))} of training and evaluation (all sessions)</span></h2>
      <p>${
        o.savedAs
          ? html`Saved in this browser as <strong>${o.savedAs}</strong>.
            <a id="train-results-link" href=${`#/results?run=${encodeURIComponent(o.savedAs)}`}>Open in Results</a> ·
            <a href=${`#/trajectories?run=${encodeURIComponent(o.savedAs)}`}>Trajectories</a>`
          : html`<span class="error">Not saved to Results: ${o.saveError ?? 'unknown error'}</span>`
      }</p>
      <div class="scroll-x">
        <table class="compact" id="train-results-table">
          <thead><tr><th scope="col">method</th><th scope="col">seed</th><th scope="col">optimizer steps</th><th scope="col">pass@1 base (%, before → after)</th>
            <th scope="col">in-space</th>${bb.map((b) => html`<th scope="col" data-bb=${b}>${b} <span class="sub">black-box</span></th>`)}<th scope="col">training harnesses</th></tr></thead>
          <tbody>${runs.map(
            (r) => html`<tr><td>${r.method}</td><td class="num">${r.seed}</td><td class="num">${r.optimizerSteps}</td><td class="num">${pair(r.before.base, r.after.base)}</td>
              <td class="num">${pair(r.before.inSpace, r.after.inSpace)}</td>${bb.map((b) => html`<td class="num" data-bb=${b}>${pair(r.before.blackbox?.[b], r.after.blackbox?.[b])}</td>`)}<td class="num">${pair(r.trainHarnesses.before, r.trainHarnesses.after)}</td></tr>`,
          )}</tbody>
        </table>
      </div>
      ${o.output.warnings.length ? html`<ul class="train-messages">${o.output.warnings.map((w) => html`<li class="warn">${w}</li>`)}</ul>` : nothing}
    </section>`;
  }

  private checkpointsCard(v: TrainInputs, busy: boolean): TemplateResult {
    const rows = this.checkpoints;
    return html`<section class="card" aria-labelledby="train-ckpt-h">
      <h2 id="train-ckpt-h">Checkpoints <span class="sub">stored in this browser (IndexedDB); the two newest of each run are kept</span></h2>
      <div class="train-ckpt-actions">
        <label class="file-button">Import checkpoint…
          <input id="train-import" type="file" accept=".hlab,application/octet-stream" ?disabled=${busy}
            @change=${(e: Event) => void this.importCheckpoint(e.target as HTMLInputElement)} /></label>
        ${this.ckptNote ? html`<span id="train-ckpt-note" role="status">${this.ckptNote}</span>` : nothing}
      </div>
      ${
        rows.length
          ? html`<div class="scroll-x"><table class="compact" id="train-ckpt-table">
            <thead><tr><th scope="col">run id</th><th scope="col">position</th><th scope="col">saved</th><th scope="col">size</th><th scope="col"><span class="visually-hidden">actions</span></th></tr></thead>
            <tbody>${rows.map((r) => {
              const active = busy && r.runId === this.activeRunId;
              return html`<tr data-run=${r.runId} data-step=${r.step} class=${r.runId === v.runId ? 'this-spec' : ''}>
                <td><code>${r.runId}</code>${r.runId === v.runId ? html` <span class="tag">this spec</span>` : nothing}</td>
                <td>${positionText(r)}${r.isLatest ? html` <span class="tag">latest</span>` : nothing}</td>
                <td>${new Date(r.createdAt).toLocaleString()}</td>
                <td class="num">${fmtBytes(r.bytes)}</td>
                <td class="actions">
                  <button type="button" class="small" @click=${() => void this.exportCheckpoint(r)} aria-label=${`Export ${r.runId} step ${r.step}`}>Export</button>
                  <button type="button" class="small danger" ?disabled=${active} @click=${() => void this.deleteCheckpoint(r)} aria-label=${`Delete ${r.runId} step ${r.step}`}>Delete</button>
                </td>
              </tr>`;
            })}</tbody>
          </table></div>`
          : html`<p class="note" id="train-ckpt-empty">${this.ckptLoaded ? 'No checkpoints yet.' : 'Loading…'}</p>`
      }
    </section>`;
  }
}

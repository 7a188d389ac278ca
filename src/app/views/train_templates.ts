/**
 * The Train view's templates (lit-html): the door (what the lab is, what this run trains and
 * measures, the next views), the inputs form and spec editor, the run card (buttons, progress,
 * ETA, evaluations, the "no learning signal" banner), the finished run's results and the
 * checkpoint list; the training curves are train_charts.ts. They draw a TrainModel and call
 * TrainActions; views/train.ts owns the state and the worker.
 */
import { html, nothing, type TemplateResult } from 'lit-html';
import { live } from 'lit-html/directives/live.js';
import type { ExperimentSpec } from '../../experiment/spec';
import { APP_DEFAULT_PRESET, getPreset, PRESET_NAMES } from '../../experiment/presets';
import type { CheckpointRow, TrainOutcome } from '../train_worker';
import type { WebGpuStatus } from '../../engine/webgpu_status';
import { errorId, field } from '../fields';
import { runStepCounts, stepCountsText } from '../step_counts';
import type { infeasibleCellsOf } from '../infeasible_cells';
import {
  engineAvailable,
  getPath,
  KNOBS,
  hasErrors,
  presetName,
  presetSummary,
  trainsThrough,
  type Inputs,
  type TrainInputs,
} from './train_inputs';
import { etaSeconds, positionText, updatesSummary, type RunViewState } from './train_state';
import { chartsCard } from './train_charts';
import { fmtBytes } from './train_client';
import { fmtDuration, fmtUtc } from '../../util/duration';
import { signedPoints } from '../../report/points';

/** Where the view is with its run. */
export type Phase = 'idle' | 'running' | 'stopping' | 'paused' | 'done' | 'failed';

/** Everything the templates draw. */
interface TrainModel {
  v: TrainInputs;
  inputs: Inputs;
  /** The spec editor's text, and why the URL's edits could not be applied (null: they were). */
  text: string;
  editsError: string | null;
  phase: Phase;
  /** Why the run stopped (phase 'failed'). */
  failure: string | null;
  outcome: TrainOutcome | null;
  /** infeasible_cells.ts `infeasibleCellsOf` (null until imported: no infeasible note yet). */
  infeasibleCellsOf: typeof infeasibleCellsOf | null;
  run: RunViewState;
  /** Run id the shown run state belongs to, and the run id of the run in progress (or last run). */
  curvesRunId: string | null;
  activeRunId: string | null;
  checkpoints: CheckpointRow[];
  ckptNote: string | null;
  ckptLoaded: boolean;
  gpu: WebGpuStatus | null;
  /** The size of the current run's evaluation (null: unknown); computed on demand. */
  evalSize: () => { episodes: number; harnesses: number; tasks: number } | null;
  /** performance.now() of this draw, ms. */
  now: number;
  /** The committed comparison card (train_committed.ts) beside a single-harness run; null: none. */
  committed: TemplateResult | null;
  /** What the committed map of conditions found (train_committed.ts MapFindingLine); null until loaded. */
  mapFinding: TemplateResult | null;
}

/** What the templates' controls do. */
export interface TrainActions {
  setInput(name: keyof Inputs, value: string): void;
  onEdit(text: string): void;
  knob(path: readonly string[], value: unknown): void;
  applyDemo(): void;
  resetToPreset(): void;
  start(resume: boolean): void;
  pause(): void;
  exportCheckpoint(row: CheckpointRow): void;
  importCheckpoint(input: HTMLInputElement): void;
  deleteCheckpoint(row: CheckpointRow): void;
}

/** pass@1 (a fraction) in %, one decimal: the unit of the Results view and results.md. */
const fmtPct = (v: number | null | undefined) => (v === null || v === undefined || !Number.isFinite(v) ? '—' : (v * 100).toFixed(1));

function knobsForm(v: TrainInputs, busy: boolean, a: TrainActions): TemplateResult {
  const json = v.specJson;
  return html`<form class="card controls train-knobs" aria-label="Common settings" @submit=${(e: Event) => e.preventDefault()}>
    ${KNOBS.map((k) => {
      // Number fields are set only when the spec's value changes (not live): a background redraw
      // (the map line loading after first paint) must not overwrite a number being typed.
      const cur = getPath(json, k.path);
      return field(
        k.id,
        k.label,
        k.options
          ? html`<select id=${k.id} ?disabled=${busy || !json} @change=${(e: Event) => a.knob(k.path, (e.target as HTMLSelectElement).value)}>
              ${k.options.map((o) => html`<option value=${o} .selected=${live(cur === o)}>${o}</option>`)}
            </select>`
          : html`<input id=${k.id} type="number" min=${k.min ?? 0} max=${k.max ?? 1e9} step="1" style="width:6rem" ?disabled=${busy || !json} .value=${cur === undefined ? '' : String(cur)}
              @change=${(e: Event) => {
                const n = Number((e.target as HTMLInputElement).value);
                if (Number.isInteger(n)) a.knob(k.path, n);
              }} />`,
        null,
        k.hint,
      );
    })}
    <div class="field"><span class="label-like">Size</span>
      <button type="button" id="train-demo" class="secondary" ?disabled=${busy} @click=${() => a.applyDemo()}
        title="pretrained mini model, tier-1 tasks, 6 RL steps of 2 × 8 rollouts, a small evaluation (2 test tasks, one black-box harness) and validation split (4 tasks, every 3 steps); the lesson's demo measured 34 s with hlab run on a 2-core CPU">Demo (small run)</button></div>
  </form>`;
}

/** What the lab is: the first sentence a visitor reads (the app opens here). */
const LAB_SENTENCE = html`<strong>Harness Lab</strong> trains one small policy through many agent harnesses — prompt, tool interface,
  observation format, context management, workflow — and measures whether that generalizes better than training through one.`;

/**
 * What the run in the editor trains and what it measures, in the spec's own numbers: the lesson,
 * the lesson through a design chosen in Design, or any other preset or edit. Follows the spec,
 * so choosing a design or a preset changes it.
 */
function runIntro(m: TrainModel): TemplateResult {
  const spec = m.v.spec;
  const preset = presetName(m.inputs);
  const measured = html`<strong>Measured</strong>: pass@1 (the share of test tasks solved in one try) under the base harness and under
    held-out harness configurations no method trained on, before → after${spec && spec.methods.length > 1 ? ', for each method' : ''}.`;
  if (!spec) return html`<p id="train-run-intro">The spec below has errors: fix them to see what it trains. ${measured}</p>`;
  const steps = html`${spec.rl.steps} RL steps`;
  const what =
    spec.methods.length === 1
      ? html`trains the pretrained <code>${spec.model.preset}</code> model with ${trainsThrough(spec, 0)}, ${steps}`
      : html`compares ${spec.methods.length} methods — ${spec.methods.map((x, i) => html`${i ? ' vs ' : ''}<em>${x.name}</em>`)} — ${steps} each,
        ${spec.seeds.length === 1 ? 'one seed' : `${spec.seeds.length} seeds`}`;
  const follows = spec.evaluation.validation?.sets?.includes('inSpace')
    ? 'The first chart follows every method on held-out in-space configurations while they train.'
    : 'The first chart follows validation pass@1 while it trains.';
  if (preset === APP_DEFAULT_PRESET && m.inputs.edits === '')
    return html`<p id="train-lesson-intro"><strong>The lesson</strong>: <strong>Start</strong> ${what}. ${measured} ${follows}</p>`;
  if (preset === APP_DEFAULT_PRESET && spec.name === `${APP_DEFAULT_PRESET}-design`)
    return html`<p id="train-design-intro"><strong>The lesson through your design</strong> (chosen in Design): <strong>Start</strong> ${what};
      its harness scaling trains ${trainsThrough(spec, spec.methods.length - 1)}. ${measured}</p>`;
  const edited = m.inputs.edits !== '' ? html` (edited: <code>${spec.name}</code>)` : nothing;
  return html`<p id="train-preset-intro"><strong>Preset ${preset}</strong>${edited}: <strong>Start</strong> ${what}. ${measured}</p>`;
}

/** The views to go on to, one line each. */
function nextSteps(): TemplateResult {
  return html`<nav class="card train-next" aria-labelledby="train-next-h">
    <h2 id="train-next-h">Next steps</h2>
    <ul>
      <li><a href="#/design">Design</a> — choose the harnesses to train through (an orthogonal array over the five components), then <em>Train on this design</em>.</li>
      <li><a href="#/inspect">Inspect</a> — one task under two harnesses, turn by turn: exactly what the policy sees.</li>
      <li><a href="#/results">Results</a> — a finished run's pass@1 before → after with intervals; every preset's committed results open without training.</li>
      <li><a href="#/trajectories">Trajectories</a> — a run's episodes, token by token.</li>
    </ul>
  </nav>`;
}

/** What each preset runs, where presets are chosen (not only inside the JSON). */
function presetList(current: string): TemplateResult {
  return html`<details class="train-presets" id="train-presets"><summary>What each preset runs</summary>
    <ul>${PRESET_NAMES.map((n) => html`<li class=${n === current ? 'current' : ''}><strong>${n}</strong>: ${presetSummary(getPreset(n))}</li>`)}</ul>
  </details>`;
}

/**
 * A button that keeps focus while it cannot act: aria-disabled instead of disabled, so pressing
 * Start or Pause by keyboard does not drop focus to the page when the button turns off.
 */
function actionButton(
  id: string,
  enabled: boolean,
  onClick: () => void,
  label: string | TemplateResult,
  title: string,
  cls = '',
): TemplateResult {
  return html`<button id=${id} type="button" class=${cls} aria-disabled=${enabled ? 'false' : 'true'} title=${title}
    @click=${() => {
      if (enabled) onClick();
    }}>${label}</button>`;
}

/** The whole view. */
export function trainTemplate(m: TrainModel, a: TrainActions): TemplateResult {
  const v = m.v;
  const busy = m.phase === 'running' || m.phase === 'stopping';
  const latest = v.runId ? m.checkpoints.find((c) => c.runId === v.runId && c.isLatest) : undefined;
  const invalid = hasErrors(v);
  return html`
    <section class="intro train-door">
      <h1 tabindex="-1">Train</h1>
      <p id="train-door">${LAB_SENTENCE}</p>
      ${runIntro(m)}
      ${m.mapFinding ?? nothing}
    </section>
    <div class="train-layout">
      ${statusCard(m, a, busy, invalid, latest)}
      ${m.committed ?? nothing}
      ${nextSteps()}
      <div class="train-left">
        <form class="card controls train-controls" aria-label="Run inputs" @submit=${(e: Event) => e.preventDefault()}>
          ${field(
            'train-preset',
            'Preset',
            html`<select id="train-preset" ?disabled=${busy} aria-invalid=${v.errors.preset ? 'true' : 'false'} aria-describedby=${errorId('train-preset')}
              @change=${(e: Event) => a.setInput('preset', (e.target as HTMLSelectElement).value)}>
              ${PRESET_NAMES.map((n) => html`<option value=${n} ?selected=${m.inputs.preset === n}>${n === m.inputs.preset && m.inputs.edits !== '' ? `${n} → ${v.spec?.name ?? 'edited'}` : n}</option>`)}
              ${(PRESET_NAMES as readonly string[]).includes(m.inputs.preset) ? nothing : html`<option value=${m.inputs.preset} selected>${m.inputs.preset} (invalid)</option>`}
            </select>`,
            v.errors.preset,
            v.spec ? `${m.inputs.edits !== '' ? `edited (${v.spec.name}): ` : ''}${presetSummary(v.spec)}` : undefined,
          )}
          ${presetList(presetName(m.inputs))}
          ${textField(m, a, 'seed', 'Seed', v.errors.seed, busy, `default: spec.seeds (${v.spec?.seeds.join(', ') ?? '…'})`)}
          ${textField(m, a, 'steps', 'RL steps', v.errors.steps, busy, `default: spec.rl.steps (${v.spec?.rl.steps ?? '…'})`)}
        </form>
        ${knobsForm(v, busy, a)}
        <section class="card" aria-labelledby="train-spec-label">
          <div class="train-spec-head">
            <label id="train-spec-label" for="train-spec"><strong>Spec</strong> <span class="sub">JSON, checked as you type</span></label>
            <button type="button" class="small secondary" ?disabled=${busy || m.inputs.edits === ''} @click=${() => a.resetToPreset()}>Reset to preset</button>
          </div>
          <textarea id="train-spec" spellcheck="false" autocomplete="off" rows="18" ?readonly=${busy}
            aria-invalid=${v.errors.spec.length ? 'true' : 'false'} aria-describedby="train-spec-errors"
            .value=${live(m.text)} @input=${(e: Event) => a.onEdit((e.target as HTMLTextAreaElement).value)}></textarea>
          <div id="train-spec-errors" class="train-spec-errors" role=${v.errors.spec.length ? 'alert' : nothing}>
            ${m.editsError ? html`<p class="error">${m.editsError}</p>` : nothing}
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
        <p class="note train-how">Training runs in a background worker on WebGPU on a hardware GPU, else on the CPU engine (WebAssembly SIMD;
          Engine picks); every RL step is checkpointed in this browser, so <strong>Pause</strong>, a reload or a lost GPU loses at most one
          step — <strong>Resume</strong> continues from the last checkpoint.</p>
      </div>
      ${chartsCard(m.run, v.spec, m.run.runSteps || v.steps || v.spec?.rl.steps || 0)}
    </div>
    ${resultsCard(m.outcome, m.infeasibleCellsOf)}
    ${checkpointsCard(m, a, busy)}
  `;
}

function textField(
  m: TrainModel,
  a: TrainActions,
  name: 'seed' | 'steps',
  label: string,
  err: string | undefined,
  busy: boolean,
  hint: string,
): TemplateResult {
  return field(
    `train-${name}`,
    label,
    html`<input id=${`train-${name}`} type="text" inputmode="numeric" autocomplete="off" style="width:7rem" ?disabled=${busy}
      placeholder="from spec" .value=${live(m.inputs[name])} aria-invalid=${err ? 'true' : 'false'} aria-describedby=${errorId(`train-${name}`)}
      @change=${(e: Event) => a.setInput(name, (e.target as HTMLInputElement).value)} />`,
    err,
    hint,
  );
}

/** The updates of the current run: applied optimizer steps, dropped groups, and the "no learning signal" banner when nothing was applied. */
function updatesBlock(s: RunViewState, spec: ExperimentSpec | undefined): TemplateResult {
  const cur = s.curves[s.currentRun];
  const steps = cur?.steps ?? [];
  if (!cur || !steps.length) return html``;
  const { noUpdate, dropped, skipped, groups, allDropped } = updatesSummary(steps, spec);
  const c = runStepCounts(steps);
  return html`<p class="train-updates" id="train-updates">${cur.label}: ${stepCountsText(c)} ·
      dropped groups (equal rewards): <strong>${dropped}</strong>${groups ? ` of ${groups}` : ''}
      ${noUpdate.length && noUpdate.length < steps.length ? html` · no update at step${noUpdate.length > 1 ? 's' : ''} ${noUpdate.map((r) => r.step).join(', ')} (shaded in the charts)` : nothing}</p>
    ${
      noUpdate.length === steps.length
        ? html`<div class="no-signal" id="train-no-signal" role="status">
          ${
            allDropped
              ? html`<strong>No learning signal: all groups had equal rewards, 0 updates</strong> (${steps.length} RL step${steps.length === 1 ? '' : 's'}, ${dropped} group${dropped === 1 ? '' : 's'} dropped).
                GRPO learns from the differences between the rewards of one group's rollouts; when they are all equal (typically all 0 for a weak model)
                the advantages are 0 and the group is left out. The parameters are unchanged, so loss, KL, clip fraction and gradient norm are not measured
                (shaded in the charts) and "after" will equal "before".${noSignalAdvice(s, spec)}`
              : html`<strong>0 optimizer steps</strong> in ${steps.length} RL step${steps.length === 1 ? '' : 's'}${skipped ? ` (${skipped} skipped optimizer step${skipped === 1 ? '' : 's'}: non-finite loss or gradient)` : ''}: the parameters are unchanged.`
          }
        </div>`
        : nothing
    }`;
}

/** What to change when no group had a learning signal: only the settings not already tried. */
function noSignalAdvice(s: RunViewState, spec: ExperimentSpec | undefined): string {
  if (!spec) return '';
  const tips: string[] = [];
  if (spec.model.init === 'scratch') tips.push('the pretrained init (a scratch model fails every task)');
  if (spec.rl.groupSize < 16)
    tips.push(`a larger group size (now ${spec.rl.groupSize}: more rollouts per task, more chances that one differs)`);
  if (spec.maxTier > 1) tips.push('tier-1 tasks (maxTier 1)');
  const before = s.evals.filter((e) => e.when === 'before' && e.runIndex === s.currentRun);
  const zero = before.length > 0 && before.every((e) => e.passAt1.base === 0 && (e.training === 0 || !Number.isFinite(e.training)));
  return (
    (zero ? ` The starting model passes none of the evaluation tasks (pass@1 0 before training), so its rollouts all fail alike.` : '') +
    (tips.length ? ` Try ${tips.join(', ')}.` : ' A stronger starting checkpoint (more pretraining) is what is missing.')
  );
}

function statusCard(m: TrainModel, a: TrainActions, busy: boolean, invalid: boolean, latest: CheckpointRow | undefined): TemplateResult {
  const { v, run: s } = m;
  const p = s.progress;
  const frac = p.total ? p.done / p.total : 0;
  let etaText = '';
  if (busy) {
    const eta = etaSeconds(s, v.spec, m.evalSize()?.episodes ?? null, m.now);
    // Work is left while the run is busy: under half a second reads as finishing, not "0 s".
    etaText =
      eta === null ? 'ETA: estimating… (once the first episodes are timed)' : eta < 0.5 ? 'ETA: finishing…' : `ETA ${fmtDuration(eta)}`;
  }
  const cur = s.curves[s.currentRun];
  const step = cur?.steps.at(-1)?.step ?? 0;
  const where = latest ? positionText(latest) : '';
  // A checkpoint after the last (seed × method) run has nothing left to resume: Resume would
  // only redo the final evaluation and save a duplicate result ("at run 2/1").
  const totalRuns = v.spec ? v.spec.seeds.length * v.spec.methods.length : Infinity;
  const complete = !!latest && latest.finished && latest.runIndex >= totalRuns;
  const canTrain = engineAvailable(v.spec, m.gpu);
  // The pause message names the checkpoint this run wrote last (the list may not be refreshed yet).
  const pausedAt = s.lastCkpt && m.curvesRunId === v.runId ? positionText(s.lastCkpt) : where;
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
  const evalNow = s.evalStart && v.spec ? m.evalSize() : null;
  const bb = [...new Set([...(v.spec?.evaluation.blackbox ?? []), ...s.evals.flatMap((e) => Object.keys(e.passAt1.blackbox ?? {}))])];
  return html`<section class="card train-status" aria-labelledby="train-status-h">
    <h2 id="train-status-h">Run</h2>
    <div class="train-buttons">
      ${actionButton(
        'train-start',
        !busy && !invalid && canTrain,
        () => a.start(false),
        latest ? 'Start over (delete checkpoints)' : 'Start',
        latest ? 'Start from the beginning: this spec’s checkpoints are deleted (export them first to keep them)' : 'Start a new run',
        latest ? 'danger' : '',
      )}
      ${actionButton('train-pause', m.phase === 'running', () => a.pause(), 'Pause', 'Finish the current step, save a checkpoint and stop')}
      ${actionButton(
        'train-resume',
        !busy && !invalid && !!latest && !complete && canTrain,
        () => a.start(true),
        'Resume',
        complete ? 'Nothing to resume: every run of this spec is finished' : 'Continue from the latest checkpoint of this spec',
      )}
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
    <p id="train-phase" class="train-phase" role="status" data-phase=${m.phase}>${phaseText[m.phase]}</p>
    ${
      m.failure
        ? html`<div id="train-failure" class="error-box" role="alert">
          <strong>Training stopped: ${m.failure}</strong><br />
          ${
            latest
              ? html`Nothing is lost up to the last checkpoint (${where}). Press <strong>Resume</strong> to continue from it.
                ${/device lost|GPU/i.test(m.failure) ? html`If the GPU is lost again, reload the page or close other GPU-heavy tabs, then Resume.` : nothing}`
              : html`No checkpoint was written, so there is nothing to resume: fix the cause${/device lost|GPU/i.test(m.failure) ? ' (reload the page or close other GPU-heavy tabs)' : ''}, then <strong>Start</strong> again.`
          }
        </div>`
        : nothing
    }
    <div class="train-progress">
      <progress id="train-progress" max=${Math.max(1, p.total)} .value=${p.done} aria-label="Run progress"></progress>
      <span class="train-progress-text">
        <span id="train-units">${p.done}/${p.total || '…'} units</span> ·
        <span id="train-step" data-step=${step}>step ${step}/${s.runSteps || v.steps || v.spec?.rl.steps || 0}</span>
        ${etaText ? html` · <span id="train-eta" title="RL steps, validation points and evaluations left, each priced by its measured cost">${etaText}</span>` : nothing}
      </span>
      <div class="train-progress-phase">${p.phase} ${p.total ? html`(${(frac * 100).toFixed(0)}%)` : nothing}
        ${
          evalNow && s.evalStart
            ? html`<span id="train-eval-now"> · ${s.evalDone ? html`<span id="train-eval-done">${s.evalDone.done} / ${s.evalDone.total} episodes done</span> of ` : nothing}${evalNow.episodes} episodes (${evalNow.harnesses} harness${evalNow.harnesses === 1 ? '' : 'es'} × ${evalNow.tasks} test task${evalNow.tasks === 1 ? '' : 's'} × ${v.spec!.evaluation.samples} sample${v.spec!.evaluation.samples === 1 ? '' : 's'}), running for ${fmtDuration((m.now - s.evalStart.at) / 1000)}</span>`
            : nothing
        }</div>
    </div>
    ${updatesBlock(s, v.spec)}
    ${
      s.evals.length
        ? html`<div class="scroll-x"><table class="compact train-evals" id="train-evals">
          <caption>Evaluations (pass@1, %)${s.evals.some((e) => e.restored) ? ' · "stored": read from the checkpoint' : ''}</caption>
          <thead><tr><th scope="col">run</th><th scope="col">when</th><th scope="col">base</th><th scope="col">in-space</th>${bb.map((b) => html`<th scope="col" data-bb=${b}>${b}</th>`)}<th scope="col">training harnesses</th><th scope="col">episodes</th></tr></thead>
          <tbody>${s.evals.map((e) => html`<tr><td>${e.method} · seed ${e.seed}</td><td>${e.when}${e.restored ? ' (stored)' : ''}</td><td class="num">${fmtPct(e.passAt1.base)}</td><td class="num">${fmtPct(e.passAt1.inSpace)}</td>${bb.map((b) => html`<td class="num" data-bb=${b}>${fmtPct(e.passAt1.blackbox?.[b])}</td>`)}<td class="num">${fmtPct(e.training)}</td><td class="num">${Number.isFinite(e.episodes) ? e.episodes : '—'}</td></tr>`)}</tbody>
        </table></div>`
        : nothing
    }
    ${s.messages.length ? html`<ul class="train-messages" aria-label="Run messages">${s.messages.map((msg) => html`<li class=${msg.kind}>${msg.text}</li>`)}</ul>` : nothing}
  </section>`;
}

function resultsCard(o: TrainOutcome | null, cellsOf: typeof infeasibleCellsOf | null): TemplateResult {
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
        <thead><tr><th scope="col">method</th><th scope="col">seed</th><th scope="col">optimizer steps</th><th scope="col">skipped optimizer steps</th><th scope="col">pass@1 base (%, before → after)</th>
          <th scope="col">in-space</th>${bb.map((b) => html`<th scope="col" data-bb=${b}>${b} <span class="sub">black-box</span></th>`)}<th scope="col">training harnesses</th></tr></thead>
        <tbody>${runs.map(
          (
            r,
          ) => html`<tr><td>${r.method}</td><td class="num">${r.seed}</td><td class="num">${runStepCounts(null, r).optimizerSteps ?? '—'}</td><td class="num">${runStepCounts(null, r).skippedOptimizerSteps ?? '—'}</td><td class="num">${pair(r.before.base, r.after.base)}</td>
            <td class="num">${pair(r.before.inSpace, r.after.inSpace)}</td>${bb.map((b) => html`<td class="num" data-bb=${b}>${pair(r.before.blackbox?.[b], r.after.blackbox?.[b])}</td>`)}<td class="num">${pair(r.trainHarnesses.before, r.trainHarnesses.after)}</td></tr>`,
        )}</tbody>
      </table>
    </div>
    ${betweenMethods(runs)}
    ${cellsOf ? infeasibleNote(o.output, cellsOf) : nothing}
    ${o.output.warnings.length ? html`<ul class="train-messages">${o.output.warnings.map((w) => html`<li class="warn">${w}</li>`)}</ul>` : nothing}
  </section>`;
}

/**
 * The second method − the first after RL, in points, on the in-space configurations and the base
 * harness, as the mean over the seeds both ran: a difference, not a verdict (the interval over
 * training runs is in Results, and the committed card where there is one). Nothing for one method.
 */
function betweenMethods(runs: TrainOutcome['output']['results']['runs']): TemplateResult {
  const methods = [...new Set(runs.map((r) => r.method))];
  if (methods.length !== 2) return html``;
  const [a, b] = methods;
  const seeds = [...new Set(runs.map((r) => r.seed))].filter((s) => methods.every((m) => runs.some((r) => r.method === m && r.seed === s)));
  const after = (m: string, s: number) => runs.find((r) => r.method === m && r.seed === s)!.after;
  const diff = (key: 'inSpace' | 'base') => {
    const d = seeds.map((s) => after(b, s)[key] - after(a, s)[key]);
    const mean = d.reduce((x, y) => x + y, 0) / d.length;
    return Number.isFinite(mean) ? signedPoints(mean) : '—';
  };
  if (!seeds.length) return html``;
  return html`<p id="train-between" data-in-space=${diff('inSpace')}>After RL, <em>${b}</em> − <em>${a}</em>: <strong>${diff('inSpace')} points in-space</strong>,
    ${diff('base')} on the base harness (${seeds.length === 1 ? 'one seed: a difference, not a verdict' : `mean over ${seeds.length} seeds`};
    the interval over training runs is in Results${seeds.length === 1 ? ' and, where there is one, in the committed card' : ''}).</p>`;
}

/** The run's infeasible (task, harness) cells, when its output lists them (infeasible_cells.ts); nothing otherwise. */
function infeasibleNote(output: unknown, cellsOf: typeof infeasibleCellsOf): TemplateResult {
  let cells: ReturnType<typeof infeasibleCellsOf>;
  try {
    cells = cellsOf(output, 'run output');
  } catch (e) {
    return html`<p class="error" id="train-infeasible">${(e as Error).message}</p>`;
  }
  if (!cells) return html``;
  return html`<p class="note" id="train-infeasible">${
    cells.length
      ? `${cells.length} infeasible (task, harness) cell${cells.length === 1 ? ' was' : 's were'} left out of training and evaluation (the expert cannot solve them within the spec's budgets): the evaluations have that many episodes fewer. Results lists them.`
      : 'Every (task, harness) cell of the spec is feasible: none was left out.'
  }</p>`;
}

function checkpointsCard(m: TrainModel, a: TrainActions, busy: boolean): TemplateResult {
  const v = m.v;
  const rows = m.checkpoints;
  return html`<section class="card" aria-labelledby="train-ckpt-h">
    <h2 id="train-ckpt-h">Checkpoints <span class="sub">stored in this browser (IndexedDB); the two newest of each run are kept</span></h2>
    <div class="train-ckpt-actions">
      <label class="file-button">Import checkpoint…
        <input id="train-import" type="file" accept=".hlab,application/octet-stream" ?disabled=${busy}
          @change=${(e: Event) => a.importCheckpoint(e.target as HTMLInputElement)} /></label>
      ${m.ckptNote ? html`<span id="train-ckpt-note" role="status">${m.ckptNote}</span>` : nothing}
    </div>
    ${
      rows.length
        ? html`<div class="scroll-x"><table class="compact" id="train-ckpt-table">
          <thead><tr><th scope="col">run id</th><th scope="col">position</th><th scope="col">saved</th><th scope="col">size</th><th scope="col"><span class="visually-hidden">actions</span></th></tr></thead>
          <tbody>${rows.map((r) => {
            const active = busy && r.runId === m.activeRunId;
            return html`<tr data-run=${r.runId} data-step=${r.step} class=${r.runId === v.runId ? 'this-spec' : ''}>
              <td><code>${r.runId}</code>${r.runId === v.runId ? html` <span class="tag">this spec</span>` : nothing}</td>
              <td>${positionText(r)}${r.isLatest ? html` <span class="tag">latest</span>` : nothing}</td>
              <td>${fmtUtc(r.createdAt)}</td>
              <td class="num">${fmtBytes(r.bytes)}</td>
              <td class="actions">
                <button type="button" class="small" @click=${() => a.exportCheckpoint(r)} aria-label=${`Export ${r.runId} step ${r.step}`}>Export</button>
                <button type="button" class="small danger" ?disabled=${active} @click=${() => a.deleteCheckpoint(r)} aria-label=${`Delete ${r.runId} step ${r.step}`}>Delete</button>
              </td>
            </tr>`;
          })}</tbody>
        </table></div>`
        : html`<p class="note" id="train-ckpt-empty">${m.ckptLoaded ? 'No checkpoints yet.' : 'Loading…'}</p>`
    }
  </section>`;
}

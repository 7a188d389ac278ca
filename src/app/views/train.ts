/**
 * The Train view, the app's door (`/` opens it on the lesson: what the lab is, what the run trains
 * and measures, Start, the next views; docs/APP.md "The door"; docs/ARCHITECTURE.md "Experiments,
 * evaluation and results"): choose a preset or edit its spec (validated as you
 * type by the spec schema, each error naming its field), start / pause / resume a run, watch
 * live charts and a progress bar with ETA, manage checkpoints (export, import, delete), and
 * open the finished run in Results.
 *
 * Training runs in a dedicated worker (src/app/train_worker.ts, driven through
 * train_client.ts): this shell holds the view's state, posts commands, folds what the worker
 * reports into a RunViewState (train_state.ts, a pure reducer) and draws it (train_templates.ts).
 * Inputs are validated by train_inputs.ts. Redraws come at most every REDRAW_MS, so the main
 * thread stays idle while a run goes on.
 *
 * URL parameters (shareable): preset (default: the lesson, presets.ts APP_DEFAULT_PRESET) · edits (a JSON Merge Patch from the preset to the edited
 * spec, e.g. {"rl":{"steps":3}}) · seed (replaces spec.seeds by [seed]) · steps (overrides
 * spec.rl.steps). The checkpoint run id is derived from the effective spec ('app-<name>-<hash>'),
 * so reopening the same URL finds the run's checkpoints and offers Resume.
 */
import { render } from 'lit-html';
import { proxy } from 'comlink';
import type { ExperimentSpec } from '../../experiment/spec';
import type { RunEvent } from '../../experiment/run_events';
import type { CheckpointRow, TrainOutcome } from '../train_worker';
import type { WebGpuStatus } from '../../engine/webgpu_status';
import type { infeasibleCellsOf } from '../infeasible_cells';
import {
  demoText,
  editsFor,
  evalEpisodes,
  hasErrors,
  presetName,
  presetText,
  runName,
  setKnob,
  TRAIN_DEFAULTS,
  validateTrainInputs,
  type Inputs,
  type TrainInputs,
} from './train_inputs';
import { emptyRunState, positionText, reduceRunEvent, startRunState, storedRunState, type RunViewState } from './train_state';
import { TrainClient } from './train_client';
import { trainTemplate, type Phase, type TrainActions } from './train_templates';
import { CommittedCard, committedPresetFor, MapFindingLine } from './train_committed';
import { PRESET_NAMES } from '../../experiment/presets';
import './train.css';

/** Minimum interval between redraws while a run streams events, ms. */
const REDRAW_MS = 400;
/** Minimum interval between checkpoint-list refreshes during a run, ms. */
const CKPT_REFRESH_MS = 1500;

export class TrainView {
  private inputs: Inputs = { ...TRAIN_DEFAULTS };
  private text = '';
  private editsError: string | null = null;
  private paramsKey: string | null = null;
  private validCache: { inputs: Inputs; text: string; v: TrainInputs } | null = null;

  private readonly client = new TrainClient((why) => this.onWorkerDied(why));
  private phase: Phase = 'idle';
  private failure: string | null = null;
  private outcome: TrainOutcome | null = null;
  /** Run id of the run in progress (or last run). */
  private activeRunId: string | null = null;
  private run: RunViewState = emptyRunState();
  /** Run id the shown run state belongs to (a run of this session or a checkpoint's stored history). */
  private curvesRunId: string | null = null;
  /** Run id whose stored history was (being) loaded. */
  private historyFor: string | null = null;

  private checkpoints: CheckpointRow[] = [];
  private ckptNote: string | null = null;
  private ckptLoaded = false;
  private gpu: WebGpuStatus | null = null;
  /** infeasible_cells.ts `infeasibleCellsOf`, once imported (the results card's note waits for it). */
  private infeasibleCellsOf: typeof infeasibleCellsOf | null = null;
  private evalSizeCache: { spec: ExperimentSpec; runIndex: number; n: ReturnType<typeof evalEpisodes> } | null = null;
  /** The committed comparisons shown beside a run, by preset (train_committed.ts; each loaded after the first paint that shows it). */
  private readonly committed = new Map<string, CommittedCard>();
  /** What the committed map of conditions found, said at the door (loaded after the first paint). */
  private readonly mapFinding = new MapFindingLine(() => this.scheduleDraw());

  private redrawTimer: ReturnType<typeof setTimeout> | null = null;
  private lastDraw = 0;
  private ckptTimer: ReturnType<typeof setTimeout> | null = null;
  private tick: ReturnType<typeof setTimeout> | null = null;

  private readonly actions: TrainActions = {
    setInput: (name, value) => this.setInput(name, value),
    onEdit: (text) => this.onEdit(text),
    knob: (path, value) => {
      const t = setKnob(this.text, presetName(this.inputs), path, value);
      if (t !== null) this.onEdit(t);
    },
    applyDemo: () => {
      this.inputs = { ...this.inputs, steps: '' };
      this.onEdit(demoText(this.inputs));
    },
    resetToPreset: () => {
      this.inputs = { ...this.inputs, edits: '' };
      this.setText();
      this.pushParams();
      this.draw();
    },
    start: (resume) => void this.start(resume),
    pause: () => this.pause(),
    exportCheckpoint: (row) => void this.checkpointCommand(() => this.client.exportCheckpoint(row), false),
    importCheckpoint: (input) => {
      const file = input.files?.[0];
      if (!file) return;
      void this.checkpointCommand(() => this.client.importCheckpoint(file, this.validated().runId), true).then(() => {
        input.value = '';
      });
    },
    deleteCheckpoint: (row) => {
      if (
        !window.confirm(
          `Delete the checkpoint of ${row.runId} at ${positionText(row)}? This cannot be undone (export it first to keep it).`,
        )
      )
        return;
      void this.checkpointCommand(() => this.client.deleteCheckpoint(row), true);
    },
  };

  /** @param setParams called with the non-default inputs whenever the user changes one (→ URL). */
  constructor(
    private readonly el: HTMLElement,
    private readonly setParams: (p: Record<string, string>) => void,
  ) {
    // After the first paint: <hl-line-chart> (uPlot; a chart drawn before its module arrives is
    // upgraded in place), the WebGPU probe, and what a run's results need (the results store's schemas).
    void import('../line_chart');
    void import('../infeasible_cells').then((m) => {
      this.infeasibleCellsOf = m.infeasibleCellsOf;
      if (this.outcome) this.draw();
    });
    void import('../../engine/webgpu_status').then(async (m) => {
      const g = await m.probeWebGpu();
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
      this.setText();
    }
    this.client.api();
    if (!this.ckptLoaded) void this.refreshCheckpoints();
    this.draw();
  }

  // ---- inputs ------------------------------------------------------------------------------

  /** The editor text for the current URL inputs (presetText). */
  private setText(): void {
    const t = presetText(this.inputs);
    this.text = t.text;
    this.editsError = t.editsError;
  }

  private pushParams(): void {
    const p: Record<string, string> = {};
    for (const key of Object.keys(TRAIN_DEFAULTS) as (keyof Inputs)[])
      if (this.inputs[key] !== TRAIN_DEFAULTS[key]) p[key] = this.inputs[key];
    this.paramsKey = JSON.stringify(this.inputs);
    this.setParams(p);
  }

  private setInput(name: keyof Inputs, value: string): void {
    this.inputs = { ...this.inputs, [name]: value };
    if (name === 'preset' && (PRESET_NAMES as readonly string[]).includes(value)) {
      this.inputs = { ...this.inputs, edits: '' };
      this.setText();
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
      this.inputs = { ...this.inputs, edits: editsFor(this.inputs, text) };
      this.pushParams();
    } catch {
      /* not JSON yet: the error is listed next to the editor */
    }
    this.draw();
  }

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

  // ---- the run -----------------------------------------------------------------------------

  private onWorkerDied(why: string): void {
    if (this.phase === 'running' || this.phase === 'stopping') this.fail(why);
    this.client.drop();
  }

  private fail(why: string): void {
    this.phase = 'failed';
    this.failure = why;
    void this.refreshCheckpoints();
    this.draw();
  }

  private async start(resume: boolean): Promise<void> {
    const v = this.validated();
    if (hasErrors(v) || !v.spec || !v.runId || !v.specJson) return;
    const hasCkpt = this.checkpoints.some((c) => c.runId === v.runId && c.isLatest);
    if (
      !resume &&
      hasCkpt &&
      !window.confirm(
        `Start over? This deletes the checkpoints of ${v.runId} (export them first to keep them) and trains from the beginning.`,
      )
    )
      return;
    const api = this.client.api();
    this.phase = 'running';
    this.failure = null;
    this.outcome = null;
    this.activeRunId = v.runId;
    this.run = startRunState(this.run, resume);
    this.curvesRunId = v.runId;
    this.historyFor = v.runId;
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
      void this.refreshCheckpoints();
      this.draw();
    } catch (e) {
      if ((this.phase as Phase) === 'failed') return;
      const msg = (e as Error).message ?? String(e);
      this.fail(msg);
      // A lost device ('WebGPU device lost…') is not recovered in this worker: Resume starts a fresh one.
      if (/device|GPU/i.test(msg)) this.client.drop();
    }
  }

  private pause(): void {
    if (this.phase !== 'running' || !this.client.started) return;
    this.phase = 'stopping';
    void this.client.api().requestStop();
    this.draw();
  }

  private onEvent(ev: RunEvent): void {
    this.run = reduceRunEvent(this.run, ev, performance.now());
    if (ev.type === 'checkpoint') this.scheduleCheckpointRefresh();
    this.scheduleDraw();
  }

  // ---- checkpoints -------------------------------------------------------------------------

  private async refreshCheckpoints(): Promise<void> {
    try {
      this.checkpoints = await this.client.listCheckpoints();
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

  /** Run a checkpoint command of the client, show its note, and (`refresh`) re-read the list. */
  private async checkpointCommand(cmd: () => Promise<string>, refresh: boolean): Promise<void> {
    this.ckptNote = await cmd();
    if (refresh) await this.refreshCheckpoints();
    else this.draw();
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
      if (this.curvesRunId !== runId && this.phase !== 'failed') this.showRun(runId, emptyRunState());
      return;
    }
    // A run of this session that ended here already shows everything (and its live ETA data).
    if (this.curvesRunId === runId && (this.phase === 'paused' || this.phase === 'done' || this.phase === 'failed')) return;
    const spec = v.spec;
    void this.client
      .loadHistory(runId)
      .then((h) => {
        if (this.historyFor !== runId || this.phase === 'running' || this.phase === 'stopping') return;
        this.showRun(runId, h ? storedRunState(spec, h) : emptyRunState());
        this.scheduleDraw();
      })
      .catch((e: Error) => {
        this.run = { ...this.run, messages: [{ kind: 'warn', text: `Could not read the stored history: ${e.message}` }] };
        this.scheduleDraw();
      });
  }

  private showRun(runId: string | null, s: RunViewState): void {
    this.run = s;
    this.curvesRunId = runId;
  }

  // ---- drawing -----------------------------------------------------------------------------

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

  /** Redraw at most every REDRAW_MS (events can come in bursts). */
  private scheduleDraw(): void {
    if (this.redrawTimer) return;
    const wait = Math.max(0, REDRAW_MS - (performance.now() - this.lastDraw));
    this.redrawTimer = setTimeout(() => {
      this.redrawTimer = null;
      this.draw();
    }, wait);
  }

  private draw(): void {
    this.lastDraw = performance.now();
    const v = this.validated();
    this.syncStoredHistory(v);
    const spec = v.spec;
    const committedPreset = committedPresetFor(spec);
    let card: CommittedCard | undefined;
    if (committedPreset) {
      card = this.committed.get(committedPreset) ?? new CommittedCard(committedPreset, () => this.scheduleDraw());
      this.committed.set(committedPreset, card);
    }
    const model = {
      v,
      inputs: this.inputs,
      text: this.text,
      editsError: this.editsError,
      phase: this.phase,
      failure: this.failure,
      outcome: this.outcome,
      infeasibleCellsOf: this.infeasibleCellsOf,
      run: this.run,
      curvesRunId: this.curvesRunId,
      activeRunId: this.activeRunId,
      checkpoints: this.checkpoints,
      ckptNote: this.ckptNote,
      ckptLoaded: this.ckptLoaded,
      gpu: this.gpu,
      // The runner's own size once the run has started (infeasible cells left out); the spec's estimate before.
      evalSize: () => this.run.runEvalSize ?? (spec ? this.evalSize(spec, this.run.currentRun) : null),
      now: this.lastDraw,
      committed: card ? card.template() : null,
      mapFinding: this.mapFinding.template(),
    };
    render(trainTemplate(model, this.actions), this.el);
    card?.request();
    this.mapFinding.request();
    // An evaluation, a validation point or an SFT phase sends few events: redraw once a second
    // meanwhile, so its running time and the ETA move.
    const long = this.run.evalStart || this.run.validationStart || this.run.sftStart;
    if (long && (this.phase === 'running' || this.phase === 'stopping') && !this.tick) {
      this.tick = setTimeout(() => {
        this.tick = null;
        this.scheduleDraw();
      }, 1000);
    }
  }
}

/**
 * Where the Results and Trajectories views get an experiment output: a run saved in the
 * browser (results_store.ts, URL parameter `run=<name>`), a results.json opened from disk
 * through a file input or drag-and-drop (`file=<file name>`; the contents stay in memory for
 * this tab only, so such a URL needs the file opened again after a reload), or a preset's
 * committed results (`preset=<name>`), fetched when opened (committed_fetch.ts).
 *
 * Both views share the loaded files and the cache, so a file opened in Results can be replayed
 * in Trajectories without opening it again.
 */
import { fmtUtc } from '../../util/duration';
import { html, nothing, type TemplateResult } from 'lit-html';
import {
  deleteRunOutput,
  listRunOutputs,
  loadRunOutput,
  parseResultsText,
  ResultsFileError,
  type ExperimentOutputJson,
  type RunOutputSummary,
} from '../results_store';
import { committedOrigin, committedPresets, loadCommitted } from '../committed_fetch';
import type { CommittedPart } from '../committed_parts';

/** A saved run, a file opened in this tab, or a preset's committed results (docs/results/<preset>/results.json). */
export type SourceRef = { kind: 'run' | 'file' | 'preset'; name: string };

/** The parts of a committed preset the Results view shows (Trajectories asks for its own). */
const RESULTS_PARTS: readonly CommittedPart[] = ['curves', 'episodes', 'trajectories'];

/** The presets with committed results once the index is read; the error when it could not be. */
let committedList: string[] | null = null;
let committedListError = '';
/** Read the index (at load: the list then shows in a tab that goes offline later); `then` runs after either outcome. */
function readCommittedList(then: () => void = () => {}): void {
  committedPresets().then(
    (list) => {
      committedList = list;
      committedListError = '';
      then();
    },
    (e: Error) => {
      committedListError = `The list of committed results could not be read: ${e.message}`;
      then();
    },
  );
}
readCommittedList();

/** Files opened in this tab, by file name (the latest one of a name wins). */
const sessionFiles = new Map<string, ExperimentOutputJson>();
/** Saved runs already read from IndexedDB (dropped on delete). */
const runCache = new Map<string, ExperimentOutputJson>();

/** The source named by URL parameters (`run` wins over `file`), or null. */
export function sourceFromParams(p: Record<string, string>): SourceRef | null {
  if (p.run) return { kind: 'run', name: p.run };
  if (p.preset) return { kind: 'preset', name: p.preset };
  if (p.file) return { kind: 'file', name: p.file };
  return null;
}

/** URL parameters naming a source. */
export function sourceParams(ref: SourceRef | null): Record<string, string> {
  return ref ? { [ref.kind]: ref.name } : {};
}

const sameSource = (a: SourceRef | null, b: SourceRef | null): boolean =>
  a === null || b === null ? a === b : a.kind === b.kind && a.name === b.name;

/** Why a committed preset could not be opened: its fetch error, and which presets are committed when it is not one of them. */
async function presetError(name: string, e: Error): Promise<Error> {
  const list = await committedPresets().catch(() => null);
  if (list && !list.includes(name))
    return new Error(`preset '${name}': no committed results (docs/results/${name}/results.json); committed: ${list.join(', ') || 'none'}`);
  return new Error(`committed results of '${name}' could not be loaded: ${e.message}`);
}

/**
 * The output a source names (a committed preset with all its parts; a part that fails to load
 * is left out).
 * @throws Error saying what is missing (a saved run deleted, a file not opened in this tab, a
 *   preset not committed or not reachable) or ResultsFileError naming the bad field of an output.
 */
export async function loadSource(ref: SourceRef): Promise<ExperimentOutputJson> {
  if (ref.kind === 'preset') {
    try {
      return (await loadCommitted(ref.name, RESULTS_PARTS)).output;
    } catch (e) {
      throw await presetError(ref.name, e as Error);
    }
  }
  if (ref.kind === 'file') {
    const f = sessionFiles.get(ref.name);
    if (!f) throw new Error(`file '${ref.name}' is not open in this tab (files stay in memory only): open it again below`);
    return f;
  }
  const cached = runCache.get(ref.name);
  if (cached) return cached;
  const out = await loadRunOutput(ref.name);
  if (!out) throw new Error(`run '${ref.name}': no saved run of that name in this browser`);
  runCache.set(ref.name, out);
  return out;
}

/** The loader of each source object it was given: the source card shows that load's progress (the view passes the same object). */
const loaderOf = new WeakMap<SourceRef, SourceLoader>();

/**
 * The source a view shows and its loaded output. `load` drops the old output, calls `onChange`
 * (the view shows "Loading…"), and calls it again once the output or the error is in; a load
 * overtaken by a later one is ignored, so a slow IndexedDB read cannot replace a newer pick.
 * A committed preset arrives in steps: `output` is replaced (a new object) as each part comes
 * in, `pending` names the parts still loading and `partErrors` those that failed.
 */
export class SourceLoader {
  source: SourceRef | null = null;
  output: ExperimentOutputJson | null = null;
  /** Why the last load failed ('' when it did not). */
  error = '';
  /** Parts of a committed preset still loading (empty for other sources). */
  pending: readonly CommittedPart[] = [];
  /** Parts of a committed preset that failed to load, one line each (`curves: <why>`). */
  partErrors: readonly string[] = [];
  private ticket = 0;

  /**
   * @param onChange called whenever what the view shows changes
   * @param parts the parts of a committed preset the view needs (default: what Results shows)
   */
  constructor(
    private readonly onChange: () => void,
    private readonly parts: readonly CommittedPart[] = RESULTS_PARTS,
  ) {}

  /** Whether showing `ref` needs a load: another source, or this one without its output. */
  needsLoad(ref: SourceRef | null): boolean {
    return !sameSource(ref, this.source) || (ref !== null && !this.output);
  }

  /** Load `ref` (null: show none). Never throws: a failure lands in `error`. */
  async load(ref: SourceRef | null): Promise<void> {
    this.source = ref;
    if (ref) loaderOf.set(ref, this);
    this.error = '';
    this.output = null;
    this.pending = [];
    this.partErrors = [];
    const ticket = ++this.ticket;
    this.onChange();
    if (!ref) return;
    try {
      if (ref.kind === 'preset') {
        await loadCommitted(ref.name, this.parts, (l) => {
          if (ticket !== this.ticket) return;
          this.output = l.output;
          this.pending = l.pending;
          this.partErrors = l.errors;
          this.onChange();
        }).catch(async (e: Error) => {
          throw await presetError(ref.name, e);
        });
        return;
      }
      const out = await loadSource(ref);
      if (ticket !== this.ticket) return;
      this.output = out;
    } catch (e) {
      if (ticket !== this.ticket) return;
      this.error = (e as Error).message;
    }
    this.onChange();
  }
}

/**
 * Read, validate and remember a results file (either shape, see results_store.ts).
 * @throws ResultsFileError naming the file and the bad field (or the JSON syntax error).
 */
async function openFile(file: File): Promise<SourceRef> {
  const text = await file.text();
  const out = parseResultsText(text, file.name);
  sessionFiles.set(file.name, out);
  return { kind: 'file', name: file.name };
}

/** What of a committed preset is loaded: the parts still loading, what the sample parts hold, and any part that failed. */
function committedStatus(loader: SourceLoader, id: (s: string) => string): TemplateResult {
  const origin = loader.output ? committedOrigin(loader.output) : null;
  const meta = origin?.meta;
  const names: Record<CommittedPart, string> = { episodes: 'episodes', curves: 'curves', trajectories: 'sample trajectories' };
  const held: string[] = [];
  if (meta && meta.curves.stepsMax > meta.curves.pointsMax)
    held.push(`curves at ${meta.curves.pointsMax} of ${meta.curves.stepsMax} RL steps per series`);
  if (meta && loader.output?.trajectories)
    held.push(`${meta.trajectories.kept} sample trajectories of the ${meta.trajectories.of} the runs kept`);
  return html`<p class="note" id=${id('committed-status')} role="status" data-pending=${loader.pending.join(' ')}>
      ${loader.pending.length ? `Loading ${loader.pending.map((p) => names[p]).join(', ')}…` : 'Loaded.'}${held.length ? ` ${held.join('; ')}.` : ''}</p>
    ${loader.partErrors.map((e) => html`<p class="error-box" role="alert">Could not load ${e}</p>`)}`;
}

/**
 * The source card: saved runs (open, delete), a file input and a drop zone. The owning view
 * passes its id prefix (element ids stay unique when both views are in the page) and gets
 * `onPick` with the chosen source, `onChange` when the card needs re-rendering.
 */
export class SourcePicker {
  private saved: RunOutputSummary[] | null = null;
  private listError = '';
  fileError = '';
  private dragging = false;
  private listRetried = false;

  constructor(
    private readonly prefix: string,
    private readonly onPick: (ref: SourceRef | null) => void,
    private readonly onChange: () => void,
  ) {}

  /** Re-read the saved runs (after a save elsewhere, or a delete). */
  async refresh(): Promise<void> {
    try {
      this.saved = await listRunOutputs();
      this.listError = '';
    } catch (e) {
      this.saved = [];
      this.listError = `saved runs could not be read: ${(e as Error).message}`;
    }
    this.onChange();
  }

  private async pickFile(file: File | undefined): Promise<void> {
    if (!file) return;
    try {
      const ref = await openFile(file);
      this.fileError = '';
      this.onPick(ref);
    } catch (e) {
      this.fileError = e instanceof ResultsFileError ? e.message : `${file.name}: ${(e as Error).message}`;
      this.onChange();
    }
  }

  private async remove(name: string, current: SourceRef | null): Promise<void> {
    if (!confirm(`Delete the saved run '${name}' from this browser?`)) return;
    await deleteRunOutput(name);
    runCache.delete(name);
    if (current?.kind === 'run' && current.name === name) this.onPick(null);
    await this.refresh();
  }

  /** The committed presets (read from the index at load), and the progress of the one shown. */
  private committedList(current: SourceRef | null, id: (s: string) => string): TemplateResult {
    if (committedList === null && !committedListError) return html`<p class="note">Reading the list…</p>`;
    if (committedList === null) {
      if (!this.listRetried) {
        // Offline at load, perhaps online now: try once more when the card is drawn.
        this.listRetried = true;
        readCommittedList(this.onChange);
      }
      return html`<p class="error-box" id=${id('committed-error')} role="alert">${committedListError}</p>`;
    }
    if (committedList.length === 0)
      return html`<p class="note" id=${id('committed-none')}>None committed yet: a preset's <code>docs/results/&lt;preset&gt;/results.json</code> appears here once committed.</p>`;
    const loader = current?.kind === 'preset' ? loaderOf.get(current) : undefined;
    return html`<p class="preset-links">${committedList.map(
      (p) =>
        html`<button type="button" class="small" data-preset=${p} aria-pressed=${current?.kind === 'preset' && current.name === p ? 'true' : 'false'} @click=${() => this.onPick({ kind: 'preset', name: p })}>${p}</button> `,
    )}
        <span class="note">(<code>docs/results/&lt;preset&gt;/results.json</code>, fetched when opened and kept in this browser: a preset opened once opens offline)</span></p>
      ${loader?.output ? committedStatus(loader, id) : nothing}`;
  }

  /** The card. `current` is highlighted in the list. */
  template(current: SourceRef | null, intro: TemplateResult | string): TemplateResult {
    if (this.saved === null) void this.refresh();
    const id = (s: string) => `${this.prefix}-${s}`;
    const onDrop = (e: DragEvent) => {
      e.preventDefault();
      this.dragging = false;
      void this.pickFile(e.dataTransfer?.files[0]);
    };
    return html`<section class="card source-card" aria-labelledby=${id('source-h')}>
      <h2 id=${id('source-h')}>Source</h2>
      <p class="note">${intro}</p>
      <div class="committed" id=${id('committed')}>
        <h3>Committed results of the presets</h3>
        ${this.committedList(current, id)}
      </div>
      <div class="source-grid">
        <div>
          <h3>Saved in this browser</h3>
          ${this.listError ? html`<p class="error-box">${this.listError}</p>` : nothing}
          ${
            this.saved === null
              ? html`<p class="note">Reading…</p>`
              : this.saved.length === 0
                ? html`<p class="note" id=${id('saved-empty')}>No saved runs yet: runs finished in Train are saved here.</p>`
                : html`<div class="scroll-x"><table class="saved-runs" id=${id('saved')}>
                  <thead><tr><th>name</th><th>spec</th><th>runs</th><th>status</th><th>saved</th><th><span class="visually-hidden">actions</span></th></tr></thead>
                  <tbody>
                    ${this.saved.map(
                      (s) => html`<tr class=${current?.kind === 'run' && current.name === s.name ? 'current' : ''}>
                        <td><code>${s.name}</code></td><td>${s.spec}</td><td>${s.runs} (${s.methods.join(', ')})</td><td>${s.status}</td>
                        <td>${fmtUtc(s.savedAt)}</td>
                        <td class="actions">
                          <button type="button" class="small" data-open=${s.name} @click=${() => this.onPick({ kind: 'run', name: s.name })}>Open</button>
                          <button type="button" class="small danger" data-delete=${s.name} aria-label=${`Delete ${s.name}`} @click=${() => void this.remove(s.name, current)}>Delete</button>
                        </td>
                      </tr>`,
                    )}
                  </tbody>
                </table></div>`
          }
        </div>
        <div class=${`drop-zone${this.dragging ? ' dragging' : ''}`} id=${id('drop')}
          @dragover=${(e: DragEvent) => {
            e.preventDefault();
            if (!this.dragging) (this.dragging = true), this.onChange();
          }}
          @dragleave=${() => {
            this.dragging = false;
            this.onChange();
          }}
          @drop=${onDrop}>
          <h3><label for=${id('file')}>Open a results.json</label></h3>
          <input type="file" id=${id('file')} accept=".json,application/json" aria-describedby=${id('file-error')}
            @change=${(e: Event) => {
              const input = e.target as HTMLInputElement;
              void this.pickFile(input.files?.[0]).then(() => (input.value = ''));
            }} />
          <p class="note">or drop it here — <code>hlab run</code> writes <code>out/&lt;name&gt;/results.json</code>; the Results view's JSON export also opens.</p>
          <p class="error-box" id=${id('file-error')} role="alert" ?hidden=${!this.fileError}>${this.fileError}</p>
        </div>
      </div>
    </section>`;
  }
}

/**
 * Where the Results and Trajectories views get an experiment output: a run saved in the
 * browser (results_store.ts, URL parameter `run=<name>`) or a results.json opened from disk
 * through a file input or drag-and-drop (`file=<file name>`; the contents stay in memory for
 * this tab only, so such a URL needs the file opened again after a reload).
 *
 * Both views share the loaded files and the cache, so a file opened in Results can be replayed
 * in Trajectories without opening it again.
 */
import { html, nothing, type TemplateResult } from 'lit-html';
import {
  deleteRunOutput,
  listRunOutputs,
  loadRunOutput,
  parseResultsFile,
  parseResultsText,
  ResultsFileError,
  type ExperimentOutputJson,
  type RunOutputSummary,
} from '../results_store';
import committed from 'virtual:committed-results';

/** A saved run, a file opened in this tab, or a preset's committed results (docs/results/<preset>/results.json). */
export type SourceRef = { kind: 'run' | 'file' | 'preset'; name: string };

/** The presets with committed results, in name order (vite.config.ts `committedResults`). */
const COMMITTED_PRESETS: readonly string[] = committed.map((c) => c.preset);

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

const sameSource = (a: SourceRef | null, b: SourceRef | null): boolean => (a === null || b === null ? a === b : a.kind === b.kind && a.name === b.name);

/**
 * The output a source names.
 * @throws Error saying what is missing (a saved run deleted, a file not opened in this tab) or
 *   ResultsFileError naming the bad field of a stored output.
 */
export async function loadSource(ref: SourceRef): Promise<ExperimentOutputJson> {
  if (ref.kind === 'preset') {
    const c = committed.find((x) => x.preset === ref.name);
    if (!c) throw new Error(`preset '${ref.name}': no committed results (docs/results/${ref.name}/results.json); committed: ${COMMITTED_PRESETS.join(', ') || 'none'}`);
    return parseResultsFile(c.json, c.path);
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

/**
 * The source a view shows and its loaded output. `load` drops the old output, calls `onChange`
 * (the view shows "Loading…"), and calls it again once the output or the error is in; a load
 * overtaken by a later one is ignored, so a slow IndexedDB read cannot replace a newer pick.
 */
export class SourceLoader {
  source: SourceRef | null = null;
  output: ExperimentOutputJson | null = null;
  /** Why the last load failed ('' when it did not). */
  error = '';
  private ticket = 0;

  constructor(private readonly onChange: () => void) {}

  /** Whether showing `ref` needs a load: another source, or this one without its output. */
  needsLoad(ref: SourceRef | null): boolean {
    return !sameSource(ref, this.source) || (ref !== null && !this.output);
  }

  /** Load `ref` (null: show none). Never throws: a failure lands in `error`. */
  async load(ref: SourceRef | null): Promise<void> {
    this.source = ref;
    this.error = '';
    this.output = null;
    const ticket = ++this.ticket;
    this.onChange();
    if (!ref) return;
    try {
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
        ${
          COMMITTED_PRESETS.length
            ? html`<p class="preset-links">${COMMITTED_PRESETS.map((p) => html`<button type="button" class="small" data-preset=${p} @click=${() => this.onPick({ kind: 'preset', name: p })}>${p}</button> `)}
                <span class="note">(<code>docs/results/&lt;preset&gt;/results.json</code>, shipped with the app)</span></p>`
            : html`<p class="note" id=${id('committed-none')}>None committed yet: a preset's <code>docs/results/&lt;preset&gt;/results.json</code> appears here once committed.</p>`
        }
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
                        <td>${new Date(s.savedAt).toISOString().replace('T', ' ').slice(0, 16)} UTC</td>
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

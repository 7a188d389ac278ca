/**
 * The Compare view: several finished runs side by side — for a research run, not a
 * lesson. Pick saved runs (this browser's results store); the view overlays their training
 * curves (a thin line per run × method × seed, a thick one per run × method: their mean; hover
 * for the means), puts their pass@1 tables side by side (compare_pass_table.ts: one row per
 * run × method, the Results view's numbers), shows the Results view's harness-scaling panel
 * with one column per run × method (scaling.ts), tells the difference between any two of their methods (compare_between.ts) and
 * diffs their specs (compare_spec_diff.ts).
 *
 * Committed results of the presets (committed_fetch.ts) can be ticked beside the saved runs
 * (`main` vs `lesson`, or a browser run vs `lesson`); each is fetched when ticked, its curves and
 * episodes as they arrive.
 *
 * URL parameters: runs=<JSON array: a saved run's name, or {"preset": name} for a committed preset>;
 * a, b: the Between methods pair (`<tag> · <method>`).
 */
import { fmtUtc } from '../../util/duration';
import { html, nothing, render, type TemplateResult } from 'lit-html';
import { live } from 'lit-html/directives/live.js';
import { listRunOutputs, type ExperimentOutputJson, type RunOutputSummary } from '../results_store';
import { loadSource } from './results_source';
import { committedPresets, loadCommitted } from '../committed_fetch';
import { CURVE_METRICS, smoothingControl } from './results';
import { paperTable, type PaperTable } from './results_tables';
import { passTableSection } from './compare_pass_table';
import { specDiff, specDiffSection } from './compare_spec_diff';
import type { CurveChartSpec } from './results_charts';
import { comparedRuns, scalingSection, sharedDesignSpec } from './scaling';
import { betweenSection, pairFromParams } from './compare_between';
import type { MethodPair } from './comparison_panel';
import { parseSpec, type ExperimentSpec } from '../../experiment/spec';
import { SERIES_COLORS } from '../series_colors';
import { formatRoute } from '../route';
import '../results.css';

/**
 * Overlaid curve charts: one series per (run, method, seed), run letter in the label, grouped by
 * output and method ('A · oa': one colour, and the chart draws the group's mean over its seeds).
 */
function overlaidCurves(runs: readonly { tag: string; out: ExperimentOutputJson }[]): CurveChartSpec[] {
  const series = runs.flatMap(({ tag, out }) => out.curves.map((c) => ({ tag, c, group: `${tag} · ${c.method}` })));
  const groups = [...new Set(series.map((s) => s.group))];
  return CURVE_METRICS.map((m) => ({
    title: m.title,
    yLabel: m.y,
    series: series.map(({ tag, c, group }) => ({
      label: `${tag} · ${c.method} · s${c.seed}`,
      group,
      color: SERIES_COLORS[groups.indexOf(group) % SERIES_COLORS.length],
      points: c.steps.map((s) => [s.step, (s as Record<string, unknown>)[m.key] as number | null] as const),
    })),
  }));
}

const TAGS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** A picked output: a run saved in this browser or a preset's committed results. */
interface Pick {
  kind: 'run' | 'preset';
  name: string;
}
const pickKey = (p: Pick): string => `${p.kind}:${p.name}`;
const samePick = (a: Pick, b: Pick): boolean => a.kind === b.kind && a.name === b.name;
/** The display name of a pick (a committed preset says so). */
const pickName = (p: Pick): string => (p.kind === 'preset' ? `${p.name} (committed)` : p.name);

/** The picks of the `runs` URL parameter (a bad one picks nothing; the lists are still shown). */
function parsePicks(param: string | undefined): Pick[] {
  if (!param) return [];
  try {
    const v = JSON.parse(param) as unknown;
    if (!Array.isArray(v)) return [];
    return v.flatMap((x): Pick[] => {
      if (typeof x === 'string') return [{ kind: 'run', name: x }];
      const preset = (x as { preset?: unknown } | null)?.preset;
      return typeof preset === 'string' ? [{ kind: 'preset', name: preset }] : [];
    });
  } catch {
    return [];
  }
}

/** The `runs` URL parameter of picks. */
const picksParam = (picks: readonly Pick[]): string => JSON.stringify(picks.map((p) => (p.kind === 'run' ? p.name : { preset: p.name })));

/** The spec stored with an output, or null when it has none or it no longer validates. */
function specOf(out: ExperimentOutputJson): ExperimentSpec | null {
  const json = (out as { specJson?: unknown }).specJson;
  try {
    return json ? parseSpec(json, 'spec') : null;
  } catch {
    return null;
  }
}

export class CompareView {
  private saved: RunOutputSummary[] | null = null;
  private listError = '';
  private committed: string[] | null = null;
  private committedError = '';
  private selected: Pick[] = [];
  private smoothing = 0;
  /** The Between methods pair (URL parameters a, b); null: its default. */
  private pair: MethodPair | null = null;
  /** Loaded outputs by pickKey; a committed preset's entry is replaced as its parts arrive. */
  private loaded = new Map<string, ExperimentOutputJson | Error>();
  /** Committed presets whose parts are still loading, with what they wait for. */
  private pending = new Map<string, string>();
  /** Parts of committed presets that failed to load, by pickKey. */
  private partErrors = new Map<string, readonly string[]>();
  /** Bumped whenever an entry of `loaded` changes, so derived tables follow a preset's later parts. */
  private version = 0;
  private derived: {
    key: string;
    specs: CurveChartSpec[];
    tables: PaperTable[];
    diff: ReturnType<typeof specDiff>;
    /** The runs of every picked output, methods renamed `<tag> · <method>`, and the spec that splits in-space by distance. */
    scaling: { runs: ReturnType<typeof comparedRuns>; spec: ExperimentSpec | null };
  } | null = null;

  constructor(
    private readonly el: HTMLElement,
    private readonly setParams: (p: Record<string, string>) => void,
  ) {}

  show(params: Record<string, string>): void {
    this.selected = parsePicks(params.runs);
    this.pair = pairFromParams(params);
    void this.refresh();
    if (this.committed === null)
      committedPresets().then(
        (list) => ((this.committed = list), (this.committedError = ''), this.draw()),
        (e: Error) => ((this.committedError = `The committed results could not be listed: ${e.message}`), this.draw()),
      );
    this.loadSelected();
    this.draw();
  }

  private async refresh(): Promise<void> {
    try {
      this.saved = await listRunOutputs();
      this.listError = '';
    } catch (e) {
      this.listError = `Could not list saved runs: ${(e as Error).message}`;
    }
    this.draw();
  }

  private set(key: string, out: ExperimentOutputJson | Error): void {
    this.loaded.set(key, out);
    this.version++;
    this.draw();
  }

  private loadSelected(): void {
    for (const pick of this.selected) {
      const key = pickKey(pick);
      if (this.loaded.has(key) || this.pending.has(key)) continue;
      if (pick.kind === 'run') {
        void loadSource(pick).then(
          (out) => this.set(key, out),
          (e: Error) => this.set(key, e),
        );
        continue;
      }
      this.pending.set(key, 'summary');
      void loadCommitted(pick.name, ['curves', 'episodes'], (l) => {
        if (l.pending.length) this.pending.set(key, l.pending.join(', '));
        else this.pending.delete(key);
        this.partErrors.set(key, l.errors);
        this.set(key, l.output);
      }).catch((e: Error) => {
        this.pending.delete(key);
        this.set(key, new Error(`committed results of '${pick.name}' could not be loaded: ${e.message}`));
      });
    }
  }

  private toggle(pick: Pick, on: boolean): void {
    const rest = this.selected.filter((p) => !samePick(p, pick));
    this.selected = on ? [...rest, pick] : rest;
    this.pair = null;
    this.setParams(this.selected.length ? { runs: picksParam(this.selected) } : {});
    this.loadSelected();
    this.draw();
  }

  private pickPair(p: MethodPair): void {
    this.pair = p;
    this.setParams({ runs: picksParam(this.selected), a: p.a, b: p.b });
    this.draw();
  }

  /** A checkbox line of the pick lists: the letter when picked, the name, a description and a link to Results. */
  private pickItem(pick: Pick, desc: string): TemplateResult {
    const i = this.selected.findIndex((p) => samePick(p, pick));
    const attr = pick.kind === 'run' ? { run: pick.name, preset: undefined } : { run: undefined, preset: pick.name };
    return html`<li><label><input type="checkbox" .checked=${live(i >= 0)} data-run=${attr.run ?? nothing} data-preset=${attr.preset ?? nothing}
        @change=${(e: Event) => this.toggle(pick, (e.target as HTMLInputElement).checked)} />
      ${i >= 0 ? html`<strong class="run-tag">${TAGS[i % TAGS.length]}</strong>` : nothing} ${pick.name}</label>
      <span class="desc">${desc}</span>
      · <a href=${formatRoute({ view: 'results', params: { [pick.kind]: pick.name } })}>open</a></li>`;
  }

  private draw(): void {
    render(this.template(), this.el);
  }

  private template(): TemplateResult {
    const ready = this.selected.map((pick, i) => ({
      name: pickName(pick),
      key: pickKey(pick),
      tag: TAGS[i % TAGS.length],
      out: this.loaded.get(pickKey(pick)),
    }));
    const runs = ready.filter(
      (r): r is { name: string; key: string; tag: string; out: ExperimentOutputJson } => !!r.out && !(r.out instanceof Error),
    );
    const key = JSON.stringify([this.version, runs.map((r) => r.key)]);
    if (this.derived?.key !== key) {
      this.derived = {
        key,
        specs: overlaidCurves(runs),
        tables: runs.map((r) => paperTable(r.out.results.runs)),
        diff: specDiff(runs.map((r) => (r.out as { specJson?: unknown }).specJson ?? null)),
        scaling: {
          runs: comparedRuns(runs.map((r) => ({ tag: r.tag, runs: r.out.results.runs }))),
          spec: sharedDesignSpec(runs.map((r) => specOf(r.out))),
        },
      };
    }
    const d = this.derived;
    return html`
      <section class="intro">
        <h1 tabindex="-1">Compare runs</h1>
        <p>Pick two or more runs saved in this browser or committed results of the presets: their training curves are overlaid, their pass@1 tables and
          harness-scaling panels put side by side, any two of their methods compared and their specs diffed. Each run gets a letter (A, B, …) used in the charts and tables.</p>
      </section>
      <section class="card" aria-labelledby="compare-pick-h">
        <h2 id="compare-pick-h">Saved runs</h2>
        ${this.listError ? html`<p class="error-box">${this.listError}</p>` : nothing}
        ${
          this.saved === null
            ? html`<p class="note">Loading…</p>`
            : this.saved.length === 0
              ? html`<p class="note" id="compare-empty">No saved runs yet: runs finished in Train are saved here.</p>`
              : html`<ul class="compare-list" id="compare-list">
                ${this.saved.map((s) => this.pickItem({ kind: 'run', name: s.name }, `${s.runs} run${s.runs === 1 ? '' : 's'} · ${s.methods.join(', ')} · saved ${fmtUtc(s.savedAt)}`))}
              </ul>`
        }
        <h3 id="compare-committed-h">Committed results of the presets</h3>
        ${this.committedError ? html`<p class="error-box" role="alert">${this.committedError}</p>` : nothing}
        ${
          this.committed === null
            ? this.committedError
              ? nothing
              : html`<p class="note">Reading the list…</p>`
            : html`<ul class="compare-list" id="compare-committed" aria-labelledby="compare-committed-h">
                ${this.committed.map((p) => this.pickItem({ kind: 'preset', name: p }, 'docs/results/' + p + '/results.json, fetched when ticked'))}
              </ul>`
        }
        ${[...this.pending]
          .filter(([k]) => this.selected.some((p) => pickKey(p) === k))
          .map(
            ([k, what]) => html`<p class="note compare-loading" role="status">${ready.find((r) => r.key === k)?.tag}: loading ${what}…</p>`,
          )}
        ${ready.flatMap((r) => (this.partErrors.get(r.key) ?? []).map((e) => html`<p class="error-box" role="alert">${r.tag}: could not load ${e}</p>`))}
        ${ready.filter((r) => r.out instanceof Error).map((r) => html`<p class="error-box">${r.tag}: ${(r.out as Error).message}</p>`)}
      </section>
      ${
        runs.length === 0
          ? nothing
          : html`
          <section class="card" aria-labelledby="compare-curves-h">
            <h2 id="compare-curves-h">Training curves <span class="sub">a thin line per run · method · seed, a thick one per run · method (the mean over its seeds); hover for the means' values, drag to zoom, double-click to zoom out</span></h2>
            ${smoothingControl('compare-smoothing', this.smoothing, (w) => ((this.smoothing = w), this.draw()))}
            <div class="curve-grid" id="compare-curves">${d.specs.map((s) => html`<hl-curve-chart .spec=${this.smoothing ? { ...s, smoothing: this.smoothing } : s}></hl-curve-chart>`)}</div>
          </section>
          ${passTableSection(runs, d.tables)}
          ${betweenSection(
            runs.map((r) => ({ tag: r.tag, name: r.name, runs: r.out.results.runs })),
            d.scaling.runs,
            this.pair,
            (p) => this.pickPair(p),
            new Set(ready.filter((r) => /summary|episodes/.test(this.pending.get(r.key) ?? '')).map((r) => r.tag)),
          )}
          ${scalingSection(d.scaling.runs, d.scaling.spec, {
            id: 'compare-scaling',
            noDistance:
              "the runs do not all carry a spec, or their specs measure distance to different references (one to the base harness, one to the design's training set, or to different designs)",
            columnHead: 'run · method',
          })}
          ${specDiffSection(runs, d.diff)}`
      }
    `;
  }
}

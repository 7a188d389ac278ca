/**
 * The Results view (docs/ARCHITECTURE.md "Experiments, evaluation and results"): an experiment's paper-style table (methods ×
 * base / in-space / black-box harnesses / training harnesses, pass@1 in % as mean ± std over
 * seeds, before → after), behaviour metrics, the per-harness breakdown, the training curves
 * (uPlot, one line per run) and exports to CSV (resultsCsv, as `hlab run` writes), JSON (the
 * loaded output) and PNG (table + charts).
 *
 * Per task family: pass@1 (episodes) by `suite/family` × harness set (per_family.ts), from an
 * `hlab evaluate --json` report's `perFamily` (with the policy's entropy per token), or derived
 * from a results file's per-episode outcomes after training, one table per method.
 *
 * Source: a run saved in this browser, a results.json or an `hlab evaluate --json` report opened
 * from disk (results_source.ts; a report has no runs, so only its tables show).
 * URL parameters: run=<saved name> | file=<file name>.
 * The paper table is src/report/results_table.ts's `resultsTable` (the model results.md renders),
 * and the other statistics use the same module (meanStd, formatPct, resultsCsv), so the numbers
 * are the CLI's; a value that is null in the file (an evaluation that did not run) is left out
 * of its mean and a cell with none shows "—".
 */
import { sweepSection } from './sweep_panel';
import { downloadBlob } from '../download';
import { html, nothing, render, type TemplateResult } from 'lit-html';
import { beforeReuseNote, experimentTime, resultsCsv } from '../../report/results_markdown';
import { deltaText, intervalText, scoreText, type ResultsCell } from '../../report/results_table';
import type { ExperimentResults } from '../../report/results_schema';
import type { Comparison } from '../../report/seed_stats';
import { outputToJsonText, type EvaluationReportJson, type ExperimentOutputJson } from '../results_store';
import { familyCellText, familyMatrix, familyTablesOfRuns, type FamilyTable } from '../../report/per_family';
// For its side effect too: the module defines <hl-curve-chart>, which the templates below use.
import './results_charts';
import type { CurveChart, CurveChartSpec } from './results_charts';
import { SERIES_COLORS } from '../series_colors';
import { SourceLoader, SourcePicker, sourceFromParams, sourceParams, type SourceRef } from './results_source';
import { formatRoute } from '../route';
import { parseSpec, type ExperimentSpec } from '../../experiment/spec';
import { getPreset } from '../../experiment/presets';
import { scalingSection } from './scaling';
import { claimsSection } from './claims_panel';
import { mapSection, MapSource } from './map_panel';
import { comparisonSection, type MethodPair } from './comparison_panel';
import { harnessSet } from '../../report/method_verdict';
import '../results.css';
import { BEHAVIOUR, behaviourTable, harnessRoles, paperTable, perHarnessTable, type PaperTable, type StatCell } from './results_tables';
import { runStepCounts, stepCountsText, withoutUpdate } from '../step_counts';
import { infeasibleCellsOf, type InfeasibleCell } from '../infeasible_cells';
import { nullsToNaN } from '../../util/encoding';

/** Results with null read back as NaN: the exact input of resultsCsv/markdownTable. */
function toExperimentResults(out: ExperimentOutputJson): ExperimentResults {
  return nullsToNaN(out.results) as ExperimentResults;
}

/** The six curve charts of a run (Results and Compare views): StepRecord key, title, y label. */
export const CURVE_METRICS = [
  { key: 'reward', title: 'Reward (mean pass)', y: 'reward', ofUpdate: false },
  { key: 'policyLoss', title: 'Policy loss', y: 'loss', ofUpdate: true },
  { key: 'clipFrac', title: 'Clip fraction', y: 'fraction', ofUpdate: true },
  { key: 'approxKl', title: 'Approx. KL(π_old‖π)', y: 'nats', ofUpdate: true },
  { key: 'entropy', title: 'Entropy', y: 'nats / token', ofUpdate: false },
  { key: 'gradNorm', title: 'Gradient norm', y: '‖g‖', ofUpdate: true },
] as const;

/** One colour per method (cycled, the Train view's palette), by the method's first run in `out.curves`. */
function methodColors(out: ExperimentOutputJson): Map<string, string> {
  const methods = [...new Set(out.curves.map((c) => c.method))];
  return new Map(methods.map((m, i) => [m, SERIES_COLORS[i % SERIES_COLORS.length]]));
}

/**
 * The curve charts' specs: the validation pass@1 (when the output has validation points, never
 * smoothed), then the six of CURVE_METRICS; one series per (method, seed) run, grouped by method
 * (in the method's colour; the chart adds each method's mean over its seeds). A metric of the update (loss,
 * clip fraction, KL, gradient norm) does not exist at an RL step without an update (producers
 * write 0 there): it is a gap, and a step where no run had an update is shaded (`noData`), as in
 * the Train view — never drawn as 0.
 */
function curveSpecs(out: ExperimentOutputJson): CurveChartSpec[] {
  const xs = [...new Set(out.curves.flatMap((c) => c.steps.map((s) => s.step)))].sort((a, b) => a - b);
  const unmeasured = xs.filter((x) => out.curves.every((c) => c.steps.every((s) => s.step !== x || withoutUpdate(s))));
  const colors = methodColors(out);
  // The validation curve first, as in the Train view, when the output has one (newer runs with evaluation.validation).
  const validation: CurveChartSpec[] = out.curves.some((c) => c.validation?.length)
    ? [
        {
          title: 'Validation pass@1 (train-seed tasks)',
          yLabel: 'pass@1',
          raw: true,
          series: out.curves.map((c) => ({
            label: `${c.method} · seed ${c.seed}`,
            group: c.method,
            color: colors.get(c.method)!,
            points: [...(c.validation ?? [])].sort((a, b) => a.step - b.step).map((p) => [p.step, p.passAt1] as const),
          })),
        },
      ]
    : [];
  return [
    ...validation,
    ...CURVE_METRICS.map((m) => ({
      title: m.title,
      yLabel: m.y,
      ...(m.ofUpdate ? { noData: unmeasured } : {}),
      series: out.curves.map((c) => ({
        label: `${c.method} · seed ${c.seed}`,
        group: c.method,
        color: colors.get(c.method)!,
        points: c.steps.map(
          (s) => [s.step, m.ofUpdate && withoutUpdate(s) ? null : ((s as Record<string, unknown>)[m.key] as number | null)] as const,
        ),
      })),
    })),
  ];
}

/** File-name stem from the spec name and source ("quick", "quick-results"). */
const stem = (out: ExperimentOutputJson): string => (out.results.spec || 'results').replace(/[^\w.-]+/g, '_');

/**
 * The PNG export: the paper table drawn as text rows, then every chart canvas, two per row, on
 * one canvas (device pixels of the charts are kept).
 */
async function composePng(
  title: string,
  table: PaperTable,
  charts: readonly HTMLCanvasElement[],
  chartTitles: readonly string[] = [],
): Promise<Blob> {
  const head = ['method', 'seeds', ...table.columns.map((c) => c.label)];
  const lines = table.rows.map((r) => [
    r.label,
    String(r.seeds),
    ...r.after.map((c, i) => (r.before ? `${r.before[i].mean === null ? '—' : (100 * r.before[i].mean!).toFixed(1)} → ${c.text}` : c.text)),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  const textRows = [title, '', fmt(head), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(fmt)];
  const lineH = 20;
  const pad = 16;
  const probe = document.createElement('canvas').getContext('2d')!;
  probe.font = '14px monospace';
  const textW = Math.max(...textRows.map((t) => probe.measureText(t).width));
  const cw = charts.length ? Math.max(...charts.map((c) => c.width)) : 0;
  // Each chart's title (uPlot draws it in the DOM, not on the canvas) above it; units are the canvas's axis labels.
  const titleH = chartTitles.length ? 22 : 0;
  const ch = (charts.length ? Math.max(...charts.map((c) => c.height)) : 0) + titleH;
  const cols = 2;
  const width = Math.ceil(Math.max(textW, cols * cw + pad) + 2 * pad);
  const tableH = textRows.length * lineH + pad;
  const height = Math.ceil(pad + tableH + Math.ceil(charts.length / cols) * (ch + pad) + pad);
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const g = canvas.getContext('2d')!;
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, width, height);
  g.fillStyle = '#1b1f24';
  g.font = '14px monospace';
  g.textBaseline = 'top';
  textRows.forEach((t, i) => g.fillText(t, pad, pad + i * lineH));
  g.font = 'bold 15px sans-serif';
  charts.forEach((c, i) => {
    const x0 = pad + (i % cols) * (cw + pad);
    const y0 = pad + tableH + Math.floor(i / cols) * (ch + pad);
    if (chartTitles[i]) g.fillText(chartTitles[i], x0, y0 + 2);
    g.drawImage(c, x0, y0 + titleH);
  });
  return new Promise((resolve, reject) =>
    canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('PNG export: canvas.toBlob returned nothing'))), 'image/png'),
  );
}

function cellTd(c: StatCell, col: string, before?: StatCell): TemplateResult {
  return html`<td class="num" data-col=${col} data-mean=${c.mean ?? ''} data-std=${c.std ?? ''} data-n=${c.n}>
    ${before ? html`<span class="before" title="before training">${before.mean === null ? '—' : (100 * before.mean).toFixed(1)}</span><span class="arrow" aria-label="to"> → </span>` : nothing}<span class="after">${c.text}</span>
  </td>`;
}

/**
 * A paper-table cell: before → after pass@1 (mean ± std over seeds), then the 95 % Wilson
 * interval and pooled episode count, the mean score, and for a method the paired Δ with its
 * interval over seeds and whether it is decided ("n/a" where the run has no per-episode outcomes,
 * "not measurable" where no episode passes before or after: results_tables.ts deltaText).
 */
function paperTd(c: ResultsCell, label: string, before: ResultsCell | undefined, paired: Comparison | null | undefined): TemplateResult {
  const d = paired?.pass;
  return html`<td class="num" data-label=${label} data-col=${c.key} data-mean=${c.mean ?? ''} data-std=${c.std ?? ''} data-n=${c.n} data-episodes=${c.episodes ?? ''}
      data-lo=${c.interval?.lo ?? ''} data-hi=${c.interval?.hi ?? ''} data-diff=${d?.diff ?? ''} data-decided=${d ? String(d.decided) : ''}>
    ${before ? html`<span class="before" title="before training">${before.mean === null ? '—' : (100 * before.mean).toFixed(1)}</span><span class="arrow" aria-label="to"> → </span>` : nothing}<span class="after">${c.text}</span>
    <span class="ci" title="95 % Wilson interval of the pass rate over the episodes pooled over seeds">${intervalText(c)}</span>
    <span class="score" title="mean verifier score (partial credit; 0 for doing nothing)">score ${scoreText(c)}</span>
    ${
      paired !== undefined
        ? html`<span class="delta ${d?.decided ? 'beyond' : ''}" data-measurable=${String(deltaText(paired, before, c).measurable)} title="after − before on the same (task, harness, sample) cells of each seed: 95 % t-interval over training runs (seeds) and configurations">Δ ${deltaText(paired, before, c).text}</span>`
        : nothing
    }
  </td>`;
}

/** One per-family table (rows suite/family, a column per harness set): pass@1 (episodes), data-* carrying the numbers. */
function familyTableHtml(id: string, tables: Readonly<Record<string, FamilyTable>>): TemplateResult {
  const m = familyMatrix(tables);
  return html`<div class="scroll-x"><table class="paper-table family-table" id=${id}>
    <thead><tr><th scope="col">suite/family</th>${m.columns.map((c) => html`<th scope="col" class="num">${c}</th>`)}</tr></thead>
    <tbody>${m.rows.map(
      (r) =>
        html`<tr data-family=${r.family}><th scope="row">${r.family}</th>${r.cells.map(
          (c, i) =>
            html`<td class="num" data-col=${m.columns[i]} data-pass=${c?.passAt1 ?? ''} data-episodes=${c?.episodes ?? ''} title=${c ? `mean score ${c.score.toFixed(2)}` : ''}>${familyCellText(c)}</td>`,
        )}</tr>`,
    )}</tbody>
  </table></div>`;
}

/** How much each run trained, in the app's vocabulary (step_counts.ts): RL steps, optimizer steps, skipped ones, RL steps without an update. */
function trainingSection(out: ExperimentOutputJson): TemplateResult {
  return html`<section class="card" aria-labelledby="training-h">
    <h2 id="training-h">Training <span class="sub">per run</span></h2>
    <ul class="step-counts" id="results-step-counts">
      ${out.results.runs.map((r) => {
        const curve = out.curves.find((c) => c.method === r.method && c.seed === r.seed);
        return html`<li data-method=${r.method} data-seed=${r.seed}><strong>${r.method} · seed ${r.seed}</strong>: ${stepCountsText(runStepCounts(curve ? curve.steps : null, r))}</li>`;
      })}
    </ul>
  </section>`;
}

/**
 * The (task, harness) cells left out as infeasible (infeasible_cells.ts): their count, why they
 * change the episode counts, and the list; a producer that does not record them is said to.
 */
function infeasibleSection(cells: InfeasibleCell[] | null): TemplateResult {
  const byHarness = new Map<string, number>();
  for (const c of cells ?? []) byHarness.set(c.harnessId, (byHarness.get(c.harnessId) ?? 0) + 1);
  return html`<section class="card" aria-labelledby="infeasible-h">
    <h2 id="infeasible-h">Infeasible cells <span class="sub">(task, harness) cells the scripted expert cannot solve within the spec's budgets</span></h2>
    ${
      cells === null
        ? html`<p class="note" id="infeasible-none">Not recorded: this output does not list infeasible cells (only <code>hlab run</code> checks feasibility), so its episode counts include every cell.</p>`
        : cells.length === 0
          ? html`<p class="note" id="infeasible-none">None: every (task, harness) cell of the spec is feasible.</p>`
          : html`<p class="note" id="infeasible-summary"><strong>${cells.length}</strong> cell${cells.length === 1 ? ' was' : 's were'} left out of training and evaluation
              (${[...byHarness].map(([h, k]) => `${h}: ${k}`).join(', ')}): an evaluation over those harnesses has that many episodes fewer than tasks × harnesses × samples
              (e.g. 143 rather than 144), as the <em>n</em> of each column above shows.</p>
            <div class="scroll-y scroll-x infeasible-scroll"><table class="paper-table" id="infeasible-table">
              <thead><tr><th scope="col">task</th><th scope="col">harness</th><th scope="col">reason</th><th scope="col">detail</th></tr></thead>
              <tbody>${cells.map((c) => html`<tr><th scope="row"><code>${c.taskId}</code></th><td><code class="hid">${c.harnessId}</code></td><td>${c.reason}</td><td class="detail">${c.detail}</td></tr>`)}</tbody>
            </table></div>`
    }
  </section>`;
}

const nats = (x: number | null | undefined) => (x === null || x === undefined ? '—' : x.toFixed(3));

/** The per-family section: an evaluation report's tables (and entropy), else one table per method from the runs' episodes. */
function familySection(out: ExperimentOutputJson): TemplateResult {
  const ev = out.evaluation as EvaluationReportJson | undefined;
  const perMethod = ev ? [] : familyTablesOfRuns(out.results.runs as Parameters<typeof familyTablesOfRuns>[0]);
  return html`<section class="card" aria-labelledby="family-h">
    <h2 id="family-h">Per task family <span class="sub">pass@1 (episodes) ${ev ? 'per harness set evaluated' : 'after training, pooled over seeds'}</span></h2>
    ${
      ev
        ? html`${
            ev.entropy
              ? html`<p class="note" id="family-entropy">Policy entropy per sampled token (nats): all ${nats(ev.entropy.overall)}; base ${nats(ev.entropy.base)}, training ${nats(ev.entropy.training)}, in-space ${nats(ev.entropy.inSpace)}${Object.entries(
                  ev.entropy.blackbox,
                ).map(([b, x]) => `, ${b} ${nats(x)}`)}.</p>`
              : nothing
          }${familyTableHtml('family-table', ev.perFamily)}`
        : perMethod.length === 0
          ? html`<p class="note" id="family-none">These results carry no per-episode outcomes, so there is no per-family table.</p>`
          : perMethod.map((m) => html`<h3>${m.method}</h3>${familyTableHtml(`family-table-${m.method}`, m.tables)}`)
    }
  </section>`;
}

/** A select of the curves' smoothing (EMA weight; 0 = raw), shared by Results and Compare. */
export function smoothingControl(id: string, value: number, set: (w: number) => void): TemplateResult {
  return html`<label class="smoothing" for=${id}>Smoothing
    <select id=${id} @change=${(e: Event) => set(Number((e.target as HTMLSelectElement).value))}>
      ${[0, 0.5, 0.8, 0.9].map((w) => html`<option value=${w} .selected=${w === value}>${w === 0 ? 'none (raw)' : `EMA ${w}`}</option>`)}
    </select></label>`;
}

export class ResultsView {
  private smoothing = 0;
  /** The method pair of the Between methods panel (URL parameters a, b); null: its default. */
  private pair: MethodPair | null = null;
  private readonly loaded = new SourceLoader(() => this.draw());
  /** The map of conditions (docs/results/map.json), fetched when the view is first shown. */
  private readonly map = new MapSource();
  private exportError = '';
  private readonly picker: SourcePicker;
  /** Tables and chart specs of the loaded output, computed once per output rather than per render. */
  private derived: {
    out: ExperimentOutputJson;
    table: PaperTable;
    beh: ReturnType<typeof behaviourTable>;
    ph: ReturnType<typeof perHarnessTable>;
    specs: CurveChartSpec[];
  } | null = null;

  /** @param setParams called with the view's inputs whenever the user changes the source (→ URL). */
  constructor(
    private readonly el: HTMLElement,
    private readonly setParams: (p: Record<string, string>) => void,
  ) {
    this.picker = new SourcePicker(
      'results',
      (ref) => this.pick(ref),
      () => this.draw(),
    );
  }

  /** Show the view for URL parameters (run=<saved name> or file=<opened file name>). */
  show(params: Record<string, string>): void {
    const ref = sourceFromParams(params);
    this.pair = params.a && params.b ? { a: params.a, b: params.b } : null;
    // Re-read the saved list each time the view is shown: Train may have saved a run meanwhile.
    void this.picker.refresh();
    this.map.request(() => this.draw());
    if (this.loaded.needsLoad(ref)) this.load(ref);
    else this.draw();
  }

  private pick(ref: SourceRef | null): void {
    this.pair = null;
    this.setParams(sourceParams(ref));
    this.load(ref);
  }

  private pickPair(p: MethodPair): void {
    this.pair = p;
    this.setParams({ ...sourceParams(this.loaded.source), a: p.a, b: p.b });
    this.draw();
  }

  private load(ref: SourceRef | null): void {
    this.exportError = '';
    void this.loaded.load(ref);
  }

  private draw(): void {
    render(this.template(), this.el);
  }

  private derive(out: ExperimentOutputJson): NonNullable<ResultsView['derived']> {
    if (this.derived?.out !== out) {
      const runs = out.results.runs;
      this.derived = { out, table: paperTable(runs), beh: behaviourTable(runs), ph: perHarnessTable(runs), specs: curveSpecs(out) };
    }
    return this.derived;
  }

  /** The experiment's spec when known: stored with a run saved by Train, or the preset of committed results. */
  private specOf(out: ExperimentOutputJson): ExperimentSpec | null {
    const specJson = (out as { specJson?: unknown }).specJson;
    try {
      if (specJson) return parseSpec(specJson, 'spec');
      if (this.loaded.source?.kind === 'preset') return getPreset(this.loaded.source.name);
    } catch {
      return null;
    }
    return null;
  }

  private async exportPng(out: ExperimentOutputJson): Promise<void> {
    try {
      const els = [...this.el.querySelectorAll<CurveChart>('hl-curve-chart')].filter((c) => !!c.canvas);
      const charts = els.map((c) => c.canvas!);
      const titles = els.map((c) => (c.spec ? `${c.spec.title} (${c.spec.yLabel} per RL step)` : ''));
      const blob = await composePng(
        `pass@1 (%) — ${out.results.spec}; in-space set: ${out.results.evalSet}; mean ± std over seeds`,
        this.derive(out).table,
        charts,
        titles,
      );
      downloadBlob(`${stem(out)}-results.png`, blob);
    } catch (e) {
      this.exportError = `PNG export failed: ${(e as Error).message}`;
      this.draw();
    }
  }

  private template(): TemplateResult {
    const out = this.loaded.output;
    return html`
      <section class="intro">
        <h1 tabindex="-1">Results</h1>
        <p>pass@1 of each method before and after RL training, on the base harness, held-out
          in-space configurations and black-box harnesses: mean ± std over seeds, as in the paper's
          tables. Open a run saved by Train, a <code>results.json</code> written by <code>hlab run</code> or an <code>hlab evaluate --json</code> report.</p>
      </section>
      ${claimsSection()}
      ${mapSection(this.map)}
      ${this.picker.template(this.loaded.source, 'Runs finished in the Train view are saved in this browser; files stay on this machine.')}
      ${this.loaded.error ? html`<p class="error-box" id="results-load-error" role="alert">${this.loaded.error}</p>` : nothing}
      ${this.loaded.source && !out && !this.loaded.error ? html`<p class="note">Loading…</p>` : nothing}
      ${out ? this.outputSections(out) : nothing}
    `;
  }

  private outputSections(out: ExperimentOutputJson): TemplateResult {
    const runs = out.results.runs;
    const { table, beh, ph, specs } = this.derive(out);
    const roles = harnessRoles(
      ph.rows.map((r) => r.harness),
      this.specOf(out),
    );
    return html`
      <section class="card" aria-labelledby="results-h">
        <div class="results-head">
          <h2 id="results-h">${out.results.spec} <span class="sub">${this.loaded.source?.kind === 'file' ? `file ${this.loaded.source.name}` : this.loaded.source?.kind === 'preset' ? `committed results of the preset ${this.loaded.source.name}` : `saved run ${this.loaded.source?.name}`} · ${out.status} · ${runs.length} run${runs.length === 1 ? '' : 's'}</span></h2>
          <div class="export-buttons" role="group" aria-label="Export">
            <button type="button" id="export-csv" @click=${() => downloadBlob(`${stem(out)}-results.csv`, new Blob([resultsCsv(toExperimentResults(out))], { type: 'text/csv' }))}>Export CSV</button>
            <button type="button" id="export-json" @click=${() => downloadBlob(`${stem(out)}-results.json`, new Blob([outputToJsonText(out) + '\n'], { type: 'application/json' }))}>Export JSON</button>
            <button type="button" id="export-png" @click=${() => void this.exportPng(out)}>Export PNG</button>
          </div>
        </div>
        ${
          out.trajectories?.length
            ? html`<p class="note"><a id="results-traj-link" href=${formatRoute({ view: 'trajectories', params: sourceParams(this.loaded.source) })}>Replay its ${out.trajectories.length} stored trajectories</a> token by token in Trajectories.</p>`
            : nothing
        }
        ${this.exportError ? html`<p class="error-box" role="alert">${this.exportError}</p>` : nothing}
        <dl class="facts run-facts">
          <dt>In-space set</dt><dd>${out.results.evalSet}</dd>
          <dt>Machine</dt><dd>${out.results.machine}</dd>
          ${out.command ? html`<dt>Command</dt><dd><code>${out.command}</code></dd>` : nothing}
          ${out.starts?.length ? html`<dt>Start</dt><dd>${[...new Set(out.starts)].join('; ')}</dd>` : nothing}
          ${out.seconds != null ? html`<dt>Time</dt><dd id="results-time">${experimentTime(out.seconds, runs, out.command?.includes(' merge ') ? "the chunks' last calls" : 'the last call')}</dd>` : nothing}
        </dl>
        ${out.warnings.map((w) => html`<p class="warning">${w}</p>`)}
        ${beforeReuseNote(runs) ? html`<p class="note" id="results-before-reused" style="white-space: pre-line">Note: ${beforeReuseNote(runs)}</p>` : nothing}
        ${
          out.specJson
            ? html`<details class="run-spec" id="results-spec"><summary>Spec of this run</summary><pre>${JSON.stringify(out.specJson, null, 2)}</pre></details>`
            : out.evaluation
              ? nothing
              : html`<p class="note">The spec is not stored with this output (saved before specs were kept); <code>hlab run</code> writes it beside results.json as spec.json.</p>`
        }
        ${out.evaluation && runs.length === 0 ? nothing : this.paperSection(table)}
      </section>
      ${comparisonSection(runs, this.pair, (p) => this.pickPair(p), { id: 'between' })}
      ${scalingSection(runs, this.specOf(out))}
      ${sweepSection(runs, this.specOf(out))}
      ${out.evaluation && runs.length === 0 ? nothing : trainingSection(out)}
      ${infeasibleSection(infeasibleCellsOf(out, this.loaded.source?.name))}
      ${familySection(out)}
      ${out.evaluation && runs.length === 0 ? nothing : this.runSections(out, beh, ph, specs, roles)}
    `;
  }

  private paperSection(table: PaperTable): TemplateResult {
    return html`
        <h3 id="paper-h">pass@1 (%) <span class="sub">before → after, mean ± std over seeds; [95 % Wilson interval] n = episodes pooled over seeds; Δ = paired difference, 95 % interval over seeds and configurations</span></h3>
        ${
          table.hasEpisodes
            ? nothing
            : this.loaded.pending.includes('episodes')
              ? html`<p class="note" id="results-episodes-loading">Loading the per-episode outcomes: intervals and paired differences follow.</p>`
              : html`<p class="note" id="results-no-episodes">These results carry no per-episode outcomes, so intervals, scores and paired differences read n/a.</p>`
        }
        <div class="scroll-x">
          <table class="paper-table cards-narrow" id="paper-table" aria-labelledby="paper-h">
            <thead><tr><th scope="col">method</th><th scope="col">seeds</th>${table.columns.map((c) => html`<th scope="col" class="num"><abbr title=${harnessSet(c.key).explain}>${c.label}</abbr></th>`)}</tr></thead>
            <tbody>
              ${table.rows.map(
                (r) => html`<tr data-method=${r.label} class=${r.before ? '' : 'start-row'}>
                  <th scope="row">${r.label}</th><td class="num" data-label="seeds">${r.seeds}</td>
                  ${r.after.map((c, i) => paperTd(c, table.columns[i].label, r.before?.[i], r.paired ? r.paired[i] : undefined))}
                </tr>`,
              )}
            </tbody>
          </table>
        </div>`;
  }

  private runSections(
    out: ExperimentOutputJson,
    beh: ReturnType<typeof behaviourTable>,
    ph: ReturnType<typeof perHarnessTable>,
    specs: CurveChartSpec[],
    roles: Map<string, string>,
  ): TemplateResult {
    return html`
      <section class="card" aria-labelledby="curves-h">
        <h2 id="curves-h">Training curves <span class="sub">a thin line per run, a thick one per method (the mean over its seeds); hover for the means' values, drag to zoom, double-click to zoom out</span></h2>
        ${smoothingControl('results-smoothing', this.smoothing, (w) => ((this.smoothing = w), this.draw()))}
        ${
          out.curves.length === 0 || out.curves.every((c) => c.steps.length === 0)
            ? html`<p class="note">No RL steps recorded in this output.</p>`
            : html`<ul class="legend run-legend" id="curves-legend">
                ${[...methodColors(out)].map(([m, color]) => {
                  const seeds = out.curves.filter((c) => c.method === m).length;
                  return html`<li data-method=${m}><span class="swatch" style=${`background:${color}`}></span>${m}: ${seeds} run${seeds === 1 ? '' : 's'} (thin), their mean (thick)</li>`;
                })}
              </ul>
              <div class="curve-grid" id="curves">${specs.map((s) => html`<hl-curve-chart .spec=${this.smoothing && !s.raw ? { ...s, smoothing: this.smoothing } : s}></hl-curve-chart>`)}</div>`
        }
      </section>
      <section class="card" aria-labelledby="behaviour-h">
        <h2 id="behaviour-h">Behaviour <span class="sub">per evaluation episode, before → after</span></h2>
        <div class="scroll-x">
          <table class="paper-table cards-narrow" id="behaviour-table">
            <thead><tr><th scope="col">method</th>${BEHAVIOUR.map((b) => html`<th scope="col" class="num">${b.label}</th>`)}</tr></thead>
            <tbody>
              ${beh.map(
                (r) => html`<tr data-method=${r.method}><th scope="row">${r.method}</th>
                  ${r.cells.map((c, i) => html`<td class="num" data-label=${BEHAVIOUR[i].label} data-col=${BEHAVIOUR[i].key} data-mean=${c.after.mean ?? ''}><span class="before">${c.before.text}</span><span class="arrow" aria-label="to"> → </span><span class="after">${c.after.text}</span></td>`)}
                </tr>`,
              )}
            </tbody>
          </table>
        </div>
      </section>
      <section class="card" aria-labelledby="harness-h">
        <h2 id="harness-h">Per harness <span class="sub">pass@1 (%) after training, mean ± std over seeds; ${ph.rows.length} harnesses</span></h2>
        ${
          ph.rows.length === 0
            ? html`<p class="note">No per-harness results (the evaluation did not run).</p>`
            : html`<div class="scroll-y harness-scroll">
              <table class="paper-table" id="harness-table">
                <thead><tr><th scope="col">harness</th><th scope="col" title="training: in a method's training set; held-out: not trained on, d = Hamming distance to the reference named (the one the in-space set was drawn by); black-box: a whole other harness">role</th>${ph.methods.map((m) => html`<th scope="col" class="num">${m}</th>`)}</tr></thead>
                <tbody>${ph.rows.map((r) => html`<tr data-harness=${r.harness}><th scope="row"><code class="hid">${r.harness}</code></th><td class="role">${roles.get(r.harness)}</td>${r.cells.map((c, i) => cellTd(c, ph.methods[i]))}</tr>`)}</tbody>
              </table>
            </div>`
        }
      </section>
    `;
  }
}

/**
 * Harness scaling at a glance: single-harness and harness-scaling runs side by side
 * per harness set — base, the training harnesses, held-out in-space configurations by the
 * Hamming distance the spec stratifies them by (plan.ts inSpaceDistance: to the base harness or
 * to the design's training set; where the spec is known), each black-box harness —
 * pass@1 after training with its 95 % Wilson interval and the paired before→after Δ with its
 * bootstrap interval (src/report/stats.ts; no statistics of its own). Episodes are pooled
 * over seeds; a method whose runs carry no per-episode outcomes shows the mean over seeds only.
 * The Results view shows it for one output; the Compare view for several, one column per run ·
 * method (`comparedRuns`).
 */
import { html, nothing, type TemplateResult } from 'lit-html';
import { byMethod } from '../../report/results_table';
import type { EpisodeCell } from '../../report/results_schema';
import { pairCells, wilson, type PairedCell, type RateInterval } from '../../report/stats';
import { comparePaired } from '../../report/seed_stats';
import type { SeedInterval } from '../../report/seed_interval';
import { DEFAULT_SPACE, enumerateSpace, formatHarnessId } from '../../design';
import { inSpaceDistance } from '../../experiment/plan';
import type { ExperimentSpec } from '../../experiment/spec';
import type { RunResult as RunResultJson } from '../../report/results_schema';

/** One harness set of the table: which results column its episodes come from, and which of them. */
interface HarnessSet {
  key: string;
  label: string;
  column: string;
  keep?: (harnessId: string) => boolean;
}

/** One (harness set, method) cell. */
interface ScalingCell {
  /** Wilson interval of the pooled after-training pass rate; null without per-episode outcomes. */
  after: RateInterval | null;
  /** Paired before→after difference of pass on the same cells; null when nothing pairs. */
  delta: SeedInterval | null;
  /** Mean over seeds of the run's pass@1 value (for runs without episodes); null when none. */
  mean: number | null;
}

interface ScalingTable {
  methods: string[];
  rows: { key: string; label: string; cells: ScalingCell[] }[];
  /** Whether in-space rows are split by distance (the spec's design is known and in-space episodes are recorded). */
  byDistance: boolean;
  /** Whether the design's training set is known (from the spec): without it nothing can be split by distance. */
  designKnown: boolean;
}

/** Every configuration of the default space, by id. */
const DEFAULT_SPACE_IDS = enumerateSpace(DEFAULT_SPACE).map((v) => formatHarnessId(v, DEFAULT_SPACE));

/** The spec's in-space distance and what it is measured to; null without a spec. */
const distanceOf = (spec: ExperimentSpec | null) => (spec ? inSpaceDistance(spec) : null);

/** What a distance means under a spec, to compare two specs: its reference and each in-space id's value. */
function distanceKey(spec: ExperimentSpec | null, ids: readonly string[]): string {
  const d = distanceOf(spec);
  return d ? JSON.stringify([d.to, ids.map(d.of)]) : 'null';
}
/**
 * The spec whose in-space distance holds for several outputs: the first one when every output's
 * spec is known and each gives every configuration of the space the same distance (the same
 * reference); otherwise null (distances to different references do not belong in one row).
 */
export function sharedDesignSpec(specs: readonly (ExperimentSpec | null)[]): ExperimentSpec | null {
  if (!specs.length || specs.some((s) => s === null)) return null;
  const all = DEFAULT_SPACE_IDS;
  const first = distanceKey(specs[0], all);
  return first !== 'null' && specs.every((s) => distanceKey(s, all) === first) ? specs[0] : null;
}

/**
 * Several outputs' runs as one list for `scalingTable`: each run's method renamed `<tag> · <method>`
 * (`A · oa`), so every output's methods get columns of their own.
 */
export function comparedRuns(outputs: readonly { tag: string; runs: readonly RunResultJson[] }[]): RunResultJson[] {
  return outputs.flatMap(({ tag, runs }) => runs.map((r) => ({ ...r, method: `${tag} · ${r.method}` })));
}

/**
 * The table over a results file's runs.
 * @param spec the experiment's spec when known (a committed preset, a run saved by Train): in-space rows by distance
 */
function scalingTable(runs: readonly RunResultJson[], spec: ExperimentSpec | null): ScalingTable {
  const groups = [...byMethod(runs)];
  const bb = [...new Set(runs.flatMap((r) => Object.keys(r.after.blackbox)))].sort();
  const distance = distanceOf(spec);
  const dist = (h: string) => distance?.of(h) ?? Number.NaN;
  const inSpaceIds = [...new Set(runs.flatMap((r) => (r.episodes?.after.inSpace ?? []).map((e) => e.harnessId)))];
  const distances = distance ? [...new Set(inSpaceIds.map(dist))].sort((a, b) => a - b) : [];
  const sets: HarnessSet[] = [
    { key: 'base', label: 'base harness', column: 'base' },
    { key: 'train', label: "each method's training harnesses", column: 'train' },
    ...(distances.length
      ? distances.map((d) => ({
          key: `inSpace-d${d}`,
          label: `in-space, d = ${d} to the ${distance!.to}`,
          column: 'inSpace',
          keep: (h: string) => dist(h) === d,
        }))
      : [{ key: 'inSpace', label: 'in-space (held out)', column: 'inSpace' }]),
    ...bb.map((b) => ({ key: b, label: `${b} (black-box)`, column: b })),
  ];
  const afterValue = (r: RunResultJson, column: string): number | null =>
    column === 'base'
      ? r.after.base
      : column === 'inSpace'
        ? r.after.inSpace
        : column === 'train'
          ? r.trainHarnesses.after
          : (r.after.blackbox[column] ?? null);
  return {
    methods: groups.map(([m]) => m),
    byDistance: distances.length > 0,
    designKnown: distance !== null,
    rows: sets.map((s) => ({
      key: s.key,
      label: s.label,
      cells: groups.map(([, rs]) => {
        const pick = (xs: EpisodeCell[] | undefined) => (xs ?? []).filter((e) => !s.keep || s.keep(e.harnessId));
        const withEps = rs.filter((r) => r.episodes?.after[s.column]);
        const after = withEps.flatMap((r) => pick(r.episodes!.after[s.column]));
        const paired: PairedCell[] = withEps.flatMap((r) =>
          pairCells(pick(r.episodes!.before[s.column]), pick(r.episodes!.after[s.column])).cells.map((c) => ({ ...c, run: r.seed })),
        );
        const vals = s.keep
          ? []
          : rs.map((r) => afterValue(r, s.column)).filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
        return {
          after: after.length ? wilson(after.filter((e) => e.pass).length, after.length) : null,
          delta: paired.length ? comparePaired(paired).pass : null,
          mean: vals.length ? vals.reduce((a, x) => a + x, 0) / vals.length : null,
        };
      }),
    })),
  };
}

const pct = (x: number) => (100 * x).toFixed(1);
const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;

function cellHtml(c: ScalingCell, method: string): TemplateResult {
  if (!c.after)
    return html`<td class="num" data-label=${method} data-rate=${c.mean ?? ''}>${c.mean === null ? '—' : html`<span class="after">${pct(c.mean)}</span> <span class="ci">no per-episode outcomes</span>`}</td>`;
  const d = c.delta;
  return html`<td class="num" data-label=${method} data-rate=${c.after.rate} data-lo=${c.after.lo} data-hi=${c.after.hi} data-episodes=${c.after.episodes} data-diff=${d?.diff ?? ''}>
    <span class="after">${pct(c.after.rate)}</span>
    <span class="ci" title="95 % Wilson interval, episodes pooled over seeds">[${pct(c.after.lo)}, ${pct(c.after.hi)}] n=${c.after.episodes}</span>
    ${
      d
        ? html`<span class="delta ${d.decided ? 'beyond' : ''}" title="after − before on the same (task, harness, sample) cells of each seed; 95 % t-interval over training runs (seeds) and configurations">Δ ${signed(d.diff)}${
            d.seeds > 1 ? ` [${signed(d.lo)}, ${signed(d.hi)}] ${d.seeds} seeds${d.decided ? ', decided' : ''}` : ' (1 seed: no interval)'
          }</span>`
        : nothing
    }
  </td>`;
}

/** Where the panel is shown: its element ids and what to say when in-space rows are not split. */
interface ScalingPanelOptions {
  /** Prefix of the element ids (`<id>-h`, `<id>-table`, `<id>-no-distance`); unique per view. */
  id: string;
  /** Why in-space configurations are not split by distance (shown when they are not). */
  noDistance: string;
  /** Head of the column of each method ('method', or 'run · method' in Compare). */
  columnHead: string;
}

const RESULTS_PANEL: ScalingPanelOptions = {
  id: 'scaling',
  noDistance: "the spec of these results is not known here (a committed preset's or a run saved by Train is)",
  columnHead: 'method',
};

/** The panel: the table, or nothing when there are no runs. */
export function scalingSection(
  runs: readonly RunResultJson[],
  spec: ExperimentSpec | null,
  opts: ScalingPanelOptions = RESULTS_PANEL,
): TemplateResult {
  if (!runs.length) return html``;
  const t = scalingTable(runs, spec);
  return html`<section class="card" aria-labelledby=${`${opts.id}-h`}>
    <h2 id=${`${opts.id}-h`}>Harness scaling at a glance <span class="sub">pass@1 (%) after training per harness set and ${opts.columnHead}; [95 % Wilson interval] n = episodes pooled over seeds; Δ = paired change from before training</span></h2>
    ${t.designKnown ? nothing : html`<p class="note" id=${`${opts.id}-no-distance`}>In-space configurations are not split by Hamming distance: ${opts.noDistance}.</p>`}
    <div class="scroll-x"><table class="paper-table cards-narrow" id=${`${opts.id}-table`}>
      <thead><tr><th scope="col">harness set</th>${t.methods.map((m) => html`<th scope="col" class="num">${m}</th>`)}</tr></thead>
      <tbody>${t.rows.map((r) => html`<tr data-set=${r.key}><th scope="row">${r.label}</th>${r.cells.map((c, i) => cellHtml(c, t.methods[i]))}</tr>`)}</tbody>
    </table></div>
  </section>`;
}

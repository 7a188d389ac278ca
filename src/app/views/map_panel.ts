/**
 * The map of conditions in the app: where harness scaling pays, read from the committed
 * docs/results/map.json (scripts/claims.ts writes it with RESULTS.md's map; fetched when a view
 * shows it, committed_fetch.ts `committedMap`, never bundled). Results shows it whole — the figure
 * of RESULTS.md (conditions_map_svg.ts), then one row per cell: harness scaling − single harness
 * on in-space pass@1 with its 95 % interval, the verdict, and a note where the cell sits at the
 * in-space floor; then, folded, each cell by distance band (conditions_map_bands.ts) — and the
 * Train door says in one paragraph what it found (`mapFinding`). Every
 * number and word is conditions_map.ts's, so the app reads as RESULTS.md does.
 */
import { html, nothing, type TemplateResult } from 'lit-html';
import {
  cellVerdict,
  familywiseInSpace,
  intervalText,
  leadingCell,
  mapWord,
  missingPlaces,
  progressText,
  readsFloor,
  rowSentences,
  type CellProgress,
  type FamilywiseReading,
  type MapCell,
} from '../../experiment/conditions_map';
import { conditionsMapSvg } from '../../experiment/conditions_map_svg';
import { bandSentence, bandTable } from '../../experiment/conditions_map_bands';
import { signedPoints } from '../../report/points';
import { committedMap, loadCommitted, type CommittedEnv } from '../committed_fetch';
import { formatRoute } from '../route';
import { APP_DEFAULT_PRESET, getPreset, PRESET_NAMES } from '../../experiment/presets';
import { smallerVersion } from '../../experiment/smaller_version';

/** The map as far as it is loaded: its cells, or why it could not be. */
export class MapSource {
  cells: MapCell[] | null = null;
  /** Places whose seed chunks are committed but not merged (no verdict yet); empty until loaded. */
  inProgress: CellProgress[] = [];
  error: string | null = null;
  /**
   * Each cell's starting in-space pass@1 (a fraction), by preset: the mean of its runs'
   * before-training evaluation in the preset's committed summary, fetched after the map (absent
   * until then, or when the summary cannot be read).
   */
  readonly starts = new Map<string, number>();
  private started = false;
  private figure: Element | null = null;

  /** @param env the fetch environment (committed_fetch.ts; default: the app's) */
  constructor(private readonly env?: CommittedEnv) {}

  /** Start the fetch (once; again after a failure), calling `redraw` when it settles. */
  request(redraw: () => void): void {
    if (this.started && !this.error) return;
    this.started = true;
    this.error = null;
    committedMap(this.env).then(
      ({ cells, inProgress }) => {
        this.cells = cells;
        this.inProgress = inProgress;
        redraw();
        for (const c of cells) this.readStart(c.preset, redraw);
      },
      (e: Error) => {
        this.error = e.message;
        redraw();
      },
    );
  }

  private readStart(preset: string, redraw: () => void): void {
    loadCommitted(preset, [], undefined, this.env).then(
      (l) => {
        const xs = l.output.results.runs
          .map((r) => r.before?.inSpace)
          .filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
        if (!xs.length) return;
        this.starts.set(preset, xs.reduce((a, b) => a + b, 0) / xs.length);
        redraw();
      },
      () => undefined,
    );
  }

  /** The figure as an element (parsed once from conditionsMapSvg's markup). */
  svg(): Element | null {
    if (!this.figure && this.cells) {
      const doc = new DOMParser().parseFromString(conditionsMapSvg(this.cells, this.inProgress), 'image/svg+xml');
      const svg = doc.documentElement;
      if (svg.nodeName !== 'svg') return null;
      svg.setAttribute('role', 'img');
      svg.setAttribute('aria-labelledby', 'map-h');
      this.figure = svg;
    }
    return this.figure;
  }
}

/** "broad base, 60 steps" / "narrow base, 60 steps with dynamic sampling". */
const placeText = (c: MapCell) => `${c.exposure} base, ${c.steps} steps${c.dynamicSampling ? ' with dynamic sampling' : ''}`;

/**
 * A cell's starting in-space pass@1 (a fraction; null when not recorded) and whether its in-space
 * reading is only the floor (conditions_map.ts readsFloor: the map's own rule, not restated here).
 */
export function floorOf(cell: MapCell): { start: number | null; atFloor: boolean } {
  const start = typeof cell.startInSpace === 'number' && Number.isFinite(cell.startInSpace) ? cell.startInSpace : null;
  return { start, atFloor: readsFloor(cell) };
}

/** A cell's floor note (`summaryStart`: the starting in-space pass@1 from its committed summary), or null when there is nothing to say. */
function floorNote(cell: MapCell, summaryStart: number | undefined): string | null {
  const floor = floorOf(cell);
  const atFloor = floor.atFloor;
  const start = floor.start ?? summaryStart ?? null;
  const from = start === null ? '' : `in-space pass@1 starts at ${(100 * start).toFixed(1)} %`;
  if (atFloor) return `${from ? `${from}: ` : ''}at the in-space floor — little passes to move, so this cell does not compare the methods`;
  return from ? `${from} (before RL, mean over the runs).` : null;
}

/** A generated sentence's **bold** as <strong>. */
function bold(md: string): TemplateResult {
  return html`${md.split('**').map((part, i) => (i % 2 ? html`<strong>${part}</strong>` : part))}`;
}

/** The Results section: figure, one row per cell, a sentence per exposure, the places in progress and those not run yet. */
export function mapSection(src: MapSource): TemplateResult {
  const cells = src.cells;
  let body: TemplateResult;
  if (src.error) body = html`<p class="error" id="map-error" role="status">The map could not be loaded: ${src.error}</p>`;
  else if (!cells) body = html`<p class="note" id="map-loading" role="status">Loading the map…</p>`;
  else if (!cells.length)
    body = html`<p class="note" id="map-empty">No committed map preset compares single-harness RL with harness scaling yet.</p>`;
  else {
    const running = src.inProgress;
    const missing = missingPlaces(cells, running);
    const family = familywiseInSpace(cells);
    body = html`<div class="scroll-x map-figure" id="map-figure">${src.svg() ?? nothing}</div>
      <ul class="map-sentences" id="map-sentences">${rowSentences(cells).map((s) => html`<li>${bold(s)}</li>`)}</ul>
      <div class="scroll-x">
        <table class="paper-table cards-narrow" id="map-table" aria-labelledby="map-h">
          <thead><tr><th scope="col">cell</th><th scope="col">preset</th><th scope="col" class="num">seeds</th><th scope="col" class="num">in-space: HS − single</th><th scope="col">verdict</th><th scope="col" class="num"><abbr title="the in-space interval of a cell read together with the map's other cells: Bonferroni, 1 − 0.05/m for the m cells with an interval; 'holds' when it still excludes 0">over the map</abbr></th><th scope="col" class="num">base harness</th><th scope="col">note</th></tr></thead>
          <tbody>${cells.map((c) => mapRow(c, src.starts.get(c.preset), family.get(c.preset)))}</tbody>
        </table>
      </div>
      ${bandsSection(cells)}
      ${running.length ? html`<p class="note" id="map-progress">In progress (seed chunks committed; no verdict until every seed is in): ${running.map(progressText).join('; ')}.</p>` : nothing}
      ${missing.length ? html`<p class="note" id="map-missing">Not run yet: ${missing.map((p) => `${p.exposure} base at ${p.steps} steps${p.dynamicSampling ? ', dynamic sampling' : ''}`).join('; ')}.</p>` : nothing}`;
  }
  return html`<section class="card" aria-labelledby="map-h" id="map">
    <h2 id="map-h">Where harness scaling pays: the map of conditions <span class="sub">committed results; harness scaling − single harness after RL on held-out configurations (in-space), points [95 % interval over seeds, configurations and tasks]</span></h2>
    <p class="note">Each cell is one committed experiment (<code>main</code> and the <code>map-*</code> presets) that trains both methods on the same seeds, placed by the base's pretraining exposure and the RL budget.
      The verdict follows the rule of the claims above; the same map opens docs/RESULTS.md.</p>
    ${body}
  </section>`;
}

/**
 * Each cell's in-space difference by Hamming distance to the base harness (conditions_map_bands.ts,
 * RESULTS.md's block of the same name): folded, since the cell's claim is the whole in-space set.
 */
function bandsSection(cells: readonly MapCell[]): TemplateResult {
  const { distances, rows } = bandTable(cells);
  return html`<details class="map-bands" id="map-bands">
    <summary>Where in the space: in-space HS − single by Hamming distance to the base harness</summary>
    <p class="note">Each band is a cell's held-out configurations at that distance, with the interval over seeds and those configurations;
      a band ahead or behind is also checked at Bonferroni 1 − 0.05/m over the cell's m bands ("not over the bands" where it is not).</p>
    <div class="scroll-x">
      <table class="paper-table cards-narrow" id="map-bands-table">
        <thead><tr><th scope="col">cell</th>${distances.map((d) => html`<th scope="col" class="num">d=${d}</th>`)}</tr></thead>
        <tbody>${rows.map(
          (r) => html`<tr data-preset=${r.cell.preset}>
            <th scope="row">${placeText(r.cell)}</th>
            ${distances.map((d) => {
              const b = r.bands.find((x) => x.distance === d);
              if (!b) return html`<td class="num" data-label=${`d=${d}`}>—</td>`;
              return html`<td class="num" data-label=${`d=${d}`} data-direction=${b.verdict.direction} data-holds=${b.holds === null ? '' : String(b.holds)}
                >${b.text ? html`<span class="band-ci">${b.text}</span>` : nothing}<span class=${`band-word verdict-${b.verdict.direction.replace(' ', '-')}`}
                  >${b.word}${b.holds === false ? ' (not over the bands)' : ''}</span></td>`;
            })}
          </tr>`,
        )}</tbody>
      </table>
    </div>
    <ul class="map-sentences">${rows.map((r) => html`<li>${code(bandSentence(r))}</li>`)}</ul>
  </details>`;
}

/** A generated sentence's `code` spans as <code>. */
function code(md: string): TemplateResult {
  return html`${md.split('`').map((part, i) => (i % 2 ? html`<code>${part}</code>` : part))}`;
}

function mapRow(c: MapCell, summaryStart: number | undefined, fw: FamilywiseReading | undefined): TemplateResult {
  const v = cellVerdict(c, 'inSpace');
  const base = cellVerdict(c, 'base');
  const note = floorNote(c, summaryStart);
  return html`<tr data-preset=${c.preset} data-verdict=${v?.direction ?? ''} data-floor=${floorOf(c).atFloor ? 'true' : 'false'}>
    <th scope="row">${placeText(c)}</th>
    <td data-label="preset"><a href=${formatRoute({ view: 'results', params: { preset: c.preset } })}><code>${c.preset}</code></a></td>
    <td class="num" data-label="seeds">${c.seeds.length}</td>
    <td class="num" data-label="in-space: HS − single" data-diff=${v?.comparison.pass.diff ?? ''} data-lo=${v?.comparison.pass.lo ?? ''} data-hi=${v?.comparison.pass.hi ?? ''}>${intervalText(v)}</td>
    <td data-label="verdict" title=${v?.sentence ?? ''}><b class=${`verdict verdict-${(v?.direction ?? 'none').replace(' ', '-')}`}>${mapWord(v, c.floor)}</b></td>
    <td class="num" data-label="over the map" data-holds=${fw ? String(fw.holds) : ''} data-m=${fw?.m ?? ''}>${fw ? `[${signedPoints(fw.lo)}, ${signedPoints(fw.hi)}]${fw.holds ? ' holds' : ''}` : '—'}</td>
    <td class="num" data-label="base harness">${intervalText(base)}${base ? ` ${mapWord(base)}` : ''}</td>
    <td data-label="note" class="map-note">${note ?? '—'}</td>
  </tr>`;
}

// The door draws on every view update: compare the embedded presets once per cell.
const lessonVersions = new Map<string, ReturnType<typeof smallerVersion>>();

/**
 * How the lesson relates to a map cell, for the door: "a smaller version of it: 1 seed instead of
 * 5, …" when the lesson trains the cell's condition at a smaller size (smaller_version.ts), else
 * null (the cell is not a preset, or a condition differs).
 */
function lessonVersionOf(preset: string): TemplateResult | null {
  if (!(PRESET_NAMES as readonly string[]).includes(preset)) return null;
  let v = lessonVersions.get(preset);
  if (!v) lessonVersions.set(preset, (v = smallerVersion(getPreset(APP_DEFAULT_PRESET), getPreset(preset))));
  if (v.conditions.length) return null;
  const label: Record<string, (n: string) => string> = {
    seeds: (n) => (n === '1' ? 'seed' : 'seeds'),
    'rl.steps': () => 'RL steps',
    'rl.lr': () => 'learning rate',
  };
  const shown = v.sizes.filter((d) => label[d.field]);
  return html`<span id="train-map-lesson">The lesson is a smaller version of this cell${shown.length ? html`: ${shown.map((d, i) => html`${i ? ', ' : ''}${d.small} ${label[d.field](d.small)} instead of ${d.large}`)}` : ''},
    with the same base, harnesses and sampling.</span>`;
}

/**
 * What the map found, for the Train door: the cell where harness scaling is ahead beyond noise
 * (the largest in-space difference, with a link to its committed results, and how the lesson
 * demonstrates it), or else one sentence per base exposure saying that no cell shows it yet.
 */
export function mapFinding(src: MapSource): TemplateResult | null {
  const cells = src.cells;
  if (!cells?.length) return null;
  const c = leadingCell(cells);
  const mapLink = html`<a href=${formatRoute({ view: 'results', params: {} })}>the map in Results</a>`;
  // One line that opens to the rest: on a phone Start stays on the first screen.
  if (c) {
    return html`<details id="train-map-finding" class="map-finding" data-ahead=${c.preset}>
      <summary><strong>What the map of conditions found</strong> (committed results): harness scaling is ahead of the single harness
        beyond noise on the ${placeText(c)}, ${intervalText(cellVerdict(c, 'inSpace'))} points in-space</summary>
      <p><code>${c.preset}</code>: <a href=${formatRoute({ view: 'results', params: { preset: c.preset } })}>open its committed results</a>,
        or see ${mapLink}. ${lessonVersionOf(c.preset) ?? nothing}</p>
    </details>`;
  }
  return html`<details id="train-map-finding" class="map-finding" data-ahead="">
    <summary><strong>What the map of conditions found</strong>: no cell shows harness scaling ahead of the single harness beyond noise yet
      (committed results, ${cells.length} cell${cells.length === 1 ? '' : 's'})</summary>
    <ul class="map-sentences">${rowSentences(cells).map((s) => html`<li>${bold(s)}</li>`)}</ul>
    <p>${mapLink} shows every cell.</p>
  </details>`;
}

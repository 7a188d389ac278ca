/**
 * The Design view (docs/ARCHITECTURE.md "Harness space and design"): the harness space, the training set chosen by a strength-2
 * orthogonal array (or random-k), its pairwise balance, the held-out configurations by Hamming
 * distance to the nearest training harness, structured vs random-k side by side, and a
 * preview of the task → K harnesses assignment, and a link that trains the lesson through the
 * design shown (train_links.ts).
 *
 * Everything is computed by src/design (the same calls as `hlab design` and `hlab assign`);
 * this file only validates the inputs and lays the results out. URL parameters:
 *   levels (e.g. 3,3,3,3,3) · method (oa | random) · k (random-k size; default = the OA run
 *   size) · seed (random-k draw and assignment) · K (harnesses per task) · assign (locality | random)
 */
import { html, nothing, render, type TemplateResult } from 'lit-html';
import { live } from 'lit-html/directives/live.js';
import {
  assignHarnesses,
  type DesignReport,
  NoOrthogonalArrayError,
  parseHarnessId,
  selectTrainingOA,
  selectTrainingRandom,
  spaceFromLevels,
  spaceSize,
  type HarnessSpace,
  type TaskAssignment,
} from '../../design';
import { taskSet } from '../../tasks';
import { balanceHeatMap, legend } from '../charts';
import { bad, errorId, field, ok, parseChoice, parseIntField, parseLevelsField, type Parsed } from '../fields';
import { lessonRouteForDesign, trainableLevels } from '../train_links';

/**
 * Largest space the view enumerates: the reports list every held-out configuration with its
 * distance (O(|H| · N · k)) and run on the main thread, which at 20 000 configurations takes
 * about 2 s; at 5 000 a few hundred ms. The CLI (`hlab design`) has no such cap.
 */
const APP_MAX_SPACE = 5_000;
/** Tasks shown in the assignment preview. */
const PREVIEW_TASKS = 6;
const METHODS = ['oa', 'random'] as const;
const STRATEGIES = ['locality', 'random'] as const;

const DESIGN_DEFAULTS = { levels: '3,3,3,3,3', method: 'oa', k: '', seed: '0', K: '4', assign: 'locality' } as const;
type Inputs = Record<keyof typeof DESIGN_DEFAULTS, string>;

/** Colours of levels 0, 1, 2, … in tables (cycled). */
const LEVEL_COLORS = ['#e8eef7', '#fde7c3', '#d4f0d9', '#f5d5e6', '#dcd6f7', '#cdeff2', '#f2e4d0', '#e0e0e0'];
const OA_COLOR = '#2f6db5';
const RANDOM_COLOR = '#d9822b';

interface Computed {
  errors: Partial<Record<keyof Inputs, string>>;
  space?: HarnessSpace;
  oa?: DesignReport;
  random?: DesignReport;
  chosen?: DesignReport;
  assignments?: { task: string; instruction: string; a: TaskAssignment }[];
  /** Mean anchor distance of the same tasks under the other strategy (the note compares them). */
  otherMean?: number;
  K?: number;
  /** The valid seed and assignment strategy (the Train link carries them). */
  seed?: number;
  strategy?: (typeof STRATEGIES)[number];
}

// Orthogonal-array construction may search (tenths of a second for odd level lists): cache by levels.
const oaCache = new Map<string, DesignReport | Error>();
function oaFor(space: HarnessSpace, key: string): DesignReport | Error {
  let r = oaCache.get(key);
  if (!r) {
    try {
      r = selectTrainingOA(space);
    } catch (e) {
      // NoOrthogonalArrayError: nothing within the search limits; its message lists what was tried.
      r = e instanceof Error ? e : new Error(String(e));
    }
    oaCache.set(key, r);
  }
  return r;
}

const randomCache = new Map<string, DesignReport>();
function randomFor(space: HarnessSpace, key: string, k: number, seed: number): DesignReport {
  const id = `${key}|${k}|${seed}`;
  let r = randomCache.get(id);
  if (!r) {
    r = selectTrainingRandom(space, k, seed);
    if (randomCache.size > 32) randomCache.delete(randomCache.keys().next().value!);
    randomCache.set(id, r);
  }
  return r;
}

/** Validate every input and run the design computations the valid ones allow. */
function computeDesign(inp: Inputs): Computed {
  const errors: Computed['errors'] = {};
  const take = <T>(name: keyof Inputs, p: Parsed<T>): T | undefined => {
    if (p.ok) return p.value;
    errors[name] = p.error;
    return undefined;
  };
  const levels = take('levels', parseLevelsField(inp.levels, APP_MAX_SPACE));
  const method = take('method', parseChoice('method', inp.method, METHODS));
  const seed = take('seed', parseIntField('seed', inp.seed, 0, 2 ** 32 - 1));
  const strategy = take('assign', parseChoice('assignment', inp.assign, STRATEGIES));
  const out: Computed = { errors, seed, strategy };
  if (!levels) return out;
  const space = spaceFromLevels(levels);
  out.space = space;
  const size = spaceSize(space);
  const oa = oaFor(space, levels.join(','));
  if (oa instanceof Error)
    errors.levels = `levels: ${oa instanceof NoOrthogonalArrayError ? '' : 'orthogonal array failed: '}${oa.message}`;
  else out.oa = oa;
  const defaultK = oa instanceof Error ? undefined : oa.runSize;
  const k =
    inp.k.trim() === ''
      ? defaultK !== undefined
        ? ok(Math.min(defaultK, size))
        : bad<number>('k: enter the random-k size (no orthogonal array gives a default)')
      : parseIntField('k', inp.k, 1, size);
  const kv = take('k', k);
  if (kv !== undefined && seed !== undefined) out.random = randomFor(space, levels.join(','), kv, seed);
  out.chosen = method === 'random' ? out.random : method === 'oa' ? out.oa : undefined;
  if (out.chosen && seed !== undefined && strategy) {
    const n = out.chosen.training.length;
    const K = take('K', parseIntField('K', inp.K, 1, n));
    if (K !== undefined) {
      out.K = K;
      const tasks = [...taskSet('workspace', 'train', PREVIEW_TASKS / 2, seed), ...taskSet('errands', 'train', PREVIEW_TASKS / 2, seed)];
      const a = assignHarnesses({ training: out.chosen.training, K, tasks: tasks.map((t) => t.id), strategy, seed, space });
      out.assignments = a.map((x, i) => ({ task: tasks[i].id, instruction: tasks[i].instruction, a: x }));
      const other = assignHarnesses({
        training: out.chosen.training,
        K,
        tasks: tasks.map((t) => t.id),
        strategy: strategy === 'locality' ? 'random' : 'locality',
        seed,
        space,
      });
      const od = other.flatMap((x) => x.distances.slice(1));
      if (od.length) out.otherMean = od.reduce((p, q) => p + q, 0) / od.length;
    }
  }
  return out;
}

export class DesignView {
  private inputs: Inputs = { ...DESIGN_DEFAULTS };

  /** @param setParams called with the non-default inputs whenever the user changes one (→ URL). */
  constructor(
    private readonly el: HTMLElement,
    private readonly setParams: (p: Record<string, string>) => void,
  ) {}

  /** Show the view for URL parameters (missing ones take their defaults). */
  show(params: Record<string, string>): void {
    this.inputs = { ...DESIGN_DEFAULTS };
    for (const key of Object.keys(DESIGN_DEFAULTS) as (keyof Inputs)[]) if (params[key] !== undefined) this.inputs[key] = params[key];
    this.draw();
  }

  private set(name: keyof Inputs, value: string): void {
    this.inputs = { ...this.inputs, [name]: value };
    const p: Record<string, string> = {};
    for (const key of Object.keys(DESIGN_DEFAULTS) as (keyof Inputs)[])
      if (this.inputs[key] !== DESIGN_DEFAULTS[key]) p[key] = this.inputs[key];
    this.setParams(p);
    this.draw();
  }

  private draw(): void {
    const c = computeDesign(this.inputs);
    render(this.template(c), this.el);
  }

  private text(
    name: keyof Inputs,
    label: string,
    err: string | undefined,
    attrs: { hint?: string; width?: string; inputmode?: string } = {},
  ): TemplateResult {
    return field(
      `design-${name}`,
      label,
      html`<input id=${`design-${name}`} name=${name} type="text" autocomplete="off" spellcheck="false"
        inputmode=${attrs.inputmode ?? nothing} style=${attrs.width ? `width:${attrs.width}` : nothing}
        .value=${live(this.inputs[name])} aria-invalid=${err ? 'true' : 'false'} aria-describedby=${errorId(`design-${name}`)}
        @change=${(e: Event) => this.set(name, (e.target as HTMLInputElement).value)} />`,
      err,
      attrs.hint,
    );
  }

  private select(name: keyof Inputs, label: string, options: [string, string][], err: string | undefined): TemplateResult {
    return field(
      `design-${name}`,
      label,
      html`<select id=${`design-${name}`} name=${name} aria-invalid=${err ? 'true' : 'false'} aria-describedby=${errorId(`design-${name}`)}
        @change=${(e: Event) => this.set(name, (e.target as HTMLSelectElement).value)}>
        ${options.map(([v, l]) => html`<option value=${v} ?selected=${this.inputs[name] === v}>${l}</option>`)}
        ${options.some(([v]) => v === this.inputs[name]) ? nothing : html`<option value=${this.inputs[name]} selected>${this.inputs[name]} (invalid)</option>`}
      </select>`,
      err,
    );
  }

  private template(c: Computed): TemplateResult {
    const e = c.errors;
    return html`
      <section class="intro">
        <h1 tabindex="-1">Design</h1>
        <p>A harness picks one <em>realization</em> per component. Training on every one of the
          ${c.space ? spaceSize(c.space) : '…'} configurations is too costly, so a small training set
          is chosen: a <strong>strength-2 orthogonal array</strong> shows every pair of realizations of
          every pair of components equally often. Compare it with <strong>random-k</strong> below.</p>
      </section>
      <form class="controls card" aria-label="Design inputs" @submit=${(ev: Event) => ev.preventDefault()}>
        ${this.text('levels', 'Levels per component', e.levels, { hint: 'comma-separated, e.g. 3,3,3,3,3 (the S·T·O·C·W space) or 2,3,3,4', width: '11rem' })}
        ${this.select(
          'method',
          'Selection method',
          [
            ['oa', 'orthogonal array'],
            ['random', 'random-k'],
          ],
          e.method,
        )}
        ${this.text('k', 'k (random-k size)', e.k, { hint: c.oa ? `default ${c.oa.runSize} (the OA run size)` : undefined, width: '5rem', inputmode: 'numeric' })}
        ${this.text('seed', 'Seed', e.seed, { hint: 'random-k draw and assignment', width: '7rem', inputmode: 'numeric' })}
      </form>
      ${this.trainLink(c)}
      ${c.space ? this.spaceSection(c.space) : nothing}
      ${c.chosen && c.space ? this.trainingSection(c.chosen, c.space) : nothing}
      ${c.chosen ? this.heldOutSection(c.chosen) : nothing}
      ${c.oa || c.random ? this.compareSection(c) : nothing}
      ${this.assignmentSection(c)}
    `;
  }

  /**
   * "Train on this design": the lesson in the Train view, its harness scaling trained through
   * the design shown (train_links.ts); a note instead when the design
   * cannot be trained (other levels than the experiments' space, or invalid inputs).
   */
  private trainLink(c: Computed): TemplateResult {
    const levels = c.space?.components.map((x) => x.realizations.length);
    if (!levels || !c.chosen || c.K === undefined || c.seed === undefined || !c.strategy)
      return html`<p class="note" id="design-train-link">Fix the inputs above to train on this design.</p>`;
    if (!trainableLevels(levels))
      return html`<p class="note" id="design-train-link">Training runs in the S·T·O·C·W space (levels 3,3,3,3,3) only: set those levels to train on a design.</p>`;
    const choice = { levels, method: c.chosen.method, size: c.chosen.runSize, seed: c.seed, K: c.K, assign: c.strategy };
    return html`<p class="train-link" id="design-train-link"><a class="button-link" id="design-train" href=${lessonRouteForDesign(choice)}>Train on this design</a>
      <span class="sub">opens the lesson in Train. The lesson compares the single base harness with harness scaling through the orthogonal array;
        this link trains its harness scaling (GRPO) through these ${c.chosen.runSize} harnesses, K = ${c.K} per task, ${c.strategy === 'locality' ? 'locality-aware' : 'random'} assignment, seed ${c.seed}
        (K and the assignment are set in the assignment preview below).</span></p>`;
  }

  private spaceSection(space: HarnessSpace): TemplateResult {
    const maxLevels = Math.max(...space.components.map((x) => x.realizations.length));
    return html`<section class="card" aria-labelledby="space-h">
      <h2 id="space-h">Harness space <span class="sub">${space.components.length} components ·
        ${space.components.map((x) => x.realizations.length).join(' × ')} = ${spaceSize(space)} configurations</span></h2>
      <div class="scroll-x">
      <table class="space-table">
        <thead><tr><th scope="col">Component</th>${Array.from({ length: maxLevels }, (_, l) => html`<th scope="col">Level ${l}${l === 0 ? ' (base)' : ''}</th>`)}</tr></thead>
        <tbody>
          ${space.components.map(
            (comp) => html`<tr>
              <th scope="row"><span class="key">${comp.key}</span> ${comp.name}</th>
              ${Array.from({ length: maxLevels }, (_, l) => {
                const r = comp.realizations[l];
                return r ? html`<td><strong>${r.id}</strong> ${r.name}<div class="desc">${r.description}</div></td>` : html`<td></td>`;
              })}
            </tr>`,
          )}
        </tbody>
      </table>
      </div>
    </section>`;
  }

  private facts(r: DesignReport): TemplateResult {
    const yes = (b: boolean) => html`<span class=${b ? 'yes' : 'no'}>${b ? 'yes' : 'no'}</span>`;
    return html`<dl class="facts">
      <div><dt>Run size N</dt><dd data-fact="runSize">${r.runSize}</dd></div>
      <div><dt>Rao bound 1 + Σ(sᵢ − 1)</dt><dd>${r.raoBound}</dd></div>
      <div><dt>Divisibility (lcm sᵢsⱼ)</dt><dd>${r.divisibilityBound}</dd></div>
      <div><dt>Smallest admissible N</dt><dd>${r.smallestAdmissibleRunSize}</dd></div>
      <div><dt>Every level equally often</dt><dd data-fact="balanced">${yes(r.balance.balanced)}</dd></div>
      <div><dt>Every level pair equally often (strength 2)</dt><dd data-fact="strength2">${yes(r.balance.strength2)}</dd></div>
      <div><dt>Min pairwise Hamming distance</dt><dd data-fact="minDistance">${r.minPairwiseDistance}</dd></div>
    </dl>`;
  }

  private trainingSection(r: DesignReport, space: HarnessSpace): TemplateResult {
    const keys = space.components.map((x) => x.key);
    return html`<section class="card" aria-labelledby="train-h">
      <h2 id="train-h">Training set H<sub>tr</sub> <span class="sub">${r.method === 'oa' ? 'orthogonal array' : 'random-k'}: ${r.runSize} harnesses</span></h2>
      <p class="construction">${r.construction}</p>
      ${this.fallbackNote(r)}
      <div class="two-col">
        <div class="scroll-y">
          <table class="levels-table" id="training-table">
            <caption class="visually-hidden">Training harnesses and their levels</caption>
            <thead><tr><th scope="col">#</th><th scope="col">Harness id</th>${keys.map((k) => html`<th scope="col">${k}</th>`)}</tr></thead>
            <tbody>
              ${r.training.map((id, i) => {
                const v = parseHarnessId(id, space);
                return html`<tr>
                  <td class="num">${i + 1}</td>
                  <td><code class="hid">${id}</code></td>
                  ${v.map((l, j) => {
                    const real = space.components[j].realizations[l];
                    return html`<td class="lvl" style="background:${LEVEL_COLORS[l % LEVEL_COLORS.length]}" title=${`${real.id} ${real.name}: ${real.description}`}>${l}</td>`;
                  })}
                </tr>`;
              })}
            </tbody>
          </table>
        </div>
        <div>
          ${this.facts(r)}
          <h3>Pairwise balance</h3>
          <p class="note">Grid <em>XY</em> counts the training harnesses with X at level a (row) and Y at level b
            (column). ${r.balance.strength2 ? `All cells are equal (${r.runSize} / (sᵢ·sⱼ)): every pair of realizations is trained together equally often.` : 'Cells differ: some realization pairs are trained together more often than others; a dashed red cell never occurs.'}</p>
          ${balanceHeatMap(keys, r.balance.pairs, r.runSize, `pairwise balance heat map of the ${r.method === 'oa' ? 'orthogonal array' : 'random-k'} training set`)}
        </div>
      </div>
    </section>`;
  }

  /**
   * Why an orthogonal array is not the smallest one the bounds admit: the full factorial (no
   * smaller array was constructed for these levels, so nothing is held out) or a larger array
   * than the smallest admissible N.
   */
  private fallbackNote(r: DesignReport): TemplateResult | typeof nothing {
    if (r.method !== 'oa') return nothing;
    if (r.runSize >= r.spaceSize)
      return html`<p class="warning" id="design-fallback">${
        r.smallestAdmissibleRunSize >= r.spaceSize
          ? html`For these levels the Rao and divisibility bounds already force N ≥ ${r.smallestAdmissibleRunSize}, the whole space: no strength-2 orthogonal array smaller than it can exist.`
          : html`The bounds would allow N = ${r.smallestAdmissibleRunSize}, but none of the app's constructions gives an array smaller than the whole space for these levels${r.components.filter((x) => x.levels === 6).length >= 4 ? html` (four 6-level columns in 36 runs cannot exist at all: they would need two orthogonal Latin squares of order 6 — Euler's 36 officers problem)` : ''}.`
      }
        So the training set is the <strong>full factorial</strong>: all ${r.spaceSize} configurations are trained and none is held out — what the
        introduction calls too costly. Use random-k for a smaller set, or levels with a small array (3,3,3,3,3 → L18).</p>`;
    if (r.runSize > r.smallestAdmissibleRunSize)
      return html`<p class="note" id="design-fallback">The bounds admit N = ${r.smallestAdmissibleRunSize}, but no array of that size is constructed
        for these levels; the smallest one found has N = ${r.runSize} (${r.construction}). It is still strength 2: every level pair equally often.</p>`;
    return nothing;
  }

  private heldOutSection(r: DesignReport): TemplateResult {
    const hist = r.heldOutHistogram;
    if (r.heldOut.length === 0)
      return html`<section class="card" aria-labelledby="held-h">
        <h2 id="held-h">Held-out configurations <span class="sub">none</span></h2>
        <p class="note" id="heldout-empty">Nothing is held out: the training set is the whole space (${r.spaceSize} configurations), so there is no
          configuration to test generalization on. Pick random-k with a smaller k, or other levels.</p>
      </section>`;
    return html`<section class="card" aria-labelledby="held-h">
      <h2 id="held-h">Held-out configurations <span class="sub">H \\ H<sub>tr</sub>: ${r.heldOut.length}, by Hamming distance to the nearest training harness</span></h2>
      <div class="two-col narrow-right">
        <hl-bar-chart id="heldout-chart" .spec=${{ categories: hist.map((h) => h.distance), series: [{ label: 'held-out configurations', values: hist.map((h) => h.count), color: r.method === 'oa' ? OA_COLOR : RANDOM_COLOR }], xLabel: 'distance to nearest training harness', yLabel: 'configurations' }}></hl-bar-chart>
        <table class="compact" id="heldout-table">
          <caption>Counts</caption>
          <thead><tr><th scope="col">distance</th><th scope="col">configurations</th></tr></thead>
          <tbody>${hist.map((h) => html`<tr><td class="num">${h.distance}</td><td class="num">${h.count}</td></tr>`)}</tbody>
        </table>
      </div>
      <p class="note">Distance 1 = one component away from a trained harness. Evaluation reports pass@1 on these held-out configurations by distance.</p>
    </section>`;
  }

  private compareSection(c: Computed): TemplateResult {
    const keys = c.space!.components.map((x) => x.key);
    const col = (title: string, r: DesignReport | undefined, color: string, id: string) => {
      if (!r) return html`<div class="compare-col" id=${id}><h3>${title}</h3><p class="no">not available (see the error above)</p></div>`;
      const cells = r.balance.pairs.flatMap((p) => p.counts.flat());
      return html`<div class="compare-col" id=${id}>
        <h3><span class="swatch" style="background:${color}"></span>${title}</h3>
        <p class="construction">${r.construction}</p>
        ${this.facts(r)}
        <dl class="facts"><div><dt>Level-pair counts (min – max over all grids)</dt><dd data-fact="pairRange">${Math.min(...cells)} – ${Math.max(...cells)}</dd></div></dl>
        ${balanceHeatMap(keys, r.balance.pairs, r.runSize, `pairwise balance heat map, ${title}`)}
      </div>`;
    };
    const series = [
      ...(c.oa
        ? [{ label: `orthogonal array (N = ${c.oa.runSize})`, values: c.oa.heldOutHistogram.map((h) => h.count), color: OA_COLOR }]
        : []),
      ...(c.random
        ? [
            {
              label: `random-k (k = ${c.random.runSize}, seed ${c.random.seed})`,
              values: c.random.heldOutHistogram.map((h) => h.count),
              color: RANDOM_COLOR,
            },
          ]
        : []),
    ];
    const cats = (c.oa ?? c.random)!.heldOutHistogram.map((h) => h.distance);
    return html`<section class="card" aria-labelledby="cmp-h">
      <h2 id="cmp-h">Structured vs random-k <span class="sub">same size, change the seed to draw another random set</span></h2>
      <div class="two-col even">
        ${col('Orthogonal array', c.oa, OA_COLOR, 'compare-oa')}
        ${col('Random-k', c.random, RANDOM_COLOR, 'compare-random')}
      </div>
      <h3>Held-out distance, both</h3>
      ${legend(series)}
      <hl-bar-chart id="compare-chart" .spec=${{ categories: cats, series, xLabel: 'distance to nearest training harness', yLabel: 'configurations', height: 200 }}></hl-bar-chart>
    </section>`;
  }

  private assignmentSection(c: Computed): TemplateResult {
    const e = c.errors;
    const n = c.chosen?.training.length;
    const dists = c.assignments?.flatMap((x) => x.a.distances.slice(1)) ?? [];
    const mean = dists.length ? dists.reduce((a, b) => a + b, 0) / dists.length : NaN;
    return html`<section class="card" aria-labelledby="assign-h">
      <h2 id="assign-h">Assignment preview <span class="sub">each task trains under K harnesses: an anchor and K − 1 others</span></h2>
      <form class="controls" aria-label="Assignment inputs" @submit=${(ev: Event) => ev.preventDefault()}>
        ${this.text('K', 'K (harnesses per task)', e.K, { hint: n ? `1..${n}` : undefined, width: '5rem', inputmode: 'numeric' })}
        ${this.select(
          'assign',
          'Assignment',
          [
            ['locality', 'locality-aware (nearest)'],
            ['random', 'random (ablation)'],
          ],
          e.assign,
        )}
      </form>
      ${
        c.assignments
          ? html`<div class="scroll-x"><table class="assign-table cards-narrow" id="assignment-table">
            <thead><tr><th scope="col">Task</th><th scope="col">Anchor</th><th scope="col">Other harnesses (Hamming distance to the anchor)</th></tr></thead>
            <tbody>
              ${c.assignments.map(
                ({ task, instruction, a }) => html`<tr>
                  <td><code>${task}</code><div class="desc">${instruction}</div></td>
                  <td data-label="Anchor"><code class="hid anchor">${a.harnesses[0]}</code></td>
                  <td data-label="Other harnesses (Hamming distance to the anchor)">${a.harnesses.slice(1).length === 0 ? html`<span class="desc">none (K = 1)</span>` : a.harnesses.slice(1).map((h, i) => html`<span class="chip"><code>${h}</code> <span class="d">d=${a.distances[i + 1]}</span></span>`)}</td>
                </tr>`,
              )}
            </tbody>
          </table></div>
          <p class="note" id="assign-mean">Mean distance to the anchor over these tasks: <strong>${Number.isNaN(mean) ? '–' : mean.toFixed(2)}</strong>${c.otherMean !== undefined ? html` (${this.inputs.assign === 'locality' ? 'random' : 'locality-aware'}: ${c.otherMean.toFixed(2)})` : nothing}.
            ${
              this.inputs.assign === 'locality'
                ? html`Locality-aware assignment gives each task the training harnesses <em>nearest</em> its anchor, so it sees related changes of its harness.
                  ${
                    c.chosen && c.chosen.minPairwiseDistance > 1
                      ? html`But the training harnesses are at least ${c.chosen.minPairwiseDistance} components apart${c.chosen.method === 'oa' ? ' (an orthogonal array spreads them out evenly)' : ''}, so even the nearest neighbour changes ${c.chosen.minPairwiseDistance} components at once: "near" is relative to this set, not one change at a time.`
                      : nothing
                  }`
                : html`Random assignment (the ablation) draws a task's other harnesses uniformly from the training set, whatever their distance to the anchor.`
            }</p>`
          : html`<p class="note">Fix the inputs above to see the assignment.</p>`
      }
    </section>`;
  }
}

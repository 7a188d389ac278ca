/**
 * The committed comparison beside a run that cannot decide on its own: a single-harness spec
 * (it cannot show what harness scaling does) is shown what the committed experiment `main`
 * found; a smaller version of a committed preset (fewer seeds, the same condition and RL steps:
 * smaller_version.ts — the lesson is one seed of the map cell `map-broad-240`) is shown what that
 * preset found over all its seeds. The card gives harness scaling − single-harness RL after RL
 * per harness set, with its 95 % interval and one generated verdict (comparison_panel.ts
 * `comparisonSection`, the rule of the claims table), labelled as committed results, not this
 * browser's run, with a link to the full Results page.
 *
 * The door also says what the committed map of conditions found (map_panel.ts `mapFinding`),
 * loaded the same way.
 *
 * Loaded on demand (committed_fetch.ts `loadCommitted`: the summary, then the episodes) once the
 * view has painted and the page is idle, so the first view does not wait for it; so are the
 * modules that fetch and compare (imported then, not with the view). Offline the
 * card reads only Cache Storage (no request), where a preset opened once is kept.
 */
import { html, nothing, type TemplateResult } from 'lit-html';
import { parseSpec, type ExperimentSpec } from '../../experiment/spec';
import { presetVersionOf } from '../../experiment/smaller_version';
import type { CommittedEnv, CommittedLoad } from '../committed_fetch';
import type { ExperimentOutputJson } from '../results_store';
import { formatRoute } from '../route';
import type { comparisonSection, MethodPair } from './comparison_panel';
import type { MapSource, mapFinding } from './map_panel';
import '../results.css';

/** The committed experiment shown beside a single-harness spec: single-harness RL vs harness scaling, over seeds. */
const SINGLE_HARNESS_PRESET = 'main';
/** Element id prefix of the card (comparisonSection's ids are `${ID}-verdict`, `${ID}-table`, …). */
const ID = 'train-committed';

/**
 * The committed preset whose comparison goes with this spec, or null for none: `main` when every
 * method trains through the base harness alone; else the preset the spec is a smaller version of
 * (smaller_version.ts `presetVersionOf`: the same condition and RL steps, fewer seeds).
 */
export function committedPresetFor(spec: ExperimentSpec | undefined): string | null {
  if (!spec || spec.methods.length === 0) return null;
  if (spec.methods.every((m) => m.harnesses === 'single')) return SINGLE_HARNESS_PRESET;
  let found = versionOf.get(spec);
  if (found === undefined) versionOf.set(spec, (found = presetVersionOf(spec)));
  return found;
}
// The view draws often and validates its spec once per edit: compare with the presets once per spec.
const versionOf = new WeakMap<ExperimentSpec, string | null>();

/** The fetch environment: the app's, except that offline it answers from Cache Storage without a request. */
function cardEnv(): CommittedEnv {
  const g = globalThis as { caches?: CacheStorage; navigator?: Navigator };
  return {
    caches: g.caches,
    fetch: (input, init) => (g.navigator?.onLine === false ? Promise.reject(new Error('offline')) : globalThis.fetch(input, init)),
    base: import.meta.env?.BASE_URL ?? '/',
  };
}

/** Run `fn` once the page has loaded and the main thread is idle (the view paints first). */
function whenIdle(fn: () => void): void {
  const idle = () => {
    const ric = (globalThis as { requestIdleCallback?: (cb: () => void, o?: { timeout: number }) => number }).requestIdleCallback;
    if (ric) ric(fn, { timeout: 3000 });
    else setTimeout(fn, 300);
  };
  if (document.readyState === 'complete') idle();
  else window.addEventListener('load', idle, { once: true });
}

/** What the committed experiment is, from its summary: methods, design, seeds and runs. */
function aboutLine(preset: string, out: ExperimentOutputJson): TemplateResult {
  const runs = out.results.runs;
  const methods = [...new Set(runs.map((r) => r.method))];
  const seeds = new Set(runs.map((r) => r.seed)).size;
  const steps = runs[0]?.rlSteps;
  let design = '';
  try {
    const spec = parseSpec((out as { specJson?: unknown }).specJson, 'spec');
    if (spec.methods.some((m) => m.harnesses === 'scaling' || m.harnesses === 'random-assignment'))
      design =
        spec.design.method === 'oa'
          ? ` (harness scaling through ${spec.design.k ? `the ${spec.design.k} harnesses of ` : ''}an orthogonal array)`
          : '';
  } catch {
    /* an output without its spec: the methods' names say enough */
  }
  return html`<p id=${`${ID}-about`}><strong>Committed results, not this browser's run</strong>: the preset <code>${preset}</code>
    (<code>hlab run</code>, <code>docs/results/${preset}</code>) compares ${methods.map((m, i) => html`${i ? ' vs ' : ''}<em>${m}</em>`)}${design}:
    <span id=${`${ID}-size`} data-seeds=${seeds} data-runs=${runs.length}>${seeds} seed${seeds === 1 ? '' : 's'}, ${runs.length} training run${runs.length === 1 ? '' : 's'}${steps ? ` of ${steps} RL steps` : ''}</span>.</p>`;
}

/** The card of one committed preset and its load: started once, on the first draw that shows it. */
export class CommittedCard {
  private started = false;
  private load: CommittedLoad | null = null;
  private error: string | null = null;
  private pair: MethodPair | null = null;
  /** comparison_panel.ts `comparisonSection`, imported with the committed results. */
  private panel: typeof comparisonSection | null = null;

  /**
   * @param preset the committed preset shown (committedPresetFor)
   * @param redraw asks the view to draw again (a part arrived, a pair was picked)
   */
  constructor(
    readonly preset: string,
    private readonly redraw: () => void,
    private readonly env: CommittedEnv = cardEnv(),
  ) {}

  /** Start loading (once; again after a failure once back online), after the view has painted. */
  request(): void {
    if (this.started && !(this.error && navigator.onLine !== false)) return;
    this.started = true;
    this.error = null;
    whenIdle(() => {
      const panel = import('./comparison_panel').then((m) => {
        this.panel = m.comparisonSection;
      });
      const load = import('../committed_fetch').then(({ loadCommitted }) =>
        loadCommitted(
          this.preset,
          ['episodes'],
          (l) => {
            this.load = l;
            this.redraw();
          },
          this.env,
        ),
      );
      Promise.all([load, panel]).then(
        ([l]) => {
          this.load = l;
          this.redraw();
        },
        (e: Error) => {
          this.error = e.message;
          this.redraw();
        },
      );
    });
  }

  /** The card: what it is, then Loading…, one error line, or the comparison of the committed runs. */
  template(): TemplateResult {
    const out = this.load?.output;
    const failed = this.error ?? (this.load?.errors.length ? this.load.errors.join('; ') : null);
    let body: TemplateResult | typeof nothing = nothing;
    if (failed) body = html`<p class="error" id=${`${ID}-error`} role="status">Could not load the committed results: ${failed}</p>`;
    else if (!out || this.load?.pending.includes('episodes') || !this.panel)
      body = html`<p class="note" id=${`${ID}-loading`} role="status">Loading…${out ? ' the per-episode outcomes (the intervals come with them).' : ''}</p>`;
    else
      body = this.panel(
        out.results.runs,
        this.pair,
        (p) => {
          this.pair = p;
          this.redraw();
        },
        { id: ID },
      );
    return html`<section class="card train-committed" id=${ID} data-source="committed" data-preset=${this.preset} aria-labelledby=${`${ID}-title`}>
      <h2 id=${`${ID}-title`}>What harness scaling did in the committed experiment <span class="tag committed-tag">committed results</span></h2>
      ${out ? aboutLine(this.preset, out) : html`<p id=${`${ID}-about`}><strong>Committed results, not this browser's run</strong>: the preset <code>${this.preset}</code>.</p>`}
      ${body}
      <p class="note"><a id=${`${ID}-link`} href=${formatRoute({ view: 'results', params: { preset: this.preset } })}>Open the full committed results in Results</a>
        (every harness set, per family, curves and trajectories).</p>
    </section>`;
  }
}

/** What the map of conditions found (map_panel.ts), for the door; loaded after the first paint with its modules. */
export class MapFindingLine {
  private started = false;
  private src: MapSource | null = null;
  private finding: typeof mapFinding | null = null;

  /** @param redraw asks the view to draw again (the map arrived or failed) */
  constructor(
    private readonly redraw: () => void,
    private readonly env: CommittedEnv = cardEnv(),
  ) {}

  /** Start loading (once; again after a failure once back online), after the view has painted. */
  request(): void {
    if (this.started && !(this.src?.error && navigator.onLine !== false)) return;
    this.started = true;
    whenIdle(() => {
      void import('./map_panel').then(
        (m) => {
          this.finding = m.mapFinding;
          this.src ??= new m.MapSource(this.env);
          this.src.request(this.redraw);
        },
        () => undefined,
      );
    });
  }

  /** The finding; null while loading or when the map cannot be read (Results says why). */
  template(): TemplateResult | null {
    return this.src && this.finding ? this.finding(this.src) : null;
  }
}

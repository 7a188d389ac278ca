/**
 * Between methods, told: wherever two or more methods appear, arm B − arm A after RL on each
 * harness set with its 95 % interval over training runs and configurations and one generated
 * sentence (src/experiment/method_verdict.ts — the rule of the RESULTS page and the claims table).
 * The pair defaults to the second method against the first (the spec's reference, e.g. harness
 * scaling − single-harness RL in `main`); any pair can be picked.
 */
import { html, nothing, type TemplateResult } from 'lit-html';
import { byMethod } from '../../experiment/results';
import { pairVerdicts, signedPoints, type MethodVerdict } from '../../experiment/method_verdict';
import type { RunResult } from '../../experiment/results_file';

/** Arm A (reference) and arm B of the comparison shown. */
export interface MethodPair {
  a: string;
  b: string;
}

/** The pair to show: `want` when both its methods are present and differ, else the second method against the first; null for fewer than two methods. */
export function defaultPair(methods: readonly string[], want: MethodPair | null): MethodPair | null {
  if (methods.length < 2) return null;
  if (want && want.a !== want.b && methods.includes(want.a) && methods.includes(want.b)) return want;
  return { a: methods[0], b: methods[1] };
}

/** The pair after picking `method` for one side; picking the other side's method swaps the arms. */
export function picked(pair: MethodPair, which: 'a' | 'b', method: string): MethodPair {
  const other = which === 'a' ? 'b' : 'a';
  return method === pair[other] ? { a: pair.b, b: pair.a } : { ...pair, [which]: method };
}

/** Verdicts per pair, cached per runs array: comparePaired over thousands of cells is not free and the view re-renders often. */
const cache = new WeakMap<readonly RunResult[], Map<string, MethodVerdict[]>>();
function verdictsOf(runs: readonly RunResult[], p: MethodPair): MethodVerdict[] {
  let m = cache.get(runs);
  if (!m) cache.set(runs, (m = new Map()));
  const key = `${p.a}\u0000${p.b}`;
  let v = m.get(key);
  if (!v) m.set(key, (v = pairVerdicts(runs, p.a, p.b)));
  return v;
}

const DIRECTION_CLASS: Record<MethodVerdict['direction'], string> = {
  ahead: 'v-ahead',
  behind: 'v-behind',
  equivalent: 'v-equivalent',
  undecided: 'v-undecided',
  'not measurable': 'v-floor',
};

/** Options: element id prefix (unique per view) and what the columns of a pair are called. */
interface ComparisonPanelOptions {
  id: string;
  /** A sentence under the heading (e.g. which runs are compared). */
  note?: string;
}

/**
 * The panel: heading, pair pickers, the headline sentence (the first harness set: in-space when
 * evaluated) and one row per harness set; nothing for fewer than two methods.
 * @param runs runs of one experiment, or of several with methods renamed apart (scaling.ts comparedRuns)
 * @param want the pair asked for (URL or a pick); falls back to defaultPair
 * @param onPair called with a new pair when the user picks one
 */
export function comparisonSection(runs: readonly RunResult[], want: MethodPair | null, onPair: (p: MethodPair) => void, opts: ComparisonPanelOptions): TemplateResult {
  // A committed preset's runs arrive before their episodes: the panel is recomputed once they are in.
  const methods = [...byMethod(runs).keys()];
  const pair = defaultPair(methods, want);
  if (!pair) return html``;
  const verdicts = verdictsOf(runs, pair);
  const id = (s: string) => `${opts.id}-${s}`;
  const picker = (which: 'a' | 'b', label: string) =>
    html`<label class="pair-pick">${label}
      <select id=${id(which)} @change=${(e: Event) => onPair(picked(pair, which, (e.target as HTMLSelectElement).value))}>
        ${methods.map((m) => html`<option value=${m} ?selected=${m === pair[which]}>${m}</option>`)}
      </select></label>`;
  const head = verdicts[0];
  return html`<section class="card comparison" aria-labelledby=${id('h')} id=${id('section')}>
    <h2 id=${id('h')}>Between methods <span class="sub">B − A after RL, points of pass@1, paired on the same seed, task, harness and sample; 95 % interval over training runs (seeds) and configurations</span></h2>
    ${opts.note ? html`<p class="note">${opts.note}</p>` : nothing}
    <div class="pair-picks">${picker('b', 'B')} <span aria-hidden="true">−</span> ${picker('a', 'A')}</div>
    ${
      head
        ? html`<p class=${`verdict ${DIRECTION_CLASS[head.direction]}`} id=${id('verdict')} data-direction=${head.direction}>${head.sentence}</p>`
        : html`<p class="note" id=${id('none')}>No per-episode outcomes pair these two methods (not recorded, not loaded yet, or no common seed), so there is no interval to tell.</p>`
    }
    ${
      verdicts.length
        ? html`<div class="scroll-x"><table class="paper-table cards-narrow" id=${id('table')}>
          <thead><tr><th scope="col">harness set</th><th scope="col" class="num">B − A, points [95 % interval]</th><th scope="col">seeds × configurations</th><th scope="col">verdict</th></tr></thead>
          <tbody>${verdicts.map((v) => {
            const p = v.comparison.pass;
            return html`<tr data-set=${v.set.key} data-diff=${p.diff} data-lo=${p.lo} data-hi=${p.hi} data-direction=${v.direction}>
              <th scope="row"><abbr title=${v.set.explain}>${v.set.name}</abbr></th>
              <td class="num" data-label="B − A">${p.seeds < 2 ? `${signedPoints(p.diff)} (1 seed)` : `${signedPoints(p.diff)} [${signedPoints(p.lo)}, ${signedPoints(p.hi)}]`}</td>
              <td data-label="data">${p.seeds} × ${p.configs}</td>
              <td data-label="verdict" class=${DIRECTION_CLASS[v.direction]} title=${v.sentence}>${v.direction}</td>
            </tr>`;
          })}</tbody>
        </table></div>`
        : nothing
    }
  </section>`;
}

/**
 * Between methods, told: wherever two or more methods appear, arm B − arm A after RL on each
 * harness set with its 95 % interval over training runs and configurations and one generated
 * sentence (src/report/method_verdict.ts — the rule of the RESULTS page and the claims table).
 * The pair defaults to the second method against the first (the spec's reference, e.g. harness
 * scaling − single-harness RL in `main`); any pair can be picked. Arms pair on the same (seed,
 * task, harness, sample) cells: where two methods were evaluated on other seeds, configurations or
 * tasks (methods of different outputs, in Compare) the panel says what pairs and what does not
 * (method_verdict.ts pairCoverage) before any verdict, and a set with nothing paired gets no number.
 */
import { html, nothing, type TemplateResult } from 'lit-html';
import { byMethod } from '../../report/results_table';
import { coverageSentence, pairReport, type MethodVerdict, type PairRow } from '../../report/method_verdict';
import { pointsInterval } from '../../report/points';
import type { RunResult } from '../../report/results_schema';

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

/** Reports per pair, cached per runs array: comparePaired over thousands of cells is not free and the view re-renders often. */
const cache = new WeakMap<readonly RunResult[], Map<string, PairRow[] | Error>>();
function reportOf(runs: readonly RunResult[], p: MethodPair): PairRow[] | Error {
  let m = cache.get(runs);
  if (!m) cache.set(runs, (m = new Map()));
  const key = `${p.a}\u0000${p.b}`;
  let v = m.get(key);
  if (!v) {
    try {
      v = pairReport(runs, p.a, p.b);
    } catch (e) {
      v = e as Error;
    }
    m.set(key, v);
  }
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
  /** Set while an arm's per-episode outcomes are still loading: said instead of any pairing or verdict. */
  loading?: string;
}

/** "7,680" episodes paired of each arm's: "all 7,680", or "128 of 192 / 1,280" (B's / A's). */
function pairedText(row: PairRow): string {
  const c = row.coverage.cells;
  const n = (x: number) => x.toLocaleString('en-US');
  return row.coverage.extent === 'full' ? `all ${n(c.paired)}` : `${n(c.paired)} of ${n(c.b)} / ${n(c.a)}`;
}

/** One row of the table: the verdict of a set, or why the set is not compared. */
function rowTemplate(row: PairRow, pair: MethodPair): TemplateResult {
  const v = row.verdict;
  const set = row.coverage.set;
  const head = html`<th scope="row"><abbr title=${set.explain}>${set.name}</abbr></th>`;
  if (!v)
    return html`<tr data-set=${set.key} data-extent="none" data-direction="not paired">${head}
      <td class="num" data-label="B − A">—</td><td data-label="data">—</td><td data-label="paired episodes">none</td>
      <td data-label="verdict" class="v-floor" title=${coverageSentence(row.coverage, pair.a, pair.b) ?? ''}>not paired</td></tr>`;
  const p = v.comparison.pass;
  return html`<tr data-set=${set.key} data-extent=${row.coverage.extent} data-diff=${p.diff} data-lo=${p.lo} data-hi=${p.hi} data-seeds=${p.seeds} data-configs=${p.configs} data-direction=${v.direction}>
    ${head}
    <td class="num" data-label="B − A">${pointsInterval(p)}</td>
    <td data-label="data">${p.seeds} × ${p.configs}</td>
    <td data-label="paired episodes">${pairedText(row)}</td>
    <td data-label="verdict" class=${DIRECTION_CLASS[v.direction]} title=${v.sentence}>${v.direction}</td>
  </tr>`;
}

/**
 * What pairs, said before any verdict: nothing when every episode of both arms pairs on every set;
 * one sentence when an arm has no per-episode outcomes at all; else one line per set not fully paired.
 */
function pairingTemplate(report: readonly PairRow[], pair: MethodPair, id: (s: string) => string): TemplateResult | typeof nothing {
  const gaps = report.filter((r) => r.coverage.extent !== 'full');
  if (!gaps.length) return nothing;
  const without = [pair.b, pair.a].filter((m) => report.every((r) => (m === pair.a ? r.coverage.cells.a : r.coverage.cells.b) === 0));
  if (without.length)
    return html`<p class="note" id=${id('none')} data-extent="none">
      ${without.join(' and ')} ${without.length > 1 ? 'have' : 'has'} no per-episode outcomes (not recorded, or not loaded yet), so these two methods do not pair and there is no interval to tell.</p>`;
  const paired = report.some((r) => r.verdict);
  return html`<div class="pairing" id=${id('pairing')} data-extent=${paired ? 'partial' : 'none'}>
    <p><strong>${paired ? 'Paired only in part.' : 'These two methods cannot be paired.'}</strong> Arms pair on the same seed, task, harness and sample;
      ${paired ? 'a verdict below holds for the episodes both share, and a set with nothing in common has none.' : 'no harness set has an episode both share, so there is no difference to tell.'}</p>
    <ul>${gaps.map((r) => html`<li data-set=${r.coverage.set.key} data-extent=${r.coverage.extent}>${coverageSentence(r.coverage, pair.a, pair.b)}</li>`)}</ul>
  </div>`;
}

/**
 * The panel: heading, pair pickers, what pairs (when not everything does), the headline sentence
 * (the first harness set with a verdict: in-space when it pairs) and one row per harness set;
 * nothing for fewer than two methods.
 * @param runs runs of one experiment, or of several with methods renamed apart (scaling.ts comparedRuns)
 * @param want the pair asked for (URL or a pick); falls back to defaultPair
 * @param onPair called with a new pair when the user picks one
 */
export function comparisonSection(
  runs: readonly RunResult[],
  want: MethodPair | null,
  onPair: (p: MethodPair) => void,
  opts: ComparisonPanelOptions,
): TemplateResult {
  // A committed preset's runs arrive before their episodes: the panel is recomputed once they are in.
  const methods = [...byMethod(runs).keys()];
  const pair = defaultPair(methods, want);
  if (!pair) return html``;
  const id = (s: string) => `${opts.id}-${s}`;
  const picker = (which: 'a' | 'b', label: string) =>
    html`<label class="pair-pick">${label}
      <select id=${id(which)} @change=${(e: Event) => onPair(picked(pair, which, (e.target as HTMLSelectElement).value))}>
        ${methods.map((m) => html`<option value=${m} ?selected=${m === pair[which]}>${m}</option>`)}
      </select></label>`;
  const report = opts.loading ? [] : reportOf(runs, pair);
  const verdicts = report instanceof Error ? [] : report.flatMap((r): MethodVerdict[] => (r.verdict ? [r.verdict] : []));
  const head = verdicts[0];
  return html`<section class="card comparison" aria-labelledby=${id('h')} id=${id('section')}>
    <h2 id=${id('h')}>Between methods <span class="sub">B − A after RL, points of pass@1, paired on the same seed, task, harness and sample; 95 % interval over training runs (seeds) and configurations</span></h2>
    ${opts.note ? html`<p class="note">${opts.note}</p>` : nothing}
    <div class="pair-picks">${picker('b', 'B')} <span aria-hidden="true">−</span> ${picker('a', 'A')}</div>
    ${
      opts.loading
        ? html`<p class="note" id=${id('loading')} role="status">${opts.loading}</p>`
        : report instanceof Error
          ? html`<p class="error-box" id=${id('error')}>These two methods could not be compared: ${report.message}</p>`
          : html`${pairingTemplate(report, pair, id)}
            ${head ? html`<p class=${`verdict ${DIRECTION_CLASS[head.direction]}`} id=${id('verdict')} data-direction=${head.direction}>${head.sentence}</p>` : nothing}
            ${
              report.length && verdicts.length
                ? html`<div class="scroll-x"><table class="paper-table cards-narrow" id=${id('table')}>
                  <thead><tr><th scope="col">harness set</th><th scope="col" class="num">B − A, points [95 % interval]</th><th scope="col">seeds × configurations</th><th scope="col">episodes paired (of B / A)</th><th scope="col">verdict</th></tr></thead>
                  <tbody>${report.map((r) => rowTemplate(r, pair))}</tbody>
                </table></div>`
                : nothing
            }`
    }
  </section>`;
}

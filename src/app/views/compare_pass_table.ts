/**
 * The Compare view's pass@1 table: the picked runs' Results tables (results_tables.ts) side by
 * side, one row per run × method, before → after, mean ± std over seeds, one column per
 * harness set any of them measured ('—' where a run has none).
 */
import { html, type TemplateResult } from 'lit-html';
import type { PaperTable } from './results_tables';

/**
 * The pass@1 card of the picked runs.
 * @param runs the picked outputs in order, with their letter and display name
 * @param tables each run's paperTable, in the order of `runs`
 */
export function passTableSection(runs: readonly { tag: string; name: string }[], tables: readonly PaperTable[]): TemplateResult {
  const cols = [...new Map(tables.flatMap((t) => t.columns.map((c) => [c.key, c.label] as const))).entries()];
  return html`<section class="card" aria-labelledby="compare-table-h">
  <h2 id="compare-table-h">pass@1 (%) <span class="sub">before → after, mean ± std over seeds; one row per run and method</span></h2>
  <div class="scroll-x">
    <table class="paper-table cards-narrow" id="compare-table">
      <thead><tr><th scope="col">run · method</th><th scope="col">seeds</th>${cols.map(([, label]) => html`<th scope="col" class="num">${label}</th>`)}</tr></thead>
      <tbody>
        ${runs.flatMap((r, ri) =>
          tables[ri].rows
            .filter((row) => row.before !== null)
            .map((row) => {
              const at = (k: string) => tables[ri].columns.findIndex((c) => c.key === k);
              return html`<tr data-run=${r.tag} data-method=${row.label}><th scope="row" title=${r.name}>${r.tag} · ${row.label}</th><td class="num" data-label="seeds">${row.seeds}</td>
                ${cols.map(([k, label]) => {
                  const j = at(k);
                  if (j < 0) return html`<td class="num" data-label=${label}>—</td>`;
                  const a = row.after[j];
                  const b = row.before![j];
                  return html`<td class="num" data-label=${label} data-col=${k} data-mean=${a.mean ?? ''}><span class="before">${b.mean === null ? '—' : (100 * b.mean).toFixed(1)}</span><span class="arrow" aria-label="to"> → </span><span class="after">${a.text}</span></td>`;
                })}</tr>`;
            }),
        )}
      </tbody>
    </table>
  </div>
</section>`;
}

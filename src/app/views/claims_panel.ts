/**
 * The claims panel of the Results view: what the committed results say about each claim of the
 * harness-scaling paper, with its interval over training runs and configurations and a verdict
 * (docs/results/claims.json, generated with docs/RESULTS.md's table by scripts/claims.ts from
 * the committed results; src/experiment/claims.ts).
 */
import { html, type TemplateResult } from 'lit-html';
import claims from '../../../docs/results/claims.json';
import type { ClaimsJson } from '../../experiment/claims';

const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(1)}`;

/** "−4.0 [−11.2, +3.1]", "+2.0 (1 seed)" or "—". */
function estimateText(r: ClaimsJson['rows'][number]): string {
  if (r.diff === null) return '—';
  if (r.lo === null || r.hi === null) return `${signed(r.diff)} (1 seed)`;
  return `${signed(r.diff)} [${signed(r.lo)}, ${signed(r.hi)}]`;
}

/** The panel: one row per claim (B − A in points with its 95 % interval, verdict, data, what would decide it). */
export function claimsSection(data: ClaimsJson = claims as ClaimsJson): TemplateResult {
  return html`<section class="card" aria-labelledby="claims-h" id="claims">
    <h2 id="claims-h">What the committed results say <span class="sub">one row per claim of the paper; arm B − arm A in points of pass@1, 95 % interval over training runs (seeds) and in-space configurations</span></h2>
    <p class="note">A claim is <b>reproduced</b> when the interval excludes 0 in the paper's direction, <b>refuted</b> when it excludes 0 against it,
      <b>equivalent</b> inside ±2 points, and <b>undecided</b> otherwise — with the seeds that would decide it. The same table opens docs/RESULTS.md.</p>
    <div class="scroll-x">
      <table class="paper-table cards-narrow" id="claims-table" aria-labelledby="claims-h">
        <thead><tr><th scope="col">claim (paper: B &gt; A)</th><th scope="col">preset</th><th scope="col">on</th><th scope="col" class="num">B − A</th><th scope="col">verdict</th><th scope="col">data</th><th scope="col">what would decide it</th></tr></thead>
        <tbody>
          ${data.rows.map(
            (r) => html`<tr data-claim=${r.id} data-verdict=${r.verdict}>
              <th scope="row">${r.claim}</th><td data-label="preset"><code>${r.preset}</code></td><td data-label="on">${r.on}</td>
              <td class="num" data-label="B − A" data-diff=${r.diff ?? ''} data-lo=${r.lo ?? ''} data-hi=${r.hi ?? ''}>${estimateText(r)}</td>
              <td data-label="verdict"><b class="verdict verdict-${r.verdict.replace(' ', '-')}">${r.verdict}</b></td>
              <td data-label="data">${r.data}</td><td data-label="what would decide it">${r.note || '—'}</td>
            </tr>`,
          )}
        </tbody>
      </table>
    </div>
  </section>`;
}

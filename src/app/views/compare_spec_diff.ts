/**
 * The Compare view's spec differences: every field whose value differs between the picked runs'
 * stored specs (runs saved by the Train view carry the spec they ran), as a table of one row per
 * field and one column per run.
 */
import { html, nothing, type TemplateResult } from 'lit-html';
import type { ExperimentOutputJson } from '../results_store';

/** Every leaf of a JSON value as path → JSON text ('rl.steps' → '12', 'seeds' → '[0,1]'; arrays are leaves). */
function flattenJson(v: unknown, pre = '', out: Map<string, string> = new Map()): Map<string, string> {
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) flattenJson(x, pre ? `${pre}.${k}` : k, out);
  } else out.set(pre || '(root)', JSON.stringify(v));
  return out;
}

/**
 * The fields whose values differ between specs (a missing field is '—'), sorted by path.
 * null specs (not stored with the run) are left out of the comparison.
 */
export function specDiff(specs: readonly (unknown | null)[]): { path: string; values: string[] }[] {
  const flat = specs.map((s) => (s === null || s === undefined ? null : flattenJson(s)));
  const paths = [...new Set(flat.flatMap((f) => (f ? [...f.keys()] : [])))].sort();
  const rows: { path: string; values: string[] }[] = [];
  for (const p of paths) {
    const values = flat.map((f) => (f ? (f.get(p) ?? '—') : '(not stored)'));
    const known = values.filter((_, i) => flat[i] !== null);
    if (new Set(known).size > 1) rows.push({ path: p, values });
  }
  return rows;
}

/**
 * The spec differences card of the picked runs.
 * @param runs the picked outputs in order, with their letter and display name
 * @param diff `specDiff` of their stored specs
 */
export function specDiffSection(
  runs: readonly { tag: string; name: string; out: ExperimentOutputJson }[],
  diff: ReturnType<typeof specDiff>,
): TemplateResult {
  const noSpecs = runs.every((r) => (r.out as { specJson?: unknown }).specJson === undefined);
  return html`<section class="card" aria-labelledby="compare-diff-h">
  <h2 id="compare-diff-h">Spec differences <span class="sub">${runs.length < 2 ? 'pick a second run' : noSpecs ? 'no stored specs' : `${diff.length} field${diff.length === 1 ? '' : 's'} differ`}</span></h2>
  ${
    noSpecs
      ? html`<p class="note">These runs do not carry their spec (saved before specs were stored, or opened from a CLI file).</p>`
      : runs.length >= 2 && diff.length === 0
        ? html`<p class="note" id="compare-same-spec">The stored specs are identical.</p>`
        : runs.length >= 2
          ? html`<div class="scroll-x"><table class="paper-table" id="compare-diff">
            <thead><tr><th scope="col">field</th>${runs.map((r) => html`<th scope="col" title=${r.name}>${r.tag}</th>`)}</tr></thead>
            <tbody>${diff.map((row) => html`<tr data-path=${row.path}><th scope="row"><code>${row.path}</code></th>${row.values.map((v) => html`<td><code>${v.length > 80 ? v.slice(0, 77) + '…' : v}</code></td>`)}</tr>`)}</tbody>
          </table></div>`
          : nothing
  }
</section>`;
}

/**
 * The harness-count curve in Results: when the opened experiment trains through N = 1 and other
 * counts of training harnesses (a method with `harnessCount`; the `harness-count` preset), pass@1
 * after RL against N on in-space and the base harness — the figure of docs/RESULTS.md
 * (harness_count_svg.ts) and a row per N with each N − (N = 1) under the claims rule
 * (harness_count_curve.ts). Computed from the loaded runs, so a run made in this browser reads as
 * the committed one does; until the per-episode outcomes load, the levels show and the
 * differences wait.
 */
import { html, nothing, type TemplateResult } from 'lit-html';
import type { CommittedResults } from '../../experiment/claims';
import { harnessCountCurve, type CountCurve } from '../../experiment/harness_count_curve';
import { harnessCountSvg } from '../../experiment/harness_count_svg';
import { intervalText } from '../../experiment/conditions_map';
import type { RunResult } from '../../report/results_schema';

// The view redraws often: derive the curve and parse its figure once per loaded runs array.
const cache = new WeakMap<readonly RunResult[], { curve: CountCurve | null; svg: Element | null }>();

/** Whether a spec trains some method through a chosen number of harnesses. */
function hasCounts(specJson: unknown): boolean {
  const methods = (specJson as { methods?: Array<{ harnessCount?: number }> } | null | undefined)?.methods ?? [];
  return methods.some((m) => m.harnessCount !== undefined);
}

function derive(runs: readonly RunResult[], specJson: unknown) {
  let d = cache.get(runs);
  if (!d) {
    const curve = hasCounts(specJson) ? harnessCountCurve({ runs, specJson } as unknown as CommittedResults) : null;
    let svg: Element | null = null;
    if (curve) {
      const el = new DOMParser().parseFromString(harnessCountSvg(curve), 'image/svg+xml').documentElement;
      if (el.nodeName === 'svg') {
        el.setAttribute('role', 'img');
        el.setAttribute('aria-labelledby', 'count-h');
        svg = el;
      }
    }
    d = { curve, svg };
    cache.set(runs, d);
  }
  return d;
}

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;

/**
 * The section, or nothing when the experiment does not vary the number of training harnesses.
 * @param runs the loaded runs (per-episode outcomes decide the differences)
 * @param specJson the experiment's spec (stored with the output, or the preset's)
 */
export function harnessCountSection(runs: readonly RunResult[], specJson: unknown): TemplateResult | typeof nothing {
  const { curve, svg } = derive(runs, specJson);
  if (!curve) return nothing;
  return html`<section class="card" aria-labelledby="count-h" id="harness-count">
    <h2 id="count-h">How many harnesses <span class="sub">pass@1 after RL against the number N of training harnesses at equal budget; mean over seeds [95 % interval over seeds]</span></h2>
    <p class="note">Each N − (N = 1) pairs the same seeds, tasks and configurations and follows the rule of the claims above
      (95 % interval over seeds and configurations); a filled point differs from N = 1 beyond it. Before RL: in-space ${pct(curve.before.inSpace)}, base harness ${pct(curve.before.base)}.</p>
    <div class="scroll-x map-figure" id="count-figure">${svg ?? nothing}</div>
    <div class="scroll-x">
      <table class="paper-table cards-narrow" id="count-table" aria-labelledby="count-h">
        <thead><tr><th scope="col" class="num">N</th><th scope="col">method</th><th scope="col" class="num">seeds</th><th scope="col" class="num">in-space</th><th scope="col" class="num">in-space: N − (N = 1)</th><th scope="col" class="num">base harness</th><th scope="col" class="num">base: N − (N = 1)</th></tr></thead>
        <tbody>${curve.points.map(
          (p) => html`<tr data-n=${p.n} data-method=${p.method}>
            <th scope="row" class="num">${p.n}</th><td data-label="method">${p.method}</td><td class="num" data-label="seeds">${p.after.inSpace.seeds}</td>
            <td class="num" data-label="in-space" data-mean=${p.after.inSpace.mean}>${pct(p.after.inSpace.mean)}</td>
            <td class="num" data-label="in-space: N − (N = 1)" data-direction=${p.vsOne.inSpace?.direction ?? ''} title=${p.vsOne.inSpace?.sentence ?? ''}>${p.n === 1 ? '—' : `${intervalText(p.vsOne.inSpace)} ${p.vsOne.inSpace?.direction ?? ''}`}</td>
            <td class="num" data-label="base harness" data-mean=${p.after.base.mean}>${pct(p.after.base.mean)}</td>
            <td class="num" data-label="base: N − (N = 1)" data-direction=${p.vsOne.base?.direction ?? ''} title=${p.vsOne.base?.sentence ?? ''}>${p.n === 1 ? '—' : `${intervalText(p.vsOne.base)} ${p.vsOne.base?.direction ?? ''}`}</td>
          </tr>`,
        )}</tbody>
      </table>
    </div>
  </section>`;
}

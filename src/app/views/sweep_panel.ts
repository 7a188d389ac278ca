/**
 * A sweep curve in Results: when the opened experiment's arms vary N, the number of training
 * harnesses (`harness-count`), or K, the harnesses per task (`diversity`), pass@1 after RL against
 * it on in-space and the base harness — the figure of docs/RESULTS.md (sweep_svg.ts) and a row per
 * value with each value − 1 under the claims rule (sweep_curve.ts). Computed from the loaded runs,
 * so a run made in this browser reads as the committed one does; until the per-episode outcomes
 * load, the levels show and the differences wait.
 */
import { html, nothing, type TemplateResult } from 'lit-html';
import type { CommittedResults } from '../../experiment/claims';
import { sweepCurve, type SweepCurve } from '../../experiment/sweep_curve';
import { sweepSvg } from '../../experiment/sweep_svg';
import { intervalText } from '../../experiment/conditions_map';
import type { RunResult } from '../../report/results_schema';

// The view redraws often: derive the curve and parse its figure once per loaded runs array.
const cache = new WeakMap<readonly RunResult[], { curve: SweepCurve | null; svg: Element | null }>();

function derive(runs: readonly RunResult[], specJson: unknown) {
  let d = cache.get(runs);
  if (!d) {
    const curve = sweepCurve({ runs, specJson } as unknown as CommittedResults);
    let svg: Element | null = null;
    if (curve) {
      const el = new DOMParser().parseFromString(sweepSvg(curve), 'image/svg+xml').documentElement;
      if (el.nodeName === 'svg') {
        el.setAttribute('role', 'img');
        el.setAttribute('aria-labelledby', 'sweep-h');
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
 * The section, or nothing when the experiment's arms make no sweep (sweep_curve.ts sweepAxis).
 * @param runs the loaded runs (per-episode outcomes decide the differences)
 * @param specJson the experiment's spec (stored with the output, or the preset's)
 */
export function sweepSection(runs: readonly RunResult[], specJson: unknown): TemplateResult | typeof nothing {
  const { curve, svg } = derive(runs, specJson);
  if (!curve) return nothing;
  const x = curve.axis.symbol;
  const vs = `${x} − (${x} = 1)`;
  return html`<section class="card" aria-labelledby="sweep-h" id="sweep" data-axis=${x}>
    <h2 id="sweep-h">${x === 'N' ? 'How many harnesses' : 'How many harnesses per task'} <span class="sub">pass@1 after RL against ${curve.axis.words} at equal budget; mean over seeds [95 % interval over seeds]</span></h2>
    <p class="note">Each ${vs} pairs the same seeds, tasks and configurations and follows the rule of the claims above
      (95 % interval over seeds and configurations); a filled point differs from ${x} = 1 beyond it. Before RL: in-space ${pct(curve.before.inSpace)}, base harness ${pct(curve.before.base)}.</p>
    <div class="scroll-x map-figure" id="sweep-figure">${svg ?? nothing}</div>
    <div class="scroll-x">
      <table class="paper-table cards-narrow" id="sweep-table" aria-labelledby="sweep-h">
        <thead><tr><th scope="col" class="num">${x}</th><th scope="col">method</th><th scope="col" class="num">seeds</th><th scope="col" class="num">in-space</th><th scope="col" class="num">in-space: ${vs}</th><th scope="col" class="num">base harness</th><th scope="col" class="num">base: ${vs}</th></tr></thead>
        <tbody>${curve.points.map(
          (p) => html`<tr data-x=${p.value} data-method=${p.method}>
            <th scope="row" class="num">${p.value}</th><td data-label="method">${p.method}</td><td class="num" data-label="seeds">${p.after.inSpace.seeds}</td>
            <td class="num" data-label="in-space" data-mean=${p.after.inSpace.mean}>${pct(p.after.inSpace.mean)}</td>
            <td class="num" data-label=${`in-space: ${vs}`} data-direction=${p.vsOne.inSpace?.direction ?? ''} title=${p.vsOne.inSpace?.sentence ?? ''}>${p.value === 1 ? '—' : `${intervalText(p.vsOne.inSpace)} ${p.vsOne.inSpace?.direction ?? ''}`}</td>
            <td class="num" data-label="base harness" data-mean=${p.after.base.mean}>${pct(p.after.base.mean)}</td>
            <td class="num" data-label=${`base: ${vs}`} data-direction=${p.vsOne.base?.direction ?? ''} title=${p.vsOne.base?.sentence ?? ''}>${p.value === 1 ? '—' : `${intervalText(p.vsOne.base)} ${p.vsOne.base?.direction ?? ''}`}</td>
          </tr>`,
        )}</tbody>
      </table>
    </div>
  </section>`;
}

/**
 * The Train view's charts card (lit-html): validation pass@1, the rollout reward, pass@1 by
 * harness group and the update metrics per RL step, one series per (seed, method) run, drawn
 * from the RunViewState (train_state.ts) by line_chart.ts.
 */
import { html, nothing, type TemplateResult } from 'lit-html';
import type { ExperimentSpec } from '../../experiment/spec';
import type { StepRecord } from '../../experiment/run_events';
import type { LineChartSpec } from '../line_chart';
import { SERIES_COLORS } from '../series_colors';
import type { ValidationSetName } from '../../report/results_schema';
import { metricSeries, passByGroupSeries, runLabel, validationGroups, validationSeries, type RunViewState } from './train_state';

/**
 * Series labels of the charts: one per (seed, method) run in the runner's order, known from the
 * spec before anything runs, so the charts are built once and training only updates their data.
 */
function runLabels(s: RunViewState, spec: ExperimentSpec | undefined): string[] {
  if (spec) return spec.seeds.flatMap((seed) => spec.methods.map((m) => runLabel(m.name, seed)));
  return s.curves.map((c) => c?.label ?? '');
}

/**
 * One chart of a StepRecord metric, a series per run (train_state.ts metricSeries).
 * @param ofUpdate the metric exists only when the step applied an update (loss, KL, clip
 *   fraction, gradient norm): steps without one have no value (a gap) and are shaded.
 */
function metricChart(
  s: RunViewState,
  labels: string[],
  id: string,
  title: string,
  pick: (r: StepRecord) => number | null | undefined,
  yLabel = title,
  ofUpdate = false,
): TemplateResult {
  const m = metricSeries(s.curves, labels.length, pick, ofUpdate);
  const spec: LineChartSpec = {
    x: m.x,
    xLabel: 'RL step',
    yLabel,
    ...(m.noData ? { noData: m.noData } : {}),
    series: labels.map((label, i) => ({ label, color: SERIES_COLORS[i % SERIES_COLORS.length], values: m.values[i] })),
  };
  return html`<figure class="train-chart"><figcaption>${title}</figcaption><hl-line-chart id=${id} .spec=${spec}></hl-line-chart></figure>`;
}

/** pass@1 of the current run's rollouts per harness group (distance to the base harness), per step. */
function passByGroupChart(s: RunViewState, spec: ExperimentSpec | undefined): TemplateResult {
  const cur = s.curves[s.currentRun];
  const g = passByGroupSeries(cur?.steps ?? [], spec);
  const chart: LineChartSpec = {
    x: g.x,
    xLabel: 'RL step',
    yLabel: 'pass@1',
    series: g.groups.map((label, i) => ({ label, color: SERIES_COLORS[i % SERIES_COLORS.length], values: g.values[i] })),
  };
  return html`<figure class="train-chart"><figcaption>Rollout pass@1 by harness group <span class="sub">${cur ? `${cur.label}, ` : ''}d = distance to the base harness</span></figcaption>
    <hl-line-chart id="chart-pass-group" .spec=${chart}></hl-line-chart></figure>`;
}

/** Captions of the sets measured under the same harnesses for every method, in the order drawn. */
const SHARED_SETS = [
  {
    set: 'inSpace',
    id: 'chart-validation-in-space',
    on: 'held-out in-space configurations, the same for every method (no method trains on them): levels compare across methods',
  },
  { set: 'base', id: 'chart-validation-base', on: 'the base harness, the same for every method: levels compare across methods' },
] as const;

/**
 * Validation pass@1 per run (train_state.ts validationSeries): the same train-seed tasks at step 0
 * (before RL), every `every` steps and the last step; the x axis spans the whole run, so the
 * curve grows across it. First the sets measured under the same harnesses for every method
 * (spec.evaluation.validation.sets 'inSpace', 'base'): one chart each, every run on it, so the
 * methods compare by level. Then the 'training' set: runs validated under different harnesses
 * (single harness on the base harness, harness scaling on its training set: train_state.ts
 * validationGroups) get a chart each, captioned with what it is measured on: their levels are
 * not comparable. A spec without validation says so instead of drawing an empty chart.
 */
function validationCharts(s: RunViewState, labels: string[], spec: ExperimentSpec | undefined, runSteps: number): TemplateResult {
  const val = spec?.evaluation.validation;
  const what =
    val && val.tasks > 0
      ? `${val.tasks} tasks per suite × ${val.samples} sample${val.samples === 1 ? '' : 's'}, the same each time: at step 0 (before RL), every ${val.every === 1 ? 'step' : `${val.every} steps`} and at the last step`
      : '';
  const title = html`Validation pass@1 (train-seed tasks, not the test set)${what ? html` <span class="sub">${what}</span>` : nothing}`;
  if (spec !== undefined && (!val || val.tasks === 0))
    return html`<figure class="train-chart train-chart-validation"><figcaption>${title}</figcaption>
      <p class="note" id="chart-validation-off">This spec measures no validation curve (evaluation.validation is absent or has 0 tasks).</p></figure>`;
  const groups = spec ? validationGroups(spec) : [{ on: '', runs: labels.map((_, i) => i) }];
  const chart = (runs: number[], set: ValidationSetName = 'training'): LineChartSpec => {
    const m = validationSeries(
      runs.map((r) => s.curves[r]),
      runs.length,
      set,
    );
    const last = Math.max(runSteps, ...m.x);
    return {
      x: m.x,
      xLabel: 'RL step',
      yLabel: 'pass@1',
      ...(last > 0 ? { xRange: [0, last] as const } : {}),
      series: runs.map((r, i) => ({ label: labels[r] ?? '', color: SERIES_COLORS[r % SERIES_COLORS.length], values: m.values[i] })),
    };
  };
  const every = labels.map((_, i) => i);
  const shared = SHARED_SETS.filter((x) => val?.sets?.includes(x.set)).map(
    (
      x,
    ) => html`<figure class="train-chart train-chart-validation"><figcaption>${title} <span class="sub validation-on">measured on ${x.on}</span></figcaption>
      <hl-line-chart id=${x.id} .spec=${chart(every, x.set)}></hl-line-chart></figure>`,
  );
  const apart =
    groups.length > 1
      ? html`<p class="note" id="chart-validation-apart">Each method is validated under its own training harnesses, so these charts are on different harnesses:
          compare each curve's change, not their levels. The results table compares the methods on the same harnesses.</p>`
      : nothing;
  return html`${shared}${groups.map(
    (
      g,
      i,
    ) => html`<figure class="train-chart train-chart-validation"><figcaption>${title}${g.on ? html` <span class="sub validation-on">measured on ${g.on}</span>` : nothing}</figcaption>
      <hl-line-chart id=${i === 0 ? 'chart-validation' : `chart-validation-${i + 1}`} .spec=${chart(g.runs)}></hl-line-chart>${i === groups.length - 1 ? apart : nothing}</figure>`,
  )}`;
}

/** The training curves card: validation pass@1, reward, pass@1 by harness group and the update metrics, per RL step. */
export function chartsCard(s: RunViewState, spec: ExperimentSpec | undefined, runSteps: number): TemplateResult {
  const l = runLabels(s, spec);
  return html`<section class="card train-charts-card" aria-labelledby="train-charts-h">
    <h2 id="train-charts-h">Training curves <span class="sub">validation pass@1 is measured on the same held-aside train-seed tasks each time, so its changes are the policy's;
      the rollout reward is over different tasks each step (and so moves with their difficulty too). One point per RL step otherwise; hover for values;
      shaded: no update applied at that step (nothing to measure)</span></h2>
    <div class="train-charts">
      ${validationCharts(s, l, spec, runSteps)}
      ${metricChart(s, l, 'chart-reward', 'Reward (mean verifier pass)', (r) => r.reward, 'reward')}
      ${passByGroupChart(s, spec)}
      ${metricChart(s, l, 'chart-policy-loss', 'Policy loss', (r) => r.policyLoss, 'Policy loss', true)}
      ${metricChart(s, l, 'chart-clip-frac', 'Clip fraction', (r) => r.clipFrac, 'Clip fraction', true)}
      ${metricChart(s, l, 'chart-approx-kl', 'Approx. KL (old ‖ new)', (r) => r.approxKl, 'approx KL', true)}
      ${metricChart(s, l, 'chart-entropy', 'Entropy (nats)', (r) => r.entropy, 'entropy')}
      ${metricChart(s, l, 'chart-grad-norm', 'Gradient norm (before clipping)', (r) => r.gradNorm, 'grad norm', true)}
      ${metricChart(s, l, 'chart-tokens', 'Sampling throughput', (r) => r.tokensPerSec, 'tokens/s')}
    </div>
  </section>`;
}

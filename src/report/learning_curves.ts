/**
 * The learning curves of an experiment as files:
 * per RL step the rollout reward, entropy and share of groups dropped as all-equal, and the
 * validation points (validation.ts) — `curvesCsv` for curves.csv (one line per run and step) and
 * `curvesMarkdown` for results.md (the validation curve per run with the paired first → last
 * difference, and the training signal early vs late). Not measured = an empty CSV cell or "—",
 * never 0. Pure module; the CLI writes the files (curves.svg draws the same series).
 */
import { VALIDATION_SETS, validationSetPoint, type ValidationSetName } from './results_schema';
import { pairCells, pairedComparison, type EpisodeOutcomeCell, type PairedComparison } from './stats';

/** What these tables read of a run's RL step (the RL loop's StepRecord). */
interface StepRecord {
  step: number;
  reward: number;
  entropy: number;
  policyLoss: number;
  optimizerSteps: number;
  droppedGroups: number;
  groups?: number;
  generationRounds?: number;
  sampledGroups?: number;
  sampledEpisodes?: number;
}
/** What these tables read of a validation point under one set. */
interface SetPoint {
  passAt1: number;
  score: number;
  episodes: number;
  cells: EpisodeOutcomeCell[];
}
/** What these tables read of a run's curve (the runner's RunCurves). */
interface RunCurves {
  method: string;
  seed: number;
  steps: readonly StepRecord[];
  validation?: ReadonlyArray<SetPoint & { step: number; sets?: { base?: SetPoint; inSpace?: SetPoint } }>;
}

const finite = (x: number | undefined): x is number => typeof x === 'number' && Number.isFinite(x);
const droppedShare = (s: StepRecord) => (s.groups ? s.droppedGroups / s.groups : NaN);

/**
 * curves.csv: `method,seed,step,reward,entropy,policy_loss,optimizer_steps,dropped_groups,groups,
 * dropped_share,generation_rounds,sampled_groups,sampled_episodes,validation_pass_at_1,
 * validation_score,validation_episodes` (the validation split under the training harnesses),
 * then `<set>_pass_at_1,<set>_score,<set>_episodes` for each other validation set some run
 * measured (validation_base, validation_in_space; validation.ts VALIDATION_SETS), one line per
 * run and step that has an RL record or a validation point (step 0: validation only), ascending
 * by step. The sampling columns are empty where the record lacks them (older runs; rounds and
 * sampled groups without dynamic sampling).
 */
export function curvesCsv(curves: readonly RunCurves[]): string {
  const extra = measuredSets(curves).filter((s) => s.set !== 'training');
  const head =
    'method,seed,step,reward,entropy,policy_loss,optimizer_steps,dropped_groups,groups,dropped_share,generation_rounds,sampled_groups,sampled_episodes,validation_pass_at_1,validation_score,validation_episodes' +
    extra.map((s) => `,${s.column}_pass_at_1,${s.column}_score,${s.column}_episodes`).join('');
  const q = (v: string | number | undefined) => {
    if (v === undefined || (typeof v === 'number' && !Number.isFinite(v))) return '';
    const s = String(v);
    return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  const lines = [head];
  for (const c of curves) {
    const byStep = new Map(c.steps.map((s) => [s.step, s]));
    const val = new Map((c.validation ?? []).map((p) => [p.step, p]));
    for (const step of [...new Set([...byStep.keys(), ...val.keys()])].sort((a, b) => a - b)) {
      const s = byStep.get(step);
      const p = val.get(step);
      lines.push(
        [
          c.method,
          c.seed,
          step,
          s?.reward,
          s?.entropy,
          s?.policyLoss,
          s?.optimizerSteps,
          s?.droppedGroups,
          s?.groups,
          s ? droppedShare(s) : undefined,
          s?.generationRounds,
          s?.sampledGroups,
          s?.sampledEpisodes,
          p?.passAt1,
          p?.score,
          p?.episodes,
          ...extra.flatMap((e) => {
            const q = p && validationSetPoint(p, e.set);
            return [q?.passAt1, q?.score, q?.episodes];
          }),
        ]
          .map(q)
          .join(','),
      );
    }
  }
  return lines.join('\n') + '\n';
}

/** Mean of the finite values, NaN when none. */
function meanFinite(xs: readonly (number | undefined)[]): number {
  const v = xs.filter(finite);
  return v.length ? v.reduce((a, x) => a + x, 0) / v.length : NaN;
}

const pct = (x: number) => (finite(x) ? (100 * x).toFixed(1) : '—');
const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;

/** "+12.5 [+3.1, +21.9] p=0.004" for one run's last − first validation point (points of pass@1). */
function runDiffText(p: PairedComparison): string {
  const d = p.pass;
  if (d.n === 0) return 'n/a';
  return `${signed(d.diff)} [${signed(d.lo)}, ${signed(d.hi)}] ${d.mcnemar.p < 0.001 ? 'p<0.001' : `p=${d.mcnemar.p.toFixed(3)}`}`;
}
const dec = (x: number) => (finite(x) ? x.toFixed(2) : '—');

/** The validation sets some run's points measured, in VALIDATION_SETS order. */
function measuredSets(curves: readonly RunCurves[]): ReadonlyArray<(typeof VALIDATION_SETS)[number]> {
  return VALIDATION_SETS.filter((s) => curves.some((c) => (c.validation ?? []).some((p) => validationSetPoint(p, s.set))));
}

/** The lead paragraph of each set's table. */
const SET_TEXT: Record<ValidationSetName, string> = {
  training:
    "Validation pass@1 (%) and mean score on the train-seed validation split (disjoint from the RL train tasks; never the test tasks), per RL step; last − first: paired on the same (task, harness, sample) cells, 95 % bootstrap interval over tasks and exact McNemar p — this run's evaluation noise only, not the spread between training runs.",
  base: 'The same validation split under the base harness S0-T0-O0-C0-W0 (every method on the same cells), per RL step; last − first paired as above.',
  inSpace:
    "The same validation split under held-out in-space configurations (one per task, a rotation over the run's in-space set; none a method trains through; every method on the same cells), per RL step; last − first paired as above.",
};

/** One validation table (a row per run with points of `set`): pass@1 % (score) per step and the paired last − first. */
function validationTable(curves: readonly RunCurves[], set: ValidationSetName, opts: { seed?: number; resamples?: number }): string[] {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const runs = curves
    .map((c) => ({
      c,
      pts: (c.validation ?? []).flatMap((p) => {
        const q = validationSetPoint(p, set);
        return q ? [{ step: p.step, q }] : [];
      }),
    }))
    .filter((r) => r.pts.length);
  const steps = [...new Set(runs.flatMap((r) => r.pts.map((p) => p.step)))].sort((a, b) => a - b);
  const out = [
    SET_TEXT[set],
    '',
    line(['method', 'seed', ...steps.map((s) => `step ${s}`), 'last − first']),
    line(Array.from({ length: steps.length + 3 }, (_, i) => (i < 2 ? '---' : '---:'))),
  ];
  for (const { c, pts: unsorted } of runs) {
    const pts = [...unsorted].sort((a, b) => a.step - b.step);
    const at = new Map(pts.map((p) => [p.step, p.q]));
    const pairs = pts.length > 1 ? pairCells(pts[0].q.cells, pts[pts.length - 1].q.cells).cells : [];
    const diff = pairs.length ? runDiffText(pairedComparison(pairs, { seed: opts.seed ?? 0, resamples: opts.resamples ?? 2000 })) : 'n/a';
    const shown = steps.map((s) => {
      const p = at.get(s);
      return p ? `${pct(p.passAt1)} (${dec(p.score)})` : '—';
    });
    out.push(line([c.method, String(c.seed), ...shown, diff]));
  }
  return [...out, ''];
}

/**
 * The results.md section: (1) validation pass@1 (%) and mean score per run at every measured
 * step, with the paired difference between its first and last point (bootstrap over tasks and
 * exact McNemar, stats.pairedComparison with `opts.seed`: one run's evaluation noise, not the
 * spread between training runs, which the results tables' intervals cover) — a table per
 * validation set some run measured (training harnesses, then base harness and in-space); (2) the
 * training signal: mean rollout reward, entropy and dropped-group share over the first and the
 * last quarter of the run's steps. Empty string when no run has RL steps or validation points.
 */
export function curvesMarkdown(curves: readonly RunCurves[], opts: { seed?: number; resamples?: number } = {}): string {
  const runs = curves.filter((c) => c.steps.length || c.validation?.length);
  if (!runs.length) return '';
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const rule = (n: number, left: number) => line(Array.from({ length: n }, (_, i) => (i < left ? '---' : '---:')));
  const out: string[] = measuredSets(runs).flatMap((s) => validationTable(runs, s.set, opts));
  const trained = runs.filter((c) => c.steps.length);
  if (trained.length) {
    out.push(
      'Training signal per run: mean over the first → last quarter of its RL steps of the rollout reward, the policy entropy and the share of groups dropped as all-equal (no gradient).',
      '',
      line(['method', 'seed', 'steps', 'reward', 'entropy', 'dropped share']),
      rule(6, 2),
    );
    for (const c of trained) {
      const q = Math.max(1, Math.floor(c.steps.length / 4));
      const early = c.steps.slice(0, q);
      const late = c.steps.slice(-q);
      const pair = (f: (s: StepRecord) => number, show: (x: number) => string) =>
        `${show(meanFinite(early.map(f)))} → ${show(meanFinite(late.map(f)))}`;
      out.push(
        line([
          c.method,
          String(c.seed),
          String(c.steps.length),
          pair((s) => s.reward, dec),
          pair((s) => s.entropy, dec),
          pair(droppedShare, (x) => (finite(x) ? `${pct(x)} %` : '—')),
        ]),
      );
    }
  }
  return out.join('\n').trimEnd();
}

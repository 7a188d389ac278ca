/**
 * What the Train view shows of a run, as a pure reducer over the runner's RunEvents
 * (experiment/run_events.ts): progress, one curve of StepRecords and validation points per
 * (seed, method) run, the evaluations, messages, the last checkpoint written, and the measured cost of work units (for
 * the ETA). No DOM, no worker, no clock: every function that needs the time takes `now`
 * (performance.now(), ms). The view (views/train.ts) keeps one RunViewState and replaces it with
 * what these functions return; nothing here mutates its input.
 *
 * Honesty: records are kept as the runner sent them. A value the run did not measure (the loss
 * of an RL step without an update, the episodes of an evaluation read from a checkpoint) stays
 * null / NaN here and in the derived series; it never becomes 0.
 */
import { checkpointPosition } from '../../experiment/run_checkpoint';
import type { EvalSize } from '../../experiment/evaluate';
import type { RunCurves, RunEvent, StepRecord } from '../../experiment/run_events';
import { validationSteps, type ValidationPoint } from '../../experiment/validation';
import type { ExperimentSpec } from '../../experiment/spec';
import { plannedRuns, trainingHarnesses, type PlannedRun } from '../../experiment/plan';
import { BASE_HARNESS } from '../../design';
import type { StoredHistory } from '../train_worker';
import { stepUpdate } from '../step_counts';
import type { ValidationSetName } from '../../report/results_schema';

/** Messages kept (the newest). */
const MAX_MESSAGES = 12;
/** RL steps whose mean wall time prices the steps left (ETA). */
const ETA_RECENT_STEPS = 5;

/** A validation point as the view keeps it: pass@1 per set, without the per-episode cells (validation.ts ValidationPoint). */
type ValidationMark = Pick<ValidationPoint, 'step' | 'passAt1' | 'score' | 'episodes'> & {
  sets?: Partial<Record<'base' | 'inSpace', { passAt1: number }>>;
};

/** One (seed, method) run's steps and validation points (ascending by step), labelled 'method · seed N'. */
interface Curve {
  label: string;
  steps: StepRecord[];
  validation: ValidationMark[];
}

type EvalEv = Extract<RunEvent, { type: 'eval' }>;

/** A checkpoint position (run_checkpoint.ts `checkpointPosition`). */
interface CkptPosition {
  runIndex: number;
  rlStep: number;
  finished: boolean;
}

/** Everything the view shows of one run (live or read from a checkpoint). */
export interface RunViewState {
  /** Work units done / total of the whole call and what runs now. */
  progress: { done: number; total: number; phase: string };
  /** Per run index; a hole where no event named the run yet. */
  curves: (Curve | undefined)[];
  currentRun: number;
  /** RL steps of the current run (0: not known yet). */
  runSteps: number;
  evals: EvalEv[];
  messages: { kind: 'log' | 'warn'; text: string }[];
  /** Position of the last checkpoint this session's run wrote (the pause message names it). */
  lastCkpt: CkptPosition | null;
  /** Measured wall time of evaluations, of RL steps and of validation points this session, ms (the ETA's costs). */
  evalMs: number[];
  stepMs: number[];
  validationMs: number[];
  /** When the last RL step of the current RL segment ended (null: none yet in this segment). */
  lastStepAt: number | null;
  /** When the evaluation in progress started, and which (its progress phase). */
  evalStart: { at: number; phase: string } | null;
  /** Episodes finished / total of the evaluation that is running, and when that was reported. */
  evalDone: { done: number; total: number; at: number } | null;
  /** The current run's evaluation size as the runner planned it (its 'run' event); null before one. */
  runEvalSize: EvalSize | null;
  /** When the validation point in progress started, and which (its progress phase). */
  validationStart: { at: number; phase: string } | null;
  /** Measured wall time of SFT phases that trained this session (a reused phase takes none), ms. */
  sftMs: number[];
  /** Run indices whose SFT phase is done (this session, or before the checkpoint resumed from). */
  sftDone: number[];
  /** When the SFT phase in progress started (its first 'SFT step' progress event). */
  sftStart: { at: number; runIndex: number } | null;
}

/** The label of a (seed, method) run in charts and tables. */
export const runLabel = (method: string, seed: number): string => `${method} · seed ${seed}`;

/** A state that shows nothing, with `phase` as the progress text. */
export function emptyRunState(phase = ''): RunViewState {
  return {
    progress: { done: 0, total: 0, phase },
    curves: [],
    currentRun: 0,
    runSteps: 0,
    evals: [],
    messages: [],
    lastCkpt: null,
    evalMs: [],
    stepMs: [],
    validationMs: [],
    lastStepAt: null,
    evalStart: null,
    evalDone: null,
    runEvalSize: null,
    validationStart: null,
    sftMs: [],
    sftDone: [],
    sftStart: null,
  };
}

/**
 * The state when a run is started or resumed: nothing measured yet. A resume keeps the shown
 * curves until the worker sends the checkpoint's history (the 'resume' event replaces them), so
 * the step counter never drops back to 0.
 */
export function startRunState(prev: RunViewState, resume: boolean): RunViewState {
  return {
    ...emptyRunState(resume ? 'resuming…' : 'starting…'),
    curves: resume ? prev.curves : [],
    currentRun: prev.currentRun,
    runSteps: prev.runSteps,
  };
}

function withCurve(
  curves: RunViewState['curves'],
  runIndex: number,
  method: string,
  seed: number,
): { curves: RunViewState['curves']; curve: Curve } {
  const out = [...curves];
  const curve = out[runIndex] ?? { label: runLabel(method, seed), steps: [], validation: [] };
  out[runIndex] = curve;
  return { curves: out, curve };
}

/** A validation point without its cells: the other sets keep their pass@1 only. */
const mark = (p: ValidationMark): ValidationMark => {
  const sets = Object.fromEntries(
    (['base', 'inSpace'] as const).flatMap((k) => (p.sets?.[k] ? [[k, { passAt1: p.sets[k].passAt1 }]] : [])),
  );
  return { step: p.step, passAt1: p.passAt1, score: p.score, episodes: p.episodes, ...(Object.keys(sets).length ? { sets } : {}) };
};

/** `points` with `p` added (one point per step: a re-measured step replaces the old one), ascending by step. */
function withPoint(points: readonly ValidationMark[], p: ValidationMark): ValidationMark[] {
  return [...points.filter((q) => q.step !== p.step), mark(p)].sort((a, b) => a.step - b.step);
}

/** A runner's RunCurves (resume event, checkpoint) as a view Curve. */
const curveOf = (c: RunCurves): Curve => ({
  label: runLabel(c.method, c.seed),
  steps: c.steps,
  validation: (c.validation ?? []).map(mark).sort((a, b) => a.step - b.step),
});

/**
 * Apply one RunEvent. `now` (ms, performance.now()) times RL steps and evaluations.
 * An RL step's cost is the wall time since the previous step of the same segment; the first
 * step of a segment costs its rollouts + update (record.rolloutMs + updateMs). A validation
 * point ends the segment (its progress phase is not 'RL …'), so a step's cost never includes
 * one; a validation point costs what the runner measured (point.ms).
 */
export function reduceRunEvent(s: RunViewState, ev: RunEvent, now: number): RunViewState {
  switch (ev.type) {
    case 'progress': {
      const isEval = ev.phase.startsWith('eval ');
      const sameEval = isEval && s.evalStart?.phase === ev.phase;
      const isVal = ev.phase.startsWith('validation ');
      const isSft = ev.phase.startsWith('SFT step ');
      return {
        ...s,
        sftStart: isSft ? (s.sftStart ?? { at: now, runIndex: s.currentRun }) : s.sftStart,
        progress: { done: ev.done, total: ev.total, phase: ev.phase },
        evalStart: isEval ? (sameEval ? s.evalStart : { at: now, phase: ev.phase }) : null,
        validationStart: isVal ? (s.validationStart?.phase === ev.phase ? s.validationStart : { at: now, phase: ev.phase }) : null,
        evalDone: isEval && !sameEval ? null : s.evalDone,
        lastStepAt: ev.phase.startsWith('RL ') ? s.lastStepAt : null,
      };
    }
    case 'run':
      return {
        ...s,
        currentRun: ev.runIndex,
        runSteps: ev.steps,
        runEvalSize: ev.evalSize,
        curves: withCurve(s.curves, ev.runIndex, ev.method, ev.seed).curves,
      };
    case 'resume':
      return {
        ...s,
        curves: ev.curves.map(curveOf),
        currentRun: ev.runIndex,
        sftDone: Array.from({ length: ev.runIndex + (ev.sftDone ? 1 : 0) }, (_, i) => i),
      };
    case 'sftPhase':
      return { ...s, sftDone: [...s.sftDone, ev.runIndex], sftMs: ev.reused ? s.sftMs : [...s.sftMs, ev.seconds * 1000], sftStart: null };
    case 'step': {
      const { curves, curve } = withCurve(s.curves, ev.runIndex, ev.method, ev.seed);
      curves[ev.runIndex] = { ...curve, steps: [...curve.steps, ev.record] };
      const cost = s.lastStepAt !== null ? now - s.lastStepAt : ev.record.rolloutMs + ev.record.updateMs;
      return { ...s, curves, currentRun: ev.runIndex, stepMs: [...s.stepMs, cost], lastStepAt: now };
    }
    case 'validation': {
      const { curves, curve } = withCurve(s.curves, ev.runIndex, ev.method, ev.seed);
      curves[ev.runIndex] = { ...curve, validation: withPoint(curve.validation, ev.point) };
      return { ...s, curves, validationMs: [...s.validationMs, ev.point.ms], validationStart: null };
    }
    case 'evalProgress':
      return { ...s, evalDone: { done: ev.done, total: ev.total, at: now } };
    case 'eval':
      return {
        ...s,
        evalDone: null,
        evals: [...s.evals, ev],
        evalMs: !ev.restored && s.evalStart ? [...s.evalMs, now - s.evalStart.at] : s.evalMs,
        evalStart: null,
      };
    case 'checkpoint':
      return { ...s, lastCkpt: checkpointPosition(ev.step) };
    case 'log':
    case 'warn':
      return { ...s, messages: [...s.messages, { kind: ev.type, text: ev.message }].slice(-MAX_MESSAGES) };
    default:
      return s;
  }
}

/** A checkpoint position in words: 'after run 1', 'run 1, before evaluation', 'run 2, step 3'. */
export function positionText(p: CkptPosition): string {
  return p.finished
    ? `after run ${p.runIndex}`
    : p.rlStep < 0
      ? `run ${p.runIndex + 1}, before evaluation`
      : `run ${p.runIndex + 1}, step ${p.rlStep}`;
}

/**
 * A checkpoint's stored history as the state of the run: its curves (RL steps and validation
 * points), evaluations (marked
 * `restored`; their episode counts were not stored: NaN) and progress. Nothing is timed.
 */
export function storedRunState(spec: ExperimentSpec, h: StoredHistory): RunViewState {
  const plan = spec.seeds.flatMap((seed) => spec.methods.map((m) => ({ seed, method: m.name })));
  const curves: Curve[] = h.curves.map(curveOf);
  if (h.runIndex < plan.length)
    curves[h.runIndex] = curveOf({
      method: plan[h.runIndex].method,
      seed: plan[h.runIndex].seed,
      steps: h.current.history,
      validation: h.current.validation ?? [],
    });
  const evals: EvalEv[] = [];
  h.results.forEach((r, i) => {
    const base = { type: 'eval', runIndex: i, method: r.method, seed: r.seed, episodes: NaN, restored: true } as const;
    evals.push({ ...base, when: 'before', passAt1: r.before, training: r.trainHarnesses.before });
    evals.push({ ...base, when: 'after', passAt1: r.after, training: r.trainHarnesses.after });
  });
  if (h.current.before && h.runIndex < plan.length)
    evals.push({
      type: 'eval',
      runIndex: h.runIndex,
      method: plan[h.runIndex].method,
      seed: plan[h.runIndex].seed,
      when: 'before',
      ...h.current.before,
      restored: true,
    });
  const runs = plannedRunsOf(spec);
  const cur = h.runIndex < runs.length ? (h.current.before ? 1 : 0) + (h.current.sft ? 1 : 0) + h.current.history.length : 0;
  const done = runs.slice(0, h.results.length).reduce((a, r) => a + r.units, 0) + cur;
  const phase = `stored in this browser (checkpoint: ${positionText(h)})`;
  return {
    ...emptyRunState(phase),
    progress: { done, total: runs.reduce((a, r) => a + r.units, 0), phase },
    curves,
    currentRun: Math.min(h.runIndex, plan.length - 1),
    sftDone: Array.from({ length: h.runIndex + (h.current.sft ? 1 : 0) }, (_, i) => i),
    runSteps: runs[Math.min(h.runIndex, runs.length - 1)]?.rlSteps ?? spec.rl.steps,
    evals,
  };
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

const planned = new WeakMap<ExperimentSpec, PlannedRun[]>();
/** The spec's runs as the runner plans them (plan.ts plannedRuns at spec.rl.steps), computed once per spec. */
function plannedRunsOf(spec: ExperimentSpec): PlannedRun[] {
  let p = planned.get(spec);
  if (!p) planned.set(spec, (p = plannedRuns(spec, spec.rl.steps)));
  return p;
}

/**
 * Whether run r's SFT phase will reuse the previous one's parameters instead of training: the
 * runner keeps the last phase run (sft_phase.ts SftReuse) and reuses it for an identical phase,
 * which for runs of one spec means the same seed, model preset, black-box harness and SFT
 * settings (the starting checkpoint, train pool and rollout settings follow from those).
 */
function sftReused(spec: ExperimentSpec, runs: readonly PlannedRun[], r: number): boolean {
  const key = (p: PlannedRun) => JSON.stringify([p.seed, p.method.modelPreset ?? spec.model.preset, p.method.blackbox, p.method.sft]);
  for (let q = r - 1; q >= 0; q--) if (runs[q].method.sft) return key(runs[q]) === key(runs[r]);
  return false;
}

/**
 * Validation points still to measure in the whole call: per (seed, method) run, one at step 0,
 * every `evaluation.validation.every` RL steps and at the last step (validation.ts
 * validationSteps), less the points each run's curve already has. An upper bound when the
 * runner turns a run's validation off because every cell of it is infeasible (validation.ts
 * validationPlan): the spec alone does not say so.
 */
function validationsLeft(s: RunViewState, spec: ExperimentSpec): number {
  const v = spec.evaluation.validation;
  if (!v || v.tasks === 0) return 0;
  const perRun = validationSteps(spec.rl.steps, v.every).length;
  const runs = spec.seeds.length * spec.methods.length;
  let done = 0;
  for (let r = 0; r < runs; r++) done += Math.min(perRun, s.curves[r]?.validation.length ?? 0);
  return runs * perRun - done;
}

/**
 * The evaluation in progress at the pace it has shown: its wall time per finished episode so far
 * (at its last progress report), and what is left of it at that pace, counted down from that
 * report. Null before its first report (nothing of it is measured yet).
 */
function evalInProgress(s: RunViewState, now: number): { msPerEpisode: number; leftMs: number } | null {
  const d = s.evalDone;
  if (!s.evalStart || !d || d.done <= 0) return null;
  const msPerEpisode = (d.at - s.evalStart.at) / d.done;
  return { msPerEpisode, leftMs: Math.max(0, (d.total - d.done) * msPerEpisode - (now - d.at)) };
}

/**
 * Seconds left, weighing each kind of work unit by its measured cost: the mean of the last
 * RL steps for the steps left, the mean measured evaluation for the evaluations left (before
 * one was measured: a cost per episode × `evalEpisodes`, the episodes of the current run's
 * evaluation), the mean measured validation point for the validation points left
 * (validationsLeft; before one was measured this session: a cost per episode × the episodes of
 * the last known point, else `tasks` × suites × `samples` of spec.evaluation.validation), and the
 * mean measured SFT phase for the SFT phases left that will train (one that will reuse the
 * previous phase's parameters costs nothing: sftReused); RL steps counted per run as the runner
 * plans them (an 'sft' method takes none). The cost per episode is a recent RL step's, or before
 * any step, the pace of the evaluation in progress (so the first evaluation already gives an
 * ETA). The evaluation in progress counts what is left of it at its own pace once it reported
 * progress (so the ETA counts down through it and does not sit at 0 when it runs longer than the
 * last one), else its expected cost less the time it has run; the validation point or SFT phase
 * in progress counts its expected cost less the time it has run.
 * @returns null while a needed cost is unknown (never a guess shown as a number)
 */
export function etaSeconds(s: RunViewState, spec: ExperimentSpec | undefined, evalEpisodes: number | null, now: number): number | null {
  const p = s.progress;
  if (!spec || !p.total) return null;
  const runs = plannedRunsOf(spec);
  const stepsDone = s.curves.reduce((a, c) => a + (c?.steps.length ?? 0), 0);
  const stepsLeft = Math.max(0, runs.reduce((a, r) => a + r.rlSteps, 0) - stepsDone);
  const sftLeft = runs.flatMap((r, i) => (r.method.sft && !s.sftDone.includes(i) ? [i] : []));
  const sftTrainLeft = sftLeft.filter((i) => !sftReused(spec, runs, i)).length;
  // Validation points are not progress units: total − done counts RL steps, evaluations and SFT phases.
  const evalsLeft = Math.max(0, p.total - p.done - stepsLeft - sftLeft.length);
  const valsLeft = validationsLeft(s, spec);
  const stepEpisodes = spec.rl.tasksPerStep * spec.rl.groupSize;
  const current = evalInProgress(s, now);
  const recent = s.stepMs.slice(-ETA_RECENT_STEPS);
  const episodeMs = recent.length ? mean(recent) / stepEpisodes : (current?.msPerEpisode ?? null);
  const stepCost = recent.length ? mean(recent) : episodeMs !== null ? episodeMs * stepEpisodes : null;
  const perEpisode = (episodes: number | null) => (episodeMs !== null && episodes ? episodeMs * episodes : null);
  const evalCost = s.evalMs.length ? mean(s.evalMs) : perEpisode(evalEpisodes);
  const recentVals = s.validationMs.slice(-ETA_RECENT_STEPS);
  const valCost = recentVals.length ? mean(recentVals) : perEpisode(valsLeft > 0 ? validationEpisodes(s, spec) : null);
  const sftCost = s.sftMs.length ? mean(s.sftMs) : null;
  // The evaluation in progress is one of the evaluations left.
  const otherEvals = Math.max(0, evalsLeft - (s.evalStart && evalsLeft > 0 ? 1 : 0));
  let currentMs = 0;
  if (s.evalStart && evalsLeft > 0) {
    if (current) currentMs = current.leftMs;
    else if (evalCost !== null) currentMs = Math.max(0, evalCost - (now - s.evalStart.at));
    else return null;
  }
  if (
    (stepsLeft > 0 && stepCost === null) ||
    (otherEvals > 0 && evalCost === null) ||
    (valsLeft > 0 && valCost === null) ||
    (sftTrainLeft > 0 && sftCost === null)
  )
    return null;
  let ms =
    stepsLeft * (stepCost ?? 0) + otherEvals * (evalCost ?? 0) + currentMs + valsLeft * (valCost ?? 0) + sftTrainLeft * (sftCost ?? 0);
  if (s.validationStart && valCost !== null) ms -= Math.min(valCost, now - s.validationStart.at);
  if (s.sftStart && sftCost !== null) ms -= Math.min(sftCost, now - s.sftStart.at);
  return Math.max(0, ms / 1000);
}

/** Episodes of a validation point: the last one shown (any run), else what the spec asks for (before infeasible cells are left out). */
function validationEpisodes(s: RunViewState, spec: ExperimentSpec): number | null {
  const known = s.curves.flatMap((c) => c?.validation ?? []);
  if (known.length) return known[known.length - 1].episodes;
  const v = spec.evaluation.validation;
  return v ? v.tasks * spec.suites.length * v.samples : null;
}

/** Optimizer steps a step's update applied (step_counts.ts); an unrecorded count reads 0 here: a live run always records it. */
const appliedUpdates = (r: StepRecord): number => stepUpdate(r).applied ?? 0;

/** What the updates of one run's steps did, for the "no learning signal" banner. */
interface UpdatesSummary {
  /** RL steps that applied no optimizer step. */
  noUpdate: StepRecord[];
  /** Groups dropped for equal rewards, over all steps, and groups rolled out (tasksPerStep × steps; 0 without a spec). */
  dropped: number;
  groups: number;
  /** Optimizer steps skipped (non-finite loss or gradient), over all steps. */
  skipped: number;
  /** No step applied an update because every group of every step was dropped. */
  allDropped: boolean;
}

/** The updates of a run's steps (see UpdatesSummary). */
export function updatesSummary(steps: readonly StepRecord[], spec: ExperimentSpec | undefined): UpdatesSummary {
  const noUpdate = steps.filter((r) => appliedUpdates(r) === 0);
  return {
    noUpdate,
    dropped: steps.reduce((a, r) => a + (r.droppedGroups ?? 0), 0),
    groups: (spec?.rl.tasksPerStep ?? 0) * steps.length,
    skipped: steps.reduce((a, r) => a + (stepUpdate(r).skipped ?? 0), 0),
    allDropped:
      steps.length > 0 &&
      noUpdate.length === steps.length &&
      spec !== undefined &&
      steps.every((r) => r.droppedGroups >= spec.rl.tasksPerStep),
  };
}

/**
 * One StepRecord metric per run, aligned on the union of the runs' steps (`x`). A run without
 * that step has null there. `ofUpdate`: the metric exists only when the step applied an update
 * (loss, KL, clip fraction, gradient norm), so such steps read null, never 0, and `noData`
 * lists the steps where no run that has them applied one (the chart shades them).
 */
export function metricSeries(
  curves: RunViewState['curves'],
  runs: number,
  pick: (r: StepRecord) => number | null | undefined,
  ofUpdate: boolean,
): { x: number[]; noData?: number[]; values: (number | null)[][] } {
  const x = [...new Set(curves.flatMap((c) => c?.steps.map((s) => s.step) ?? []))].sort((a, b) => a - b);
  const value = (r: StepRecord) => (ofUpdate && appliedUpdates(r) === 0 ? null : (pick(r) ?? null));
  const noData = ofUpdate
    ? x.filter((xi) => curves.every((c) => !c || c.steps.every((r) => r.step !== xi || appliedUpdates(r) === 0)))
    : undefined;
  const values = Array.from({ length: runs }, (_, i) => {
    const by = new Map((curves[i]?.steps ?? []).map((s) => [s.step, value(s)]));
    return x.map((xi) => by.get(xi) ?? null);
  });
  return { x, ...(noData ? { noData } : {}), values };
}

/**
 * Validation pass@1 per run under one set, aligned on the union of the runs' validation steps
 * (`x`, RL steps done when measured; 0 = before RL): a fraction in [0, 1], null where a run has
 * no point or its point did not measure that set.
 * @param set 'training' (each method's own training harnesses, the default), 'base' or 'inSpace'
 *   (the same harnesses for every method: comparable across methods)
 */
export function validationSeries(
  curves: RunViewState['curves'],
  runs: number,
  set: ValidationSetName = 'training',
): { x: number[]; values: (number | null)[][] } {
  const at = (p: ValidationMark) => (set === 'training' ? p.passAt1 : p.sets?.[set]?.passAt1);
  const x = [...new Set(curves.flatMap((c) => c?.validation.filter((p) => at(p) !== undefined).map((p) => p.step) ?? []))].sort(
    (a, b) => a - b,
  );
  const values = Array.from({ length: runs }, (_, i) => {
    const by = new Map((curves[i]?.validation ?? []).map((p) => [p.step, at(p)]));
    return x.map((xi) => by.get(xi) ?? null);
  });
  return { x, values };
}

/** Group of a harness for the pass@1 chart: Hamming distance to the base harness, or the black-box id. */
function harnessGroup(id: string): string {
  const m = /^S(\d)-T(\d)-O(\d)-C(\d)-W(\d)$/.exec(id);
  if (!m) return id;
  const d = m.slice(1).filter((l) => l !== '0').length;
  return d === 0 ? 'base (d=0)' : `d=${d}`;
}

/**
 * Rollout pass@1 of one run's steps per harness group (harnessGroup), per step: the mean over
 * the group's harnesses used at that step, null where none was. The groups are those the spec's
 * training harnesses fall in (every method and seed, so a chart's series never change during a
 * run; a single-harness method is one group), then any other seen, in distance order: no
 * legend entry for a group no rollout can reach.
 */
export function passByGroupSeries(
  steps: readonly StepRecord[],
  spec: ExperimentSpec | undefined,
): { x: number[]; groups: string[]; values: (number | null)[][] } {
  const planned = spec ? spec.methods.flatMap((m) => spec.seeds.flatMap((seed) => trainingHarnesses(spec, m, seed))) : [];
  const seen = steps.flatMap((s) => Object.keys(s.passByHarness ?? {}));
  const present = new Set([...planned, ...seen].map(harnessGroup));
  const order = ['base (d=0)', 'd=1', 'd=2', 'd=3', 'd=4', 'd=5'];
  const groups = [...order.filter((g) => present.has(g)), ...[...present].filter((g) => !order.includes(g)).sort()];
  const values = groups.map((g) =>
    steps.map((s) => {
      const vals = Object.entries(s.passByHarness ?? {})
        .filter(([h]) => harnessGroup(h) === g)
        .map(([, p]) => p);
      return vals.length ? mean(vals) : null;
    }),
  );
  return { x: steps.map((s) => s.step), groups, values };
}

/** Runs whose validation points are measured under one set of harnesses, and that set in words. */
interface ValidationGroup {
  /** Where the points are measured, e.g. 'the base harness (S0-T0-O0-C0-W0)'. */
  on: string;
  /** Run indices (the runner's order: seeds × methods). */
  runs: number[];
}

/**
 * The spec's runs grouped by the harnesses their validation points are measured under: each
 * validation task runs under its anchor training harness (plan.ts validationCells), so a
 * single-harness method is validated on the base harness and harness scaling on its own
 * training set. Curves of different groups are on different harnesses and are not drawn on one
 * chart as if comparable. Seeds of one method share a group (each seed has its own tasks anyway).
 */
export function validationGroups(spec: ExperimentSpec): ValidationGroup[] {
  const groups = new Map<string, ValidationGroup>();
  spec.seeds.forEach((seed, si) =>
    spec.methods.forEach((m, mi) => {
      let key: string;
      let on: string;
      if (m.harnesses === 'single' || m.harnesses === 'none') {
        key = 'base';
        on = `the base harness (${BASE_HARNESS})`;
      } else if (m.harnesses === 'blackbox') {
        key = `bb:${m.blackbox}`;
        on = `the black-box harness ${m.blackbox}`;
      } else {
        let n: number | null = null;
        try {
          n = trainingHarnesses(spec, m, seed).length;
        } catch {
          /* a design the spec check reports elsewhere */
        }
        key = `${m.harnesses}:${m.K}`;
        const set =
          m.harnesses === 'random-k'
            ? `${n ?? 'k'} random training harnesses (drawn per seed)`
            : `${n ?? 'its'} training harnesses of the design`;
        on = `its ${set}, each task under its anchor (K = ${m.K}, ${m.harnesses === 'random-assignment' ? 'random' : 'locality-aware'} assignment)`;
      }
      const g = groups.get(key) ?? { on, runs: [] };
      g.runs.push(si * spec.methods.length + mi);
      groups.set(key, g);
    }),
  );
  return [...groups.values()];
}

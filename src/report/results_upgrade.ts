/**
 * Older results files mapped onto the current shape (results_schema.ts ResultsFileSchema), the one
 * place that knows them, so the schema describes only what `hlab run` writes today:
 *   - the app's older form (saves and JSON exports): the results nested under `results`;
 *   - files without `status`, `warnings` or `curves` (read as done, none, none);
 *   - the old step names `steps` (= optimizerSteps) and `skippedSteps` (= skippedOptimizerSteps),
 *     with the RL step counts taken from the run's curve when the file has one, else null
 *     (NaN: not recorded);
 *   - trajectory turns without `contextOffset` (the whole context was kept: 0).
 * Anything it does not recognise passes unchanged, for the schema to name.
 */

type Json = Record<string, unknown>;
type StepCounts = { optimizerSteps?: unknown; skippedSteps?: unknown };

const isObject = (x: unknown): x is Json => !!x && typeof x === 'object' && !Array.isArray(x);

/** A run with the old step names renamed; its RL step counts from `curve` (its per-step records) when given. New runs pass unchanged. */
function upgradeOldStepNames(raw: unknown, curve?: { steps: ReadonlyArray<StepCounts> }): unknown {
  if (!isObject(raw) || !('steps' in raw) || 'optimizerSteps' in raw) return raw;
  const { steps, skippedSteps, ...rest } = raw;
  const applied = (h: StepCounts) => Number(h.optimizerSteps ?? 0) - Number(h.skippedSteps ?? 0);
  return {
    ...rest,
    rlSteps: curve ? curve.steps.length : null,
    optimizerSteps: steps,
    skippedOptimizerSteps: skippedSteps,
    rlStepsWithoutUpdate: curve ? curve.steps.filter((h) => applied(h) === 0).length : null,
  };
}

/**
 * `runs` (a results file's or a run checkpoint's, as stored) with old step names mapped, each
 * run's RL step counts taken from its curve in `curves` (matched by method and seed) when present.
 * Anything that is not a list passes unchanged.
 */
export function upgradeRuns(runs: unknown, curves: unknown): unknown {
  if (!Array.isArray(runs)) return runs;
  const cs = Array.isArray(curves) ? (curves as Array<{ method?: unknown; seed?: unknown; steps?: unknown }>) : [];
  return runs.map((r) => {
    const o = r as { method?: unknown; seed?: unknown } | null;
    const c = cs.find((x) => x && x.method === o?.method && x.seed === o?.seed && Array.isArray(x.steps));
    return upgradeOldStepNames(r, c as { steps: StepCounts[] } | undefined);
  });
}

/** Trajectory samples with `contextOffset` 0 on turns that lack it. */
function upgradeTrajectories(trajectories: unknown): unknown {
  if (!Array.isArray(trajectories)) return trajectories;
  return trajectories.map((t) => {
    if (!isObject(t) || !Array.isArray(t.turns) || t.turns.every((u) => !isObject(u) || 'contextOffset' in u)) return t;
    return { ...t, turns: t.turns.map((u) => (isObject(u) && !('contextOffset' in u) ? { ...u, contextOffset: 0 } : u)) };
  });
}

/**
 * A parsed results file of any accepted age or form, in the current shape (module doc). A file
 * already current comes back equal (a new top-level object; unchanged parts shared).
 * @param json a JSON object (anything else is returned as is)
 */
export function upgradeResultsFile(json: unknown): unknown {
  if (!isObject(json)) return json;
  const { results, ...rest } = json;
  const flat: Json = isObject(results) ? { ...rest, ...results } : { ...json };
  if (flat.status === undefined) flat.status = 'done';
  if (flat.warnings === undefined) flat.warnings = [];
  if (flat.curves === undefined) flat.curves = [];
  if ('runs' in flat) flat.runs = upgradeRuns(flat.runs, flat.curves);
  if ('trajectories' in flat) flat.trajectories = upgradeTrajectories(flat.trajectories);
  return flat;
}

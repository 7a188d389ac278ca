/**
 * The Results view's tables as data (no DOM): the paper table (src/report/results_table.ts's
 * model), behaviour metrics and per-harness pass@1 as mean ± std over seeds, and each evaluated
 * harness's role on the page.
 */
import { byMethod, formatPct, meanStd, resultsTable, type ResultsTable } from '../../report/results_table';
import type { RunResult as RunResultJson } from '../../report/results_schema';
import { BASE_HARNESS } from '../../design';
import type { ExperimentSpec } from '../../experiment/spec';
import { inSpaceDistance, trainingHarnesses } from '../../experiment/plan';

/** One table cell: display text and the numbers behind it (data-* attributes for tests and readers). */
export interface StatCell {
  text: string;
  mean: number | null;
  std: number | null;
  n: number;
}

const finite = (xs: readonly (number | null | undefined)[]): number[] =>
  xs.filter((x): x is number => typeof x === 'number' && Number.isFinite(x));

/** mean ± std over the finite values, in % (formatPct) or plain with `digits` decimals; "—" when none. */
function statCell(xs: readonly (number | null | undefined)[], pct: boolean, digits = 2): StatCell {
  const v = finite(xs);
  if (v.length === 0) return { text: '—', mean: null, std: null, n: 0 };
  const { mean, std, n } = meanStd(v);
  const text = pct ? formatPct(v) : n > 1 ? `${mean.toFixed(digits)} ± ${std.toFixed(digits)}` : mean.toFixed(digits);
  return { text, mean, std, n };
}

/** The table model of src/report/results_table.ts, which results.md renders too. */
export type PaperTable = ResultsTable;

/**
 * The paper table: `resultsTable` of src/report/results_table.ts (the model results.md renders),
 * here over runs read back from JSON (null for NaN). A starting-checkpoint row and one row per
 * method, with intervals and paired differences where the runs carry per-episode outcomes.
 */
export function paperTable(runs: readonly RunResultJson[]): PaperTable {
  return resultsTable({ spec: '', evalSet: '', runs });
}

export const BEHAVIOUR = [
  { key: 'parseErrors', label: 'parse errors / episode', pct: false },
  { key: 'workflowViolations', label: 'workflow violations / episode', pct: false },
  { key: 'recoveryRate', label: 'recovery rate (%)', pct: true },
  { key: 'stateTrackingErrors', label: 'state-tracking errors / episode', pct: false },
] as const;

/** Behaviour metrics per method: before and after, mean ± std over seeds. */
export function behaviourTable(runs: readonly RunResultJson[]): { method: string; cells: { before: StatCell; after: StatCell }[] }[] {
  return [...byMethod(runs)].map(([method, rs]) => ({
    method,
    cells: BEHAVIOUR.map((b) => ({
      before: statCell(
        rs.map((r) => r.behaviour.before[b.key]),
        b.pct,
      ),
      after: statCell(
        rs.map((r) => r.behaviour.after[b.key]),
        b.pct,
      ),
    })),
  }));
}

/** Per-harness pass@1 after training: harness ids (sorted) × methods. */
export function perHarnessTable(runs: readonly RunResultJson[]): { methods: string[]; rows: { harness: string; cells: StatCell[] }[] } {
  const groups = [...byMethod(runs)];
  const ids = [...new Set(runs.flatMap((r) => Object.keys(r.perHarness)))].sort();
  return {
    methods: groups.map(([m]) => m),
    rows: ids.map((h) => ({
      harness: h,
      cells: groups.map(([, rs]) =>
        statCell(
          rs.map((r) => r.perHarness[h] ?? null),
          true,
        ),
      ),
    })),
  };
}

/**
 * Each evaluated harness's role in a run: 'base', 'black-box', 'training' (in some method's
 * training set) or 'held-out' with the in-space distance of the page (plan.ts inSpaceDistance,
 * the one the scaling panel splits by). Needs the spec (a committed preset's, a run saved by
 * Train); without one, in-space harnesses are 'in-space'.
 */
export function harnessRoles(ids: readonly string[], spec: ExperimentSpec | null): Map<string, string> {
  const training = spec ? new Set(spec.methods.flatMap((m) => spec.seeds.flatMap((seed) => trainingHarnesses(spec, m, seed)))) : null;
  const distance = spec ? inSpaceDistance(spec) : null;
  const roles = new Map<string, string>();
  for (const id of ids) {
    if (id.startsWith('bb-')) roles.set(id, 'black-box');
    else if (training?.has(id)) roles.set(id, id === BASE_HARNESS ? 'base · training' : 'training');
    else if (id === BASE_HARNESS) roles.set(id, 'base');
    else if (distance) roles.set(id, `held-out · d=${distance.of(id)} to the ${distance.to}`);
    else roles.set(id, 'in-space');
  }
  return roles;
}

/**
 * The (task, harness) cells a run left out because the scripted expert cannot solve them within
 * the spec's budgets (src/experiment/feasibility.ts `excludedCells`; `hlab run` lists them in
 * results.json `infeasibleCells`). They explain an evaluation's episode count (143 rather than
 * 24 tasks × 6 harnesses = 144). The app reads them through this module only.
 */
import { ResultsFileError } from './results_store';

/** One left-out cell, as results.json writes it. */
export interface InfeasibleCell {
  taskId: string;
  harnessId: string;
  /** 'opening' | 'expert' | 'turns' | 'action' (feasibility.ts InfeasibleReason). */
  reason: string;
  /** One line: what does not fit, with the numbers. */
  detail: string;
}

/**
 * The `infeasibleCells` of a parsed results file or output.
 * @returns null when the object does not carry the field (a producer that does not check feasibility)
 * @throws ResultsFileError naming the first bad entry (`infeasibleCells[2].taskId: expected a string, got 3`)
 */
export function infeasibleCellsOf(json: unknown, source = 'results.json'): InfeasibleCell[] | null {
  if (json === null || typeof json !== 'object' || !('infeasibleCells' in json)) return null;
  const list = (json as { infeasibleCells: unknown }).infeasibleCells;
  if (!Array.isArray(list)) throw new ResultsFileError(source, [`infeasibleCells: expected a list, got ${JSON.stringify(list)?.slice(0, 40)}`]);
  return list.map((c, i) => {
    for (const k of ['taskId', 'harnessId', 'reason', 'detail'] as const) {
      const v = c && typeof c === 'object' ? (c as Record<string, unknown>)[k] : undefined;
      if (typeof v !== 'string') throw new ResultsFileError(source, [`infeasibleCells[${i}].${k}: expected a string, got ${JSON.stringify(v)?.slice(0, 40) ?? 'nothing'}`]);
    }
    const { taskId, harnessId, reason, detail } = c as InfeasibleCell;
    return { taskId, harnessId, reason, detail };
  });
}

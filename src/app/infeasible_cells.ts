/**
 * The (task, harness) cells a run left out because the scripted expert cannot solve them within
 * the spec's budgets (src/experiment/feasibility.ts `excludedCells`; `hlab run` lists them in
 * results.json `infeasibleCells`). They explain an evaluation's episode count (143 rather than
 * 24 tasks × 6 harnesses = 144). results_store.ts holds their schema and keeps them when it parses
 * a file; the views read them through this module.
 */
import { z } from 'zod';
import { InfeasibleCellSchema } from '../report/results_schema';
import { ResultsFileError } from './results_store';

/** One left-out cell, as results.json writes it: reason 'opening' | 'expert' | 'turns' | 'action' (feasibility.ts InfeasibleReason), detail one line with the numbers. */
export type InfeasibleCell = z.infer<typeof InfeasibleCellSchema>;

/**
 * The `infeasibleCells` of a parsed results file or output (the results store's schema).
 * @returns null when the object does not carry the field (a producer that does not check feasibility)
 * @throws ResultsFileError naming the first bad entries (`infeasibleCells[2].taskId: …`)
 */
export function infeasibleCellsOf(json: unknown, source = 'results.json'): InfeasibleCell[] | null {
  if (json === null || typeof json !== 'object' || !('infeasibleCells' in json)) return null;
  const r = z.array(InfeasibleCellSchema).safeParse((json as { infeasibleCells: unknown }).infeasibleCells);
  if (r.success) return r.data;
  const at = (path: PropertyKey[]) => path.map((k) => (typeof k === 'number' ? `[${k}]` : `.${String(k)}`)).join('');
  throw new ResultsFileError(
    source,
    r.error.issues.slice(0, 5).map((i) => `infeasibleCells${at(i.path)}: ${i.message}`),
  );
}

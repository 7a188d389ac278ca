/**
 * Per-family evaluation tables: episodes of one
 * harness set grouped by the task's `suite/family` (the first two parts of a task id
 * 'suite/family/tN/seed'), with pass@1, mean verifier score and episode count — what
 * `hlab evaluate --json` reports as `perFamily` and the app's Results view shows. Pure.
 */

/** pass@1 and mean score in [0, 1] over a family's episodes. */
interface FamilyRow {
  passAt1: number;
  score: number;
  episodes: number;
}

/** `suite/family` key → row, keys sorted. */
export type FamilyTable = Record<string, FamilyRow>;

/**
 * The `suite/family` of a task id 'suite/family/tN/seed'.
 * @throws Error naming the id when it has fewer than two parts.
 */
function familyKey(taskId: string): string {
  const parts = taskId.split('/');
  if (parts.length < 2 || !parts[0] || !parts[1]) throw new Error(`task id '${taskId}' is not of the form suite/family/tN/seed`);
  return `${parts[0]}/${parts[1]}`;
}

/**
 * Episodes grouped by family (module doc).
 * @param episodes each with its task id, verifier pass and score in [0, 1]
 * @throws Error naming a malformed task id.
 */
export function familyTable(episodes: ReadonlyArray<{ taskId: string; pass: boolean; score: number }>): FamilyTable {
  const acc = new Map<string, { pass: number; score: number; n: number }>();
  for (const e of episodes) {
    const k = familyKey(e.taskId);
    const a = acc.get(k) ?? { pass: 0, score: 0, n: 0 };
    a.pass += e.pass ? 1 : 0;
    a.score += e.score;
    a.n++;
    acc.set(k, a);
  }
  const out: FamilyTable = {};
  for (const k of [...acc.keys()].sort()) {
    const a = acc.get(k)!;
    out[k] = { passAt1: a.pass / a.n, score: a.score / a.n, episodes: a.n };
  }
  return out;
}

/**
 * Mean policy entropy per sampled token, in nats: Σ over every turn's per-token entropies /
 * their count (each token weighs the same, whatever its episode's length).
 * @returns null when no turn carries entropies (a policy that does not report them)
 */
export function meanTokenEntropy(episodes: ReadonlyArray<{ turns: ReadonlyArray<{ entropies?: ArrayLike<number> }> }>): number | null {
  let sum = 0;
  let n = 0;
  for (const e of episodes) {
    for (const t of e.turns) {
      if (!t.entropies) continue;
      for (let i = 0; i < t.entropies.length; i++) sum += t.entropies[i];
      n += t.entropies.length;
    }
  }
  return n ? sum / n : null;
}

/** Several sets' family tables as one matrix: a row per family, a column per set (null: no episode of that family there). */
interface FamilyMatrix {
  /** Set names, in the given order. */
  columns: string[];
  rows: Array<{ family: string; cells: Array<FamilyRow | null> }>;
}

/** The family tables of `tables` (set name → table) as one matrix, families sorted (what the CLI and the app render). */
export function familyMatrix(tables: Readonly<Record<string, FamilyTable>>): FamilyMatrix {
  const columns = Object.keys(tables);
  const families = [...new Set(columns.flatMap((c) => Object.keys(tables[c])))].sort();
  return { columns, rows: families.map((family) => ({ family, cells: columns.map((c) => tables[c][family] ?? null) })) };
}

/** A matrix cell as text: "0.42 (24)" = pass@1 over the episodes (count), or "—". */
export function familyCellText(c: FamilyRow | null): string {
  return c ? `${c.passAt1.toFixed(2)} (${c.episodes})` : '—';
}

/** What `familyTablesOfRuns` needs of a run (results.ts RunResult, or its JSON form). */
interface RunWithEpisodes {
  method: string;
  episodes?: { after: Readonly<Record<string, ReadonlyArray<{ taskId: string; pass: boolean; score: number }>>> } | undefined;
}

/**
 * Per method (first-appearance order), the family table of each results column ('base',
 * 'inSpace', 'train', each black-box id) after training, episodes pooled over the method's
 * seeds — the per-family view of an experiment's results file. Runs without per-episode
 * outcomes are left out; a method with none of them gets no entry.
 */
export function familyTablesOfRuns(runs: readonly RunWithEpisodes[]): Array<{ method: string; tables: Record<string, FamilyTable> }> {
  const byMethod = new Map<string, Map<string, Array<{ taskId: string; pass: boolean; score: number }>>>();
  for (const r of runs) {
    if (!r.episodes) continue;
    const cols = byMethod.get(r.method) ?? new Map();
    for (const [col, cells] of Object.entries(r.episodes.after)) cols.set(col, [...(cols.get(col) ?? []), ...cells]);
    byMethod.set(r.method, cols);
  }
  return [...byMethod].map(([method, cols]) => ({
    method,
    tables: Object.fromEntries([...cols].filter(([, c]) => c.length > 0).map(([col, c]) => [col, familyTable(c)])),
  }));
}

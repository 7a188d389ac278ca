/**
 * Merge the results files of one experiment run in seed chunks (`hlab run --seeds …` into several
 * folders) into the results file of the whole. Sound because every random choice of a run derives
 * from its (seed, step) and runs are ordered seeds outer, methods inner: a run is the same whether
 * its seed ran alone or beside others (tests/unit/merge_results.test.ts runs both ways).
 * Invariant: chunks must be finished runs of specs equal in every field but `seeds`, with disjoint
 * seeds; the merged spec's seeds are the chunks' in ascending order.
 */
import type { ResultsFile, RunCurvesJson } from './results_schema';
import { sortedJson } from '../util/encoding';

/** One chunk: the spec it ran (spec.json) and its results file; `where` names it in errors. */
export interface ResultsChunk<C extends RunCurvesJson = RunCurvesJson> {
  where: string;
  specJson: unknown;
  file: ResultsFile<C>;
}

/** A chunk that cannot be merged, naming the chunk and the field. */
export class MergeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MergeError';
  }
}

/** The first top-level field where two specs differ (seeds and backend aside), or null. */
function firstDifference(a: Record<string, unknown>, b: Record<string, unknown>): string | null {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => k !== 'seeds' && k !== 'backend').sort();
  return keys.find((k) => sortedJson(a[k]) !== sortedJson(b[k])) ?? null;
}

const seedsOf = (c: ResultsChunk<RunCurvesJson>): number[] => {
  const s = (c.specJson as { seeds?: unknown }).seeds;
  if (!Array.isArray(s) || s.some((x) => !Number.isInteger(x))) throw new MergeError(`${c.where}: spec.json has no seeds list`);
  return s as number[];
};

/**
 * The whole experiment's spec JSON and results file from its seed chunks.
 * Runs, curves and trajectories are ordered by seed (ascending) and, within
 * a seed, as each chunk ran them; segments keep every call, their run indices shifted to the
 * merged order; warnings, starts and infeasible cells are united; `seconds` is the sum of the
 * chunks' page seconds; `command` is `command`.
 * @throws MergeError for no chunk, an interrupted chunk, specs that differ beyond seeds (naming
 *   the field), a seed in two chunks, or runs that do not match their chunk's seeds
 */
export function mergeResults<C extends RunCurvesJson>(
  chunks: readonly ResultsChunk<C>[],
  command: string,
): { specJson: Record<string, unknown>; file: ResultsFile<C> } {
  if (chunks.length === 0) throw new MergeError('no results to merge');
  const first = chunks[0];
  const seen = new Map<number, string>();
  for (const c of chunks) {
    if (c.file.status !== 'done') throw new MergeError(`${c.where}: status '${c.file.status}', only finished runs merge (resume it first)`);
    const diff = firstDifference(first.specJson as Record<string, unknown>, c.specJson as Record<string, unknown>);
    if (diff !== null) throw new MergeError(`${c.where}: spec.${diff} differs from ${first.where}'s; only seeds may differ`);
    for (const s of seedsOf(c)) {
      if (seen.has(s)) throw new MergeError(`${c.where}: seed ${s} is also in ${seen.get(s)}`);
      seen.set(s, c.where);
    }
    const stray = c.file.runs.find((r) => !seedsOf(c).includes(r.seed));
    if (stray) throw new MergeError(`${c.where}: a run of seed ${stray.seed}, which its spec.seeds does not list`);
  }
  const order = [...seen.keys()].sort((a, b) => a - b);
  const rank = (seed: number) => order.indexOf(seed);
  const bySeed = <T extends { seed: number }>(xs: readonly T[]) =>
    xs
      .map((x, i) => ({ x, i }))
      .sort((a, b) => rank(a.x.seed) - rank(b.x.seed) || a.i - b.i)
      .map((e) => e.x);
  const chunkOrder = [...chunks].sort((a, b) => rank(seedsOf(a)[0]) - rank(seedsOf(b)[0]));
  // Run indices of each chunk's runs in the merged order, for its segments.
  const runs = bySeed(chunkOrder.flatMap((c) => c.file.runs));
  let offset = 0;
  const segments = chunkOrder.flatMap((c) => {
    const shift = (p: { runIndex: number; step: number }) => ({ runIndex: p.runIndex + offset, step: p.step });
    const out = (c.file.segments ?? []).map((s) => ({ ...s, from: shift(s.from), to: shift(s.to) }));
    offset += c.file.runs.length;
    return out;
  });
  const union = <T>(xs: readonly T[]) => [...new Map(xs.map((x) => [sortedJson(x), x])).values()];
  const specJson = { ...(first.specJson as Record<string, unknown>), seeds: order };
  const last = chunkOrder[chunkOrder.length - 1].file;
  const file: ResultsFile<C> = {
    ...first.file,
    runs,
    command,
    status: 'done',
    engine: last.engine,
    warnings: union(chunkOrder.flatMap((c) => c.file.warnings)),
    infeasibleCells: union(chunkOrder.flatMap((c) => c.file.infeasibleCells ?? [])),
    starts: union(chunkOrder.flatMap((c) => c.file.starts ?? [])),
    segments,
    seconds: chunkOrder.reduce((a, c) => a + (c.file.seconds ?? 0), 0),
    curves: bySeed(chunkOrder.flatMap((c) => c.file.curves)),
    trajectories: bySeed(chunkOrder.flatMap((c) => c.file.trajectories ?? [])),
    specJson,
  };
  return { specJson, file };
}

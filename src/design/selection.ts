/**
 * Training-set selection over a harness space (docs/ARCHITECTURE.md "Harness space and design") and its report.
 *
 * - Structured: the rows of a verified strength-2 orthogonal array (`orthogonalArray`), with
 *   components mapped to the columns that maximize the minimum pairwise Hamming distance.
 *   For the default 3^5 space this is L18 on five of its 3-level columns: 18 harnesses,
 *   every level 6 times per component, every level pair twice per component pair, every two
 *   training harnesses at Hamming distance ≥ 3.
 * - Random-k (ablation): k distinct configurations drawn uniformly without replacement,
 *   seeded.
 * Both return the same `DesignReport`: training ids, the held-out configurations H \ H_tr
 * with their distance to the nearest training harness, bounds, balance and minimum distance.
 */

import { Rng } from '../util/rng';
import {
  configFromIndex,
  configIndex,
  DEFAULT_SPACE,
  formatHarnessId,
  parseHarnessId,
  type HarnessSpace,
  type LevelVector,
  spaceLevels,
  spaceSize,
  validateSpace,
} from './space';
import { minPairwiseDistance, orthogonalArray, type OrthogonalArrayOptions } from './orthogonal_array';
import { type RunSizeBounds, divisibilityBound, raoBound, smallestAdmissibleRunSize, verifyStrength2 } from './oa_verify';

/** Largest space whose held-out set is enumerated (the report lists every held-out config). */
export const MAX_ENUMERATED_SPACE = 1_000_000;

export type SelectionMethod = 'oa' | 'random';

/** A held-out configuration and its Hamming distance to the nearest training harness. */
interface HeldOutConfig {
  id: string;
  distance: number;
}

/** Everything `hlab design` prints. Counts are over the training set (one run per harness). */
export interface DesignReport extends RunSizeBounds {
  method: SelectionMethod;
  /** Construction used, e.g. 'L18 (2^1 3^7), standard Taguchi table; columns 3,4,5,6,7 (1-based)'. */
  construction: string;
  /** Seed of the random-k draw; null for the (deterministic) orthogonal array. */
  seed: number | null;
  /** Component keys and level counts, e.g. [{key:'S', levels:3}, …]. */
  components: { key: string; name: string; levels: number }[];
  /** Number of configurations in the space, Π s_i. */
  spaceSize: number;
  /** Training harness ids H_tr, in run order (OA) or in space order (random). */
  training: string[];
  /** H \ H_tr in space order, each with its distance to the nearest training harness. */
  heldOut: HeldOutConfig[];
  /** histogram[d] = number of held-out configurations at distance d, d = 0..k. */
  heldOutHistogram: { distance: number; count: number }[];
  /** N = |H_tr|. */
  runSize: number;
  balance: {
    /** Every component shows every level equally often. */
    balanced: boolean;
    /** Every component pair shows every level pair equally often (strength 2). */
    strength2: boolean;
    columns: { component: string; counts: number[]; equal: boolean }[];
    pairs: { components: [string, string]; counts: number[][]; equal: boolean }[];
  };
}

/**
 * Build the report for any training set of `space`.
 * @param training level vectors, distinct; at least 1.
 * @throws Error on an empty or repeated training set, a configuration outside the space, or a
 *   space larger than MAX_ENUMERATED_SPACE.
 */
function designReport(
  space: HarnessSpace,
  training: readonly LevelVector[],
  meta: { method: SelectionMethod; construction: string; seed: number | null; runSizeProvedMinimal?: boolean },
): DesignReport {
  validateSpace(space);
  const levels = spaceLevels(space);
  const size = spaceSize(space);
  if (size > MAX_ENUMERATED_SPACE)
    throw new Error(`design report: space has ${size} configurations, more than ${MAX_ENUMERATED_SPACE} to enumerate`);
  if (training.length === 0) throw new Error('design report: training set is empty');
  const ids = training.map((v) => formatHarnessId(v, space));
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) throw new Error(`design report: training harness '${id}' appears twice`);
    seen.add(id);
  }
  const inTraining = new Set(training.map((v) => configIndex(v, levels)));
  const heldOut: HeldOutConfig[] = [];
  const hist = new Array<number>(levels.length + 1).fill(0);
  for (let idx = 0; idx < size; idx++) {
    if (inTraining.has(idx)) continue;
    const v = configFromIndex(idx, levels);
    let d = levels.length;
    for (const t of training) {
      let e = 0;
      for (let j = 0; j < v.length; j++) if (v[j] !== t[j]) e++;
      if (e < d) d = e;
    }
    heldOut.push({ id: formatHarnessId(v, space), distance: d });
    hist[d]++;
  }
  const ver = verifyStrength2(
    training.map((v) => [...v]),
    levels,
  );
  const keys = space.components.map((c) => c.key);
  const smallest = smallestAdmissibleRunSize(levels);
  const minDist = minPairwiseDistance(training.map((v) => [...v]));
  return {
    method: meta.method,
    construction: meta.construction,
    seed: meta.seed,
    components: space.components.map((c) => ({ key: c.key, name: c.name, levels: c.realizations.length })),
    spaceSize: size,
    training: ids,
    heldOut,
    heldOutHistogram: hist.map((count, distance) => ({ distance, count })),
    runSize: training.length,
    raoBound: raoBound(levels),
    divisibilityBound: divisibilityBound(levels),
    smallestAdmissibleRunSize: smallest,
    minimalRunSize: ver.strength2 && training.length === smallest,
    runSizeProvedMinimal: ver.strength2 && (training.length === smallest || meta.runSizeProvedMinimal === true),
    minPairwiseDistance: Number.isFinite(minDist) ? minDist : 0,
    balance: {
      balanced: ver.balanced,
      strength2: ver.strength2,
      columns: ver.columns.map((c) => ({ component: keys[c.column], counts: c.counts, equal: c.equal })),
      pairs: ver.pairs.map((p) => ({ components: [keys[p.columns[0]], keys[p.columns[1]]], counts: p.counts, equal: p.equal })),
    },
  };
}

/**
 * Structured selection: the runs of a verified strength-2 orthogonal array for the space's
 * level counts, components on the columns maximizing the minimum pairwise Hamming distance.
 * Only arrays with pairwise distinct runs are accepted (a training *set*).
 * @throws NoOrthogonalArrayError when no such array is found within `opts` limits.
 */
export function selectTrainingOA(space: HarnessSpace = DEFAULT_SPACE, opts: OrthogonalArrayOptions = {}): DesignReport {
  validateSpace(space);
  const oa = orthogonalArray(spaceLevels(space), { columnChoice: 'maxMinDistance', ...opts, distinctRuns: true });
  // Name the base columns used when the base array had more columns than components (L18,
  // Rao–Hamming) or some were collapsed; search and full factorial map one-to-one.
  const mapped = oa.columns.some((c, i) => c.baseColumn !== i || c.collapsed);
  const construction = mapped
    ? `${oa.detail}; base columns ${oa.columns.map((c, i) => `${c.baseColumn + 1}${c.collapsed ? `→${oa.levels[i]} levels` : ''}`).join(',')} (1-based)`
    : oa.detail;
  return designReport(space, oa.runs, { method: 'oa', construction, seed: null, runSizeProvedMinimal: oa.runSizeProvedMinimal });
}

/**
 * Random-k selection (ablation): k distinct configurations uniformly without replacement,
 * from stream `Rng.derive(seed, 'design/random-k')`, listed in space order.
 * @throws Error when k is not an integer in 1..|H|.
 */
export function selectTrainingRandom(space: HarnessSpace = DEFAULT_SPACE, k: number, seed: number): DesignReport {
  validateSpace(space);
  const size = spaceSize(space);
  if (!Number.isInteger(k) || k < 1 || k > size) throw new Error(`random selection: k = ${k} out of range 1..${size} (the space size)`);
  if (!Number.isInteger(seed)) throw new Error(`random selection: seed must be an integer, got ${seed}`);
  const rng = Rng.derive(seed, 'design/random-k');
  // Partial Fisher–Yates over indices 0..size−1 (a sparse map keeps it O(k) memory).
  const swapped = new Map<number, number>();
  const picked: number[] = [];
  for (let i = 0; i < k; i++) {
    const j = i + rng.int(size - i);
    const vj = swapped.get(j) ?? j;
    swapped.set(j, swapped.get(i) ?? i);
    picked.push(vj);
  }
  picked.sort((a, b) => a - b);
  const levels = spaceLevels(space);
  return designReport(
    space,
    picked.map((idx) => configFromIndex(idx, levels)),
    { method: 'random', construction: `${k} distinct configurations drawn uniformly (seed ${seed})`, seed },
  );
}

/** Options of `selectTraining`. */
interface SelectionOptions {
  method?: SelectionMethod;
  /** Random-k size; default: the run size of the space's orthogonal array (else the smallest admissible run size). */
  k?: number;
  /** Random-k seed (default 0). */
  seed?: number;
  oa?: OrthogonalArrayOptions;
}

/** Dispatch to `selectTrainingOA` or `selectTrainingRandom`. @throws as they do. */
export function selectTraining(space: HarnessSpace = DEFAULT_SPACE, opts: SelectionOptions = {}): DesignReport {
  const method = opts.method ?? 'oa';
  if (method === 'oa') {
    if (opts.k !== undefined) throw new Error('selection: k applies only to method random');
    return selectTrainingOA(space, opts.oa);
  }
  if (method !== 'random') throw new Error(`selection: method must be 'oa' or 'random', got '${method as string}'`);
  let k = opts.k;
  if (k === undefined) {
    try {
      k = orthogonalArray(spaceLevels(space), opts.oa).runSize;
    } catch {
      k = smallestAdmissibleRunSize(spaceLevels(space));
    }
    k = Math.min(k, spaceSize(space));
  }
  return selectTrainingRandom(space, k, opts.seed ?? 0);
}

/**
 * The first `n` harnesses of a training set in a balanced order, for the harness-count ablation
 * (N = 1, 3, 6, 9, 18 training harnesses at equal budget). Greedy and deterministic: it starts
 * from the base harness (all levels 0) when the set holds it, else the first harness, and adds at
 * each step the harness that keeps the levels most even — least Σ over components of Σ over levels
 * of count², then least Σ over component pairs of Σ over level pairs of count² (strength-2
 * balance), then the largest minimum Hamming distance to those chosen, then set order. On the
 * L18 array N = 3 and N = 9 give every level of every component equally often (N/3 times); the
 * sets are nested (each N holds every smaller one), and n = runSize returns the design itself.
 * @param design a training set's report (selectTraining); n in 1..design.runSize
 * @returns the report of the n chosen harnesses (its held-out set is the rest of the space),
 *   `training` in the design's order, `construction` saying how they were chosen
 * @throws Error when n is not an integer in 1..design.runSize
 */
export function selectBalancedSubset(design: DesignReport, n: number, space: HarnessSpace = DEFAULT_SPACE): DesignReport {
  if (!Number.isInteger(n) || n < 1 || n > design.runSize)
    throw new Error(`balanced subset: n = ${n} out of range 1..${design.runSize} (the training-set size)`);
  if (n === design.runSize) return design;
  const rows = design.training.map((id) => parseHarnessId(id, space));
  const levels = spaceLevels(space);
  const k = levels.length;
  const col = levels.map((l) => new Array<number>(l).fill(0));
  const pair = new Map<string, number>();
  const pairKey = (i: number, j: number, a: number, b: number) => `${i},${j},${a},${b}`;
  const chosen: number[] = [];
  const cost = (r: number[]): [number, number, number] => {
    let c1 = 0;
    let c2 = 0;
    for (let i = 0; i < k; i++) c1 += 2 * col[i][r[i]] + 1;
    for (let i = 0; i < k; i++) for (let j = i + 1; j < k; j++) c2 += 2 * (pair.get(pairKey(i, j, r[i], r[j])) ?? 0) + 1;
    const dMin = chosen.length ? Math.min(...chosen.map((c) => rows[c].reduce((e, x, t) => e + (x !== r[t] ? 1 : 0), 0))) : k;
    return [c1, c2, -dMin];
  };
  const start = rows.findIndex((r) => r.every((x) => x === 0));
  for (let step = 0; step < n; step++) {
    let best = step === 0 ? Math.max(start, 0) : -1;
    let bestCost: [number, number, number] | null = null;
    for (let r = 0; r < rows.length && step > 0; r++) {
      if (chosen.includes(r)) continue;
      const c = cost(rows[r]);
      if (
        !bestCost ||
        c[0] < bestCost[0] ||
        (c[0] === bestCost[0] && (c[1] < bestCost[1] || (c[1] === bestCost[1] && c[2] < bestCost[2])))
      ) {
        best = r;
        bestCost = c;
      }
    }
    const r = rows[best];
    chosen.push(best);
    for (let i = 0; i < k; i++) col[i][r[i]]++;
    for (let i = 0; i < k; i++)
      for (let j = i + 1; j < k; j++) pair.set(pairKey(i, j, r[i], r[j]), (pair.get(pairKey(i, j, r[i], r[j])) ?? 0) + 1);
  }
  const construction = `${n} of the ${design.runSize} (${design.construction}), balanced greedy order from the base harness`;
  // In the set's own order: the assignment's tie-breaks then match the full set's.
  return designReport(
    space,
    chosen.sort((a, b) => a - b).map((c) => rows[c]),
    { method: design.method, construction, seed: design.seed },
  );
}

/**
 * The decision rule of a paired comparison over training runs (seeds) and configurations
 * (seedInterval), and the seeds a comparison would need (seedsToDecide); seed_stats.ts applies
 * it to paired cells. The estimate is the mean over the seed × configuration table of cell
 * mean differences; its variance has a seed term (run noise and each seed's own test tasks), a
 * configuration term (the configurations are one fixed sample of the space, shared by every
 * seed) and a residual, estimated from the table's mean squares as in a two-way random-effects
 * ANOVA; the interval is t-based with Satterthwaite degrees of freedom. With 3–10 seeds a
 * percentile bootstrap over seeds undercovers (it behaves like a z-interval with the n-divisor
 * variance: at n = 3 its nominal 95 % is ≈ 72 %), so it is not the rule
 * (tests/unit/seed_stats.test.ts compares a hierarchical bootstrap with it, and checks the rule's
 * false-positive rate on simulated nulls with a run effect, where the pooled task bootstrap fails).
 *
 * Sources: Satterthwaite, "An approximate distribution of estimates of variance components",
 * Biometrics Bull. 2 (1946); Agarwal et al., NeurIPS 2021 (intervals over runs).
 */
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { groupBy } from '../util/group_by';

/** One paired cell: the difference of an outcome (pass 0/1 or score) between two arms. */
export interface DiffCell {
  /** The training run (seed) both arms' cells come from. */
  seed: number;
  /** The harness configuration the cell was evaluated under. */
  config: string;
  taskId: string;
  /** arm B − arm A on this cell: in [−1, 1]; a difference of two such differences (an interaction) in [−2, 2]. */
  diff: number;
}

/** A comparison's estimate and its interval over seeds and configurations (seedInterval). */
export interface SeedInterval {
  /** Mean over seeds of the per-seed mean difference (a fraction, not points). */
  diff: number;
  /** 95 % interval; NaN with fewer than 2 seeds (one run says nothing about run-to-run spread). */
  lo: number;
  hi: number;
  /** Seeds (training runs) and configurations and cells. */
  seeds: number;
  configs: number;
  cells: number;
  /** Each seed's mean difference, in seed order. */
  perSeed: { seed: number; diff: number }[];
  /** Standard deviation of the per-seed differences (n − 1); NaN for one seed. */
  seedSd: number;
  /** Standard error of the configuration term alone, √(max(0, MS_config − MS_res)/nC) (0 for one configuration). */
  configSe: number;
  /** Standard error and Welch–Satterthwaite degrees of freedom of `diff`. */
  se: number;
  df: number;
  /** The interval excludes 0. */
  decided: boolean;
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
const mean = (xs: readonly number[]) => sum(xs) / xs.length;
function variance(xs: readonly number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return xs.reduce((a, x) => a + (x - m) * (x - m), 0) / (xs.length - 1);
}

/**
 * The decision interval of a paired comparison (module doc), from the seed × configuration table
 * of cell means m_sc (the mean difference of seed s's cells under configuration c), treated as a
 * two-way random-effects layout m_sc = Δ + a_s + b_c + e_sc (Cornfield–Tukey; Satterthwaite 1946):
 *
 *   Δ = mean of m_sc,  MS_seed = C·var_s(row means),  MS_config = n·var_c(column means),
 *   MS_res = Σ (m_sc − row_s − col_c + Δ)² / ((n − 1)(C − 1))
 *   Var(Δ) = (MS_seed + MS_config − MS_res) / (nC)     (= σ²_a/n + σ²_b/C + σ²_e/nC, unbiased)
 *
 * clamped below at the seed-only term MS_seed/(nC) = var(d_s)/n (d_s the row means), with
 * Satterthwaite degrees of freedom for the combination (at least min(n − 1, C − 1)); one configuration (base harness,
 * black-box) gives the seed-level paired t-interval with n − 1 df. The interval is
 * Δ ± t_{df, 1−α/2}·SE; "decided" = it excludes 0.
 * @param cells paired cells (seed, config, task, diff); a missing (seed, config) cell of the
 *   table (every cell excluded) is filled with its seed's mean, which the df do not credit
 * @param level the interval's coverage (default 0.95)
 * @throws Error on no cells or a diff outside [−2, 2] or not finite
 */
export function seedInterval(cells: readonly DiffCell[], level = 0.95): SeedInterval {
  if (cells.length === 0) throw new Error('seedInterval: no cells');
  for (const c of cells)
    if (!Number.isFinite(c.diff) || c.diff < -2 || c.diff > 2)
      throw new Error(`seedInterval: diff must be in [−2, 2], got ${c.diff} (seed ${c.seed}, ${c.config}, ${c.taskId})`);
  const seedIds = [...groupBy(cells, (c) => c.seed).keys()];
  const configIds = [...groupBy(cells, (c) => c.config).keys()];
  const n = seedIds.length;
  const C = configIds.length;
  const blocks = groupBy(cells, (c) => `${c.seed}\u0000${c.config}`);
  const table = seedIds.map((s) => {
    const row = configIds.map((c) => {
      const cs = blocks.get(`${s}\u0000${c}`);
      return cs ? mean(cs.map((x) => x.diff)) : Number.NaN;
    });
    const have = row.filter((x) => !Number.isNaN(x));
    const fill = mean(have);
    return row.map((x) => (Number.isNaN(x) ? fill : x));
  });
  const rows = table.map(mean);
  const cols = configIds.map((_, j) => mean(table.map((r) => r[j])));
  const diff = mean(rows);
  const perSeed = seedIds.map((seed, i) => ({ seed, diff: rows[i] }));
  const seedSd = Math.sqrt(variance(rows));
  const base = { diff, seeds: n, configs: C, cells: cells.length, perSeed, seedSd: n > 1 ? seedSd : Number.NaN };
  if (n < 2) return { ...base, configSe: Number.NaN, lo: Number.NaN, hi: Number.NaN, se: Number.NaN, df: Number.NaN, decided: false };
  const nC = n * C;
  const msSeed = C * variance(rows);
  let se2 = msSeed / nC;
  let df = n - 1;
  let configSe = 0;
  if (C > 1) {
    const msConfig = n * variance(cols);
    let ss = 0;
    for (let i = 0; i < n; i++) for (let j = 0; j < C; j++) ss += (table[i][j] - rows[i] - cols[j] + diff) ** 2;
    const msRes = ss / ((n - 1) * (C - 1));
    const combined = (msSeed + msConfig - msRes) / nC;
    configSe = Math.sqrt(Math.max(0, (msConfig - msRes) / nC));
    if (combined > se2) {
      // Satterthwaite: df of Σ k_i·MS_i is (Σ k_i MS_i)² / Σ (k_i MS_i)²/df_i.
      const terms: [number, number][] = [
        [msSeed / nC, n - 1],
        [msConfig / nC, C - 1],
        [-msRes / nC, (n - 1) * (C - 1)],
      ];
      // The negative residual term can pull the estimate below either component's df; a sum of
      // the two positive terms has at least the smaller of their df, so that is the floor.
      df = Math.max(Math.min(n - 1, C - 1), (combined * combined) / terms.reduce((a, [v, d]) => a + (v * v) / d, 0));
      se2 = combined;
    }
  }
  const se = Math.sqrt(se2);
  if (se === 0) return { ...base, configSe, lo: diff, hi: diff, se, df, decided: diff !== 0 };
  const half = tQuantile(1 - (1 - level) / 2, df) * se;
  return { ...base, configSe, lo: diff - half, hi: diff + half, se, df, decided: diff - half > 0 || diff + half < 0 };
}

/**
 * The interval of a comparison at another coverage, from its estimate, standard error and
 * degrees of freedom (seedInterval's): Δ ± t_{df, 1−(1−level)/2}·SE. With level = 1 − α/m it is
 * the Bonferroni interval of one of m comparisons read together (Dunn, "Multiple comparisons among
 * means", JASA 56, 1961): all m cover at once with probability ≥ 1 − α.
 * @param level coverage in (0, 1)
 * @returns NaN bounds with fewer than 2 seeds
 */
export function intervalAtLevel(r: Pick<SeedInterval, 'diff' | 'se' | 'df' | 'seeds'>, level: number): { lo: number; hi: number } {
  if (!(level > 0 && level < 1)) throw new Error(`intervalAtLevel: level must be in (0, 1), got ${level}`);
  if (r.seeds < 2) return { lo: Number.NaN, hi: Number.NaN };
  const half = r.se === 0 ? 0 : tQuantile(1 - (1 - level) / 2, r.df) * r.se;
  return { lo: r.diff - half, hi: r.diff + half };
}

/** Seeds a comparison would need (seedsToDecide). */
export interface SeedsNeeded {
  /** Seeds at which the expected interval excludes 0 at this effect (half-width < |Δ|); null when more seeds cannot get there. */
  exclude: number | null;
  /** Seeds for 80 % power (two-sided, α = 0.05) at this effect; null as above. */
  power80: number | null;
  /**
   * Seeds at which the expected interval lies inside ±margin (equivalence) at this effect; null
   * when more seeds cannot get there (|Δ| ≥ margin, or the configuration term alone too wide).
   */
  equivalent: number | null;
}

/**
 * Seeds needed at the observed effect and spread, from the seed-level variance (not the task
 * bootstrap's, which understates it): the smallest n ≤ cap with
 *   exclude: t_{n−1, .975}·√(s²/n + b) < |Δ|,   power80: (t_{n−1, .975} + t_{n−1, .80})·√(s²/n + b) < |Δ|,
 *   equivalent: |Δ| + t_{n−1, .975}·√(s²/n + b) ≤ margin,
 * where s is the per-seed sd and b the configuration term (which more seeds do not shrink: when
 * it alone blocks, more configurations are needed and the answer is null).
 * @param cap the largest n tried (default 1000)
 * @param margin the equivalence margin (fraction of pass@1; default 0.02, the ±2 points of the rule)
 */
export function seedsToDecide(r: Pick<SeedInterval, 'diff' | 'seedSd' | 'configSe'>, cap = 1000, margin = 0.02): SeedsNeeded {
  const effect = Math.abs(r.diff);
  const s2 = Number.isFinite(r.seedSd) ? r.seedSd * r.seedSd : Number.NaN;
  const b = r.configSe * r.configSe;
  const find = (ok: (n: number, half: (z: number) => number) => boolean): number | null => {
    if (!Number.isFinite(s2)) return null;
    for (let n = 2; n <= cap; n++) if (ok(n, (z) => z * Math.sqrt(s2 / n + b))) return n;
    return null;
  };
  const t975 = (n: number) => tQuantile(0.975, n - 1);
  return {
    exclude: effect === 0 ? null : find((n, half) => half(t975(n)) < effect),
    power80: effect === 0 ? null : find((n, half) => half(t975(n) + tQuantile(0.8, n - 1)) < effect),
    equivalent: effect >= margin ? null : find((n, half) => effect + half(t975(n)) <= margin),
  };
}

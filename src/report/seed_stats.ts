/**
 * Inference over what varies: training runs (seeds), held-out configurations and tasks. A method
 * comparison is a set of paired cells — the same (seed, configuration, task, sample) scored under
 * two arms (two methods, or before and after) — and its interval must cover the seed-to-seed
 * variation of training, which a bootstrap over pooled tasks (stats.ts pairedComparison) never
 * sees: two training runs of one method differ by as much as the effects studied.
 *
 * The rule (seedInterval): the estimate is the mean over the seed × configuration table of cell
 * mean differences; its variance has a seed term (run noise and each seed's own test tasks), a
 * configuration term (the configurations are one fixed sample of the space, shared by every
 * seed) and a residual, estimated from the table's mean squares as in a two-way random-effects
 * ANOVA; the interval is t-based with Satterthwaite degrees of freedom. With 3–10 seeds a percentile bootstrap
 * over seeds undercovers (it behaves like a z-interval with the n-divisor variance: at n = 3 its
 * nominal 95 % is ≈ 72 %), so the bootstrap (hierarchicalBootstrap) is offered as a description,
 * not the rule. tests/unit/seed_stats.test.ts checks the rule's false-positive rate on simulated
 * nulls with a run effect, where the pooled task bootstrap fails.
 *
 * Sources: Agarwal et al., "Deep RL at the edge of the statistical precipice", NeurIPS 2021
 * (intervals over runs); Henderson et al., "Deep RL that matters", AAAI 2018; Satterthwaite,
 * "An approximate distribution of estimates of variance components", Biometrics Bull. 2 (1946);
 * for resampling crossed factors, Owen, "The pigeonhole bootstrap", Ann. Appl. Stat. 1 (2007);
 * Davison & Hinkley (1997) §3.8 for nested resampling.
 */
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { Rng } from '../util/rng';
import type { PairedCell } from './stats';

/** One paired cell: the difference of an outcome (pass 0/1 or score) between two arms. */
export interface DiffCell {
  /** The training run (seed) both arms' cells come from. */
  seed: number;
  /** The harness configuration the cell was evaluated under. */
  config: string;
  taskId: string;
  /** arm B − arm A on this cell: in [−1, 1]. */
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

/** Cells grouped by a key, in first-seen order. */
function groupBy<K>(cells: readonly DiffCell[], key: (c: DiffCell) => K): Map<K, DiffCell[]> {
  const g = new Map<K, DiffCell[]>();
  for (const c of cells) {
    const k = key(c);
    const list = g.get(k);
    if (list) list.push(c);
    else g.set(k, [c]);
  }
  return g;
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
 * @throws Error on no cells or a diff outside [−1, 1] or not finite
 */
export function seedInterval(cells: readonly DiffCell[], level = 0.95): SeedInterval {
  if (cells.length === 0) throw new Error('seedInterval: no cells');
  for (const c of cells)
    if (!Number.isFinite(c.diff) || c.diff < -1 || c.diff > 1)
      throw new Error(`seedInterval: diff must be in [−1, 1], got ${c.diff} (seed ${c.seed}, ${c.config}, ${c.taskId})`);
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

/** Seeds a comparison would need (seedsToDecide). */
interface SeedsNeeded {
  /** Seeds at which the expected interval excludes 0 at this effect (half-width < |Δ|); null when more seeds cannot get there. */
  exclude: number | null;
  /** Seeds for 80 % power (two-sided, α = 0.05) at this effect; null as above. */
  power80: number | null;
}

/**
 * Seeds needed at the observed effect and spread, from the seed-level variance (not the task
 * bootstrap's, which understates it): the smallest n ≤ cap with
 *   exclude: t_{n−1, .975}·√(s²/n + b) < |Δ|,   power80: (t_{n−1, .975} + t_{n−1, .80})·√(s²/n + b) < |Δ|,
 * where s is the per-seed sd and b the configuration term (which more seeds do not shrink: when
 * it alone blocks, more configurations are needed and the answer is null).
 * @param cap the largest n tried (default 1000)
 */
export function seedsToDecide(r: Pick<SeedInterval, 'diff' | 'seedSd' | 'configSe'>, cap = 1000): SeedsNeeded {
  const effect = Math.abs(r.diff);
  const s2 = Number.isFinite(r.seedSd) ? r.seedSd * r.seedSd : Number.NaN;
  const b = r.configSe * r.configSe;
  const find = (z: (n: number) => number): number | null => {
    if (!Number.isFinite(s2) || effect === 0) return null;
    for (let n = 2; n <= cap; n++) if (z(n) * Math.sqrt(s2 / n + b) < effect) return n;
    return null;
  };
  return {
    exclude: find((n) => tQuantile(0.975, n - 1)),
    power80: find((n) => tQuantile(0.975, n - 1) + tQuantile(0.8, n - 1)),
  };
}

/**
 * A hierarchical percentile bootstrap of Δ (description only, module doc): per resample draw
 * n seeds and C configurations with replacement (crossed factors, Owen 2007), then within each
 * drawn (seed, configuration) its cells' tasks with replacement (cells of one task move together).
 * @param opts.seed the stream Rng.derive(seed, 'hierarchical-bootstrap'); opts.resamples ≥ 100 (default 2000)
 * @returns the 2.5 % and 97.5 % quantiles of the resampled Δ
 */
export function hierarchicalBootstrap(
  cells: readonly DiffCell[],
  opts: { seed?: number; resamples?: number } = {},
): { lo: number; hi: number } {
  const B = opts.resamples ?? 2000;
  if (!Number.isInteger(B) || B < 100) throw new Error(`hierarchicalBootstrap: resamples must be an integer ≥ 100, got ${B}`);
  if (cells.length === 0) throw new Error('hierarchicalBootstrap: no cells');
  const seeds = [...groupBy(cells, (c) => c.seed).keys()];
  const configs = [...groupBy(cells, (c) => c.config).keys()];
  // (seed, config) → per task [sum of diffs, cells].
  const blocks = new Map<string, [number, number][]>();
  for (const [k, cs] of groupBy(cells, (c) => `${c.seed}\u0000${c.config}`))
    blocks.set(
      k,
      [...groupBy(cs, (c) => c.taskId).values()].map((t) => [sum(t.map((c) => c.diff)), t.length]),
    );
  const rng = Rng.derive(opts.seed ?? 0, 'hierarchical-bootstrap');
  const out = new Float64Array(B);
  for (let r = 0; r < B; r++) {
    let total = 0;
    for (let i = 0; i < seeds.length; i++) {
      const s = seeds[rng.int(seeds.length)];
      let sd = 0;
      let sn = 0;
      for (let j = 0; j < configs.length; j++) {
        const tasks = blocks.get(`${s}\u0000${configs[rng.int(configs.length)]}`);
        if (!tasks) continue;
        for (let k = 0; k < tasks.length; k++) {
          const t = tasks[rng.int(tasks.length)];
          sd += t[0];
          sn += t[1];
        }
      }
      total += sn ? sd / sn : 0;
    }
    out[r] = total / seeds.length;
  }
  out.sort();
  const q = (p: number) => out[Math.min(B - 1, Math.max(0, Math.ceil(p * B) - 1))];
  return { lo: q(0.025), hi: q(0.975) };
}

/** A paired comparison as results tables show it: the decision interval and the seeds that would decide it. */
export interface Comparison {
  /** pass (0/1) differences, arm B − arm A. */
  pass: SeedInterval;
  /** Verifier-score differences (partial credit in [0, 1]). */
  score: SeedInterval;
  /** Seeds needed for pass at the observed effect (seedsToDecide). */
  needed: SeedsNeeded;
}

/**
 * Compare arm A ("before") with arm B ("after") on paired cells (stats.ts PairedCell: `run` is
 * the seed; the configuration is the cell's harness): seedInterval of the pass and score
 * differences, and the seeds that would decide the pass difference.
 * @throws Error on no cells, a cell without `run`, or a duplicate (run, task, harness, sample)
 */
export function comparePaired(cells: readonly PairedCell[]): Comparison {
  const seen = new Set<string>();
  const pass: DiffCell[] = [];
  const score: DiffCell[] = [];
  for (const c of cells) {
    if (typeof c.run !== 'number') throw new Error(`comparePaired: cell (${c.taskId}, ${c.harnessId}) has no run seed`);
    const key = `${c.run}\u0000${c.taskId}\u0000${c.harnessId}\u0000${c.sample}`;
    if (seen.has(key)) throw new Error(`comparePaired: duplicate cell (seed ${c.run}, ${c.taskId}, ${c.harnessId}, ${c.sample})`);
    seen.add(key);
    const at = { seed: c.run, config: c.harnessId, taskId: c.taskId };
    pass.push({ ...at, diff: (c.after.pass ? 1 : 0) - (c.before.pass ? 1 : 0) });
    score.push({ ...at, diff: c.after.score - c.before.score });
  }
  const p = seedInterval(pass);
  return { pass: p, score: seedInterval(score), needed: seedsToDecide(p, 100) };
}

/**
 * "+11.5 [+6.3, +16.4] 10 seeds, decided", "−4.0 [−12.2, +4.1] 3 seeds, undecided (≈ 8 seeds
 * would decide)", or "+2.0 (1 seed: no interval over training runs)" — points of pass@1.
 */
export function comparisonText(c: Comparison | null): string {
  if (!c) return 'n/a';
  const p = c.pass;
  const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;
  if (p.seeds < 2) return `${signed(p.diff)} (1 seed: no interval over training runs)`;
  const head = `${signed(p.diff)} [${signed(p.lo)}, ${signed(p.hi)}] ${p.seeds} seeds`;
  if (p.decided) return `${head}, decided`;
  const n = c.needed.exclude;
  return `${head}, undecided (${n === null ? 'more seeds alone would not decide it' : `≈ ${n} seeds would decide`})`;
}

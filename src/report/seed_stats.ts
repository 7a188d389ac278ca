/**
 * Inference over what varies: training runs (seeds), held-out configurations and tasks. A method
 * comparison is a set of paired cells — the same (seed, configuration, task, sample) scored under
 * two arms (two methods, or before and after) — and its interval must cover the seed-to-seed
 * variation of training, which a bootstrap over pooled tasks (stats.ts pairedComparison) never
 * sees: two training runs of one method differ by as much as the effects studied. The rule is
 * seed_interval.ts's (a two-way random-effects interval over seeds and configurations).
 *
 * Sources: Agarwal et al., "Deep RL at the edge of the statistical precipice", NeurIPS 2021
 * (intervals over runs); Henderson et al., "Deep RL that matters", AAAI 2018; Satterthwaite,
 * "An approximate distribution of estimates of variance components", Biometrics Bull. 2 (1946).
 */
import type { PairedCell } from './stats';
import { seedInterval, seedsToDecide, type DiffCell, type SeedInterval, type SeedsNeeded } from './seed_interval';

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

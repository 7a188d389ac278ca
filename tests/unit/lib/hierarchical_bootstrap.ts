/**
 * A hierarchical percentile bootstrap of a paired comparison's Δ, the description
 * tests/unit/seed_stats.test.ts compares src/report/seed_interval.ts's rule with: per resample
 * draw n seeds and C configurations with replacement (crossed factors; Owen, "The pigeonhole
 * bootstrap", Ann. Appl. Stat. 1 (2007)), then within each drawn (seed, configuration) its cells'
 * tasks with replacement (cells of one task move together; Davison & Hinkley (1997) §3.8).
 */
import type { DiffCell } from '../../../src/report/seed_interval';
import { Rng } from '../../../src/util/rng';
import { groupBy } from '../../../src/util/group_by';

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

/**
 * The bootstrap interval of Δ (module doc).
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

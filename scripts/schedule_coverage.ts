/**
 * How many of its K harnesses per task each method of a preset trains under (plan.ts
 * scheduleCoverage): the epoch sampler draws every pool task once per epoch and a task uses its
 * K harnesses round robin, so a task drawn d times trains under min(d, K) of them.
 *
 *   npx tsx scripts/schedule_coverage.ts [preset ...] [--seed S]   # default: every preset, seed 0
 *
 * Counts only: no model runs (infeasible cells, which the runner leaves out, are not removed here).
 */
import { PRESET_NAMES, getPreset } from '../src/experiment/presets';
import { scheduleCoverage } from '../src/experiment/plan';

const args = process.argv.slice(2);
const at = args.indexOf('--seed');
const seed = at >= 0 ? Number(args[at + 1]) : 0;
const names = args.filter((a, i) => a !== '--seed' && i !== at + 1);
for (const name of names.length ? names : PRESET_NAMES) {
  const spec = getPreset(name);
  console.log(`${name} (seed ${seed}): ${spec.rl.steps} steps × ${spec.rl.tasksPerStep} tasks`);
  for (const c of scheduleCoverage(spec, seed))
    console.log(
      `  ${c.method}: K = ${c.K}, pool ${c.pool}, drawn ${c.drawn}; ${(100 * c.fullK).toFixed(1)} % of drawn tasks drawn ≥ K times; ${c.distinct.toFixed(2)} distinct harnesses per drawn task; ${(100 * c.offAnchor).toFixed(1)} % of draws off the anchor`,
    );
}

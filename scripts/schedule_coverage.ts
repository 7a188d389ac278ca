/**
 * How many of a preset's K harnesses per task its RL budget actually uses (docs/RESULTS.md,
 * session 11 "diversity"): the runner draws `rl.tasksPerStep` pool tasks per step (plan.ts
 * stepTasks) and gives a task its K harnesses round-robin, one per draw (anchor first), so a
 * task drawn d times trains under min(d, K) of them.
 *
 *   npx tsx scripts/schedule_coverage.ts [preset] [trainTasks per suite] [seed]   # default diversity, the preset's, 0
 *
 * Prints the histogram of draws per drawn task and, for K = 1, 2, 4, 8, the share of draws that
 * leave the anchor and the mean distinct harnesses per drawn task. Counts only: no model runs.
 * (Infeasible cells, which the runner leaves out of the pool, are not removed here.)
 */
import { getPreset } from '../src/experiment/presets';
import { stepTasks, trainPool, TRAIN_POOL_PER_SUITE } from '../src/experiment/plan';

const [name = 'diversity', perArg, seedArg] = process.argv.slice(2);
const spec = getPreset(name);
const perSuite = perArg ? Number(perArg) : (spec.rl.trainTasks ?? TRAIN_POOL_PER_SUITE);
const seed = seedArg ? Number(seedArg) : 0;
const pool = trainPool(spec, seed, perSuite);
const draws = new Map<string, number>();
for (let step = 1; step <= spec.rl.steps; step++) for (const t of stepTasks(pool, spec.rl.tasksPerStep, seed, step)) draws.set(t, (draws.get(t) ?? 0) + 1);
const counts = [...draws.values()];
const total = counts.reduce((a, b) => a + b, 0);
const hist = new Map<number, number>();
for (const c of counts) hist.set(c, (hist.get(c) ?? 0) + 1);
console.log(
  `${name}, seed ${seed}: pool ${pool.length} tasks (${perSuite} per suite), ${spec.rl.steps} steps × ${spec.rl.tasksPerStep} = ${total} draws over ${counts.length} drawn tasks`,
);
console.log(
  `draws per drawn task: ${[...hist]
    .sort((a, b) => a[0] - b[0])
    .map(([d, n]) => `${d}×: ${n}`)
    .join(', ')}`,
);
for (const K of [1, 2, 4, 8]) {
  const offAnchor = counts.reduce((a, c) => a + c - Math.ceil(c / K), 0) / total;
  const distinct = counts.reduce((a, c) => a + Math.min(c, K), 0) / counts.length;
  console.log(`K = ${K}: ${(100 * offAnchor).toFixed(1)} % of draws leave the anchor; ${distinct.toFixed(2)} distinct harnesses per drawn task`);
}

/**
 * Task references as the CLI (`hlab render --task`) and the episode server (`POST /episodes`)
 * accept them.
 */
import { getSuite, splitOf } from './index';
import type { SuiteName, Task, Tier } from './types';

/** A task reference that names no task. */
export class TaskRefError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TaskRefError';
  }
}

/**
 * The task named by `spec`: a task id ('family/tN/SEED' or 'suite/family/tN/SEED') or a bare
 * integer seed, with `family` (default: the suite's first) and `tier` picking the cell.
 * @throws TaskRefError naming the bad value (messages start with `--task` or `unknown family`).
 */
export function resolveTask(suiteName: SuiteName, spec: string, family: string | undefined, tier: number): Task {
  const suite = getSuite(suiteName);
  const s = spec.trim();
  let fam = family ?? suite.families[0].name;
  let t = tier;
  let seedText = s;
  const m = /^(?:([a-z]+)\/)?([a-z0-9-]+)\/t(\d+)\/(\d+)$/.exec(s);
  if (m) {
    if (m[1] !== undefined && m[1] !== suiteName)
      throw new TaskRefError(`--task '${spec}': belongs to suite '${m[1]}', not '${suiteName}'`);
    fam = m[2];
    t = Number(m[3]);
    seedText = m[4];
  } else if (!/^\d+$/.test(s)) {
    throw new TaskRefError(`--task '${spec}': expected a seed (integer) or a task id family/tN/SEED`);
  }
  if (!suite.families.some((f) => f.name === fam)) {
    throw new TaskRefError(`unknown family '${fam}' in suite '${suiteName}' (families: ${suite.families.map((f) => f.name).join(', ')})`);
  }
  try {
    splitOf(Number(seedText)); // a seed outside both the train and the test range is no task
    return suite.generate(fam, t as Tier, Number(seedText));
  } catch (e) {
    throw new TaskRefError(`--task '${spec}': ${(e as Error).message}`);
  }
}

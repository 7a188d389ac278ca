/**
 * Task suites (docs/ARCHITECTURE.md "Sandbox, tasks and behaviour tags"): the registry, the train/test seed split, balanced seeded task
 * draws, and a direct runner of the canonical solver against a Sandbox (no harness).
 */
import { Rng } from '../util/rng';
import { Sandbox } from '../sandbox/sandbox';
import type { SandboxLimits, SandboxState, Transcript, TranscriptStep } from '../sandbox/types';
import { TIERS } from './common';
import { errandsSuite } from './errands';
import type { SuiteName, Task, TaskSuite, Tier, Verification } from './types';
import { workspaceSuite } from './workspace';

export { TIERS } from './common';

export const SUITES: Readonly<Record<SuiteName, TaskSuite>> = Object.freeze({
  workspace: workspaceSuite,
  errands: errandsSuite,
});

export const SUITE_NAMES = Object.keys(SUITES) as SuiteName[];

/** @throws Error naming the unknown suite and the allowed ones. */
export function getSuite(name: string): TaskSuite {
  const s = (SUITES as Record<string, TaskSuite>)[name];
  if (!s) throw new Error(`unknown suite '${name}'; suites: ${SUITE_NAMES.join(', ')}`);
  return s;
}

export type Split = 'train' | 'test';

/** Inclusive seed ranges; disjoint, so no test task is ever generated for training. */
const TRAIN_SEEDS = Object.freeze({ from: 0, to: 999_999 });
const TEST_SEEDS = Object.freeze({ from: 1_000_000, to: 1_999_999 });
export const SEED_RANGES: Readonly<Record<Split, { from: number; to: number }>> = Object.freeze({ train: TRAIN_SEEDS, test: TEST_SEEDS });

/** Which split a task seed belongs to. @throws Error for a seed outside both ranges. */
export function splitOf(seed: number): Split {
  for (const split of ['train', 'test'] as const) {
    const r = SEED_RANGES[split];
    if (Number.isInteger(seed) && seed >= r.from && seed <= r.to) return split;
  }
  throw new Error(
    `seed ${seed} is in neither the train range [${TRAIN_SEEDS.from}, ${TRAIN_SEEDS.to}] nor the test range [${TEST_SEEDS.from}, ${TEST_SEEDS.to}]`,
  );
}

/**
 * Draw `n` tasks of one split, balanced over families × tiers: the (family, tier) cells are
 * visited in a seeded random order, cycling, so any prefix of the result has every cell's count
 * within 1 of every other's. Task seeds are distinct, uniform in the split's range.
 * Deterministic in (suite, split, n, seed); a longer draw extends a shorter one.
 * @throws Error on an unknown suite or split, or n not a non-negative integer ≤ 100 000.
 */
export function taskSet(suite: SuiteName | TaskSuite, split: Split, n: number, seed: number): Task[] {
  const s = typeof suite === 'string' ? getSuite(suite) : suite;
  const range = (SEED_RANGES as Record<string, { from: number; to: number }>)[split];
  if (!range) throw new Error(`taskSet: split must be 'train' or 'test', got '${split}'`);
  if (!Number.isInteger(n) || n < 0 || n > 100_000) throw new Error(`taskSet: n must be an integer in [0, 100000], got ${n}`);
  const cells = s.families.flatMap((f) => TIERS.map((tier) => ({ family: f.name, tier })));
  const order = Rng.derive(seed, 'taskSet', s.name, split, 'cells').shuffle(cells);
  const seedRng = Rng.derive(seed, 'taskSet', s.name, split, 'seeds');
  const used = new Set<number>();
  const out: Task[] = [];
  for (let i = 0; i < n; i++) {
    let ts: number;
    do ts = range.from + seedRng.int(range.to - range.from + 1);
    while (used.has(ts));
    used.add(ts);
    const c = order[i % order.length];
    out.push(s.generate(c.family, c.tier, ts));
  }
  return out;
}

/**
 * The task of an id 'suite/family/tN/seed' (as in Task.id).
 * @throws Error naming the malformed id, the unknown suite or family.
 */
export function taskFromId(id: string): Task {
  const m = /^([a-z]+)\/([a-z0-9-]+)\/t([123])\/(\d+)$/.exec(id.trim());
  if (!m) throw new Error(`task id '${id}' is not of the form suite/family/tN/seed (e.g. workspace/csv-sum/t2/1000017)`);
  return getSuite(m[1]).generate(m[2], Number(m[3]) as Tier, Number(m[4]));
}

interface SolverRun {
  final: SandboxState;
  transcript: Transcript;
  verification: Verification;
  /** Tool calls made, finish included. */
  calls: number;
}

/**
 * Run a task's canonical solver directly against a Sandbox (no harness in between) and verify.
 * @param maxCalls stop (without finish) after this many calls.
 */
export function runSolver(suite: TaskSuite, task: Task, opts: { maxCalls?: number; limits?: Partial<SandboxLimits> } = {}): SolverRun {
  const sb = Sandbox.fromState(task.initial, opts.limits);
  const solver = suite.solver(task);
  const steps: TranscriptStep[] = [];
  let answer: string | null = null;
  let last = null;
  const maxCalls = opts.maxCalls ?? 50;
  while (steps.length < maxCalls) {
    const c = solver.next(last);
    last = sb.exec(c);
    steps.push({ call: c, result: last });
    if (c.tool === 'finish') {
      answer = c.args.answer ?? '';
      break;
    }
  }
  const transcript = { steps, answer };
  const final = sb.state();
  return { final, transcript, verification: suite.verify(task, final, transcript), calls: steps.length };
}

export type { SuiteName, Task } from './types';

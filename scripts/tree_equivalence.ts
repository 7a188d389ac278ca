/**
 * Do two source trees give the same results? Every preset of public/presets/ is cut down to a
 * one-seed spec (reducedSpec: seed 0, 2 RL steps, a few tasks, SFT of a few steps), run by each
 * tree's own CLI (`npm run -s hlab -- run --spec … --backend wasm`, so both run the CPU engine),
 * and the two results.json are compared cell for cell: every evaluation episode (pass, score) of
 * every run, every summary number (pass rates before/after, per harness, behaviour, step counts),
 * every training-curve value and validation cell, every sampled trajectory (reward, advantage,
 * tokens and log-probs as a digest) and the infeasible cells. Timings and machine lines are left
 * out. Every random choice is seeded from the spec, so equal trees give equal files.
 *
 *   npx tsx scripts/tree_equivalence.ts --old ../wt-old                 # every preset
 *   npx tsx scripts/tree_equivalence.ts --old ../wt-old quick lesson    # these presets
 *   npx tsx scripts/tree_equivalence.ts --old .  quick                  # run-to-run check of this tree
 *
 * The new tree is this repository. --work <dir> (default a folder under the system's temporary
 * folder) keeps the reduced specs, both runs' output folders and their logs; presets run one at a
 * time, the old tree first. Prints a markdown table: preset | cells compared | cells equal | first
 * difference. Exit 1 when a run fails or a cell differs.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, openSync, closeSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const NEW_TREE = fileURLToPath(new URL('..', import.meta.url));

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

/**
 * The preset cut to one seed and a few minutes of CPU: RL 2 steps of 4 tasks × groups of 4,
 * 2 test tasks per suite × at most 2 samples (2 keeps the sampled, not greedy, evaluation), one
 * in-space configuration per distance band on one task, a 1-task validation split at every step
 * (its sets kept), SFT phases of 4 steps. Methods, harness sets, design, base, exposure, rollout
 * and the loss settings are the preset's.
 */
function reducedSpec(preset: Obj): Obj {
  const s = structuredClone(preset) as Obj & { rl: Obj; evaluation: Obj & { inSpace: Obj; validation?: Obj }; methods: Obj[] };
  s.seeds = [0];
  s.rl.steps = 2;
  s.rl.tasksPerStep = Math.min(4, s.rl.tasksPerStep as number);
  s.rl.groupSize = Math.min(4, s.rl.groupSize as number);
  s.evaluation.testTasks = 2;
  s.evaluation.samples = Math.min(2, s.evaluation.samples as number);
  if (s.evaluation.inSpace.mode === 'stratified') s.evaluation.inSpace.perDistance = 1;
  s.evaluation.inSpace.tasksPerConfig = 1;
  if (s.evaluation.validation) s.evaluation.validation = { ...s.evaluation.validation, tasks: 1, every: 1, samples: 1 };
  for (const m of s.methods) if (m.sft) m.sft = { ...(m.sft as Obj), steps: 4 };
  return s;
}

/** Keys whose values are timings or machine descriptions, never results. */
const TIMING = /^(seconds|ms|tokensPerSec|rolloutMs|updateMs|.*Ms)$/;

/** Put every leaf of `v` under `prefix` into `out`, timings left out. */
function flatten(v: Json | undefined, prefix: string, out: Map<string, string>): void {
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    for (const [k, x] of Object.entries(v)) if (!TIMING.test(k)) flatten(x, `${prefix}.${k}`, out);
  } else if (Array.isArray(v)) v.forEach((x, i) => flatten(x, `${prefix}[${i}]`, out));
  else out.set(prefix, JSON.stringify(v ?? null));
}

/** An episode cell's identity, so a cell is matched by what it is, not by its position. */
function cellKey(e: Obj): string {
  return `${e.taskId}|${e.harnessId}|${e.sample}`;
}

/** Every comparable value of a results.json, by a stable name. */
function cells(results: Obj): Map<string, string> {
  const out = new Map<string, string>();
  for (const k of ['status', 'evalSet', 'evalSetExcluded', 'bases', 'infeasibleCells']) flatten(results[k], k, out);
  for (const r of results.runs as Obj[]) {
    const run = `run[${r.method} s${r.seed}]`;
    const { episodes, ...summary } = r;
    flatten(summary, run, out);
    for (const [phase, sets] of Object.entries((episodes ?? {}) as Obj))
      for (const [set, list] of Object.entries(sets as Obj))
        for (const e of list as Obj[]) out.set(`${run}.episodes.${phase}.${set}[${cellKey(e)}]`, JSON.stringify([e.pass, e.score]));
  }
  for (const c of (results.curves ?? []) as Obj[]) {
    const curve = `curve[${c.method} s${c.seed}]`;
    flatten(c.steps, `${curve}.steps`, out);
    for (const v of (c.validation ?? []) as Obj[]) {
      const { cells: vc, ...rest } = v;
      flatten(rest, `${curve}.validation[step ${v.step}]`, out);
      for (const e of (vc ?? []) as Obj[])
        out.set(`${curve}.validation[step ${v.step}].cells[${cellKey(e)}]`, JSON.stringify([e.pass, e.score]));
    }
  }
  for (const t of (results.trajectories ?? []) as Obj[]) {
    const { turns, tags, ...rest } = t;
    const name = `trajectory[${t.method} s${t.seed} step ${t.step} #${t.index}]`;
    flatten(rest, name, out);
    flatten(tags, `${name}.tags`, out);
    out.set(`${name}.turns`, createHash('sha256').update(JSON.stringify(turns)).digest('hex').slice(0, 16));
  }
  return out;
}

interface Comparison {
  compared: number;
  equal: number;
  first: string;
  differences: string[];
}

/** Cell-for-cell comparison of two results.json; a cell only one side has counts as a difference. */
function compare(oldResults: Obj, newResults: Obj): Comparison {
  const a = cells(oldResults);
  const b = cells(newResults);
  const keys = [...a.keys(), ...[...b.keys()].filter((k) => !a.has(k))];
  const differences: string[] = [];
  for (const k of keys) {
    const x = a.get(k) ?? '(absent)';
    const y = b.get(k) ?? '(absent)';
    if (x !== y) differences.push(`${k}: old ${x}, new ${y}`);
  }
  return { compared: keys.length, equal: keys.length - differences.length, first: differences[0] ?? '', differences };
}

/** Run `tree`'s CLI on a spec file; the log goes to `<out>.log`. */
function runTree(tree: string, specFile: string, out: string): { ok: boolean; seconds: number } {
  rmSync(out, { recursive: true, force: true });
  const log = openSync(`${out}.log`, 'w');
  const t0 = Date.now();
  const r = spawnSync('npm', ['run', '-s', 'hlab', '--', 'run', '--spec', specFile, '--out', out, '--backend', 'wasm'], {
    cwd: tree,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  return { ok: r.status === 0, seconds: (Date.now() - t0) / 1000 };
}

function main(): void {
  const args = process.argv.slice(2);
  const takeFlag = (flag: string): string | undefined => {
    const i = args.indexOf(flag);
    if (i < 0) return undefined;
    const v = args[i + 1];
    args.splice(i, 2);
    return v;
  };
  const oldTree = takeFlag('--old');
  if (!oldTree) {
    console.error('usage: npx tsx scripts/tree_equivalence.ts --old <tree> [--work <dir>] [preset ...]');
    process.exit(2);
  }
  const work = resolve(takeFlag('--work') ?? join(tmpdir(), `tree-equivalence-${process.pid}`));
  const presetDir = join(NEW_TREE, 'public/presets');
  const presets = args.length
    ? args
    : readdirSync(presetDir)
        .filter((f) => f.endsWith('.json'))
        .map((f) => f.slice(0, -5))
        .sort();
  mkdirSync(work, { recursive: true });
  console.error(`old tree ${resolve(oldTree)}, new tree ${NEW_TREE}, work ${work}`);

  const rows: string[] = ['| preset | cells compared | cells equal | first difference |', '| --- | ---: | ---: | --- |'];
  let failed = false;
  for (const name of presets) {
    const spec = reducedSpec(JSON.parse(readFileSync(join(presetDir, `${name}.json`), 'utf8')) as Obj);
    const specFile = join(work, `${name}.spec.json`);
    writeFileSync(specFile, `${JSON.stringify(spec, null, 2)}\n`);
    const runs = { old: resolve(oldTree), new: NEW_TREE };
    const status: string[] = [];
    for (const [side, tree] of Object.entries(runs)) {
      const r = runTree(tree, specFile, join(work, `${name}.${side}`));
      status.push(`${side} ${r.ok ? 'ok' : 'FAILED'} ${r.seconds.toFixed(0)} s`);
      if (!r.ok) failed = true;
    }
    console.error(`${name}: ${status.join(', ')}`);
    if (status.some((s) => s.includes('FAILED'))) {
      rows.push(`| ${name} | – | – | a run failed (${status.join(', ')}); logs in ${work} |`);
      continue;
    }
    const read = (side: string): Obj => JSON.parse(readFileSync(join(work, `${name}.${side}`, 'results.json'), 'utf8')) as Obj;
    const c = compare(read('old'), read('new'));
    writeFileSync(join(work, `${name}.differences.txt`), c.differences.join('\n') + (c.differences.length ? '\n' : ''));
    if (c.differences.length) failed = true;
    const first = c.first ? `${c.first.replaceAll('|', '\\|')} (${c.differences.length} differ)` : 'none';
    rows.push(`| ${name} | ${c.compared} | ${c.equal} | ${first} |`);
    console.error(`${name}: ${c.equal}/${c.compared} equal`);
  }
  console.log(rows.join('\n'));
  process.exit(failed ? 1 : 0);
}

main();

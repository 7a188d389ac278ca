/**
 * Shared machinery of the task suites: the family definition, the suite builder, generator-
 * based canonical solvers and the sub-checks most families share.
 *
 * A family builds, from a seeded `Rng` and a tier, the instruction, the initial files and a
 * hidden `spec` (the expected result). The spec is never stored in the Task: the verifier and
 * the solver rebuild it from (suite, family, tier, seed), which is deterministic, so a Task
 * stays plain JSON and nothing the verifier knows can leak into what the policy sees.
 */
import { Rng } from '../util/rng';
import { stateFromFiles } from '../sandbox/sandbox';
import { normText } from '../sandbox/services';
import type { SandboxState, ToolCall, ToolResult, Transcript } from '../sandbox/types';
import type { CanonicalSolver, CheckKind, FamilyInfo, SubCheck, SuiteName, Task, TaskSuite, Tier, Verification } from './types';

export const TIERS: readonly Tier[] = [1, 2, 3];

/** What a family's generator returns for one (tier, seed). */
interface Built<S> {
  instruction: string;
  /** Initial files, absolute paths; parent directories are implied. */
  files: Record<string, string>;
  /** Extra (possibly empty) directories of the initial workspace. */
  dirs?: string[];
  /** The hidden expected result, for the verifier and the solver only. */
  spec: S;
}

/** The canonical solver as a generator: `const r = yield call` receives that call's result. */
type SolverScript = Generator<ToolCall, ToolCall | undefined, ToolResult>;

interface Family<S> {
  info: FamilyInfo;
  build(rng: Rng, tier: Tier): Built<S>;
  checks(spec: S, task: Task, final: SandboxState, transcript: Transcript): SubCheck[];
  solve(spec: S, task: Task): SolverScript;
}

/** Erase the spec type so families of different specs live in one array. */
export function family<S>(f: Family<S>): Family<unknown> {
  return f as unknown as Family<unknown>;
}

/**
 * Factor on the progress when any preservation check fails (a file harmed, a stray file, an
 * existing event or item lost). Below 1, so that the same progress with damage always scores
 * less than without; well below, so that a destructive shortcut (delete everything in /work to
 * remove the .tmp files) earns at most a quarter of the honest result.
 */
const PRESERVATION_PENALTY = 0.25;

/** Factor on the progress when the episode did not call finish (truncated by the turn budget). */
const UNFINISHED_FACTOR = 0.5;

/**
 * The verdict of a list of sub-checks. pass = all pass (an empty list never passes);
 *
 *   score = progress · (preserved ? 1 : PRESERVATION_PENALTY) · (finished ? 1 : UNFINISHED_FACTOR)
 *
 * with progress = mean over the progress checks of 1 (pass) or the check's `credit` (the fraction
 * of its items done, 0 when absent), so moving 2 of 6 files counts 1/3 of that check. The plain mean of all
 * sub-checks (ClawGym's recipe) paid 0.4–0.5 for doing nothing, since the preservation checks
 * and nothing else hold on the initial state; here they gate the progress instead of adding to
 * it, so the initial state scores 0, a passing episode 1, and score = 1 iff pass (every factor
 * is 1 only when every check passes).
 * @throws Error when a family lists no progress check (a task with nothing to do is a bug).
 */
export function verification(checks: SubCheck[]): Verification {
  const prog = checks.filter((c) => c.kind === 'progress');
  if (checks.length > 0 && prog.length === 0)
    throw new Error(`verification: no progress check among [${checks.map((c) => c.name).join(', ')}]`);
  const progress = prog.length ? prog.reduce((a, c) => a + (c.pass ? 1 : (c.credit ?? 0)), 0) / prog.length : 0;
  const preserved = checks.every((c) => c.kind !== 'preservation' || c.pass);
  const finished = checks.every((c) => c.kind !== 'completion' || c.pass);
  const score = progress * (preserved ? 1 : PRESERVATION_PENALTY) * (finished ? 1 : UNFINISHED_FACTOR);
  return { checks, score, pass: checks.length > 0 && checks.every((c) => c.pass), progress, preserved, finished };
}

/**
 * Build a TaskSuite from families. `generate` uses the stream `Rng.derive(seed, suite,
 * family, tier)`, so tasks of different families or tiers with the same seed are independent.
 * @throws Error from generate/verify/solver naming an unknown family, a bad tier or seed, or
 *   a task of another suite.
 */
export function makeSuite(name: SuiteName, families: Family<unknown>[]): TaskSuite {
  const byName = new Map(families.map((f) => [f.info.name, f]));
  const fam = (family: string): Family<unknown> => {
    const f = byName.get(family);
    if (!f) throw new Error(`suite '${name}': unknown family '${family}'; families: ${[...byName.keys()].join(', ')}`);
    return f;
  };
  const checkTier = (tier: unknown) => {
    if (tier !== 1 && tier !== 2 && tier !== 3) throw new Error(`suite '${name}': tier must be 1, 2 or 3, got ${JSON.stringify(tier)}`);
  };
  const checkSeed = (seed: unknown) => {
    if (!Number.isSafeInteger(seed) || (seed as number) < 0)
      throw new Error(`suite '${name}': seed must be a non-negative safe integer, got ${JSON.stringify(seed)}`);
  };
  const rebuild = (task: Task) => {
    if (task.suite !== name) throw new Error(`suite '${name}': task ${task.id} belongs to suite '${task.suite}'`);
    checkTier(task.tier);
    checkSeed(task.seed);
    const f = fam(task.family);
    return { f, built: f.build(Rng.derive(task.seed, name, task.family, task.tier), task.tier) };
  };
  return {
    name,
    families: families.map((f) => f.info),
    generate(family: string, tier: Tier, seed: number): Task {
      const f = fam(family);
      checkTier(tier);
      checkSeed(seed);
      const b = f.build(Rng.derive(seed, name, family, tier), tier);
      return {
        id: `${name}/${family}/t${tier}/${seed}`,
        suite: name,
        family,
        tier,
        seed,
        instruction: b.instruction,
        initial: stateFromFiles(b.files, b.dirs ?? []),
        needsStateTracking: f.info.needsStateTracking,
        hasRecoverableError: f.info.hasRecoverableError,
      };
    },
    verify(task: Task, final: SandboxState, transcript: Transcript): Verification {
      const { f, built } = rebuild(task);
      return verification(f.checks(built.spec, task, final, transcript));
    },
    solver(task: Task): CanonicalSolver {
      const { f, built } = rebuild(task);
      return scriptSolver(f.solve(built.spec, task));
    },
  };
}

/**
 * Wrap a generator script as a CanonicalSolver. After the script yields `finish` (or ends),
 * every further `next` returns that same finish call.
 */
function scriptSolver(script: SolverScript): CanonicalSolver {
  let started = false;
  let done: ToolCall | null = null;
  return {
    next(last: ToolResult | null): ToolCall {
      if (done) return done;
      const r = started ? script.next(last as ToolResult) : script.next(undefined as unknown as ToolResult);
      started = true;
      const call = r.value ?? { tool: 'finish', args: {} };
      if (r.done || call.tool === 'finish') done = call;
      return call;
    },
  };
}

// ------------------------------------------------------------------ solver building blocks

export const call = (tool: ToolCall['tool'], args: Record<string, string> = {}): ToolCall => ({ tool, args });

/** Paths named by a `search` output (name hits and line hits), in output order, unique. */
export function searchHits(output: string): { path: string; line?: number; text?: string }[] {
  const out: { path: string; line?: number; text?: string }[] = [];
  for (const l of output.split('\n')) {
    const m = /^(\/[^:\n]*?)(?::(\d+): (.*))?$/.exec(l);
    if (m) out.push(m[2] ? { path: m[1], line: Number(m[2]), text: m[3] } : { path: m[1] });
  }
  return out;
}

/** Entries of a `list` output: absolute paths; directories end with '/'. */
export function listEntries(output: string): string[] {
  return output.split('\n').filter((l) => l.startsWith('/'));
}

/**
 * Read `path`; when it is missing, search the workspace for its base name and read the first
 * file with that name (the recoverable-error pattern). Returns the path read and its content.
 * @throws Error when nothing is found (the task generator guarantees the file exists).
 */
export function* locate(path: string): Generator<ToolCall, { path: string; content: string }, ToolResult> {
  const r = yield call('read', { path });
  if (r.ok) return { path, content: r.output };
  const base = path.slice(path.lastIndexOf('/') + 1);
  const s = yield call('search', { query: base });
  const hit = searchHits(s.output).find((h) => h.line === undefined && h.path.endsWith('/' + base));
  if (!hit) throw new Error(`solver: could not locate ${path} (search output: ${s.output.slice(0, 200)})`);
  const r2 = yield call('read', { path: hit.path });
  if (!r2.ok) throw new Error(`solver: could not read ${hit.path}: ${r2.error?.message}`);
  return { path: hit.path, content: r2.output };
}

/** Read a file the task guarantees; throws (a solver bug) when the read fails. */
export function* mustRead(path: string): Generator<ToolCall, string, ToolResult> {
  const r = yield call('read', { path });
  if (!r.ok) throw new Error(`solver: read ${path} failed: ${r.error?.message}`);
  return r.output;
}

// ------------------------------------------------------------------------- shared checks

/** A sub-check of `kind` (the detail is kept only when it fails). */
const checkOf = (kind: CheckKind, name: string, pass: boolean, detail?: string): SubCheck =>
  detail === undefined || pass ? { name, pass, kind } : { name, pass, kind, detail };

/** A progress check: part of what the task asks; must fail on the task's initial state. */
export const check = (name: string, pass: boolean, detail?: string): SubCheck => checkOf('progress', name, pass, detail);

/**
 * A progress check over `total` items of which `done` are done: passes when all are, and
 * otherwise earns the fraction done. Both must be 0 on the initial state.
 */
export function partCheck(name: string, done: number, total: number, detail?: string): SubCheck {
  const c = check(name, done === total, detail);
  return c.pass || total === 0 ? c : { ...c, credit: done / total };
}

/** A preservation check: nothing else harmed; holds on the initial state. */
export const keepCheck = (name: string, pass: boolean, detail?: string): SubCheck => checkOf('preservation', name, pass, detail);

/** The episode ended with `finish`. */
export function finishedCheck(t: Transcript): SubCheck {
  return checkOf('completion', 'finished', t.answer !== null, 'the episode never called finish');
}

/** Every initial file outside `changed` is still there with the same content. */
export function intactCheck(initial: SandboxState, final: SandboxState, changed: Iterable<string> = []): SubCheck {
  const skip = new Set(changed);
  const bad = Object.keys(initial.files).filter((p) => !skip.has(p) && final.files[p] !== initial.files[p]);
  return keepCheck('inputs_intact', bad.length === 0, `changed or removed: ${bad.join(', ')}`);
}

/** No file exists in the final state except initial files and the `allowed` outputs. */
export function noExtraCheck(initial: SandboxState, final: SandboxState, allowed: Iterable<string> = []): SubCheck {
  const ok = new Set([...Object.keys(initial.files), ...allowed]);
  const extra = Object.keys(final.files).filter((p) => !ok.has(p));
  return keepCheck('no_extra_files', extra.length === 0, `unexpected files: ${extra.join(', ')}`);
}

/** The file at `path` exists and its `normText` equals `expected`'s. */
export function textCheck(name: string, final: SandboxState, path: string, expected: string): SubCheck {
  const got = final.files[path];
  if (got === undefined) return check(name, false, `${path} does not exist`);
  return check(
    name,
    normText(got) === normText(expected),
    `${path}: expected ${JSON.stringify(normText(expected))}, got ${JSON.stringify(normText(got).slice(0, 120))}`,
  );
}

/** The file at `path` exists. */
export function existsCheck(name: string, final: SandboxState, path: string): SubCheck {
  return check(name, final.files[path] !== undefined, `${path} does not exist`);
}

/** All integers in `text` (digits with optional '-' inside, like 555-0142, kept whole). */
export function numberTokens(text: string): string[] {
  return text.match(/\d+(?:-\d+)*/g) ?? [];
}

// ---------------------------------------------------------------------- generation pools

export const NAMES = [
  'Ana',
  'Bo',
  'Cleo',
  'Dan',
  'Eve',
  'Finn',
  'Gus',
  'Hana',
  'Ivo',
  'Jo',
  'Kai',
  'Lea',
  'Max',
  'Nia',
  'Oli',
  'Pia',
  'Ray',
  'Sam',
  'Tia',
  'Uma',
  'Vic',
  'Wes',
  'Yan',
  'Zoe',
] as const;
export const WORDS = [
  'apple',
  'pear',
  'plum',
  'fig',
  'kiwi',
  'lime',
  'lemon',
  'mango',
  'grape',
  'melon',
  'peach',
  'berry',
  'olive',
  'date',
  'cherry',
  'guava',
] as const;
export const THINGS = ['lamp', 'desk', 'chair', 'mug', 'pen', 'bag', 'fan', 'clock', 'radio', 'plant', 'sofa', 'rug'] as const;
export const TEAMS = ['red', 'blue', 'green', 'gold', 'gray'] as const;

/** `k` distinct elements of `xs` in random order. @throws Error when k > xs.length. */
export function sample<T>(rng: Rng, xs: readonly T[], k: number): T[] {
  if (k > xs.length) throw new Error(`sample: k=${k} > ${xs.length} items`);
  return rng.shuffle(xs).slice(0, k);
}

/** A date in 2026 as YYYY-MM-DD (days 1–28, so every month is valid). */
export function randomDate(rng: Rng): string {
  return `2026-${String(rng.range(1, 12)).padStart(2, '0')}-${String(rng.range(1, 28)).padStart(2, '0')}`;
}

/** An hour as HH:00 (24 h, zero-padded). */
export function hour(h: number): string {
  return `${String(h).padStart(2, '0')}:00`;
}

/** Lower-case email of a first name at a domain. */
export function emailOf(name: string, domain = 'mail.test'): string {
  return `${name.toLowerCase()}@${domain}`;
}

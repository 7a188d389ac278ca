/**
 * The partial-credit score (src/tasks/common.ts `verification`): progress gated by preservation
 * and completion, so that inaction earns nothing. Per family and tier:
 *  - doing nothing (initial state, no answer or an idle 'done') scores 0;
 *  - the canonical solver's episode scores 1 (and score = 1 iff pass);
 *  - partial work scores strictly between (all the work without finish; the first of several
 *    state changes only, with finish);
 *  - the same progress plus damage (a protected file deleted, or an unrelated to-do item lost)
 *    scores strictly less than without.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SUITES, TIERS, runSolver } from '../../src/tasks/index';
import { verification } from '../../src/tasks/common';

/** The score's factors (common.ts verification): damage keeps a quarter, no finish half. */
const PRESERVATION_PENALTY = 0.25;
const UNFINISHED_FACTOR = 0.5;
import { Sandbox } from '../../src/sandbox/sandbox';
import { parseTodos } from '../../src/sandbox/services';
import type { SandboxState, ToolCall } from '../../src/sandbox/types';
import type { Task, TaskSuite } from '../../src/tasks/types';

type Files = Record<string, string>;
const dirsOf = (files: Files): string[] => {
  const d = new Set(['/']);
  for (const p of Object.keys(files)) for (let i = p.indexOf('/', 1); i > 0; i = p.indexOf('/', i + 1)) d.add(p.slice(0, i));
  return [...d].sort();
};
const stateOf = (files: Files): SandboxState => ({ version: 1, files, dirs: dirsOf(files) });
const MUTATING = new Set<ToolCall['tool']>(['write', 'append', 'move', 'delete']);
const SEEDS = [3, 11, 1_000_021];

/** Run the canonical solver, stopping after `stopAfter` state-changing calls (all when absent). */
function solverPrefix(suite: TaskSuite, task: Task, stopAfter = Infinity): { files: Files; answer: string | null; changes: number } {
  const sb = Sandbox.fromState(task.initial);
  const solver = suite.solver(task);
  let last = null;
  let changes = 0;
  for (let i = 0; i < 50; i++) {
    const c = solver.next(last);
    if (c.tool === 'finish') return { files: sb.state().files, answer: c.args.answer ?? '', changes };
    last = sb.exec(c);
    if (MUTATING.has(c.tool) && last.ok && ++changes >= stopAfter) return { files: sb.state().files, answer: null, changes };
  }
  throw new Error(`${task.id}: solver did not finish`);
}

const verifyFiles = (suite: TaskSuite, task: Task, files: Files, answer: string | null) =>
  suite.verify(task, stateOf(files), { steps: [], answer });

/**
 * Damage that keeps the progress checks' outcomes: delete a file the full solution leaves
 * untouched (`done`: its final files), else drop an unrelated to-do item.
 */
function damage(task: Task, files: Files, done: Files): Files | null {
  const untouched = Object.keys(task.initial.files).find((p) => done[p] === task.initial.files[p] && files[p] === task.initial.files[p]);
  if (untouched) {
    const f = { ...files };
    delete f[untouched];
    return f;
  }
  if (task.family === 'todo-update' && task.tier < 3) {
    const target = /"([a-z ]+)"/g;
    const named = [...task.instruction.matchAll(target)].map((m) => m[1]);
    for (const [p, text] of Object.entries(files)) {
      const item = parseTodos(text).find((it) => !named.includes(it.text));
      if (item)
        return {
          ...files,
          [p]: text
            .split('\n')
            .filter((l) => !l.endsWith(` ${item.text}`))
            .join('\n'),
        };
    }
  }
  return null;
}

describe.each(Object.values(SUITES).map((s) => [s.name, s] as const))('suite %s: partial-credit score', (_, suite) => {
  it.each(suite.families.map((f) => [f.name] as const))(
    '%s: nothing → 0, expert → 1, partial in (0, 1), damage < the same progress without',
    (name) => {
      let partials = 0;
      let damaged = 0;
      for (const tier of TIERS) {
        for (const seed of SEEDS) {
          const task = suite.generate(name, tier, seed);
          for (const answer of [null, 'done', '']) {
            const v = suite.verify(task, task.initial, { steps: [], answer });
            expect(
              v.score,
              `${task.id}: nothing, answer ${JSON.stringify(answer)}; passing progress checks: ${v.checks.filter((c) => c.kind === 'progress' && c.pass).map((c) => c.name)}`,
            ).toBe(0);
            expect(v.preserved, `${task.id}: the initial state breaks no preservation check`).toBe(true);
          }
          const run = runSolver(suite, task);
          expect(run.verification.score, task.id).toBe(1);
          expect(run.verification.pass).toBe(true);

          const full = solverPrefix(suite, task);
          const between = (score: number) => score > 0 && score < 1;
          // All the work without finish (and so without the final answer).
          const unfinished = verifyFiles(suite, task, full.files, null);
          expect(unfinished.score, `${task.id}: all the work without finish`).toBe(UNFINISHED_FACTOR * unfinished.progress);
          expect(unfinished.score).toBeLessThan(1);
          if (between(unfinished.score)) partials++;
          // Every written output present but wrong.
          const garbled = { ...full.files };
          const outs = Object.keys(full.files).filter(
            (p) => task.initial.files[p] === undefined && !Object.values(task.initial.files).includes(full.files[p]),
          );
          for (const p of outs) garbled[p] = 'x\n';
          if (outs.length) {
            const v = verifyFiles(suite, task, garbled, full.answer);
            expect(v.score, `${task.id}: outputs garbled`).toBeLessThan(1);
            if (between(v.score)) partials++;
          }
          if (full.changes >= 2) {
            const first = solverPrefix(suite, task, 1);
            const v = verifyFiles(suite, task, first.files, full.answer);
            expect(v.preserved, `${task.id}: the solver's first step harms nothing`).toBe(true);
            expect(v.score, `${task.id}: first of ${full.changes} changes`).toBeGreaterThan(0);
            expect(v.score, `${task.id}: first of ${full.changes} changes`).toBeLessThan(1);
            partials++;
          }

          for (const state of [full, full.changes >= 2 ? solverPrefix(suite, task, 1) : null]) {
            if (!state) continue;
            const hurt = damage(task, state.files, full.files);
            if (!hurt) continue;
            const clean = verifyFiles(suite, task, state.files, full.answer);
            const bad = verifyFiles(suite, task, hurt, full.answer);
            expect(bad.progress, `${task.id}: damage leaves progress as it was`).toBe(clean.progress);
            expect(bad.preserved, `${task.id}: damage is seen`).toBe(false);
            expect(bad.score, `${task.id}: damage scores below the same progress`).toBeLessThan(clean.score);
            expect(bad.score).toBeCloseTo(clean.score * PRESERVATION_PENALTY, 12);
            damaged++;
          }
        }
      }
      // Every family has multi-step tiers and something to protect at some tier.
      expect(partials, name).toBeGreaterThanOrEqual(6);
      expect(damaged, name).toBeGreaterThanOrEqual(6);
    },
  );
});

describe('verification: the score formula', () => {
  const chk = (kind: 'progress' | 'preservation' | 'completion', pass: boolean, i = 0) => ({ name: `${kind}${i}`, kind, pass });

  it('hand-computed cases', () => {
    expect(verification([chk('progress', true), chk('progress', false), chk('preservation', true), chk('completion', true)]).score).toBe(
      0.5,
    );
    expect(verification([chk('progress', true), chk('progress', false), chk('preservation', false), chk('completion', true)]).score).toBe(
      0.5 * PRESERVATION_PENALTY,
    );
    expect(verification([chk('progress', true), chk('preservation', false), chk('completion', false)]).score).toBe(
      PRESERVATION_PENALTY * UNFINISHED_FACTOR,
    );
    expect(verification([chk('progress', false), chk('preservation', true), chk('completion', true)]).score).toBe(0);
    expect(verification([]).pass).toBe(false);
    expect(() => verification([chk('preservation', true), chk('completion', true)])).toThrow(/no progress check/);
  });

  it('property: score ∈ [0, 1], score = 1 iff pass, monotone in each check', () => {
    const kinds = fc.constantFrom('progress' as const, 'preservation' as const, 'completion' as const);
    fc.assert(
      fc.property(fc.array(fc.record({ kind: kinds, pass: fc.boolean() }), { minLength: 1, maxLength: 12 }), fc.nat(11), (cs, k) => {
        const checks = [{ kind: 'progress' as const, pass: false }, ...cs].map((c, i) => ({ ...c, name: `c${i}` }));
        const v = verification(checks);
        expect(v.score).toBeGreaterThanOrEqual(0);
        expect(v.score).toBeLessThanOrEqual(1);
        expect(v.score === 1).toBe(v.pass);
        // Turning one failing check into a passing one never lowers the score.
        const j = k % checks.length;
        const better = verification(checks.map((c, i) => (i === j ? { ...c, pass: true } : c)));
        expect(better.score).toBeGreaterThanOrEqual(v.score);
      }),
      { numRuns: 300, seed: 17 },
    );
  });

  it('property: on random tasks, doing nothing scores 0 and the solver scores 1', () => {
    const suites = Object.values(SUITES);
    fc.assert(
      fc.property(fc.nat(suites.length - 1), fc.nat(5), fc.constantFrom(...TIERS), fc.nat(1_999_999), (si, fi, tier, seed) => {
        const suite = suites[si];
        const task = suite.generate(suite.families[fi].name, tier, seed);
        expect(suite.verify(task, task.initial, { steps: [], answer: null }).score).toBe(0);
        expect(runSolver(suite, task).verification.score).toBe(1);
      }),
      { numRuns: 200, seed: 5 },
    );
  });
});

// The plan of a run: strategies → training harnesses, each task's K harnesses used
// round-robin over the steps that draw it, seeded task draws, stratified in-space eval set.
import { describe, expect, it } from 'vitest';
import { parseSpec, type ExperimentSpec, type MethodSpec } from '../../src/experiment/spec';
import { getPreset } from '../../src/experiment/presets';
import {
  inSpaceEvalSet,
  inSpaceTasks,
  methodDesign,
  makeSchedule,
  mixOverlapWarnings,
  plannedRuns,
  scheduleCoverage,
  specConsistencyIssues,
  stepTasks,
  taskAssignments,
  testTasks,
  trainingHarnesses,
  trainPool,
  validationTasks,
} from '../../src/experiment/plan';
import { DEFAULT_MIX_SPEC, resolveMix } from '../../src/pretrain/mix';
import { hammingDistance, selectTrainingOA, BASE_HARNESS } from '../../src/design';
import { SMOKE_SPEC_JSON } from './lib/smoke_spec';

const quick = parseSpec(structuredClone(SMOKE_SPEC_JSON), 'quick');
const method = (m: Partial<MethodSpec>): MethodSpec => ({ name: 'm', harnesses: 'scaling', K: 4, algorithm: 'grpo', ...m }) as MethodSpec;

describe('experiment plan', () => {
  it('maxTier restricts train and test tasks to tiers ≤ maxTier, balanced over families; 3 keeps the unrestricted ids', () => {
    const tierOf = (id: string) => Number(id.split('/')[2].slice(1));
    const familyOf = (id: string) => id.split('/')[1];
    const all = parseSpec({ ...quick, maxTier: 3 }, 'all');
    const t1 = parseSpec({ ...quick, maxTier: 1 }, 't1');
    for (const ids of [trainPool(t1, 0, 24), testTasks(t1, 0)]) {
      expect(ids.every((id) => tierOf(id) === 1)).toBe(true);
      const fams = new Map<string, number>();
      for (const id of ids) fams.set(familyOf(id), (fams.get(familyOf(id)) ?? 0) + 1);
      expect(Math.max(...fams.values()) - Math.min(...fams.values())).toBeLessThanOrEqual(1);
    }
    expect(testTasks(t1, 0)).toHaveLength(t1.evaluation.testTasks * t1.suites.length);
    expect(new Set(testTasks(all, 0).map(tierOf)).size).toBeGreaterThan(1);
    // The default is 3 (specs without the field are unchanged).
    const { maxTier: _m, ...noField } = quick;
    expect(parseSpec(noField, 'no field').maxTier).toBe(3);
    expect(() => parseSpec({ ...quick, maxTier: 4 }, 'bad')).toThrow(/maxTier/);
  });

  it('spec.families restricts train, validation and test tasks to those families, balanced; a bad family names the field', () => {
    const familyOf = (id: string) => id.split('/').slice(0, 2).join('/');
    const fams = ['workspace/organize', 'workspace/misplaced', 'errands/recall'];
    const s = parseSpec({ ...quick, suites: ['workspace', 'errands'], maxTier: 1, families: fams }, 'fam');
    const pool = trainPool(s, 0, 30);
    for (const ids of [pool, testTasks(s, 0), validationTasks(s, 0, pool, 30)]) {
      const count = new Map<string, number>();
      for (const id of ids) count.set(familyOf(id), (count.get(familyOf(id)) ?? 0) + 1);
      expect([...count.keys()].sort()).toEqual([...fams].sort());
      // Balanced within a suite: workspace's two families within 1 of each other.
      expect(Math.abs(count.get('workspace/organize')! - count.get('workspace/misplaced')!)).toBeLessThanOrEqual(1);
    }
    // Without the field every family is drawn (and the ids are those of before the field existed).
    const every = parseSpec({ ...quick, suites: ['workspace', 'errands'], maxTier: 1 }, 'every');
    expect(new Set(trainPool(every, 0, 30).map(familyOf)).size).toBe(12);
    expect(() => parseSpec({ ...quick, families: ['workspace/sorting'] }, 'x')).toThrow(
      /spec\.families\[0\]: 'workspace\/sorting': no family 'sorting' in suite 'workspace'/,
    );
    expect(() => parseSpec({ ...quick, families: ['errands/recall'] }, 'x')).toThrow(/suite 'errands' is not in spec\.suites/);
    expect(() => parseSpec({ ...quick, suites: ['workspace', 'errands'], families: ['errands/recall'] }, 'x')).toThrow(
      /keeps no family of suite 'workspace'/,
    );
    expect(() => parseSpec({ ...quick, families: ['organize'] }, 'x')).toThrow(/spec\.families\[0\]: expected 'suite\/family'/);
  });
  it('rl.trainTasks sets the train pool per suite (default 16); a bad value names the field', () => {
    // tasksUpTo draws 3n tasks balanced over family × tier and keeps tier ≤ maxTier: about n.
    const small = trainPool(quick, 0);
    expect(small.length).toBeGreaterThanOrEqual(15 * quick.suites.length);
    expect(small.length).toBeLessThanOrEqual(16 * quick.suites.length);
    const big = parseSpec({ ...quick, rl: { ...quick.rl, trainTasks: 200 } }, 'big');
    const pool = trainPool(big, 0);
    expect(pool.length).toBeGreaterThanOrEqual(195 * big.suites.length);
    expect(pool.length).toBeLessThanOrEqual(200 * big.suites.length);
    expect(new Set(pool).size).toBe(pool.length);
    expect(() => parseSpec({ ...quick, rl: { ...quick.rl, trainTasks: 0 } }, 'bad')).toThrow(/trainTasks/);
  });

  it('a training set sharing configurations with the pretraining mix is warned about, per method; the base harness alone is not', () => {
    const selection = getPreset('selection');
    const mix = resolveMix(DEFAULT_MIX_SPEC, 1).harnesses;
    const rk = selection.methods.find((m) => m.harnesses === 'random-k')!;
    const random = [...new Set(selection.seeds.flatMap((seed) => trainingHarnesses(selection, rk, seed)))];
    const shared = random.filter((h) => h !== BASE_HARNESS && mix.includes(h));
    const ws = mixOverlapWarnings(selection, mix);
    // OA-18 never shares a configuration with the mix but the base harness; random-18 does here.
    expect(shared.length).toBeGreaterThan(0);
    expect(ws).toHaveLength(1);
    expect(ws[0]).toContain(`method 'random-18': ${shared.length} of its training configurations`);
    for (const h of shared) expect(ws[0]).toContain(h);
    expect(mixOverlapWarnings(selection, [BASE_HARNESS])).toEqual([]);
    expect(mixOverlapWarnings(quick, mix)).toEqual([]);
  });

  it('scaling: the schedule uses each task’s K locality harnesses round-robin over the steps that draw it', () => {
    const pool = trainPool(quick, 0);
    const oa = selectTrainingOA().training;
    const as = taskAssignments(quick, method({ K: 4 }), pool, 0);
    const sched = makeSchedule(as);
    const seen = new Map<string, string[]>();
    for (let step = 1; step <= 60; step++) {
      for (const t of stepTasks(pool, quick.rl.tasksPerStep, 0, step)) seen.set(t, [...(seen.get(t) ?? []), sched.next(t)]);
    }
    expect(seen.size).toBe(pool.length);
    for (const a of as) {
      expect(a.harnesses).toHaveLength(4);
      expect(new Set(a.harnesses).size).toBe(4);
      for (const h of a.harnesses) expect(oa).toContain(h);
      // Locality: the others are the nearest to the anchor (non-decreasing distance, no nearer one left out).
      const d = a.harnesses.map((h) => hammingDistance(a.harnesses[0], h));
      expect(d).toEqual(a.distances);
      const rest = oa.filter((h) => !a.harnesses.includes(h)).map((h) => hammingDistance(a.harnesses[0], h));
      expect(Math.min(...rest)).toBeGreaterThanOrEqual(Math.max(...d));
      const draws = seen.get(String(a.task))!;
      expect(draws.length).toBeGreaterThanOrEqual(4);
      draws.forEach((h, k) => expect(h).toBe(a.harnesses[k % 4]));
    }
  });

  it('the schedule state round-trips (resume continues the rotation)', () => {
    const pool = trainPool(quick, 1);
    const as = taskAssignments(quick, method({ K: 3 }), pool, 0);
    const a = makeSchedule(as);
    for (let s = 1; s <= 5; s++) for (const t of stepTasks(pool, 4, 1, s)) a.next(t);
    const b = makeSchedule(as, a.state());
    for (let s = 6; s <= 9; s++) for (const t of stepTasks(pool, 4, 1, s)) expect(b.next(t)).toBe(a.next(t));
  });

  it('strategies pick the right training harnesses', () => {
    expect(trainingHarnesses(quick, method({ harnesses: 'single' }), 0)).toEqual([BASE_HARNESS]);
    expect(trainingHarnesses(quick, method({ harnesses: 'blackbox', blackbox: 'bb-coding-cli' }), 0)).toEqual(['bb-coding-cli']);
    expect(trainingHarnesses(quick, method({ harnesses: 'none' }), 0)).toEqual([]);
    expect(trainingHarnesses(quick, method({ harnesses: 'scaling' }), 0)).toEqual(selectTrainingOA().training);
    const rk = trainingHarnesses({ ...quick, design: { ...quick.design, k: 7 } } as ExperimentSpec, method({ harnesses: 'random-k' }), 0);
    expect(rk).toHaveLength(7);
    expect(rk).not.toEqual(selectTrainingOA().training.slice(0, 7));
    const pool = trainPool(quick, 0);
    const single = taskAssignments(quick, method({ harnesses: 'single' }), pool, 0);
    expect(single.every((a) => a.harnesses.length === 1 && a.harnesses[0] === BASE_HARNESS)).toBe(true);
    // Random assignment differs from locality for some task (same anchors, other companions).
    const loc = taskAssignments(quick, method({ harnesses: 'scaling', K: 4 }), pool, 0);
    const rnd = taskAssignments(quick, method({ harnesses: 'random-assignment', K: 4 }), pool, 0);
    expect(rnd.some((a, i) => a.harnesses.join() !== loc[i].harnesses.join())).toBe(true);
    expect(() => taskAssignments(quick, method({ K: 19 }), pool, 0)).toThrow(/K = 19 exceeds the training-set size 18/);
  });

  it('step task draws are seeded, distinct within a step, and depend only on (seed, step)', () => {
    const pool = trainPool(quick, 0);
    const a = stepTasks(pool, 4, 0, 3);
    expect(new Set(a).size).toBe(4);
    expect(stepTasks(pool, 4, 0, 3)).toEqual(a);
    expect(stepTasks(pool, 4, 0, 4)).not.toEqual(a);
    expect(stepTasks(pool, 4, 1, 3)).not.toEqual(a);
  });

  it('the stratified in-space set takes perDistance held-out configurations per distance, all held out', () => {
    const d = selectTrainingOA();
    const set = inSpaceEvalSet(quick);
    const held = new Map(d.heldOut.map((h) => [h.id, h.distance]));
    const counts = new Map<number, number>();
    for (const id of set.ids) {
      expect(held.has(id)).toBe(true);
      counts.set(held.get(id)!, (counts.get(held.get(id)!) ?? 0) + 1);
    }
    const distances = new Set(d.heldOut.map((h) => h.distance));
    expect(counts.size).toBe(distances.size);
    for (const c of counts.values()) expect(c).toBeLessThanOrEqual(2);
    expect(set.description).toMatch(/stratified.*2 per distance, seed 0/);
    const all = inSpaceEvalSet({ ...quick, evaluation: { ...quick.evaluation, inSpace: { mode: 'all' } } } as ExperimentSpec);
    expect(all.ids).toHaveLength(243 - 18);
  });

  it('no method is evaluated in-space on a configuration any method of the spec trains on (random-18 vs the OA)', () => {
    const sel = getPreset('selection');
    const all = { ...sel, evaluation: { ...sel.evaluation, inSpace: { mode: 'all' as const } } } as ExperimentSpec;
    const rk = sel.methods.find((m) => m.harnesses === 'random-k')!;
    const random = new Set(sel.seeds.flatMap((seed) => trainingHarnesses(all, rk, seed)));
    const set = inSpaceEvalSet(all);
    const cut = [...random].filter((id) => selectTrainingOA().heldOut.some((h) => h.id === id)).length;
    expect(cut).toBeGreaterThan(0);
    expect(set.ids).toHaveLength(243 - 18 - cut);
    for (const m of sel.methods)
      for (const seed of sel.seeds) for (const id of trainingHarnesses(all, m, seed)) expect(set.ids).not.toContain(id);
    expect(set.excluded).toEqual({ trainingSets: cut, pretrainMix: 0, mix: 'no mix recorded' });
    expect(set.description).toContain(
      `left out: ${cut} held-out configurations a method trains on, 0 in the base checkpoint's pretraining mix (no mix recorded)`,
    );
    const strat = inSpaceEvalSet(sel);
    for (const id of strat.ids) expect(random.has(id)).toBe(false);
  });
});

describe('plannedRuns: the runner order and each run’s progress units', () => {
  it('seeds outer, methods inner; an RL step, an evaluation and an SFT phase are one unit each; an sft method takes no RL step', () => {
    const bb = getPreset('blackbox');
    const runs = plannedRuns(bb, 60);
    expect(runs.map((r) => [r.seed, r.method.name])).toEqual(bb.seeds.flatMap((seed) => bb.methods.map((m) => [seed, m.name])));
    // harness scaling: 60 steps + 2 evaluations; black-box SFT and the base-harness SFT control: their phase + 2; SFT then RL: 60 + 2 + 1.
    expect(runs.slice(0, 4).map((r) => [r.rlSteps, r.units])).toEqual([
      [60, 62],
      [0, 3],
      [0, 3],
      [60, 63],
    ]);
    expect(plannedRuns(bb, 5, 0)[3].units).toBe(6);
    const none = parseSpec({ ...SMOKE_SPEC_JSON, methods: [{ name: 'start', harnesses: 'none', K: 1, algorithm: 'grpo' }] }, 'spec');
    expect(plannedRuns(none, 7).map((r) => r.units)).toEqual(none.seeds.map(() => 2));
  });
});

describe("in-space evaluation leaves out the base checkpoint's pretraining mix", () => {
  it('removes every mix configuration, counts them apart from the training-set exclusions, and keeps the rest', () => {
    const sel = getPreset('selection');
    const all = { ...sel, evaluation: { ...sel.evaluation, inSpace: { mode: 'all' as const } } } as ExperimentSpec;
    const before = inSpaceEvalSet(all);
    const rk = sel.methods.find((m) => m.harnesses === 'random-k')!;
    const random = sel.seeds.flatMap((seed) => trainingHarnesses(all, rk, seed));
    const trainedHeldOut = random.filter((id) => selectTrainingOA().heldOut.some((h) => h.id === id));
    // A mix of 5 held-out configurations, one a method already trains on, plus the base harness (not held out).
    const fresh = before.ids.filter((_, i) => i % 17 === 3).slice(0, 4);
    const mix = [BASE_HARNESS, ...fresh, trainedHeldOut[0]];
    const after = inSpaceEvalSet(all, mix, "mix 'm' (6 harnesses)");
    expect(after.ids).toEqual(before.ids.filter((id) => !fresh.includes(id)));
    expect(after.excluded).toEqual({ trainingSets: before.excluded.trainingSets, pretrainMix: 4, mix: "mix 'm' (6 harnesses)" });
    expect(after.description).toContain(
      `left out: ${before.excluded.trainingSets} held-out configurations a method trains on, 4 in the base checkpoint's pretraining mix (mix 'm' (6 harnesses))`,
    );
    // The stratified set draws from what is left: no mix configuration in it.
    const strat = inSpaceEvalSet(sel, before.ids);
    expect(strat.ids).toEqual([]);
    expect(strat.excluded.pretrainMix).toBe(before.ids.length);
  });
});

describe('withoutCells (infeasible cells left out of training)', () => {
  it('drops exactly the excluded (task, harness) pairs, keeps order and distances, and drops emptied tasks', async () => {
    const { withoutCells, cellKey } = await import('../../src/experiment/plan');
    const assignments = [
      { task: 'a', harnesses: ['H0', 'H1', 'H2'], distances: [0, 1, 2] },
      { task: 'b', harnesses: ['H0'], distances: [0] },
      { task: 'c', harnesses: ['H2', 'H0'], distances: [0, 3] },
    ];
    const r = withoutCells(assignments, new Set([cellKey('a', 'H0'), cellKey('b', 'H0'), cellKey('c', 'H1')]));
    expect(r.assignments).toEqual([
      { task: 'a', harnesses: ['H1', 'H2'], distances: [1, 2] },
      { task: 'c', harnesses: ['H2', 'H0'], distances: [0, 3] },
    ]);
    expect(r.pool).toEqual(['a', 'c']);
    expect(r.dropped).toBe(2);
    expect(withoutCells(assignments, new Set()).assignments).toEqual(assignments);
  });
});

/** Draws per pool task over steps 1…steps of the sampler (stepTasks). */
function draws(pool: readonly string[], tasksPerStep: number, seed: number, steps: number): Map<string, number> {
  const n = new Map<string, number>();
  for (let step = 1; step <= steps; step++) for (const t of stepTasks(pool, tasksPerStep, seed, step)) n.set(t, (n.get(t) ?? 0) + 1);
  return n;
}

describe('treatments that treat: the epoch sampler, per-seed random-k, an in-space set over the space', () => {
  it('the epoch sampler draws every pool task once per epoch, so each of 120 tasks gets 4 draws in 60 × 8 and sees all K = 4 harnesses', () => {
    const main = getPreset('main');
    const pool = trainPool(main, 3);
    expect(pool).toHaveLength(120);
    const counts = draws(pool, main.rl.tasksPerStep, 3, main.rl.steps);
    expect(counts.size).toBe(120);
    for (const d of counts.values()) expect(d).toBe(4);
    // The coverage report counts the same draws: all 120 tasks drawn, each under all 4 harnesses.
    expect(scheduleCoverage(main, 3).find((c) => c.K === 4)).toMatchObject({ pool: 120, drawn: 120, fullK: 1, distinct: 4 });
    // Epoch by epoch: the first 15 steps (one epoch) are a permutation of the pool.
    const epoch1 = Array.from({ length: 15 }, (_, i) => stepTasks(pool, 8, 3, i + 1)).flat();
    expect(new Set(epoch1).size).toBe(120);
    // A pool that is not a multiple of the step straddles epochs: draws differ by at most one.
    const odd = draws(pool.slice(0, 50), 8, 3, 60);
    expect(Math.max(...odd.values()) - Math.min(...odd.values())).toBeLessThanOrEqual(1);
    const sched = makeSchedule(taskAssignments(main, main.methods[1], pool, 3));
    const seen = new Map<string, Set<string>>();
    for (let step = 1; step <= 60; step++)
      for (const t of stepTasks(pool, 8, 3, step)) seen.set(t, (seen.get(t) ?? new Set()).add(sched.next(t)));
    for (const hs of seen.values()) expect(hs.size).toBe(4);
  });

  it('schedule coverage: every K-sweep arm trains each drawn task under all of its K harnesses (≥ 95 %)', () => {
    for (const name of ['diversity', 'assignment', 'main'] as const) {
      for (const c of scheduleCoverage(getPreset(name), 0)) {
        expect(c.fullK).toBeGreaterThanOrEqual(0.95);
        expect(c.distinct).toBeCloseTo(c.K, 5);
      }
    }
    // The old budget (512-task pool, 480 draws) gave K = 8 almost nothing: coverage says so.
    const div = getPreset('diversity');
    const old = scheduleCoverage({ ...div, rl: { ...div.rl, trainTasks: 256 } }, 0);
    expect(old.find((c) => c.K === 8)!.fullK).toBeLessThan(0.05);
  });

  it('random-k draws a fresh training set per run seed; the OA does not depend on the seed', () => {
    const sel = getPreset('selection');
    const rk = sel.methods.find((m) => m.harnesses === 'random-k')!;
    const a = trainingHarnesses(sel, rk, 0);
    const b = trainingHarnesses(sel, rk, 1);
    expect(a).toHaveLength(18);
    expect(b).toHaveLength(18);
    expect(a).not.toEqual(b);
    expect(trainingHarnesses(sel, rk, 0)).toEqual(a);
    const oa = sel.methods.find((m) => m.harnesses === 'scaling')!;
    expect(trainingHarnesses(sel, oa, 5)).toEqual(trainingHarnesses(sel, oa, 0));
    expect(methodDesign(sel, rk, 1).training).toEqual(b);
  });

  it("'by: base' stratifies the in-space set by distance to the base harness: ≥ 24 configurations over bands 2–5, none trained or pretrained on", () => {
    const main = getPreset('main');
    const mix = resolveMix(DEFAULT_MIX_SPEC, 1).harnesses;
    const set = inSpaceEvalSet(main, mix, 'm');
    expect(set.ids.length).toBeGreaterThanOrEqual(24);
    const bands = new Map<number, number>();
    for (const id of set.ids) bands.set(hammingDistance(id, BASE_HARNESS), (bands.get(hammingDistance(id, BASE_HARNESS)) ?? 0) + 1);
    expect([...bands.keys()].sort()).toEqual([2, 3, 4, 5]);
    for (const n of bands.values()) expect(n).toBe(6);
    for (const id of set.ids) expect(mix).not.toContain(id);
    for (const id of selectTrainingOA().training) expect(set.ids).not.toContain(id);
    expect(set.description).toMatch(/distance to the base harness, 6 per distance.*base d=2: 6\//);
  });

  it('inSpaceTasks rotates the test tasks over the configurations: m per suite each, every task used equally often', () => {
    const main = getPreset('main');
    const tests = testTasks(main, 2);
    const ids = inSpaceEvalSet(main, resolveMix(DEFAULT_MIX_SPEC, 1).harnesses, 'm').ids;
    const cells = inSpaceTasks(main, tests, ids)!;
    expect([...cells.keys()]).toEqual(ids);
    const uses = new Map<string, number>();
    for (const ts of cells.values()) {
      expect(ts).toHaveLength(16);
      expect(ts.filter((t) => t.startsWith('workspace/'))).toHaveLength(8);
      for (const t of ts) uses.set(t, (uses.get(t) ?? 0) + 1);
    }
    expect(uses.size).toBe(tests.length);
    expect(new Set(uses.values())).toEqual(new Set([(ids.length * 8) / 32]));
    const full = {
      ...main,
      evaluation: { ...main.evaluation, inSpace: { ...main.evaluation.inSpace, tasksPerConfig: undefined } },
    } as ExperimentSpec;
    expect(inSpaceTasks(full, tests, ids)).toBeNull();
  });
});

describe('harness count: a scaling method trains through the first N harnesses of the balanced order', () => {
  const main = getPreset('main');
  const hs = main.methods.find((m) => m.harnesses === 'scaling')!;
  const withN = (n: number, K = Math.min(hs.K, n)): MethodSpec => ({ ...hs, name: `harness scaling N=${n}`, harnessCount: n, K });
  it('N harnesses, nested; every task assigned within them; the in-space set is the same for every N (the design holds it out)', () => {
    const sets = [3, 6, 9, 18].map((n) => trainingHarnesses(main, withN(n), 0));
    expect(sets.map((s) => s.length)).toEqual([3, 6, 9, 18]);
    for (let i = 1; i < sets.length; i++) expect(sets[i - 1].every((h) => sets[i].includes(h))).toBe(true);
    expect(sets[3]).toEqual(trainingHarnesses(main, hs, 0));
    const pool = trainPool(main, 0);
    for (const a of taskAssignments(main, withN(6), pool, 0)) {
      expect(a.harnesses).toHaveLength(4);
      for (const h of a.harnesses) expect(sets[1]).toContain(h);
    }
    const spec = { ...main, methods: [main.methods[0], withN(3), withN(9)] };
    expect(inSpaceEvalSet(spec).ids).toEqual(inSpaceEvalSet(main).ids);
    expect(methodDesign(main, withN(9), 0).construction).toContain('9 of the 18');
  });

  it('K above N, N above the design and N on a single-harness method are spec errors naming the field', () => {
    expect(specConsistencyIssues({ ...main, methods: [withN(3, 4)] })).toEqual([
      expect.stringContaining('spec.methods[0].K: 4 exceeds the training-set size 3 (harnessCount of the orthogonal-array design)'),
    ]);
    expect(specConsistencyIssues({ ...main, methods: [withN(19, 4)] })[0]).toContain(
      'spec.methods[0].harnessCount: 19 exceeds the training-set size 18',
    );
    expect(() => parseSpec({ ...structuredClone(main), methods: [{ ...main.methods[0], harnessCount: 3 }] }, 'spec')).toThrow(
      /harnessCount.*needs harnesses 'scaling' or 'random-assignment'/,
    );
  });
});

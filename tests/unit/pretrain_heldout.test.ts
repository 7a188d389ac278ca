/**
 * Held-out demonstrations (src/pretrain/heldout.ts): test tasks only, each set rendered under
 * the harnesses it names (procedural ids, the 18 training harnesses in turn, the base harness),
 * rows cut by the training rule, and the token-mean loss aggregated over batches exactly.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Tokenizer } from '../../src/model/tokenizer';
import { heldOutLoss, heldOutSets, heldOutTasks } from '../../src/pretrain/heldout';
import { selectTrainingOA } from '../../src/design/selection';
import { BASE_HARNESS } from '../../src/design/space';
import { demoTasks } from '../../src/pretrain/sft';
import { SEED_RANGES } from '../../src/tasks';

const tok = Tokenizer.fromJSON(JSON.parse(readFileSync(new URL('../../public/tokenizer-v2.json', import.meta.url), 'utf8')));
const limits = { maxT: 512, actionReserve: 128 };

describe('held-out pretraining sets', () => {
  const tasks = heldOutTasks(6, 2, 1, ['workspace', 'errands']);

  it('draws test tasks of the asked tiers and suites, none of them a demonstration task', () => {
    expect(tasks).toHaveLength(6);
    expect(tasks.filter((t) => t.suite === 'workspace')).toHaveLength(3);
    for (const t of tasks) {
      expect(t.tier).toBe(1);
      expect(t.seed).toBeGreaterThanOrEqual(1_000_000); // the test split's seed range
    }
    const demo = new Set(demoTasks(400, 2, 1).map((t) => t.id));
    for (const t of tasks) expect(demo.has(t.id)).toBe(false);
    expect(() => heldOutTasks(0, 2, 1, ['workspace'])).toThrow(/n must be/);
  });

  it('renders each set under its harnesses, rows within maxT, action tokens scored', () => {
    const sets = heldOutSets(tok, tasks, limits, 2);
    expect(sets.map((s) => s.name)).toEqual(['procedural', 'training', 'base']);
    const training = selectTrainingOA().training;
    for (const s of sets) {
      expect(s.episodes).toBe(tasks.length);
      expect(s.rows.length).toBeGreaterThanOrEqual(tasks.length);
      for (const r of s.rows) {
        expect(r.ids.length).toBeLessThanOrEqual(limits.maxT);
        expect(r.mask.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
      }
    }
    const text = (i: number, j: number) => tok.decode(Array.from(sets[i].rows[j].ids));
    // The base set shows T0's call format; the training set starts with the first OA harness.
    expect(text(2, 0)).toContain('{"tool":');
    expect(training[0]).toBe(BASE_HARNESS);
    expect(text(0, 0)).not.toContain('{"tool":');
  });

  it('heldOutLoss is the token-weighted mean over batches, NaN for no rows', () => {
    const rows = heldOutSets(tok, tasks.slice(0, 2), limits, 2)[2].rows;
    const per = rows.map((r) => r.mask.reduce((a, b) => a + b, 0));
    // A scorer that charges each token 1 + (row length mod 3): the mean must weight rows by tokens.
    const score = (b: { B: number; T: number; lengths: Int32Array; mask: Float32Array }) => {
      let nll = 0;
      let tokens = 0;
      for (let i = 0; i < b.B; i++) {
        let m = 0;
        for (let t = 0; t < b.T; t++) m += b.mask[i * b.T + t];
        nll += m * (1 + (b.lengths[i] % 3));
        tokens += m;
      }
      return { nll, tokens };
    };
    const want = rows.reduce((a, r, i) => a + per[i] * (1 + (r.ids.length % 3)), 0) / per.reduce((a, b) => a + b, 0);
    expect(heldOutLoss(rows, 2, tok.padId, 512, score)).toBeCloseTo(want, 10);
    expect(heldOutLoss(rows, 5, tok.padId, 512, score)).toBeCloseTo(want, 10);
    expect(heldOutLoss([], 2, tok.padId, 512, score)).toBeNaN();
  });
});

describe('the pretraining curve is on a validation split of train seeds', () => {
  it('train-seed tasks, none a demonstration task, deterministic; test tasks for hlab heldout', () => {
    const demos = demoTasks(200, 4, 1, ['workspace', 'errands']);
    const exclude = new Set(demos.map((t) => t.id));
    const v = heldOutTasks(24, 4, 1, ['workspace', 'errands'], 'train', exclude);
    expect(v).toHaveLength(24);
    for (const t of v) {
      expect(exclude.has(t.id)).toBe(false);
      expect(t.seed).toBeLessThanOrEqual(SEED_RANGES.train.to);
      expect(t.tier).toBe(1);
    }
    expect(heldOutTasks(24, 4, 1, ['workspace', 'errands'], 'train', exclude).map((t) => t.id)).toEqual(v.map((t) => t.id));
    // Excluding the split's own tasks forces others.
    const again = heldOutTasks(24, 4, 1, ['workspace', 'errands'], 'train', new Set(v.map((t) => t.id)));
    expect(again.filter((t) => v.some((u) => u.id === t.id))).toEqual([]);
    for (const t of heldOutTasks(6, 4, 1, ['workspace'])) expect(t.seed).toBeGreaterThanOrEqual(SEED_RANGES.test.from);
  });
});

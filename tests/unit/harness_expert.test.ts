/**
 * The scripted expert through harnesses: 100% pass on a seeded sample of harnesses (20 random
 * in-space ids + the base + both black-box) × every family and tier of both suites, with no
 * parse errors or workflow violations, and demonstrations (context, action) that are
 * consistent with the harness's own records. The full 245-harness sweep is
 * `hlab expert --suite S --tasks 30 --harnesses all --json`.
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/util/rng';
import { SUITES, TIERS, SEED_RANGES } from '../../src/tasks/index';
import { allComposedIds, BLACKBOX_IDS } from '../../src/harness/registry';
import { runExpertEpisode } from '../../src/harness/expert';
import { editFor } from '../../src/harness/text_edits';
import fc from 'fast-check';
import { BASE_HARNESS } from '../../src/design/space';
import { parseHarnessList, registerExpert } from '../../src/cli/commands/expert';
import { cliJson } from './lib/cli_in_process';

/** The marker opening the policy's turn (render.ts). */
const ROLE_MARKERS = { assistant: '<|assistant|>' };

const rng = new Rng(2026);
const sample = [BASE_HARNESS, ...rng.shuffle(allComposedIds().filter((id) => id !== BASE_HARNESS)).slice(0, 20), ...BLACKBOX_IDS];

describe('expert through harnesses', () => {
  for (const suite of Object.values(SUITES)) {
    it(`passes every ${suite.name} family × tier under ${sample.length} sampled harnesses`, () => {
      const failures: string[] = [];
      let episodes = 0;
      for (const fam of suite.families) {
        for (const tier of TIERS) {
          const task = suite.generate(fam.name, tier, SEED_RANGES.test.from + 31 * tier + fam.name.length);
          for (const id of sample) {
            const ep = runExpertEpisode(task, id, { suite });
            episodes++;
            if (!ep.pass) failures.push(`${id} ${task.id}: ${ep.error ?? JSON.stringify(ep.verification.checks.filter((c) => !c.pass))}`);
            expect(ep.tags.parseErrors + ep.tags.workflowViolations).toBe(0);
            expect(ep.tags.terminated).toBe(true);
            expect(ep.turns.length).toBeGreaterThan(0);
            for (const t of ep.turns) {
              expect(t.context.endsWith(ROLE_MARKERS.assistant + '\n')).toBe(true);
              // The expert only uses what it was shown: no observation of its episodes is cut.
              expect(t.observation).not.toMatch(/more lines|more chars|dropped_chars|pruned|truncated:/);
            }
          }
        }
      }
      expect(episodes).toBe(suite.families.length * 3 * sample.length);
      expect(failures).toEqual([]);
    });
  }

  it('editFor: the single-edit form of a change reproduces the new text exactly', () => {
    const line = fc.string({ unit: fc.constantFrom('a', 'b', '\n', 'x'), maxLength: 30 });
    fc.assert(
      fc.property(line, line, (old, next) => {
        const e = editFor(old, next);
        if (e === null) return;
        expect(old.split(e.oldString)).toHaveLength(2);
        expect(old.replace(e.oldString, () => e.newString)).toBe(next);
      }),
      { numRuns: 2000, seed: 4 },
    );
    expect(editFor('a\nLynx x\nb\n', 'a\nFalcon x\nb\n')).toEqual({ oldString: 'Lynx x', newString: 'Falcon x' });
  });

  it('demonstrations: each action appears verbatim in the next full-history context', () => {
    const suite = SUITES.workspace;
    const task = suite.generate(suite.families[0].name, 3, SEED_RANGES.test.from + 5);
    const ep = runExpertEpisode(task, 'S1-T2-O1-C0-W1', { suite });
    expect(ep.turns[0].action.startsWith('Plan:')).toBe(true);
    for (let i = 0; i + 1 < ep.turns.length; i++) {
      expect(ep.turns[i + 1].context.startsWith(ep.turns[i].context + ep.turns[i].action)).toBe(true);
    }
  });

  it('the sweep reports per-harness pass rates; unknown ids are usage errors', async () => {
    type Row = { harness: string; episodes: number; passRate: number };
    const r = await cliJson<{ results: Row[] }>(
      [registerExpert],
      'expert',
      '--suite',
      'errands',
      '--tasks',
      '4',
      '--harnesses',
      'S2-T1-O2-C1-W2,bb-assistant',
    );
    expect(r.results.map((x) => [x.harness, x.episodes, x.passRate])).toEqual([
      ['S2-T1-O2-C1-W2', 4, 1],
      ['bb-assistant', 4, 1],
    ]);
    expect(parseHarnessList('all')).toHaveLength(245);
    expect(() => parseHarnessList('S0-T0-O0-C0-W0,bogus')).toThrow(/unknown harness id 'bogus'/);
  });
});

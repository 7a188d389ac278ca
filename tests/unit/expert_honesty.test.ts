/**
 * The expert is honest to its context (src/harness/honesty.ts, expert.ts `HonestDriver`): for
 * every demonstrated action, every fact it uses (an atom learned from an earlier observation or
 * action) is in the context that action was produced from — across every C realization, both
 * black-box harnesses and procedural harnesses — while it still passes every task and leaves no
 * notes file behind. The perfect-memory replay (`honest: false`) is caught by the same check.
 */
import { describe, expect, it } from 'vitest';
import { runExpertEpisode } from '../../src/harness/expert';
import { atoms, honestyViolations, NOTES_PATH } from '../../src/harness/honesty';
import type { TurnRecord } from '../../src/harness/types';
import { runProceduralExpert } from '../../src/corpus/procedural_harness';
import { taskSet } from '../../src/tasks';
import { readFileSync } from 'node:fs';
import { Tokenizer, type TokenizerFile } from '../../src/model/tokenizer';
import { cutView, encodeTurn } from '../../src/episode/rows';
import { selectTrainingOA } from '../../src/design/selection';

/** Composed ids covering C0, C1 and C2 (with varied S, T, O, W), and both black-box harnesses. */
const HARNESSES = [
  'S0-T0-O0-C0-W0',
  'S0-T1-O2-C1-W0',
  'S2-T2-O1-C1-W2',
  'S1-T0-O2-C2-W1',
  'S2-T1-O0-C2-W0',
  'bb-coding-cli',
  'bb-assistant',
];
/** Family × tier balanced: every family of both suites at tiers 1–3 (the t3 tasks need state across many turns). */
const tasks = [...taskSet('workspace', 'test', 18, 3), ...taskSet('errands', 'test', 18, 3)];

const turn = (k: number, context: string, action: string, observation: string): TurnRecord => ({
  turn: k,
  context,
  action,
  observation,
  kind: 'tool',
  calls: [],
  results: [],
  toolError: false,
});

describe('honestyViolations', () => {
  it('flags a fact from a hidden observation, accepts it when visible, and ignores the opening and fixed phrases', () => {
    const open = '<|system|>\nTools: read, write<|end|>\n<|user|>\nCopy the code of /a.txt to /b.txt.<|end|>\n<|assistant|>\n';
    const hidden = [
      turn(1, open, 'read /a.txt', 'code 4711'),
      turn(2, open + 'read /a.txt\n[older output hidden]\n', 'write /b.txt 4711', 'ok'),
    ];
    expect(honestyViolations(hidden)).toEqual([{ turn: 2, missing: ['4711'], action: 'write /b.txt 4711' }]);
    const shown = [hidden[0], turn(2, open + 'read /a.txt\ncode 4711\n', 'write /b.txt 4711', 'ok')];
    expect(honestyViolations(shown)).toEqual([]);
    // The task's own words and the expert's fixed phrases are never facts.
    expect(
      honestyViolations([turn(1, open, 'Plan: look', 'noted'), turn(2, open, 'Plan: look\nwrite /b.txt code', 'ok')], ['Plan: look']),
    ).toEqual([]);
    expect([...atoms('"Gus\\nKai" x 12')]).toEqual(['Gus', 'Kai', '12']);
  });
});

describe('the honest expert', () => {
  it('passes every task and every demonstrated action is honest, under every C, both black-box and procedural harnesses', () => {
    const failures: string[] = [];
    let notes = 0;
    const check = (label: string, ep: ReturnType<typeof runExpertEpisode>) => {
      if (!ep.pass)
        failures.push(
          `${label}: fails (${
            ep.error ??
            ep.verification.checks
              .filter((c) => !c.pass)
              .map((c) => c.name)
              .join(',')
          })`,
        );
      for (const v of honestyViolations(ep.turns, ep.phrases ?? []))
        failures.push(`${label} turn ${v.turn}: ${v.missing.join(',')} not in context of ${JSON.stringify(v.action)}`);
      if (ep.turns.some((t) => t.action.includes(NOTES_PATH))) notes++;
    };
    for (const h of HARNESSES) for (const t of tasks) check(`${h} ${t.id}`, runExpertEpisode(t, h));
    tasks.forEach((t, i) => check(`proc-${900 + i} ${t.id}`, runProceduralExpert(t, 900 + i)));
    expect(failures).toEqual([]);
    // Notes were needed somewhere (state across many hidden turns), and never under full history.
    expect(notes).toBeGreaterThan(0);
    for (const t of tasks) expect(runExpertEpisode(t, 'S0-T0-O0-C0-W0').turns.some((u) => u.action.includes(NOTES_PATH))).toBe(false);
  });

  it('the perfect-memory replay is caught: it copies facts its context no longer shows', () => {
    let dishonest = 0;
    for (const h of ['S0-T1-O2-C1-W0', 'S1-T0-O2-C2-W1', 'bb-coding-cli']) {
      for (const t of tasks) {
        const ep = runExpertEpisode(t, h, { honest: false });
        expect(ep.pass).toBe(true);
        if (honestyViolations(ep.turns, ep.phrases ?? []).length) dishonest++;
      }
    }
    expect(dishonest).toBeGreaterThan(5);
  });
});

describe('honest to the cut rows (ExpertOptions.view = cutView)', () => {
  const tok = Tokenizer.fromJSON(
    JSON.parse(readFileSync(new URL('../../public/tokenizer-v2.json', import.meta.url), 'utf8')) as TokenizerFile,
  );
  const limits = { maxT: 512, actionReserve: 128 };
  /** Turns with the context the SFT row keeps (the cut), for the honesty check. */
  const asRows = (ep: ReturnType<typeof runExpertEpisode>) =>
    ep.turns.map((u) => {
      const r = encodeTurn(tok, u.context, u.action, limits);
      return { ...u, context: tok.decode(Array.from(r.ids.subarray(1, r.contextTokens))) };
    });
  const t2 = [...taskSet('workspace', 'train', 24, 7), ...taskSet('errands', 'train', 24, 8)].filter((t) => t.tier === 2);
  const harnesses = selectTrainingOA().training.slice(0, 6);

  it('at maxT 512 the expert re-reads what the cut drops: tier-2 rows are honest (without the view they are not)', () => {
    let withView = 0;
    let without = 0;
    for (const h of harnesses) {
      for (const t of t2) {
        const ep = runExpertEpisode(t, h, { view: cutView(tok, limits) });
        expect(ep.pass).toBe(true);
        withView += honestyViolations(asRows(ep), ep.phrases ?? []).length;
        const plain = runExpertEpisode(t, h);
        without += honestyViolations(asRows(plain), plain.phrases ?? []).length;
      }
    }
    expect(withView).toBe(0);
    expect(without).toBeGreaterThan(0);
  });
});

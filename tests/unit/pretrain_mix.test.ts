// The pretraining harness mix (src/pretrain/mix.ts): what it may hold (the base harness, its
// one-factor variants, random configurations outside OA-18, procedural and procedural-envelope
// harnesses), what it may never hold (OA-18 combinations, black-box harnesses or their call names),
// seeded draws, and one-line errors.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { BASE_HARNESS, hammingDistance } from '../../src/design/space';
import { selectTrainingOA } from '../../src/design/selection';
import { BLACKBOX_IDS } from '../../src/harness/registry';
import { DEFAULT_MIX_SPEC, drawMixHarness, mixMetadata, pretrainMixOf, resolveMix } from '../../src/pretrain/mix';
import { readFileSync } from 'node:fs';
import { prepareSft } from '../../src/pretrain/sft';
import { Tokenizer, type TokenizerFile } from '../../src/model/tokenizer';
import { Rng } from '../../src/util/rng';
import { isCallAttempt } from '../../src/harness/blackbox/envelope';
import { readEnvelope } from '../../src/harness/realizations/tool_interface';
import { ENVELOPE_BANNED, normName } from '../../src/corpus/envelope_words';

const ROOT = new URL('../..', import.meta.url).pathname;
const tok = Tokenizer.fromJSON(
  JSON.parse(readFileSync(new URL('../../public/tokenizer-v2.json', import.meta.url), 'utf8')) as TokenizerFile,
);

/** The demonstrations a base model's SFT collects: `demos` tier-1 tasks under `mix` (a micro model, so its rows are cheap). */
const demonstrations = (mix: string, demos: number, seed: number) =>
  prepareSft(tok, {
    preset: 'tiny',
    steps: 1,
    batchSize: 1,
    lr: 0.01,
    seed,
    demos,
    blackbox: null,
    mix,
    maxTier: 1,
    modelOverride: { C: 16, L: 1, NH: 2, maxT: 1024 },
  }).demos;

describe('pretraining mix', () => {
  it('one-factor variants: Σ(levels − 1) configurations, each at Hamming distance 1 from the base', () => {
    const v = resolveMix('one-factor:1', 0).harnesses;
    expect(v).toHaveLength(10);
    expect(new Set(v).size).toBe(10);
    for (const id of v) expect(hammingDistance(id, BASE_HARNESS)).toBe(1);
    expect(v).toContain('S0-T1-O0-C0-W0');
    expect(v).toContain('S0-T0-O0-C0-W2');
  });

  it('the default mix: the base, its 10 variants and 48 random configurations, none of OA-18 but the base, no black-box harness', () => {
    const m = resolveMix(DEFAULT_MIX_SPEC, 1);
    expect(m.harnesses).toHaveLength(1 + 10 + 48);
    expect(new Set(m.harnesses).size).toBe(m.harnesses.length);
    const oa = new Set(selectTrainingOA().training);
    expect(m.harnesses.filter((h) => oa.has(h))).toEqual([BASE_HARNESS]);
    for (const b of BLACKBOX_IDS) expect(m.harnesses).not.toContain(b);
    const sum = m.weights.reduce((a, b) => a + b, 0) + m.procedural;
    expect(sum).toBeCloseTo(1, 12);
    expect(m.weights[0]).toBeCloseTo(0.25, 12); // base
    expect(m.weights[1]).toBeCloseTo(0.035, 12); // one variant: 0.35 / 10
    // seeded: the same seed, the same draw; another seed, another one
    expect(resolveMix(DEFAULT_MIX_SPEC, 1).harnesses).toEqual(m.harnesses);
    expect(resolveMix(DEFAULT_MIX_SPEC, 2).harnesses).not.toEqual(m.harnesses);
  });

  it('weights are normalized, and draws follow them', () => {
    const m = resolveMix('base:3,procedural:1', 7);
    expect(m.harnesses).toEqual([BASE_HARNESS]);
    expect(m.weights[0]).toBeCloseTo(0.75, 12);
    expect(m.procedural).toBeCloseTo(0.25, 12);
    const rng = new Rng(11);
    let base = 0;
    const n = 4000;
    for (let i = 0; i < n; i++) if (drawMixHarness(m, rng) === BASE_HARNESS) base++;
    expect(base / n).toBeGreaterThan(0.72);
    expect(base / n).toBeLessThan(0.78);
  });

  it('a bad spec names the term', () => {
    expect(() => resolveMix('', 0)).toThrow(/no terms/);
    expect(() => resolveMix('base:0', 0)).toThrow(/mix term 'base:0': weight must be a number > 0/);
    expect(() => resolveMix('base:x', 0)).toThrow(/weight/);
    expect(() => resolveMix('oa:1', 0)).toThrow(/unknown kind 'oa'/);
    expect(() => resolveMix('random:1.5:1', 0)).toThrow(/count must be an integer/);
    expect(() => resolveMix('random:3', 0)).toThrow(/random:count:weight/);
    expect(() => resolveMix('base:1,base:2', 0)).toThrow(/appears twice/);
    // 243 − 1 − 10 − 17 OA combinations = 215 remain
    expect(() => resolveMix('random:216:1', 0)).toThrow(/only 215 configurations remain/);
    expect(resolveMix('random:215:1', 0).harnesses).toHaveLength(215);
  });

  it('metadata records the spec, the configurations and their shares, and reads back as written', () => {
    const m = resolveMix(DEFAULT_MIX_SPEC, 1);
    const md = mixMetadata(m);
    expect(md.pretrainMix).toBe(DEFAULT_MIX_SPEC);
    expect(md.pretrainMixHarnesses).toEqual(m.harnesses);
    expect(md.pretrainMixWeights).toHaveLength(m.harnesses.length);
    expect(pretrainMixOf(md)).toEqual({ spec: DEFAULT_MIX_SPEC, harnesses: m.harnesses, weights: md.pretrainMixWeights });
  });

  it('demonstrations are rendered under the mix only', () => {
    const m = resolveMix('base:1,one-factor:1', 3);
    const d = demonstrations('base:1,one-factor:1', 12, 3);
    expect(d.failed).toBe(0);
    expect(d.source).toBe('mix base:1,one-factor:1');
    for (const e of d.episodes) expect(m.harnesses).toContain(e.harness);
    expect(new Set(d.episodes.map((e) => e.harness)).size).toBeGreaterThan(2);
  });

  it('procedural-envelope: grammar, shares, draws and metadata', () => {
    const parsed = resolveMix('base:1,procedural-envelope:0.5', 0);
    expect(parsed.harnesses).toEqual([BASE_HARNESS]);
    expect(parsed.weights[0]).toBeCloseTo(2 / 3, 12);
    expect(parsed.procedural).toBe(0);
    expect(parsed.proceduralEnvelope).toBeCloseTo(1 / 3, 12);
    expect(() => resolveMix('procedural-envelope', 0)).toThrow(/mix term 'procedural-envelope': expected 'procedural-envelope:weight'/);
    expect(() => resolveMix('procedural-envelope:2:1', 0)).toThrow(/expected 'procedural-envelope:weight'/);
    expect(() => resolveMix('procedural-envelope:-1', 0)).toThrow(/weight must be a number > 0/);
    const m = resolveMix('base:2,procedural:1,procedural-envelope:1', 5);
    expect(m.harnesses).toEqual([BASE_HARNESS]);
    expect(m.procedural).toBeCloseTo(0.25, 12);
    expect(m.proceduralEnvelope).toBeCloseTo(0.25, 12);
    const rng = new Rng(4);
    const counts: Record<string, number> = {};
    const n = 4000;
    for (let i = 0; i < n; i++) {
      const h = drawMixHarness(m, rng);
      counts[h] = (counts[h] ?? 0) + 1;
    }
    expect(Object.keys(counts).sort()).toEqual([BASE_HARNESS, 'procedural', 'procedural-envelope'].sort());
    expect(counts['procedural-envelope'] / n).toBeGreaterThan(0.22);
    expect(counts['procedural-envelope'] / n).toBeLessThan(0.28);
    // a mix without the kind never draws it, and draws as before the kind existed
    const old = resolveMix('base:3,procedural:1', 7);
    expect(old.proceduralEnvelope).toBe(0);
    const r = new Rng(9);
    for (let i = 0; i < 2000; i++) expect(drawMixHarness(old, r)).not.toBe('procedural-envelope');
    const md = mixMetadata(m);
    expect(md.pretrainMixProceduralEnvelope).toBeCloseTo(0.25, 6);
    expect(md.pretrainMixProcedural).toBeCloseTo(0.25, 6);
    expect(mixMetadata(resolveMix(DEFAULT_MIX_SPEC, 1)).pretrainMixProceduralEnvelope).toBe(0);
  });

  it('procedural-envelope demonstrations: seeded, never a black-box harness, OA-18 combination, or black-box/T0 call name', () => {
    const spec = 'base:1,procedural-envelope:3';
    const a = demonstrations(spec, 16, 4);
    const b = demonstrations(spec, 16, 4);
    const c = demonstrations(spec, 16, 5);
    const actions = (d: typeof a) => d.episodes.map((e) => e.turns.map((t) => t.action));
    expect(a.failed).toBe(0);
    expect(actions(b)).toEqual(actions(a));
    expect(b.episodes.map((e) => e.harness)).toEqual(a.episodes.map((e) => e.harness));
    expect(actions(c)).not.toEqual(actions(a));
    const oa = new Set(selectTrainingOA().training.filter((h) => h !== BASE_HARNESS));
    const env = a.episodes.filter((e) => /^proc-[0-9]+-envelope$/.test(e.harness));
    expect(env.length).toBeGreaterThan(4);
    for (const e of a.episodes) {
      expect(e.harness === BASE_HARNESS || env.includes(e)).toBe(true);
      expect(BLACKBOX_IDS as readonly string[]).not.toContain(e.harness);
      expect(oa.has(e.harness)).toBe(false);
    }
    let calls = 0;
    for (const e of env)
      for (const t of e.turns) {
        if (!isCallAttempt(t.action)) continue;
        const call = readEnvelope(t.action, '');
        if ('error' in call) throw new Error(`not an envelope: ${t.action}`);
        calls++;
        expect(ENVELOPE_BANNED.has(normName(call.tool)), call.tool).toBe(false);
        for (const k of Object.keys(call.args)) expect(ENVELOPE_BANNED.has(normName(k)), k).toBe(false);
      }
    expect(calls).toBeGreaterThan(env.length);
  });

  it('hlab pretrain --mix with a bad spec: one line naming the term, exit 2', () => {
    const r = spawnSync('npx', ['tsx', 'src/cli/main.ts', 'pretrain', '--backend', 'wasm', '--mix', 'base:1,bogus:2'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/--mix: mix term 'bogus:2': unknown kind 'bogus'/);
  });
});

/** Model config validation, the flat parameter layout and the seeded initialization. */
import { describe, expect, it } from 'vitest';
import { presetConfig, validateConfig } from '../../src/model/config';
import { paramCount, paramLayout, paramView } from '../../src/model/layout';
import { initParams } from '../../src/model/init';

/** GPT-2's initial standard deviation of the weights (init.ts). */
const INIT_STD = 0.02;
/** Each layer's tensors, in layout order (GPT-2's). */
const LAYER_PARAM_NAMES = ['ln1w', 'ln1b', 'qkvw', 'qkvb', 'attprojw', 'attprojb', 'ln2w', 'ln2b', 'fcw', 'fcb', 'fcprojw', 'fcprojb'];

/** Closed form: V·C + maxT·C + L·(12C² + 13C) + 2C (lnf) + C + 1 (value head). */
const closedForm = (V: number, maxT: number, C: number, L: number) => V * C + maxT * C + L * (12 * C * C + 13 * C) + 3 * C + 1;

describe('config and layout', () => {
  it('presets have the documented sizes at V = 1024', () => {
    const small = presetConfig('small', 1024);
    const base = presetConfig('base', 1024);
    expect(paramCount(small)).toBe(closedForm(1024, 512, 128, 4));
    expect(paramCount(base)).toBe(closedForm(1024, 512, 256, 6));
    expect(paramCount(small)).toBeGreaterThan(0.9e6);
    expect(paramCount(small)).toBeLessThan(1.1e6);
    expect(paramCount(base)).toBeGreaterThan(4.5e6);
    expect(paramCount(base)).toBeLessThan(5.5e6);
    expect(presetConfig('tiny', 300)).toEqual({ vocabSize: 300, C: 32, L: 2, NH: 2, maxT: 512 });
  });

  it('entries are contiguous, in the documented order, with the documented shapes', () => {
    const cfg = { vocabSize: 11, maxT: 7, C: 6, L: 2, NH: 3 };
    const lay = paramLayout(cfg);
    const names = ['wte', 'wpe'];
    for (let l = 0; l < 2; l++) for (const n of LAYER_PARAM_NAMES) names.push(`h${l}.${n}`);
    names.push('lnfw', 'lnfb', 'valuew', 'valueb');
    expect(lay.entries.map((e) => e.name)).toEqual(names);
    let off = 0;
    for (const e of lay.entries) {
      expect(e.offset).toBe(off);
      expect(e.size).toBe(e.shape.reduce((a, b) => a * b, 1));
      off += e.size;
    }
    expect(lay.total).toBe(off);
    expect(lay.total).toBe(closedForm(11, 7, 6, 2));
    expect(lay.byName.get('h1.fcprojw')!.shape).toEqual([6, 24]);
    expect(lay.byName.get('h0.qkvw')!.shape).toEqual([18, 6]);
    expect(lay.byName.get('valuew')!.shape).toEqual([1, 6]);
    const buf = new Float32Array(lay.total).map((_, i) => i);
    expect(paramView(buf, lay, 'valueb')[0]).toBe(lay.total - 1);
    expect(() => paramView(buf, lay, 'nope')).toThrow(/nope/);
  });

  it('validation names the bad field', () => {
    expect(() => validateConfig({ vocabSize: 10, maxT: 8, C: 6, L: 1, NH: 4 })).toThrow(/ModelConfig.C = 6 .* NH = 4/);
    expect(() => validateConfig({ vocabSize: 0, maxT: 8, C: 8, L: 1, NH: 4 })).toThrow(/vocabSize/);
    expect(() => validateConfig({ vocabSize: 5, maxT: 8.5, C: 8, L: 1, NH: 4 })).toThrow(/maxT/);
    expect(() => presetConfig('huge' as 'tiny', 5)).toThrow(/huge/);
  });
});

describe('initialization', () => {
  it('is deterministic, seed-dependent, and follows the GPT-2 rules', () => {
    const cfg = presetConfig('tiny', 256);
    const a = initParams(cfg, 7);
    const b = initParams(cfg, 7);
    const c = initParams(cfg, 8);
    expect(Buffer.from(a.buffer).equals(Buffer.from(b.buffer))).toBe(true);
    expect(Buffer.from(a.buffer).equals(Buffer.from(c.buffer))).toBe(false);
    const lay = paramLayout(cfg);
    const std = (x: Float32Array) => Math.sqrt(x.reduce((s, v) => s + v * v, 0) / x.length);
    expect(std(paramView(a, lay, 'wte'))).toBeCloseTo(INIT_STD, 3);
    expect(std(paramView(a, lay, 'h0.fcw'))).toBeCloseTo(INIT_STD, 3);
    expect(std(paramView(a, lay, 'h1.fcprojw'))).toBeCloseTo(INIT_STD / Math.sqrt(2 * cfg.L), 3);
    expect(paramView(a, lay, 'h1.ln2w').every((v) => v === 1)).toBe(true);
    expect(paramView(a, lay, 'h0.qkvb').every((v) => v === 0)).toBe(true);
    expect(paramView(a, lay, 'lnfb').every((v) => v === 0)).toBe(true);
    expect(std(paramView(a, lay, 'valuew'))).toBeLessThan(0.005);
    // Independent streams: a deeper model shares the embeddings of a shallower one.
    const deep = initParams({ ...cfg, L: 3 }, 7);
    expect(Array.from(paramView(deep, paramLayout({ ...cfg, L: 3 }), 'wpe'))).toEqual(Array.from(paramView(a, lay, 'wpe')));
  });
});

// Where runs start (run_start.ts): every method starts from spec.model.init — the shipped base of
// its model preset (or --base), or a seeded random init for 'scratch' — black-box SFT baselines
// included (they are fine-tuned inside the run, sft_phase.ts). The shipped files in public/ are
// read from disk through the asset seam.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shippedTokenizer } from '../../src/cli/cli_util';
import { decodeBaseCheckpoint } from '../../src/model/checkpoint';
import { presetConfig } from '../../src/model/config';
import { getPreset } from '../../src/experiment/presets';
import { baseMix, loadLeaveOutCheckpoints, loadStartingCheckpoints, startingBases, startingParams } from '../../src/experiment/run_start';
import { parseSpec, type ExperimentSpec } from '../../src/experiment/spec';
import { sha256Hex } from '../../src/util/encoding';

const PUBLIC = new URL('../../public', import.meta.url).pathname;
const tok = shippedTokenizer();

/** The app's asset fetch over public/ on disk; `absent` paths answer 404 as a missing file does. */
const fromDisk =
  (absent: string[] = []) =>
  async (url: string): Promise<Response> => {
    const path = join(PUBLIC, url);
    return existsSync(path) && !absent.includes(url) ? new Response(readFileSync(path)) : new Response(null, { status: 404 });
  };

const digest = (p: Float32Array) => sha256Hex(new Uint8Array(p.buffer, p.byteOffset, p.byteLength));

function start(spec: ExperimentSpec, i: number, loads: Awaited<ReturnType<typeof loadStartingCheckpoints>>, seed = 0) {
  const m = spec.methods[i];
  return startingParams(spec, m, presetConfig(m.modelPreset ?? spec.model.preset, tok.vocabSize), seed, tok, loads);
}

describe('starting checkpoint (spec.model.init)', () => {
  const spec = parseSpec(getPreset('blackbox'), 'blackbox');

  it('every method, black-box SFT and RL included, starts from the base of its preset, named by file and digest', async () => {
    expect(spec.methods.some((m) => m.algorithm === 'sft')).toBe(true);
    const loads = await loadStartingCheckpoints(spec, undefined, fromDisk());
    expect([...loads.keys()]).toEqual(['mini']);
    const base = (await decodeBaseCheckpoint(new Uint8Array(readFileSync(join(PUBLIC, 'base-mini.ckpt'))))).params;
    for (const i of spec.methods.keys()) {
      const s = start(spec, i, loads);
      expect(await digest(s.params), spec.methods[i].name).toBe(await digest(base));
      expect(s.source).toMatch(/^base checkpoint public\/base-mini\.ckpt \(digest [0-9a-f]{12}\)$/);
    }
    const mix = baseMix(spec, loads);
    expect(mix.ids.length).toBeGreaterThan(0);
    expect(mix.label).toMatch(/^mix 'base:0\.25,one-factor:0\.35,random:48:0\.4'/);
  });

  it("'scratch' loads nothing, leaves no mix out and draws the parameters from the seed", async () => {
    const scratch = parseSpec({ ...getPreset('blackbox'), model: { ...spec.model, init: 'scratch' } }, 'scratch');
    const loads = await loadStartingCheckpoints(scratch, undefined, fromDisk());
    expect(loads.size).toBe(0);
    expect(baseMix(scratch, loads).ids).toEqual([]);
    const [a, b, c] = [0, 0, 1].map((seed) => start(scratch, 0, loads, seed));
    expect(a.source).toBe('scratch (seeded random init)');
    expect(await digest(a.params)).toBe(await digest(b.params));
    expect(await digest(a.params)).not.toBe(await digest(c.params));
  });

  it('--base replaces the shipped base; a missing base is refused naming the file and the ways out, never replaced by a random init', async () => {
    const baseBytes = new Uint8Array(readFileSync(join(PUBLIC, 'base-mini.ckpt')));
    const withBase = await loadStartingCheckpoints(spec, baseBytes, fromDisk());
    expect(withBase.get('mini')?.explicit).toBe(true);
    expect(start(spec, 0, withBase).source).toMatch(/^base checkpoint \(--base file\) \(digest [0-9a-f]{12}\)$/);
    const missing = await loadStartingCheckpoints(spec, undefined, fromDisk(['/base-mini.ckpt']));
    expect(() => start(spec, 1, missing)).toThrow(
      "spec.model.init = 'base' but the checkpoint public/base-mini.ckpt is unusable (public/base-mini.ckpt not found: no base checkpoint ships for preset 'mini'): build it with `npm run -s hlab -- pretrain --preset mini --out public/base-mini.ckpt`, pass --base FILE, or set model.init to 'scratch'",
    );
  });

  it("spec.model.exposure picks public/base-<preset>-<exposure>.ckpt, recorded in results; leaveOutMixOf adds that base's mix to what in-space leaves out", async () => {
    // The narrow file served with the shipped bytes: which URL is asked is what is under test.
    const shipped = readFileSync(join(PUBLIC, 'base-mini.ckpt'));
    const served = (urls: string[]) => async (url: string) =>
      urls.includes(url) ? new Response(shipped) : new Response(null, { status: 404 });
    const narrow = parseSpec({ ...getPreset('main'), model: { preset: 'mini', init: 'base', exposure: 'narrow' } }, 'narrow');
    const loads = await loadStartingCheckpoints(narrow, undefined, served(['/base-mini-narrow.ckpt']));
    expect(start(narrow, 0, loads).source).toMatch(/^base checkpoint public\/base-mini-narrow\.ckpt /);
    expect(startingBases(narrow, loads).bases).toEqual([
      {
        preset: 'mini',
        exposure: 'narrow',
        file: 'public/base-mini-narrow.ckpt',
        digest: expect.stringMatching(/^[0-9a-f]{64}$/),
        mix: expect.stringMatching(/^mix 'base:0\.25/),
      },
    ]);
    expect(startingBases(spec, await loadStartingCheckpoints(spec, undefined, fromDisk())).bases?.[0].exposure).toBe('broad');
    const none = await loadStartingCheckpoints(narrow, undefined, served([]));
    expect(() => start(narrow, 0, none)).toThrow(
      /no base checkpoint ships for preset 'mini' with exposure 'narrow'\): build it with the rebuild command in docs\/PRETRAIN\.md/,
    );

    // A scratch run that leaves out the broad base's mix draws its in-space set as the broad base's runs do.
    const ev = getPreset('main').evaluation as { inSpace: object };
    const scratch = parseSpec(
      {
        ...getPreset('main'),
        model: { preset: 'mini', init: 'scratch' },
        evaluation: { ...ev, inSpace: { ...ev.inSpace, leaveOutMixOf: ['broad'] } },
      },
      's',
    );
    const leaveOut = await loadLeaveOutCheckpoints(scratch, fromDisk());
    expect([...leaveOut.keys()]).toEqual(['mini-broad']);
    const broadMix = baseMix(spec, await loadStartingCheckpoints(spec, undefined, fromDisk()));
    const m = baseMix(scratch, new Map(), leaveOut);
    expect(m.ids).toEqual(broadMix.ids);
    expect(m.label).toMatch(/^mix 'base:0\.25/);
    const missing = await loadLeaveOutCheckpoints(scratch, served([]));
    expect(() => baseMix(scratch, new Map(), missing)).toThrow(
      /^spec\.evaluation\.inSpace\.leaveOutMixOf: the base mini-broad cannot be loaded/,
    );
  });
});

// Where runs start (run_start.ts): a method's `init` names a shipped checkpoint that replaces
// spec.model.init for that method only, while the in-space set stays the spec-level base's, the
// same for every method. The shipped files in public/ are read from disk through the asset seam.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shippedTokenizer } from '../../src/cli/cli_util';
import { decodeBaseCheckpoint } from '../../src/model/checkpoint';
import { presetConfig } from '../../src/model/config';
import { getPreset } from '../../src/experiment/presets';
import { baseMix, loadStartingCheckpoints, startingParams } from '../../src/experiment/run_start';
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
const shipped = async (file: string) => (await decodeBaseCheckpoint(new Uint8Array(readFileSync(join(PUBLIC, file))))).params;

function start(spec: ExperimentSpec, i: number, loads: Awaited<ReturnType<typeof loadStartingCheckpoints>>) {
  const m = spec.methods[i];
  return startingParams(spec, m, presetConfig(m.modelPreset ?? spec.model.preset, tok.vocabSize), 0, tok, [], () => {}, loads);
}

describe('per-method starting checkpoint (MethodSpec.init)', () => {
  // The blackbox preset as it was in session 10: its black-box methods start from the shipped SFT checkpoint.
  const preset = getPreset('blackbox');
  const spec = parseSpec({ ...preset, methods: preset.methods.map((m) => (m.harnesses === 'blackbox' ? { ...m, init: 'sft-bb-coding-cli' } : m)) }, 'blackbox with init');

  it('a method with init starts from that checkpoint, one without from the base; the digests differ', async () => {
    const loads = await loadStartingCheckpoints(spec, undefined, fromDisk());
    expect([...loads.keys()].sort()).toEqual(['base/mini', 'sft-bb-coding-cli/mini']);
    const [scaling, sft, rl] = [0, 1, 2].map((i) => start(spec, i, loads));
    const base = await shipped('base-mini.ckpt');
    const bbSft = await shipped('sft-mini-bb-coding-cli.ckpt');
    expect(await digest(scaling.params)).toBe(await digest(base));
    expect(await digest(sft.params)).toBe(await digest(bbSft));
    expect(await digest(rl.params)).toBe(await digest(bbSft));
    expect(await digest(bbSft)).not.toBe(await digest(base));
    // Provenance names the file and its header digest (the sidecar's digest).
    const sidecar = JSON.parse(readFileSync(join(PUBLIC, 'sft-mini-bb-coding-cli.ckpt.json'), 'utf8'));
    expect(rl.source).toBe(`'sft-bb-coding-cli' checkpoint public/sft-mini-bb-coding-cli.ckpt (digest ${sidecar.digest.slice(0, 12)})`);
    expect(scaling.source).toMatch(/^base checkpoint public\/base-mini\.ckpt \(digest [0-9a-f]{12}\)$/);
    // The SFT command the checkpoint records (the runner's 'sft' warning quotes it).
    expect(sft.command).toBe(sidecar.command);
  });

  it('the in-space exclusion is the spec-level base mix, the same as without any method init', async () => {
    const loads = await loadStartingCheckpoints(spec, undefined, fromDisk());
    const plain = parseSpec({ ...spec, methods: spec.methods.map(({ init: _, ...m }) => m) }, 'plain');
    const plainLoads = await loadStartingCheckpoints(plain, undefined, fromDisk());
    expect([...plainLoads.keys()]).toEqual(['base/mini']);
    const mix = baseMix(spec, loads);
    expect(mix).toEqual(baseMix(plain, plainLoads));
    expect(mix.ids.length).toBeGreaterThan(0);
    expect(mix.label).toMatch(/^mix 'base:0\.25,one-factor:0\.35,random:48:0\.4'/);
  });

  it('--base replaces the base only; a missing init checkpoint is refused naming the method, its init and the file', async () => {
    const baseBytes = new Uint8Array(readFileSync(join(PUBLIC, 'base-mini.ckpt')));
    const withBase = await loadStartingCheckpoints(spec, baseBytes, fromDisk());
    expect(withBase.get('base/mini')?.explicit).toBe(true);
    expect(withBase.get('sft-bb-coding-cli/mini')?.explicit).toBe(false);
    const missing = await loadStartingCheckpoints(spec, undefined, fromDisk(['/sft-mini-bb-coding-cli.ckpt']));
    expect(() => start(spec, 0, missing)).not.toThrow();
    expect(() => start(spec, 2, missing)).toThrow(
      "method 'black-box RL (coding-cli)' init 'sft-bb-coding-cli' but the checkpoint public/sft-mini-bb-coding-cli.ckpt is unusable (public/sft-mini-bb-coding-cli.ckpt not found: no sft-bb-coding-cli checkpoint ships for preset 'mini'): rebuild it with the command in public/sft-mini-bb-coding-cli.ckpt.json, or drop the method's init",
    );
  });
});

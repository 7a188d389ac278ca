// A checkpoint file the user names on `hlab run` must load or the command exits 2 with
// one line naming the file and the reason, before any browser starts (HLAB_CHROMIUM points
// nowhere: reaching the browser would fail differently, exit 1); the file is left untouched.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkShippedCheckpoints, readBaseFile, readRunCheckpointFile } from '../../src/cli/checkpoint_files';
import { shippedTokenizer } from '../../src/cli/cli_util';
import { encodeBaseCheckpoint } from '../../src/model/checkpoint';
import { presetConfig } from '../../src/model/config';
import { paramCount } from '../../src/model/layout';
import { prepareCheckpoint } from '../../src/storage/serialize';
import { concatBytes, encodeExportFile } from '../../src/storage/export_file';
import { parseSpec } from '../../src/experiment/spec';
import { SMOKE_SPEC_JSON } from './lib/smoke_spec';

const quick = structuredClone(SMOKE_SPEC_JSON);
const tok = shippedTokenizer();
const tinySpec = parseSpec({ ...quick, model: { preset: 'tiny', init: 'base' } }, 'spec');

async function tinyBase(): Promise<Uint8Array> {
  const cfg = presetConfig('tiny', tok.vocabSize);
  const params = Float32Array.from({ length: paramCount(cfg) }, (_, i) => Math.sin(i) * 0.02);
  return (await encodeBaseCheckpoint(cfg, params, { name: tok.name, vocabSize: tok.vocabSize, formatVersion: 1 })).bytes;
}

function tmpFile(name: string, bytes: Uint8Array): string {
  const file = join(mkdtempSync(join(tmpdir(), 'hlab-ckfile-')), name);
  writeFileSync(file, bytes);
  return file;
}

const noBrowser = { ...process.env, HLAB_CHROMIUM: '/nonexistent/chrome' };
const cli = (args: string[]) =>
  spawnSync('npx', ['tsx', 'src/cli/main.ts', ...args], {
    cwd: new URL('../..', import.meta.url).pathname,
    encoding: 'utf8',
    timeout: 120_000,
    env: noBrowser,
  });

describe('--base FILE', () => {
  it('a good file loads; a flipped byte, a truncation or a mismatch is a usage error naming the file and the reason', async () => {
    const good = await tinyBase();
    expect(await readBaseFile(tmpFile('good.ckpt', good), tinySpec, tok)).toEqual(good);
    const flipped = good.slice();
    flipped[flipped.length - 3] ^= 0x40;
    const f1 = tmpFile('flipped.ckpt', flipped);
    await expect(readBaseFile(f1, tinySpec, tok)).rejects.toThrow(new RegExp(`^--base ${f1}: base checkpoint: digest mismatch`));
    const f2 = tmpFile('cut.ckpt', good.subarray(0, good.length - 100));
    await expect(readBaseFile(f2, tinySpec, tok)).rejects.toThrow(new RegExp(`^--base ${f2}: .*truncated`));
    const f3 = tmpFile('good.ckpt', good);
    await expect(readBaseFile(f3, parseSpec(quick, 'spec'), tok)).rejects.toThrow(/does not match model preset 'mini'/);
    await expect(readBaseFile(f3, parseSpec({ ...quick, model: { preset: 'tiny', init: 'scratch' } }, 'spec'), tok)).rejects.toThrow(
      /model\.init is 'scratch'/,
    );
  });

  it('hlab run --base CORRUPT exits 2 with one line before any browser, and leaves the file as it was', async () => {
    const bad = (await tinyBase()).slice();
    bad[bad.length - 1] ^= 1;
    const file = tmpFile('base.ckpt', bad);
    const out = join(mkdtempSync(join(tmpdir(), 'hlab-out-')), 'o');
    const r = cli(['run', '--preset', 'quick', '--base', file, '--out', out]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^error: --base ${file}: base checkpoint: digest mismatch .*corrupted$`)),
    ]);
    expect(readFileSync(file)).toEqual(Buffer.from(bad));
  });
});

describe('--resume on a corrupt run checkpoint', () => {
  it('a good export verifies; a corrupted one is a usage error naming the file', async () => {
    const input = {
      meta: { runId: 'run-x', step: 3, createdAt: 1_700_000_000_000, config: {}, rngStates: {}, scheduleState: {}, metricHistory: [] },
      tensors: { params: Float32Array.from({ length: 40 }, (_, i) => i / 7) },
    };
    const p = await prepareCheckpoint(input, 64);
    const good = concatBytes(
      encodeExportFile(p.manifest, p.manifestJson, p.manifestDigest, new Map([['params', new Uint8Array(input.tensors.params.buffer)]])),
    );
    expect((await readRunCheckpointFile(tmpFile('checkpoint.hlab', good))).bytes).toEqual(good);
    const bad = good.slice();
    bad[bad.length - 8] ^= 0xff;
    const f = tmpFile('checkpoint.hlab', bad);
    await expect(readRunCheckpointFile(f)).rejects.toThrow(new RegExp(`^--resume: ${f} is unusable: .*SHA-256 mismatch`));
  });

  it('hlab run --resume exits 2 with one line and leaves the checkpoint untouched', () => {
    const out = mkdtempSync(join(tmpdir(), 'hlab-resume-'));
    mkdirSync(out, { recursive: true });
    const junk = Buffer.from('HLABCKPT then not a checkpoint at all');
    writeFileSync(join(out, 'checkpoint.hlab'), junk);
    const r = cli(['run', '--preset', 'quick', '--out', out, '--resume']);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^error: --resume: .*checkpoint\.hlab is unusable: checkpoint file: /),
    ]);
    expect(readFileSync(join(out, 'checkpoint.hlab'))).toEqual(junk);
  });
});

describe("model.init 'base' without --base: the shipped base must load (no silent random init)", () => {
  const publicDir = new URL('../../public', import.meta.url).pathname;

  it('a preset with no shipped base, or a corrupt one, is refused naming the file and the ways out; the shipped mini base passes', async () => {
    await expect(checkShippedCheckpoints(tinySpec, tok, publicDir)).rejects.toThrow(
      /no base checkpoint ships for preset 'tiny'.*pass --base FILE, or set model.init to 'scratch'/,
    );
    await expect(
      checkShippedCheckpoints(parseSpec({ ...quick, model: { preset: 'tiny', init: 'scratch' } }, 's'), tok, publicDir),
    ).resolves.toBeUndefined();
    const miniSpec = parseSpec({ ...quick, model: { preset: 'mini', init: 'base' } }, 'm');
    await expect(checkShippedCheckpoints(miniSpec, tok, publicDir)).resolves.toBeUndefined();
    const dir = mkdtempSync(join(tmpdir(), 'hlab-public-'));
    const good = new Uint8Array(readFileSync(join(publicDir, 'base-mini.ckpt')));
    const bad = good.slice(0, good.length - 4);
    writeFileSync(join(dir, 'base-mini.ckpt'), bad);
    await expect(checkShippedCheckpoints(miniSpec, tok, dir)).rejects.toThrow(/^public\/base-mini\.ckpt: .*truncated/);
  });

  it("the base of every method's model preset must ship; --base replaces them all", async () => {
    const mixed = parseSpec(
      {
        ...quick,
        model: { preset: 'mini', init: 'base' },
        methods: [quick.methods[0], { ...quick.methods[0], name: 'tiny', modelPreset: 'tiny' }],
      },
      'mixed',
    );
    await expect(checkShippedCheckpoints(mixed, tok, publicDir)).rejects.toThrow(
      /^spec\.model\.init = 'base' but no base checkpoint ships for preset 'tiny' \(public\/base-tiny\.ckpt\): build it with/,
    );
    const empty = mkdtempSync(join(tmpdir(), 'hlab-public-'));
    await expect(checkShippedCheckpoints(mixed, tok, empty)).rejects.toThrow(
      /^spec\.model\.init = 'base' but no base checkpoint ships for preset 'mini'/,
    );
    await expect(checkShippedCheckpoints(mixed, tok, empty, true)).resolves.toBeUndefined();
  });

  it('hlab run on a spec whose base does not ship exits 2 with one line before any browser starts', () => {
    const spec = join(mkdtempSync(join(tmpdir(), 'hlab-spec-')), 'tiny.json');
    writeFileSync(spec, JSON.stringify({ ...quick, name: 'tiny-base', model: { preset: 'tiny', init: 'base' } }));
    const r = cli(['run', '--spec', spec, '--out', mkdtempSync(join(tmpdir(), 'hlab-out-'))]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^error: spec\.model\.init = 'base' but no base checkpoint ships for preset 'tiny'/),
    ]);
  });
});

// The `hlab run --out` folder is a contract (src/cli/run_folder.ts): --resume continues only the
// run the folder holds, a folder holding a run is never overwritten without --fresh (which moves
// it aside), and every refusal is one line, exit 2, before any browser starts (HLAB_CHROMIUM
// points nowhere: reaching the browser would fail differently, exit 1), with the folder unchanged.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shippedTokenizer } from '../../src/cli/cli_util';
import { checkResume, runIdentity } from '../../src/cli/run_folder';
import { publicAssetFetch } from '../../src/cli/checkpoint_files';
import { planExperiment } from '../../src/experiment/prepare';
import { parseSpec } from '../../src/experiment/spec';
import type { RunSegment } from '../../src/experiment/run_checkpoint';
import { encodeBaseCheckpoint } from '../../src/model/checkpoint';
import { presetConfig } from '../../src/model/config';
import { paramCount } from '../../src/model/layout';
import { prepareCheckpoint } from '../../src/storage/serialize';
import { concatBytes, encodeExportFile } from '../../src/storage/export_file';
import { SMOKE_SPEC_JSON } from './lib/smoke_spec';

const ROOT = new URL('../..', import.meta.url).pathname;
const PUBLIC = join(ROOT, 'public');
const tok = shippedTokenizer();
const noBrowser = { ...process.env, HLAB_CHROMIUM: '/nonexistent/chrome' };
const cli = (args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
    env: noBrowser,
  });

const smoke = structuredClone(SMOKE_SPEC_JSON);
const segment: RunSegment = {
  engine: 'wasm',
  describe: 'CPU engine',
  start: 'base checkpoint public/base-mini.ckpt',
  from: { runIndex: 0, step: 0 },
  to: { runIndex: 0, step: 3 },
};

/** An exported run checkpoint written for `specJson` (run id run-<name>), with `segments`. */
async function runCheckpoint(specJson: { name: string }, segments: RunSegment[] = [segment]): Promise<Uint8Array> {
  const params = Float32Array.from({ length: 40 }, (_, i) => i / 7);
  const input = {
    meta: {
      runId: `run-${specJson.name}`,
      step: 1_000_004,
      createdAt: 1_700_000_000_000,
      config: { format: 'hlab-run', version: 2, spec: specJson, run: { runIndex: 0, method: 'm', seed: 0 } },
      rngStates: {},
      scheduleState: { draws: {} },
      metricHistory: { version: 2, segments },
    },
    tensors: { params },
  };
  const p = await prepareCheckpoint(input as never, 64);
  return concatBytes(encodeExportFile(p.manifest, p.manifestJson, p.manifestDigest, new Map([['params', new Uint8Array(params.buffer)]])));
}

/** The identity `hlab run --spec` computes for `specJson` with the shipped base. */
async function identityOf(specJson: unknown): Promise<Awaited<ReturnType<typeof runIdentity>>> {
  const spec = parseSpec(specJson, 'spec');
  const { plan, bases } = await planExperiment(spec, tok, { specJson, fetchAsset: publicAssetFetch(PUBLIC) });
  return runIdentity(plan, bases);
}

/** A folder holding an interrupted run of `specJson`: checkpoint, spec.json, results.json, run.json. */
async function runFolder(specJson: { name: string }, record = true): Promise<string> {
  const out = join(mkdtempSync(join(tmpdir(), 'hlab-folder-')), 'out');
  mkdirSync(out);
  writeFileSync(join(out, 'checkpoint.hlab'), await runCheckpoint(specJson));
  writeFileSync(join(out, 'spec.json'), JSON.stringify(specJson, null, 2));
  writeFileSync(join(out, 'results.json'), JSON.stringify({ status: 'interrupted' }));
  if (record) writeFileSync(join(out, 'run.json'), JSON.stringify({ ...(await identityOf(specJson)), segments: [segment] }, null, 2));
  return out;
}

/** Every file under `dir` with its bytes (sorted paths). */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const f of readdirSync(dir, { recursive: true }) as string[]) {
    const p = join(dir, f);
    if (statSync(p).isFile()) files[f] = readFileSync(p).toString('base64');
  }
  return files;
}

function specFile(json: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), 'hlab-spec-')), 'spec.json');
  writeFileSync(file, JSON.stringify(json));
  return file;
}

describe('hlab run --resume checks the folder before any browser starts', () => {
  it("a folder holding another spec's run: one line naming spec.name with both values, exit 2, nothing changed", async () => {
    const out = await runFolder({ ...smoke, name: 'other' });
    const before = snapshot(out);
    const r = cli(['run', '--spec', specFile(smoke), '--out', out, '--resume']);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      `error: --resume: spec.name differs from the run in ${out}: "other" there, "smoke" now; resume with the same inputs, or start over with --fresh instead of --resume (the earlier run is moved aside)`,
    ]);
    expect(snapshot(out)).toEqual(before);
  });

  it('a changed learning rate: one line naming spec.rl.lr, old and new value; spec.json is not overwritten', async () => {
    const out = await runFolder(smoke);
    const before = snapshot(out);
    const r = cli(['run', '--spec', specFile({ ...smoke, rl: { ...smoke.rl, lr: 0.0002 } }), '--out', out, '--resume']);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^error: --resume: spec\.rl\.lr differs from the run in .*: 0\.0001 there, 0\.0002 now; /),
    ]);
    expect(snapshot(out)).toEqual(before);
  });

  it('another valid --base: one line naming the base checkpoint with both digests, exit 2, nothing changed', async () => {
    const out = await runFolder(smoke);
    const cfg = presetConfig('mini', tok.vocabSize);
    const params = Float32Array.from({ length: paramCount(cfg) }, (_, i) => Math.cos(i) * 0.02);
    const other = join(mkdtempSync(join(tmpdir(), 'hlab-base-')), 'other.ckpt');
    writeFileSync(other, (await encodeBaseCheckpoint(cfg, params, { name: tok.name, vocabSize: tok.vocabSize, formatVersion: 1 })).bytes);
    const before = snapshot(out);
    const r = cli(['run', '--spec', specFile(smoke), '--out', out, '--resume', '--base', other]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(
          `^error: --resume: the base checkpoint of preset 'mini' differs from the run in .*: digest [0-9a-f]{12} \\(public/base-mini\\.ckpt\\) there, digest [0-9a-f]{12} \\(${other}\\) now; `,
        ),
      ),
    ]);
    expect(snapshot(out)).toEqual(before);
  });

  it('the evaluation set, the spec digest and the segments are checked against run.json; a folder without run.json by its checkpoint alone', async () => {
    const out = await runFolder(smoke);
    const spec = parseSpec(smoke, 'spec');
    const now = await identityOf(smoke);
    const manifest = {
      runId: 'run-smoke',
      config: { format: 'hlab-run', version: 2, spec: smoke, run: { runIndex: 0, method: 'm', seed: 0 } },
      metricHistory: { segments: [segment] },
    } as unknown as Parameters<typeof checkResume>[1];
    expect(() => checkResume(out, manifest, spec, now)).not.toThrow();
    expect(() =>
      checkResume(out, manifest, spec, { ...now, evaluationSet: { digest: 'f'.repeat(64), description: 'in-space d=1: 1/137' } }),
    ).toThrow(
      /^--resume: the evaluation set differs from the run in .*: 'in-space: \d+ configurations, \d+ infeasible cells left out' \(digest [0-9a-f]{12}\) there, 'in-space d=1: 1\/137' \(digest ffffffffffff\) now/,
    );
    expect(() => checkResume(out, manifest, spec, { ...now, spec: { ...now.spec, digest: 'e'.repeat(64) } })).toThrow(
      /^--resume: the spec digest \(run\.json\) differs/,
    );
    const moved = { ...manifest, metricHistory: { segments: [{ ...segment, engine: 'webgpu' }] } } as unknown as Parameters<
      typeof checkResume
    >[1];
    expect(() => checkResume(out, moved, spec, now)).toThrow(
      /^--resume: segment 1 differs from the run in .*: wasm from .* there, webgpu from .* now/,
    );
    // The first differing field is named by its path: array elements by index, a field only one side has as absent.
    const withSpec = (json: object) => ({ ...manifest, config: { ...(manifest.config as object), spec: json } }) as typeof manifest;
    expect(() => checkResume(out, withSpec({ ...smoke, seeds: [0, 7] }), spec, now)).toThrow(
      /^--resume: spec\.seeds\[1\] differs from the run in .*: 7 there, \(absent\) now; /,
    );
    const bare = await runFolder(smoke, false);
    expect(() => checkResume(bare, moved, spec, { ...now, evaluationSet: { digest: 'f'.repeat(64), description: 'x' } })).not.toThrow();
  });
});

describe('hlab run without --resume never overwrites a run silently', () => {
  it('a folder holding a run is refused in one line that names the command to continue it, nothing changed', async () => {
    const out = await runFolder(smoke);
    const before = snapshot(out);
    const spec = specFile(smoke);
    const r = cli(['run', '--spec', spec, '--out', out]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      `error: --out ${out} holds an earlier run (results.json status 'interrupted' of spec 'smoke'); continue it with: npm run -s hlab -- run --spec ${spec} --out ${out} --resume; or start over with: npm run -s hlab -- run --spec ${spec} --out ${out} --fresh (the earlier run's files are moved into ${out}/earlier-<time>/); or pick another --out`,
    ]);
    expect(snapshot(out)).toEqual(before);
  });

  it('--fresh moves the earlier run into earlier-<time>/ byte for byte (the checkpoint is never deleted) and names the new run in run.json', async () => {
    const out = await runFolder(smoke);
    const before = snapshot(out);
    const r = cli(['run', '--spec', specFile({ ...smoke, name: 'next' }), '--out', out, '--fresh']);
    // The browser does not exist here: the call fails after the folder was prepared.
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`--fresh: moved the earlier run in ${out} to ${out}/earlier-\\d{8}T\\d{6}Z`));
    const aside = readdirSync(out).filter((f) => f.startsWith('earlier-'));
    expect(aside).toHaveLength(1);
    expect(snapshot(join(out, aside[0]))).toEqual(before);
    expect(JSON.parse(readFileSync(join(out, 'run.json'), 'utf8'))).toMatchObject({
      runId: 'run-next',
      spec: { name: 'next' },
      segments: [],
    });
  });
});

describe('--base that is not a readable file is one line, exit 2', () => {
  it('a directory', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hlab-base-'));
    const r = cli(['run', '--spec', specFile(smoke), '--out', join(dir, 'o'), '--base', dir]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([`error: --base ${dir}: is a directory, not a file`]);
  });

  it('a FIFO (reading it would block forever)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hlab-base-'));
    const fifo = join(dir, 'pipe');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const r = cli(['run', '--spec', specFile(smoke), '--out', join(dir, 'o'), '--base', fifo]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([`error: --base ${fifo}: is a FIFO (named pipe), not a file`]);
  });

  it("a random file: the 'bad magic' shows its bytes escaped, on one line", () => {
    const dir = mkdtempSync(join(tmpdir(), 'hlab-base-'));
    const file = join(dir, 'random.bin');
    writeFileSync(
      file,
      Uint8Array.from([0x1b, 0x5b, 0x32, 0x4a, 0x0a, 0xff, 0xfe, 0x00, ...Array.from({ length: 64 }, (_, i) => (i * 37) & 0xff)]),
    );
    const r = cli(['run', '--spec', specFile(smoke), '--out', join(dir, 'o'), '--base', file]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      `error: --base ${file}: base checkpoint: bad magic "\\x1b[2J\\x0a\\xff\\xfe\\x00", expected HLBASE01`,
    ]);
  });
});

// `hlab run` spec validation: a bad spec or preset exits 2 with a line naming the field
// (no browser is started for an invalid spec).
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSpec } from '../../src/cli/commands/run';
import { resumeCommand, runFailure } from '../../src/cli/run_failure';
import { checkOut, prepareFolder } from '../../src/cli/run_folder';
import { ReportedError } from '../../src/cli/cli_util';
import { DeviceLostError } from '../../src/engine/device_lost';
import { SMOKE_SPEC_JSON } from './lib/smoke_spec';

const quick = structuredClone(SMOKE_SPEC_JSON);

function hlab(args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    cwd: new URL('../..', import.meta.url).pathname,
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe('hlab run: spec validation', () => {
  it('exits 2 naming the bad field and its allowed values', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hlab-run-'));
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ ...quick, rl: { ...quick.rl, aggregation: 'sum' }, rollout: { ...quick.rollout, workers: 0 } }));
    const r = hlab(['run', '--spec', file, '--out', join(dir, 'out')]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('spec.rl.aggregation: expected one of "token-mean", "seq-mean-token-mean", "seq-mean-token-sum-norm"');
    expect(r.stderr).toMatch(/spec\.rollout\.workers: .*>=\s*1/);
  });

  it('an unknown preset and an unreadable spec are usage errors too', () => {
    expect(() => loadSpec({ preset: 'fast' })).toThrow(/--preset 'fast': expected one of quick, lesson, main/);
    expect(() => loadSpec({ spec: '/nonexistent/spec.json' })).toThrow(/--spec \/nonexistent\/spec.json/);
    expect(() => loadSpec({ preset: 'quick', spec: 'x.json' })).toThrow(/either --preset or --spec/);
    expect(loadSpec({ preset: 'quick' }).spec.name).toBe('quick');
  });

  it('a spec whose fields are valid but inconsistent exits 2 with one line, before any browser', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hlab-run-'));
    const file = join(dir, 'k.json');
    writeFileSync(file, JSON.stringify({ ...quick, methods: [{ ...quick.methods[0], K: 99 }] }));
    // A browser that does not exist: reaching the browser would fail differently (exit 1).
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'run', '--spec', file, '--out', join(dir, 'out')], {
      cwd: new URL('../..', import.meta.url).pathname,
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, HLAB_CHROMIUM: '/nonexistent/chrome' },
    });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^error: .*k\.json: invalid experiment spec: spec\.methods\[0\]\.K: 99 exceeds the training-set size 18/),
    ]);
  });
});

describe('hlab run: the output folder', () => {
  const noBrowser = { ...process.env, HLAB_CHROMIUM: '/nonexistent/chrome' };
  const cli = (args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      cwd: new URL('../..', import.meta.url).pathname,
      encoding: 'utf8',
      timeout: 60_000,
      env: noBrowser,
    });

  it('--out under a file: one line naming --out, exit 2', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hlab-out-'));
    writeFileSync(join(dir, 'A'), 'a file');
    const r = cli(['run', '--preset', 'quick', '--out', join(dir, 'A', 'B')]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      `error: --out ${join(dir, 'A', 'B')}: cannot create the output folder: a file is in the way (a folder is needed)`,
    ]);
  });

  it('--resume without a checkpoint fails (exit 2) instead of running the whole job, and creates no folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hlab-out-'));
    const r = cli(['run', '--preset', 'quick', '--out', join(dir, 'typo'), '--resume']);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      `error: --resume: no checkpoint at ${join(dir, 'typo', 'checkpoint.hlab')}; check --out, or run without --resume to start fresh`,
    ]);
    expect(existsSync(join(dir, 'typo'))).toBe(false);
  });

  it('a folder holding an earlier run is refused without --resume or --fresh; the folder is created only by prepareFolder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hlab-out-'));
    const fresh = { resume: false, fresh: false };
    expect(checkOut(join(dir, 'fresh'), fresh, [])).toEqual({ out: join(dir, 'fresh'), holdsRun: false });
    expect(existsSync(join(dir, 'fresh'))).toBe(false);
    expect(prepareFolder('fresh', join(dir, 'fresh'), false)).toBeNull();
    expect(existsSync(join(dir, 'fresh'))).toBe(true);
    mkdirSync(join(dir, 'old'));
    writeFileSync(join(dir, 'old', 'results.json'), '{}');
    expect(() => checkOut(join(dir, 'old'), fresh, ['run', '--preset', 'quick'])).toThrow(
      /holds an earlier run .*start over with: npm run -s hlab -- run --preset quick --fresh/,
    );
    expect(checkOut(join(dir, 'old'), { resume: false, fresh: true }, []).holdsRun).toBe(true);
    writeFileSync(join(dir, 'old', 'checkpoint.hlab'), 'x');
    expect(checkOut(join(dir, 'old'), { resume: true, fresh: false }, []).holdsRun).toBe(true);
    expect(() => checkOut(join(dir, 'old'), { resume: true, fresh: true }, [])).toThrow(/^--resume and --fresh: give one/);
  });

  it('a bad --base beside an earlier run is one error line: with --fresh nothing is moved aside before every input passed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hlab-out-'));
    mkdirSync(join(dir, 'old'));
    writeFileSync(join(dir, 'old', 'results.json'), '{"status":"done"}');
    const r = cli(['run', '--preset', 'quick', '--out', join(dir, 'old'), '--fresh', '--base', join(dir, 'nosuch.ckpt')]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^error: --base .*nosuch\.ckpt/)]);
    expect(readFileSync(join(dir, 'old', 'results.json'), 'utf8')).toBe('{"status":"done"}');
    expect(readdirSync(join(dir, 'old'))).toEqual(['results.json']);
  });

  it('--resume of a finished run is refused in one line (nothing to continue; its results stay); an interrupted one resumes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hlab-out-'));
    mkdirSync(join(dir, 'run'));
    writeFileSync(join(dir, 'run', 'checkpoint.hlab'), 'x');
    writeFileSync(join(dir, 'run', 'results.json'), JSON.stringify({ status: 'interrupted' }));
    expect(checkOut(join(dir, 'run'), { resume: true, fresh: false }, []).out).toBe(join(dir, 'run'));
    writeFileSync(join(dir, 'run', 'results.json'), JSON.stringify({ status: 'done' }));
    expect(() => checkOut(join(dir, 'run'), { resume: true, fresh: false }, [])).toThrow(
      `--resume: the run in ${join(dir, 'run')} has finished (results.json status 'done'); nothing to resume`,
    );
    const r = cli(['run', '--preset', 'quick', '--out', join(dir, 'run'), '--resume']);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(readFileSync(join(dir, 'run', 'results.json'), 'utf8')).toBe(JSON.stringify({ status: 'done' }));
  });
});

describe('hlab run: a lost GPU device', () => {
  // What page.evaluate rejects with when the page threw a DeviceLostError.
  const pageError = new Error(`page.evaluate: ${new DeviceLostError('unknown: GPU process crashed').stack}`);
  it('is one line with the command that resumes from the last checkpoint', () => {
    const r = runFailure(pageError, 'hlab run --preset quick --out out/quick', true);
    expect(r).toBeInstanceOf(ReportedError);
    expect((r as Error).message).toBe(
      'the GPU device was lost (unknown: GPU process crashed); training stopped; resume from the last checkpoint with: hlab run --preset quick --out out/quick --resume',
    );
    expect((r as Error).message.split('\n')).toHaveLength(1);
  });
  it('before the first checkpoint says to run again; other errors pass through', () => {
    const r = runFailure(pageError, 'hlab run --preset quick --resume', false) as Error;
    expect(r.message).toMatch(/before the first checkpoint; run again: hlab run --preset quick$/);
    const other = new Error('boom');
    expect(runFailure(other, 'hlab run', true)).toBe(other);
    expect(resumeCommand('hlab run --resume --steps 2')).toBe('hlab run --resume --steps 2');
    // --fresh would move the run it resumes aside: the resume command drops it.
    expect(resumeCommand('npm run -s hlab -- run --preset lesson --fresh --out o')).toBe(
      'npm run -s hlab -- run --preset lesson --out o --resume',
    );
  });
});

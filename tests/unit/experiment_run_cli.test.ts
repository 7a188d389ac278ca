// `hlab run` spec validation: a bad spec or preset exits 2 with a line naming the field
// (no browser is started for an invalid spec).
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSpec } from '../../src/cli/commands/run';

const quick = JSON.parse(readFileSync(new URL('../../public/presets/quick.json', import.meta.url), 'utf8'));

function hlab(args: string[]) {
  return spawnSync('npx', ['tsx', 'src/cli/main.ts', ...args], { cwd: new URL('../..', import.meta.url).pathname, encoding: 'utf8', timeout: 60_000 });
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
    expect(() => loadSpec({ preset: 'fast' })).toThrow(/--preset 'fast': expected one of quick, main/);
    expect(() => loadSpec({ spec: '/nonexistent/spec.json' })).toThrow(/--spec \/nonexistent\/spec.json/);
    expect(() => loadSpec({ preset: 'quick', spec: 'x.json' })).toThrow(/either --preset or --spec/);
    expect(loadSpec({ preset: 'quick' }).spec.name).toBe('quick');
  });

  it('a spec whose fields are valid but inconsistent exits 2 with one line, before any browser', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hlab-run-'));
    const file = join(dir, 'k.json');
    writeFileSync(file, JSON.stringify({ ...quick, methods: [{ ...quick.methods[0], K: 99 }] }));
    // A browser that does not exist: reaching the browser would fail differently (exit 1).
    const r = spawnSync('npx', ['tsx', 'src/cli/main.ts', 'run', '--spec', file, '--out', join(dir, 'out')], {
      cwd: new URL('../..', import.meta.url).pathname, encoding: 'utf8', timeout: 60_000, env: { ...process.env, HLAB_CHROMIUM: '/nonexistent/chrome' },
    });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^error: .*k\.json: invalid experiment spec: spec\.methods\[0\]\.K: 99 exceeds the training-set size 18/)]);
  });
});

// The command line from a new user's side: --version, required options marked in --help with
// their choices in the missing-option error, `tasks` without --suite, --side-by-side without
// --diff, and `doctor` as a real check with a non-zero exit on failure.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const ROOT = new URL('../..', import.meta.url).pathname;
function hlab(args: string[], env: Record<string, string> = {}) {
  return spawnSync('npx', ['tsx', 'src/cli/main.ts', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, ...env },
  });
}

describe('hlab usage', () => {
  it('--version prints the package version', () => {
    const r = hlab(['--version']);
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')).version);
  });

  it('required options are marked in --help; a missing one names its choices, exit 2', () => {
    const help = hlab(['render', '--help']);
    expect(help.stdout).toMatch(/--suite <name>\s+\(required\) task suite \(workspace, errands\)/);
    expect(help.stdout).toMatch(/--harness <id>\s+\(required\)/);
    expect(help.stdout).toMatch(/--diff <id2>\s+a second harness/); // optional ones are not marked
    const r = hlab(['render', '--task', '1', '--harness', 'S0-T0-O0-C0-W0']);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual(["error: required option '--suite <name>' not specified: task suite (workspace, errands)"]);
  });

  it('tasks without --suite lists the suites', () => {
    const r = hlab(['tasks']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^workspace\s+6 families: /m);
    expect(r.stdout).toMatch(/^errands\s+6 families: /m);
    const j = JSON.parse(hlab(['tasks', '--json']).stdout);
    expect(j.suites.map((s: { name: string }) => s.name)).toEqual(['workspace', 'errands']);
  });

  it('render --side-by-side without --diff is a usage error', () => {
    const r = hlab(['render', '--suite', 'workspace', '--task', '1', '--harness', 'S0-T0-O0-C0-W0', '--side-by-side']);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual(['error: --side-by-side needs --diff <id2> (the second harness to show beside --harness)']);
  });
});

describe('hlab doctor', () => {
  it('exits 1 when the browser is missing, naming what failed', () => {
    const r = hlab(['doctor', '--json'], { HLAB_CHROMIUM: '/nonexistent/chrome' });
    expect(r.status).toBe(1);
    const j = JSON.parse(r.stdout);
    expect(j.ok).toBe(false);
    expect(j.checks.find((c: { name: string }) => c.name === 'chromium')).toEqual({
      name: 'chromium',
      ok: false,
      detail: 'HLAB_CHROMIUM=/nonexistent/chrome: no such file',
    });
    expect(j.checks.find((c: { name: string }) => c.name === 'webgpu').ok).toBe(false);
  });

  it('passes only after a WebGPU compute round trip in Chromium and a CPU-engine matmul', () => {
    const r = hlab(['doctor', '--json']);
    const j = JSON.parse(r.stdout);
    expect(j.checks.map((c: { name: string; ok: boolean }) => [c.name, c.ok])).toEqual([
      ['node', true],
      ['chromium', true],
      ['webgpu', true],
      ['cpu-engine', true],
    ]);
    expect(j.checks[2].detail).toMatch(/compute round trip ok/);
    expect(r.status).toBe(0);
  });
});

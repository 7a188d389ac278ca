// The README's set-up commands work verbatim as root without sudo and as a user:
// scripts/install-chromium calls apt-get directly as root and through sudo otherwise, and
// installs nothing when a browser is already there. Tested with stub id/apt-get/sudo on PATH.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = new URL('../..', import.meta.url).pathname;
const SCRIPT = join(ROOT, 'scripts/install-chromium');

/** Run the script with only stubs on PATH: `id -u` prints `uid`; the named tools log their calls. */
function install(uid: number, tools: string[], env: Record<string, string> = {}) {
  const bin = mkdtempSync(join(tmpdir(), 'hlab-stub-'));
  const log = join(bin, 'calls.log');
  const stub = (name: string, body: string) => {
    writeFileSync(join(bin, name), `#!/bin/sh\necho "${name} $*" >> ${log}\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  stub('id', `echo ${uid}`);
  for (const t of tools) stub(t, t === 'sudo' ? 'exec "$@"' : 'exit 0');
  const r = spawnSync('/bin/bash', [SCRIPT], { encoding: 'utf8', env: { PATH: bin, ...env } });
  const calls = existsSync(log)
    ? readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('id '))
    : [];
  return { status: r.status, stderr: r.stderr, calls };
}

describe('set-up commands', () => {
  it("the README's commands start with no sudo and use scripts/install-chromium", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const block = /## Set up and run[^\n]*\n+```bash\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    const commands = block!
      .split('\n')
      .filter(Boolean)
      .flatMap((l) =>
        l
          .replace(/#.*/, '')
          .split('&&')
          .map((c) => c.trim()),
      );
    expect(commands.length).toBeGreaterThan(0);
    for (const c of commands) expect(c.split(/\s+/)[0], c).not.toBe('sudo');
    expect(commands).toContain('scripts/install-chromium');
    expect(statSync(SCRIPT).mode & 0o111).not.toBe(0);
    expect(readFileSync(join(ROOT, '.ci/run'), 'utf8')).toContain('scripts/install-chromium');
  });

  it('as root: apt-get directly (no sudo on the machine)', () => {
    const r = install(0, ['apt-get']);
    expect(r.status).toBe(0);
    expect(r.calls).toEqual(['apt-get update -qq', 'apt-get install -y -qq chromium']);
  });

  it('as a user: through sudo; without sudo a clear failure', () => {
    const r = install(1000, ['apt-get', 'sudo']);
    expect(r.status).toBe(0);
    expect(r.calls).toEqual([
      'sudo apt-get update -qq',
      'apt-get update -qq',
      'sudo apt-get install -y -qq chromium',
      'apt-get install -y -qq chromium',
    ]);
    const none = install(1000, ['apt-get']);
    expect(none.status).toBe(1);
    expect(none.calls).toEqual([]);
    expect(none.stderr).toMatch(/not root and no sudo/);
  });

  it('a browser already there: nothing installed', () => {
    expect(install(0, ['apt-get', 'chromium']).calls).toEqual([]);
    expect(install(1000, ['apt-get', 'sudo'], { HLAB_CHROMIUM: '/opt/chrome' }).calls).toEqual([]);
  });
});

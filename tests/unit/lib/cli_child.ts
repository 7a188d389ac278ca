/**
 * The real CLI (`hlab`, src/cli/main.ts under tsx) in a child process, for the few tests that need
 * its exit code and streams; each spawn costs seconds of CPU, so most CLI tests run in process
 * (cli_in_process.ts).
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../..');
const TSX = resolve(ROOT, 'node_modules/.bin/tsx');

/** Run `hlab <args>` from the repository root without colour. @returns its exit code, stdout and stderr */
export function hlabChild(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((res, rej) => {
    const p = spawn(TSX, ['src/cli/main.ts', ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('error', rej);
    p.on('close', (code) => res({ code, stdout, stderr }));
  });
}

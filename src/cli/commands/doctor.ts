/**
 * `hlab doctor`: what this machine offers Harness Lab (Node, the browser and its WebGPU flags).
 */
import type { Command } from 'commander';
import { chromiumExecutable, webgpuLaunchArgs } from '../browser_flags';
import { printJson } from '../cli_util';

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description('print the Node version, the Chromium binary and the WebGPU flags the CLI will use')
    .option('--json', 'print JSON only')
    .action((opts: { json?: boolean }) => {
      let chromium: string;
      try {
        chromium = chromiumExecutable();
      } catch (e) {
        chromium = `not found: ${(e as Error).message}`;
      }
      const report = { node: process.version, chromium, webgpuFlags: webgpuLaunchArgs() };
      if (opts.json) printJson(report);
      else {
        console.log(`node      ${report.node}`);
        console.log(`chromium  ${report.chromium}`);
        console.log(`flags     ${report.webgpuFlags.join(' ')}`);
      }
    });
}

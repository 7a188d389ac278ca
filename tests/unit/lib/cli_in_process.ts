/**
 * hlab commands run in-process, as src/cli/main.ts wires them: stdout captured (printJson and
 * process.stdout.write; console.log goes to vitest's console), a bad value surfacing as the
 * CommanderError (exit 2 in main.ts) or UsageError (exit 2) it raises.
 */
import { Command } from 'commander';
import { vi } from 'vitest';

/**
 * Run `hlab <args>` with the commands `register` adds.
 * @returns what it wrote to stdout, and the error it threw (if any)
 */
export async function runCli(
  register: readonly ((program: Command) => void)[],
  ...args: string[]
): Promise<{ stdout: string; error?: Error }> {
  const program = new Command().exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
  for (const r of register) r(program);
  for (const cmd of program.commands) cmd.exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
  let stdout = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  try {
    await program.parseAsync(['node', 'hlab', ...args]);
    return { stdout };
  } catch (e) {
    return { stdout, error: e as Error };
  } finally {
    spy.mockRestore();
  }
}

/** The JSON `hlab <args> --json` prints, read as `T` (unchecked). @throws the command's error */
export async function cliJson<T>(register: readonly ((program: Command) => void)[], ...args: string[]): Promise<T> {
  const r = await runCli(register, ...args, '--json');
  if (r.error) throw r.error;
  return JSON.parse(r.stdout) as T;
}

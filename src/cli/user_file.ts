/**
 * Reading a file the user names on the command line (`--base`, `--spec`, the checkpoint
 * `--resume` continues from): a path that is not a regular readable file is one line naming the
 * option, the path and what is there instead — never a stack trace, and never a read that blocks
 * forever on a FIFO or a device.
 */
import { readFileSync, statSync } from 'node:fs';
import { UsageError } from './cli_util';

/** The file-system calls `readUserFile` makes (tests inject faults). */
interface ReadFs {
  statSync(path: string): {
    isFile(): boolean;
    isDirectory(): boolean;
    isFIFO(): boolean;
    isSocket(): boolean;
    isCharacterDevice(): boolean;
    isBlockDevice(): boolean;
  };
  readFileSync(path: string): Uint8Array;
}

const nodeFs: ReadFs = { statSync: (p) => statSync(p), readFileSync: (p) => readFileSync(p) };

/** What an errno means for a file the user named. */
function errnoText(e: unknown): string {
  const code = (e as NodeJS.ErrnoException)?.code;
  const words: Record<string, string> = {
    ENOENT: 'no such file',
    EACCES: 'cannot read it: permission denied (EACCES)',
    EPERM: 'cannot read it: operation not permitted (EPERM)',
    EIO: 'cannot read it: input/output error (EIO)',
    ENOTDIR: 'a file is in the way in its path (ENOTDIR)',
    ELOOP: 'too many symbolic links (ELOOP)',
    EISDIR: 'is a directory, not a file',
  };
  return (code && words[code]) ?? `cannot read it: ${String((e as Error)?.message ?? e).split('\n')[0]}`;
}

/** What kind of non-file is at a path, in words. */
function kindOf(st: ReturnType<ReadFs['statSync']>): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/**
 * The bytes of the regular file at `path`, named on the command line by `option`.
 * @param option how the message names it, e.g. '--base' (the message reads `--base PATH: …`)
 * @throws UsageError (exit 2) naming the option and the path: missing, a directory, a FIFO, a
 *   socket or device, unreadable (EACCES, EIO, …)
 */
export function readUserFile(option: string, path: string, fs: ReadFs = nodeFs): Uint8Array {
  let st: ReturnType<ReadFs['statSync']>;
  try {
    st = fs.statSync(path);
  } catch (e) {
    throw new UsageError(`${option} ${path}: ${errnoText(e)}`);
  }
  // Checked before reading: a FIFO or a device would block the read (or never end).
  if (!st.isFile()) throw new UsageError(`${option} ${path}: is ${kindOf(st)}, not a file`);
  try {
    return new Uint8Array(fs.readFileSync(path));
  } catch (e) {
    throw new UsageError(`${option} ${path}: ${errnoText(e)}`);
  }
}

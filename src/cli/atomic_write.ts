/**
 * Writing a file of an output folder atomically: the data goes to `<path>.tmp`, which is then
 * renamed over `<path>`, so a reader (or a `--resume`) sees the old file or the new one, never
 * half of one. A write that fails (disk full, no permission, an I/O error, the folder removed
 * under the run) leaves the old file as it was, removes the partial `.tmp` (a full disk would
 * otherwise stay full) and throws one `FolderWriteError` naming the path and the errno.
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';

/** The file-system calls `writeAtomic` makes (tests inject ENOSPC, EACCES, EIO, ENOENT). */
export interface WriteFs {
  writeFileSync(path: string, data: string | Uint8Array): void;
  renameSync(from: string, to: string): void;
  rmSync(path: string, opts: { force: true }): void;
}

export const nodeWriteFs: WriteFs = {
  writeFileSync: (p, d) => writeFileSync(p, d),
  renameSync: (a, b) => renameSync(a, b),
  rmSync: (p, o) => rmSync(p, o),
};

/** The errno codes of a failed write, in words. */
const WHY: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is exceeded',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  EIO: 'input/output error',
  ENOENT: 'the folder is gone',
  ENOTDIR: 'the folder is gone (a file is in its place)',
};

/** A file of the output folder could not be written; the old file (if any) is intact and no `.tmp` is left. */
export class FolderWriteError extends Error {
  constructor(
    readonly path: string,
    readonly code: string,
    detail: string,
  ) {
    super(`cannot write ${path}: ${WHY[code] ?? detail} (${code})`);
    this.name = 'FolderWriteError';
  }
}

/**
 * Write `data` to `path` atomically (module doc).
 * @throws FolderWriteError naming the path and the errno; the partial `<path>.tmp` is removed
 */
export function writeAtomic(path: string, data: string | Uint8Array, fs: WriteFs = nodeWriteFs): void {
  const tmp = `${path}.tmp`;
  try {
    fs.writeFileSync(tmp, data);
    fs.renameSync(tmp, path);
  } catch (e) {
    try {
      fs.rmSync(tmp, { force: true });
    } catch {
      // The folder itself may be gone or unwritable: nothing more can be removed then.
    }
    const err = e as NodeJS.ErrnoException;
    throw new FolderWriteError(path, err?.code ?? 'EUNKNOWN', String(err?.message ?? e).split('\n')[0]);
  }
}

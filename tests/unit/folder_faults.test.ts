// Faults end in one line: a write into the run folder that fails (disk full, no permission, an
// I/O error, the folder removed) leaves the last good file intact and no partial .tmp, and the
// CLI's line names the path, the last good checkpoint and the command that resumes, exit 74.
// Faults are injected through the fs seams (atomic_write.ts WriteFs, user_file.ts ReadFs).
import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FolderWriteError, nodeWriteFs, writeAtomic, type WriteFs } from '../../src/cli/atomic_write';
import { folderFault } from '../../src/cli/run_failure';
import { EXIT_IO_FAULT, hlabCommand, printable, UsageError } from '../../src/cli/cli_util';
import { readUserFile } from '../../src/cli/user_file';

/** The file system readUserFile reads through. */
type ReadFs = NonNullable<Parameters<typeof readUserFile>[2]>;

const errno = (code: string) => Object.assign(new Error(`${code}: injected`), { code });

/** The real file system, except that the write of a .tmp puts `partial` bytes there and then fails with `code`. */
function failingWrite(code: string, partial = 4096): WriteFs {
  return {
    ...nodeWriteFs,
    writeFileSync(path, data) {
      writeFileSync(path, typeof data === 'string' ? data.slice(0, partial) : data.subarray(0, partial));
      throw errno(code);
    },
  };
}

describe('writeAtomic: a failed save keeps the last good file and leaves no .tmp', () => {
  for (const code of ['ENOSPC', 'EACCES', 'EIO']) {
    it(`${code} while writing`, () => {
      const dir = mkdtempSync(join(tmpdir(), 'hlab-fault-'));
      const path = join(dir, 'checkpoint.hlab');
      writeFileSync(path, 'last good');
      let err: unknown;
      try {
        writeAtomic(path, new Uint8Array(1 << 16).fill(7), failingWrite(code));
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(FolderWriteError);
      expect((err as FolderWriteError).code).toBe(code);
      expect((err as Error).message).toMatch(new RegExp(`^cannot write ${path}: .* \\(${code}\\)$`));
      expect(readFileSync(path, 'utf8')).toBe('last good');
      expect(readdirSync(dir)).toEqual(['checkpoint.hlab']);
    });
  }

  it('EIO on the rename: the written .tmp is removed too', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hlab-fault-'));
    const path = join(dir, 'results.json');
    writeFileSync(path, 'old');
    expect(() =>
      writeAtomic(path, 'new', {
        ...nodeWriteFs,
        renameSync: () => {
          throw errno('EIO');
        },
      }),
    ).toThrow(/input\/output error \(EIO\)$/);
    expect(readdirSync(dir)).toEqual(['results.json']);
    expect(readFileSync(path, 'utf8')).toBe('old');
  });

  it('the folder removed under the run (a real ENOENT)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hlab-fault-'));
    rmSync(dir, { recursive: true });
    expect(() => writeAtomic(join(dir, 'checkpoint.hlab'), 'x')).toThrow(/the folder is gone \(ENOENT\)$/);
    expect(existsSync(dir)).toBe(false);
  });
});

describe('folderFault: the one line the CLI prints', () => {
  const command = hlabCommand(['run', '--preset', 'lesson', '--out', 'out/lesson']);

  it('names the path, the last good checkpoint and the exact resume command; exit 74', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hlab-fault-'));
    const ckpt = join(dir, 'checkpoint.hlab');
    writeFileSync(ckpt, 'last good');
    const r = folderFault(new FolderWriteError(ckpt, 'ENOSPC', 'x'), ckpt, 4, command);
    expect(r.exitCode).toBe(EXIT_IO_FAULT);
    expect(r.message).toBe(
      `cannot write ${ckpt}: no space left on the device (ENOSPC); no partial checkpoint.hlab.tmp is left; the last good checkpoint is ${ckpt} (run 1, RL step 3); free space, then resume with: npm run -s hlab -- run --preset lesson --out out/lesson --resume`,
    );
    expect(folderFault(new FolderWriteError(ckpt, 'EACCES', 'x'), ckpt, null, `${command} --resume`).message).toMatch(
      /\(the one this call started from\); make it writable, then resume with: npm run -s hlab -- run --preset lesson --out out\/lesson --resume$/,
    );
  });

  it('with no checkpoint left (the folder is gone) it says to run again, without --resume', () => {
    const gone = join(tmpdir(), 'hlab-no-such-folder', 'checkpoint.hlab');
    const r = folderFault(new FolderWriteError(gone, 'ENOENT', 'x'), gone, 1_000_004, `${command} --resume`);
    expect(r.message).toMatch(
      /the folder is gone \(ENOENT\); .*; no checkpoint is left in the folder; fix the cause, then run again: npm run -s hlab -- run --preset lesson --out out\/lesson$/,
    );
    expect(r.message.split('\n')).toHaveLength(1);
  });
});

describe('readUserFile: a named file that cannot be read is one usage line', () => {
  const file = {
    isFile: () => true,
    isDirectory: () => false,
    isFIFO: () => false,
    isSocket: () => false,
    isCharacterDevice: () => false,
    isBlockDevice: () => false,
  };
  const fs = (read: () => Uint8Array): ReadFs => ({ statSync: () => file, readFileSync: read });

  it('EACCES and EIO name the option, the path and the errno', () => {
    for (const code of ['EACCES', 'EIO']) {
      expect(() =>
        readUserFile(
          '--base',
          '/x/base.ckpt',
          fs(() => {
            throw errno(code);
          }),
        ),
      ).toThrow(
        new UsageError(`--base /x/base.ckpt: cannot read it: ${code === 'EACCES' ? 'permission denied' : 'input/output error'} (${code})`),
      );
    }
    expect(() => readUserFile('--spec', join(tmpdir(), 'hlab-no-such-file.json'))).toThrow(
      /^--spec .*hlab-no-such-file\.json: no such file$/,
    );
  });
});

describe('printed text', () => {
  it('commands are quoted for the shell and run through npm from the project root', () => {
    expect(hlabCommand(['run', '--spec', 'my spec.json', '--out', "it's"])).toBe(
      `npm run -s hlab -- run --spec 'my spec.json' --out 'it'\\''s'`,
    );
  });
  it('control characters and undecodable bytes are shown escaped', () => {
    expect(printable('a\nb\x1b[2J\ufffd\u0085')).toBe('a\\nb\\x1b[2J\\u{fffd}\\x85');
  });
});

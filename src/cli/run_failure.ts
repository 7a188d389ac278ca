/**
 * How a `hlab run` that failed is reported in the terminal: one line naming what went wrong, the
 * last good checkpoint and the command that continues (resume, or run again when none is left).
 */
import { existsSync } from 'node:fs';
import { EXIT_IO_FAULT, ReportedError } from './cli_util';
import type { FolderWriteError } from './atomic_write';
import { checkpointPosition } from '../experiment/run_checkpoint';
import { DEVICE_LOST_TEXT } from '../engine/device_lost';

/** The command that resumes `command`: --fresh dropped (it would move the run aside), --resume added once. */
export function resumeCommand(command: string): string {
  const c = command.replace(/\s--fresh(?=\s|$)/g, '');
  return /(^|\s)--resume(\s|$)/.test(c) ? c : `${c} --resume`;
}

/**
 * A run that failed in the page, for the terminal: a lost GPU device is one line with the
 * command that resumes from the last checkpoint (or runs again when none was saved yet); any
 * other error is returned unchanged.
 */
export function runFailure(e: unknown, command: string, haveCheckpoint: boolean): unknown {
  const msg = String((e as Error)?.message ?? e);
  const at = msg.indexOf(DEVICE_LOST_TEXT);
  if (at < 0) return e;
  const line = msg
    .slice(at)
    .split('\n')[0]
    .replace(/; training stopped, resume from the last checkpoint on a new device$/, '; training stopped');
  return new ReportedError(
    haveCheckpoint
      ? `${line}; resume from the last checkpoint with: ${resumeCommand(command)}`
      : `${line} before the first checkpoint; run again: ${command.replace(/\s--resume(?=\s|$)/, '')}`,
  );
}

/** A checkpoint's store step in words: 'run 1, RL step 4', 'run 2, before its first RL step', 'after run 1'. */
function positionText(step: number): string {
  const p = checkpointPosition(step);
  return p.finished
    ? `after run ${p.runIndex}`
    : p.rlStep < 0
      ? `run ${p.runIndex + 1}, before its first RL step`
      : `run ${p.runIndex + 1}, RL step ${p.rlStep}`;
}

/**
 * A file of the output folder that could not be written, for the terminal: one line naming it,
 * the last good checkpoint (the one this call saved last, `lastSaved` a store step, or the one it
 * resumed from) and the command that continues, exit EXIT_IO_FAULT.
 */
export function folderFault(e: FolderWriteError, ckptPath: string, lastSaved: number | null, command: string): ReportedError {
  const fix: Record<string, string> = {
    ENOSPC: 'free space',
    EDQUOT: 'free space',
    EACCES: 'make it writable',
    EPERM: 'make it writable',
    EROFS: 'make it writable',
    EIO: 'check the disk',
  };
  const todo = fix[e.code] ?? 'fix the cause';
  const tmp = `no partial ${e.path.split('/').pop()}.tmp is left`;
  const fresh = command.replace(/\s--resume(?=\s|$)/, '');
  const tail = existsSync(ckptPath)
    ? `the last good checkpoint is ${ckptPath} (${lastSaved === null ? 'the one this call started from' : positionText(lastSaved)}); ${todo}, then resume with: ${resumeCommand(command)}`
    : `no checkpoint is left in the folder; ${todo}, then run again: ${fresh}`;
  return new ReportedError(`${e.message}; ${tmp}; ${tail}`, EXIT_IO_FAULT);
}

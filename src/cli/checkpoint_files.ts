/**
 * Checkpoint files the user names on the `hlab run` command line, checked in Node before any
 * browser starts (issue 24): a `--base FILE` must load — a corrupt or mismatched file is never
 * replaced by a random init — and the run checkpoint `--resume` continues from must verify.
 * Both read the file only; a file that fails is left as it is.
 */
import { existsSync, readFileSync } from 'node:fs';
import { UsageError } from './cli_util';
import { decodeBaseCheckpoint } from '../pretrain/checkpoint';
import { decodeExportFile } from '../storage/serialize';
import { presetConfig } from '../model/config';
import type { ExperimentSpec } from '../experiment/spec';
import type { Tokenizer } from '../model/tokenizer';

/** Bytes of `path`, or a UsageError naming the option and the file. */
function readNamed(option: string, path: string): Uint8Array {
  if (!existsSync(path)) throw new UsageError(`${option} ${path}: no such file`);
  return new Uint8Array(readFileSync(path));
}

/**
 * Read and verify the base checkpoint `--base FILE` for `spec`: its digests and length
 * (pretrain/checkpoint.ts `decodeBaseCheckpoint`), its config against every model preset the
 * spec's methods train, and its tokenizer against `tok`.
 * @returns the file's bytes
 * @throws UsageError (exit 2) naming the file and the reason (missing, truncated, digest
 *   mismatch, config or tokenizer mismatch).
 */
export async function readBaseFile(path: string, spec: ExperimentSpec, tok: Tokenizer): Promise<Uint8Array> {
  const bytes = readNamed('--base', path);
  if (spec.model.init !== 'base') {
    throw new UsageError(`--base ${path}: spec.model.init is '${spec.model.init}', so the file would not be loaded; set model.init to 'base' or drop --base`);
  }
  let header: Awaited<ReturnType<typeof decodeBaseCheckpoint>>['header'];
  try {
    header = (await decodeBaseCheckpoint(bytes)).header;
  } catch (e) {
    throw new UsageError(`--base ${path}: ${(e as Error).message.split('\n')[0]}`);
  }
  const c = header.config;
  const presets = new Set(spec.methods.map((m) => m.modelPreset ?? spec.model.preset));
  for (const preset of presets) {
    const cfg = presetConfig(preset, tok.vocabSize);
    if (c.vocabSize !== cfg.vocabSize || c.maxT !== cfg.maxT || c.C !== cfg.C || c.L !== cfg.L || c.NH !== cfg.NH) {
      throw new UsageError(`--base ${path}: its config ${JSON.stringify(c)} does not match model preset '${preset}' ${JSON.stringify(cfg)}`);
    }
  }
  if (header.tokenizer.name !== tok.name) throw new UsageError(`--base ${path}: it was trained with tokenizer '${header.tokenizer.name}', not '${tok.name}'`);
  return bytes;
}

/**
 * Read and verify the run checkpoint `--resume` continues from (an exported checkpoint file:
 * magic, manifest and tensor digests, length; storage/serialize.ts `decodeExportFile`).
 * @returns the file's bytes
 * @throws UsageError (exit 2) naming the file and what failed.
 */
export async function readRunCheckpointFile(path: string): Promise<Uint8Array> {
  const bytes = readNamed('--resume:', path);
  try {
    await decodeExportFile(bytes);
  } catch (e) {
    throw new UsageError(`--resume: ${path} is unusable: ${(e as Error).message.split('\n')[0]}; move it away to start fresh, or resume from another --out`);
  }
  return bytes;
}

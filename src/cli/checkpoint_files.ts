/**
 * Checkpoint files the user names on the `hlab run` command line, checked in Node before any
 * browser starts: a `--base FILE` must load — a corrupt or mismatched file is never
 * replaced by a random init — and the run checkpoint `--resume` continues from must verify.
 * Both read the file only; a file that fails is left as it is.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from './cli_util';
import { readUserFile } from './user_file';
import { decodeBaseCheckpoint } from '../model/checkpoint';
import type { CheckpointManifest } from '../storage/serialize';
import { decodeExportFile } from '../storage/export_file';
import { presetConfig } from '../model/config';
import type { ExperimentSpec } from '../experiment/spec';
import { baseCheckpointUrl } from '../util/asset_fetch';
import { missingBaseFix } from '../experiment/run_start';
import type { Tokenizer } from '../model/tokenizer';

/** Bytes of `path`, or a UsageError naming the option and the file (user_file.ts: a directory, a FIFO, an unreadable file). */
function readNamed(option: string, path: string): Uint8Array {
  return readUserFile(option, path);
}

/**
 * Read and verify the base checkpoint `--base FILE` for `spec`: its digests and length
 * (model/checkpoint.ts `decodeBaseCheckpoint`), its config against every model preset the
 * spec's methods train, and its tokenizer against `tok`.
 * @returns the file's bytes
 * @throws UsageError (exit 2) naming the file and the reason (missing, not a regular readable file, truncated, digest
 *   mismatch, config or tokenizer mismatch).
 */
export async function readBaseFile(path: string, spec: ExperimentSpec, tok: Tokenizer): Promise<Uint8Array> {
  const bytes = readNamed('--base', path);
  if (spec.model.init !== 'base') {
    throw new UsageError(
      `--base ${path}: spec.model.init is '${spec.model.init}', so the file would not be loaded; set model.init to 'base' or drop --base`,
    );
  }
  await verifyBase(`--base ${path}`, bytes, spec, tok);
  return bytes;
}

/**
 * The shipped base checkpoints a spec's runs start from (public/ next to the code), checked
 * before any browser starts: the base of every model preset its methods train, at
 * spec.model.exposure, when model.init is 'base' (unless `explicitBase`: the --base file replaces
 * those), and the bases whose mixes the in-space set leaves out
 * (spec.evaluation.inSpace.leaveOutMixOf). Missing or unusable, the run is refused here (exit 2)
 * instead of falling back to a random init — only 'scratch' asks for one.
 * @throws UsageError naming the field, the file, the reason and the ways out
 */
export async function checkShippedCheckpoints(
  spec: ExperimentSpec,
  tok: Tokenizer,
  publicDir: string,
  explicitBase = false,
): Promise<void> {
  const presets = [...new Set(spec.methods.map((m) => m.modelPreset ?? spec.model.preset))];
  const wanted: Array<{ preset: string; exposure: string | undefined; field: string }> = [];
  if (spec.model.init === 'base' && !explicitBase)
    for (const preset of presets) wanted.push({ preset, exposure: spec.model.exposure, field: "spec.model.init = 'base'" });
  for (const exposure of spec.evaluation.inSpace.leaveOutMixOf ?? [])
    for (const preset of presets) wanted.push({ preset, exposure, field: `spec.evaluation.inSpace.leaveOutMixOf '${exposure}'` });
  for (const { preset, exposure, field } of wanted) {
    const url = baseCheckpointUrl(preset, exposure);
    const file = `public${url}`;
    const path = join(publicDir, url);
    const fix = missingBaseFix(preset, exposure);
    const what = `preset '${preset}'${exposure ? ` with exposure '${exposure}'` : ''}`;
    if (!existsSync(path)) throw new UsageError(`${field} but no base checkpoint ships for ${what} (${file}): ${fix}`);
    const users = spec.methods.filter((u) => (u.modelPreset ?? spec.model.preset) === preset);
    await verifyBase(file, new Uint8Array(readFileSync(path)), { ...spec, methods: users }, tok, fix);
  }
}

/** Digest, config (every preset of the spec's methods) and tokenizer of a base checkpoint. @throws UsageError starting with `label` */
async function verifyBase(label: string, bytes: Uint8Array, spec: ExperimentSpec, tok: Tokenizer, fix?: string): Promise<void> {
  const tail = fix ? `; ${fix}` : '';
  let header: Awaited<ReturnType<typeof decodeBaseCheckpoint>>['header'];
  try {
    header = (await decodeBaseCheckpoint(bytes)).header;
  } catch (e) {
    throw new UsageError(`${label}: ${(e as Error).message.split('\n')[0]}${tail}`);
  }
  const c = header.config;
  const presets = new Set(spec.methods.map((m) => m.modelPreset ?? spec.model.preset));
  for (const preset of presets) {
    const cfg = presetConfig(preset, tok.vocabSize);
    if (c.vocabSize !== cfg.vocabSize || c.maxT !== cfg.maxT || c.C !== cfg.C || c.L !== cfg.L || c.NH !== cfg.NH) {
      throw new UsageError(
        `${label}: its config ${JSON.stringify(c)} does not match model preset '${preset}' ${JSON.stringify(cfg)}${tail}`,
      );
    }
  }
  if (header.tokenizer.name !== tok.name)
    throw new UsageError(`${label}: it was trained with tokenizer '${header.tokenizer.name}', not '${tok.name}'${tail}`);
}

/**
 * Fetch of the app's same-origin asset paths from `publicDir` in Node (a 404 for a missing
 * file), for loaders written against the page's asset cache (run_start.ts).
 */
export function publicAssetFetch(publicDir: string): (url: string) => Promise<Response> {
  return async (url) => {
    const path = join(publicDir, url);
    return existsSync(path) ? new Response(readFileSync(path)) : new Response(null, { status: 404 });
  };
}

/**
 * Read and verify the run checkpoint `--resume` continues from (an exported checkpoint file:
 * magic, manifest and tensor digests, length; storage/export_file.ts `decodeExportFile`).
 * @returns the file's bytes and its manifest (run id, spec, segments: run_folder.ts checks them)
 * @throws UsageError (exit 2) naming the file and what failed.
 */
export async function readRunCheckpointFile(path: string): Promise<{ bytes: Uint8Array; manifest: CheckpointManifest }> {
  const bytes = readNamed('--resume:', path);
  try {
    return { bytes, manifest: (await decodeExportFile(bytes)).manifest };
  } catch (e) {
    throw new UsageError(
      `--resume: ${path} is unusable: ${(e as Error).message.split('\n')[0]}; move it away to start fresh, or resume from another --out`,
    );
  }
}

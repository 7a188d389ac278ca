/**
 * The `hlab run --out` folder as a contract (README "Stop and resume"): the folder records which
 * run it holds, `--resume` continues only that run, and nothing the folder holds is overwritten
 * or deleted behind the user's back. Everything here runs in Node before any browser starts.
 *
 *   run.json        RunFolderRecord: run id, spec digest, base checkpoint digest per model
 *                   preset, evaluation-set digest, the engine segments of the calls that finished
 *   checkpoint.hlab the latest run checkpoint (its spec and segments are read from its meta)
 *
 * `--resume` checks, in order — the checkpoint is there and the run has not finished; its spec
 * equals this call's (the engine aside); run.json's spec digest, base checkpoints and evaluation
 * set equal this call's; the checkpoint's segments continue run.json's — and the first mismatch
 * is one line naming the field with the old and the new value (exit 2), the folder untouched.
 * Without `--resume`, a folder holding a checkpoint or results is refused unless `--fresh` asks
 * for a new start: then the earlier run's files are moved into `earlier-<time>/` beside them.
 * A changed `--steps` is not part of the record: it is accepted on resume.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { hlabCommand, UsageError } from './cli_util';
import type { CheckpointLoad } from '../experiment/run_start';
import type { ExperimentPlan } from '../experiment/compile';
import { parseSpec, type ExperimentSpec } from '../experiment/spec';
import { runCheckpointOrigin, type RunSegment } from '../experiment/run_checkpoint';
import type { CheckpointManifest } from '../storage/serialize';
import { canonicalJson } from '../storage/serialize';
import { baseCheckpointUrl } from '../util/asset_fetch';
import { sha256Hex } from '../util/encoding';
import { writeAtomic, type WriteFs, nodeWriteFs } from './atomic_write';

/** The record's file name in the folder. */
const RUN_RECORD_FILE = 'run.json';
/** The run checkpoint's file name in the folder. */
export const CHECKPOINT_FILE = 'checkpoint.hlab';
/** The files one run writes into its folder (moved together by --fresh). */
const RUN_FILES = [CHECKPOINT_FILE, RUN_RECORD_FILE, 'spec.json', 'results.json', 'results.csv', 'results.md', 'curves.svg', 'curves.csv'];

/** What a run folder holds (run.json). */
interface RunFolderRecord {
  format: 'hlab-run-folder';
  version: 1;
  runId: string;
  /** The spec's name and the SHA-256 of its canonical JSON (backend left out: either engine continues a run). */
  spec: { name: string; digest: string };
  /** The base checkpoint of each model preset the runs start from (none for model.init 'scratch'). */
  bases: Array<{ preset: string; file: string; digest: string }>;
  /** The in-space configurations and the infeasible cells left out: what 'before' and 'after' are measured on. */
  evaluationSet: { digest: string; description: string };
  /** The engine segments of the calls that finished (the checkpoint holds the one in progress). */
  segments: RunSegment[];
}

/** The identity of the run this call would run: the record without its segments. */
type RunIdentity = Omit<RunFolderRecord, 'segments'>;

/** The spec as compared across calls: parsed, engine choice left out. */
function comparable(spec: ExperimentSpec): unknown {
  return JSON.parse(JSON.stringify({ ...spec, backend: 'auto' }));
}

/**
 * The identity of a run of `plan` (module doc): the digests of the base checkpoints it read
 * (prepare.ts planExperiment), its in-space set and infeasible cells.
 * @param loads the base checkpoints by model preset
 * @param basePath the --base file, when given
 * @throws UsageError when a base checkpoint cannot be loaded (checkpoint_files.ts refuses those first)
 */
export async function runIdentity(
  plan: ExperimentPlan,
  loads: ReadonlyMap<string, CheckpointLoad>,
  basePath?: string,
): Promise<RunIdentity> {
  const { spec } = plan;
  const bases: RunIdentity['bases'] = [];
  for (const [preset, load] of loads) {
    if (!('ck' in load)) throw new UsageError(`base checkpoint of preset '${preset}' is unusable: ${load.why}`);
    bases.push({ preset, file: basePath ?? `public${baseCheckpointUrl(preset, spec.model.exposure)}`, digest: load.ck.header.digest });
  }
  const cells = plan.infeasible.map((c) => `${c.taskId} @ ${c.harnessId}`).sort();
  return {
    format: 'hlab-run-folder',
    version: 1,
    runId: `run-${spec.name}`,
    spec: { name: spec.name, digest: await sha256Hex(new TextEncoder().encode(canonicalJson(comparable(spec), 'spec'))) },
    bases,
    evaluationSet: {
      digest: await sha256Hex(
        new TextEncoder().encode(canonicalJson({ inSpace: plan.inSpace.ids, excludedCells: cells }, 'evaluationSet')),
      ),
      description: `in-space: ${plan.inSpace.ids.length} configurations, ${cells.length} infeasible cells left out`,
    },
  };
}

/** The first place two JSON values differ, as a field path with both values; null when equal. */
function firstDifference(a: unknown, b: unknown, path: string): { path: string; a: unknown; b: unknown } | null {
  if (a === b) return null;
  const obj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const d = firstDifference(a[i], b[i], `${path}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (obj(a) && obj(b) && !Array.isArray(a) && !Array.isArray(b)) {
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      const d = firstDifference(a[k], b[k], `${path}.${k}`);
      if (d) return d;
    }
    return null;
  }
  return { path, a, b };
}

/** A value for a one-line message: JSON, '(absent)' for undefined, cut at 80 characters. */
function shown(v: unknown): string {
  const s = v === undefined ? '(absent)' : JSON.stringify(v);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/** What is in the folder `out` now. */
interface FolderContents {
  checkpoint: boolean;
  results: { status: string } | null;
  record: RunFolderRecord | null;
}

function readContents(out: string): FolderContents {
  let results: FolderContents['results'] = null;
  try {
    const r = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as { status?: unknown };
    results = { status: typeof r?.status === 'string' ? r.status : 'unknown' };
  } catch {
    results = existsSync(join(out, 'results.json')) ? { status: 'unreadable' } : null;
  }
  let record: RunFolderRecord | null = null;
  try {
    const r = JSON.parse(readFileSync(join(out, RUN_RECORD_FILE), 'utf8')) as RunFolderRecord;
    if (r?.format === 'hlab-run-folder' && r.version === 1) record = r;
  } catch {
    // No record: a folder written before run.json existed (checked by its checkpoint alone) or none.
  }
  return { checkpoint: existsSync(join(out, CHECKPOINT_FILE)), results, record };
}

/**
 * Resolve --out and check it against --resume and --fresh, creating and moving nothing
 * (`prepareFolder` does, once every input passed).
 * @param args this call's arguments after `run` (for the commands the message suggests)
 * @returns the folder and whether it holds an earlier run that --fresh moves aside
 * @throws UsageError (exit 2): --resume without a checkpoint (naming its path) or of a finished
 *   run; a folder holding a run without --resume or --fresh; both flags at once
 */
export function checkOut(
  dir: string,
  mode: { resume: boolean; fresh: boolean },
  args: readonly string[],
): { out: string; holdsRun: boolean } {
  const out = resolve(dir);
  // A file where the folder (or a folder above it) should be: said now, before any slow check.
  for (let p = out; ; p = dirname(p)) {
    if (existsSync(p)) {
      if (!statSync(p).isDirectory())
        throw new UsageError(`--out ${dir}: cannot create the output folder: a file is in the way (a folder is needed)`);
      break;
    }
    if (dirname(p) === p) break;
  }
  if (mode.resume && mode.fresh)
    throw new UsageError('--resume and --fresh: give one (--resume continues the run in --out, --fresh moves it aside and starts over)');
  const c = readContents(out);
  const ckpt = join(out, CHECKPOINT_FILE);
  if (mode.resume) {
    if (!c.checkpoint) throw new UsageError(`--resume: no checkpoint at ${ckpt}; check --out, or run without --resume to start fresh`);
    // A finished run has nothing to continue; resuming it would only rewrite its results files.
    if (c.results?.status === 'done')
      throw new UsageError(
        `--resume: the run in ${out} has finished (results.json status 'done'); nothing to resume: its results are there, or run with --fresh instead of --resume to start it again`,
      );
    return { out, holdsRun: true };
  }
  const holdsRun = c.checkpoint || c.results !== null;
  if (holdsRun && !mode.fresh) {
    const what = c.results ? `results.json status '${c.results.status}'` : 'a checkpoint';
    const resumable = c.checkpoint && c.results?.status !== 'done';
    const again = args.filter((a) => a !== '--fresh');
    throw new UsageError(
      `--out ${out} holds an earlier run (${what}${c.record ? ` of spec '${c.record.spec.name}'` : ''}); ${
        resumable ? `continue it with: ${hlabCommand([...again, '--resume'])}; or ` : ''
      }start over with: ${hlabCommand([...again, '--fresh'])} (the earlier run's files are moved into ${out}/earlier-<time>/); or pick another --out`,
    );
  }
  return { out, holdsRun };
}

/**
 * The checkpoint `--resume` continues from, checked against this call's run (module doc: spec,
 * base checkpoints, evaluation set, segments). Reads only.
 * @param manifest the verified checkpoint's manifest (checkpoint_files.ts readRunCheckpointFile)
 * @throws UsageError (exit 2) naming the first field that differs, its value in the folder and now
 */
export function checkResume(
  out: string,
  manifest: Pick<CheckpointManifest, 'runId' | 'config' | 'metricHistory'>,
  spec: ExperimentSpec,
  now: RunIdentity,
): void {
  const refuse = (field: string, there: string, here: string): never => {
    throw new UsageError(
      `--resume: ${field} differs from the run in ${out}: ${there} there, ${here} now; resume with the same inputs, or start over with --fresh instead of --resume (the earlier run is moved aside)`,
    );
  };
  let origin: ReturnType<typeof runCheckpointOrigin>;
  try {
    origin = runCheckpointOrigin(manifest);
  } catch (e) {
    throw new UsageError(
      `--resume: ${join(out, CHECKPOINT_FILE)} is not a run checkpoint this build can continue: ${(e as Error).message.split('\n')[0]}`,
    );
  }
  let ckSpec: ExperimentSpec;
  try {
    ckSpec = parseSpec(origin.spec, 'spec');
  } catch (e) {
    throw new UsageError(
      `--resume: the spec in ${join(out, CHECKPOINT_FILE)} no longer validates (${(e as Error).message.split('\n')[0]}); start over with --fresh`,
    );
  }
  // Another spec altogether is named by its name rather than by the first field that sorts first.
  const d =
    ckSpec.name !== spec.name
      ? { path: 'spec.name', a: ckSpec.name, b: spec.name }
      : firstDifference(comparable(ckSpec), comparable(spec), 'spec');
  if (d) refuse(d.path, shown(d.a), shown(d.b));
  if (origin.runId !== now.runId) refuse('the run id', shown(origin.runId), shown(now.runId));
  const rec = readContents(out).record;
  // A folder written before run.json existed is checked by its checkpoint alone.
  if (!rec) return;
  if (rec.spec.digest !== now.spec.digest)
    refuse(`the spec digest (${RUN_RECORD_FILE})`, rec.spec.digest.slice(0, 12), now.spec.digest.slice(0, 12));
  for (const p of new Set([...rec.bases.map((b) => b.preset), ...now.bases.map((b) => b.preset)])) {
    const a = rec.bases.find((b) => b.preset === p);
    const b = now.bases.find((x) => x.preset === p);
    const text = (x: typeof a) => (x ? `digest ${x.digest.slice(0, 12)} (${x.file})` : 'none');
    if (a?.digest !== b?.digest) refuse(`the base checkpoint of preset '${p}'`, text(a), text(b));
  }
  if (rec.evaluationSet.digest !== now.evaluationSet.digest)
    refuse(
      'the evaluation set',
      `'${rec.evaluationSet.description}' (digest ${rec.evaluationSet.digest.slice(0, 12)})`,
      `'${now.evaluationSet.description}' (digest ${now.evaluationSet.digest.slice(0, 12)})`,
    );
  // The checkpoint continues the folder's calls: each finished segment is where the checkpoint has it.
  const key = (s: RunSegment) => JSON.stringify([s.engine, s.describe, s.start, s.from]);
  rec.segments.forEach((s, i) => {
    const c = origin.segments[i];
    if (!c || key(c) !== key(s))
      refuse(
        `segment ${i + 1}`,
        `${s.engine} from ${shown(s.from)} (${RUN_RECORD_FILE})`,
        c ? `${c.engine} from ${shown(c.from)} (the checkpoint)` : 'none in the checkpoint',
      );
  });
}

/** A name for the folder an earlier run is moved into: earlier-<UTC time>, unique in `out`. */
function asideName(out: string, at: Date): string {
  const stamp = at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  let name = `earlier-${stamp}`;
  for (let i = 2; existsSync(join(out, name)); i++) name = `earlier-${stamp}-${i}`;
  return name;
}

/**
 * Create the output folder `out` (given as `dir` on the command line); with `holdsRun` (a fresh
 * start over an earlier run, checkOut) move that run's files into `out/earlier-<time>/`.
 * @returns the folder the earlier run was moved into, or null
 * @throws UsageError (exit 2) naming --out when the path cannot be a folder or the run cannot be moved
 */
export function prepareFolder(dir: string, out: string, holdsRun: boolean, at = new Date()): string | null {
  try {
    mkdirSync(out, { recursive: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOTDIR' || code === 'EEXIST' ? 'a file is in the way (a folder is needed)' : (e as Error).message.split('\n')[0];
    throw new UsageError(`--out ${dir}: cannot create the output folder: ${why}`);
  }
  if (!holdsRun) return null;
  const aside = join(out, asideName(out, at));
  try {
    mkdirSync(aside);
    for (const f of readdirSync(out)) if (RUN_FILES.includes(f) || f.endsWith('.tmp')) renameSync(join(out, f), join(aside, f));
  } catch (e) {
    throw new UsageError(`--fresh: cannot move the earlier run in ${out} aside: ${(e as Error).message.split('\n')[0]}`);
  }
  return aside;
}

/**
 * Write run.json: this call's identity and the segments up to its last checkpoint.
 * @throws FolderWriteError (atomic_write.ts) when the folder cannot be written
 */
export function writeRecord(out: string, id: RunIdentity, segments: readonly RunSegment[], fs: WriteFs = nodeWriteFs): void {
  const rec: RunFolderRecord = { ...id, segments: [...segments] };
  writeAtomic(join(out, RUN_RECORD_FILE), JSON.stringify(rec, null, 2) + '\n', fs);
}

/**
 * Where a run's starting parameters come from (the runner's "start" phase, runner.ts): the
 * pretrained base checkpoint of the method's model preset, public/base-<preset>.ckpt (or the
 * CLI's --base file) — read through the app's asset cache and checked against the preset's
 * config and the tokenizer — or a seeded random init when spec.model.init is 'scratch'; and the
 * pretraining mix the base checkpoints record (the in-space set leaves it out). A black-box SFT
 * baseline starts here too and is fine-tuned inside the run (sft_phase.ts).
 */
import { presetConfig, type ModelConfig, type PresetName } from '../model/config';
import { initParams } from '../model/init';
import type { Tokenizer } from '../model/tokenizer';
import { decodeBaseCheckpoint, type BaseCheckpoint } from '../model/checkpoint';
import { checkpointBudget, checkRunBudget, runBudget } from '../episode/budget';
import { describeMix, mixUnion, NO_MIX, pretrainMixOf } from '../pretrain/mix';
import type { StartingBase } from '../report/results_schema';
import { assetFetch, baseCheckpointUrl, isMissingAsset } from '../util/asset_fetch';
import { Rng } from '../util/rng';
import type { ExperimentSpec, MethodSpec } from './spec';

/**
 * A base checkpoint as loaded for a model preset: decoded, or why it cannot be (missing,
 * corrupt). `explicit` says whether it was the user's --base file: startingParams throws for an
 * unusable one naming --base instead of the shipped file.
 */
export type CheckpointLoad = ({ url: string; ck: BaseCheckpoint } | { url: string; why: string }) & { preset: string; explicit: boolean };

/**
 * Load the base checkpoint of `preset` (the explicit --base file when given) through the app's
 * asset cache (filled at load; a remembered absence answers 404), so a run started offline asks
 * no network. Never throws: a failure is returned as `why`.
 * @param fetchAsset how a same-origin path is fetched (the asset cache; tests read public/ from disk)
 */
async function loadCheckpoint(
  preset: string,
  exposure: string | undefined,
  explicit?: Uint8Array,
  fetchAsset: (url: string) => Promise<Response> = assetFetch,
): Promise<CheckpointLoad> {
  const url = explicit ? '(--base file)' : baseCheckpointUrl(preset, exposure);
  const at = { preset, explicit: !!explicit };
  try {
    const res = explicit ? null : await fetchAsset(url);
    // Vite answers a missing file with the app's index.html (SPA fallback), not a 404.
    if (res && isMissingAsset(res))
      return {
        url,
        why: `public${url} not found: no base checkpoint ships for preset '${preset}'${exposure ? ` with exposure '${exposure}'` : ''}`,
        ...at,
      };
    return { url, ck: await decodeBaseCheckpoint(res ? new Uint8Array(await res.arrayBuffer()) : explicit!), ...at };
  } catch (e) {
    return { url, why: (e as Error).message.split('\n')[0], ...at };
  }
}

/** The model presets a spec's methods train (spec.model.preset or a method's modelPreset), each once. */
function specPresets(spec: ExperimentSpec): string[] {
  return [...new Set(spec.methods.map((m) => m.modelPreset ?? spec.model.preset))];
}

/**
 * The base checkpoints the spec's runs start from, keyed by model preset: with spec.model.init
 * = 'base' the base of each method's preset at spec.model.exposure; none for 'scratch'.
 * @param explicitBase the CLI's --base file: replaces every preset's shipped base
 */
export async function loadStartingCheckpoints(
  spec: ExperimentSpec,
  explicitBase?: Uint8Array,
  fetchAsset?: (url: string) => Promise<Response>,
): Promise<Map<string, CheckpointLoad>> {
  const loads = new Map<string, CheckpointLoad>();
  if (spec.model.init !== 'base') return loads;
  for (const preset of specPresets(spec)) loads.set(preset, await loadCheckpoint(preset, spec.model.exposure, explicitBase, fetchAsset));
  return loads;
}

/**
 * The bases whose pretraining mixes the in-space set also leaves out
 * (spec.evaluation.inSpace.leaveOutMixOf, for every model preset the spec trains), keyed
 * '<preset>-<exposure>'; each is loaded for its recorded mix only.
 */
export async function loadLeaveOutCheckpoints(
  spec: ExperimentSpec,
  fetchAsset?: (url: string) => Promise<Response>,
): Promise<Map<string, CheckpointLoad>> {
  const loads = new Map<string, CheckpointLoad>();
  for (const exposure of spec.evaluation.inSpace.leaveOutMixOf ?? [])
    for (const preset of specPresets(spec))
      loads.set(`${preset}-${exposure}`, await loadCheckpoint(preset, exposure, undefined, fetchAsset));
  return loads;
}

/**
 * The pretraining mix the in-space set leaves out: the union of the mixes recorded by the base
 * checkpoints of the spec's model presets (none when spec.model.init is not 'base'; a base that
 * cannot be loaded contributes none, and its run is refused at start) and by the bases of
 * spec.evaluation.inSpace.leaveOutMixOf (`leaveOut`, loadLeaveOutCheckpoints).
 * @throws Error naming the field when a checkpoint's recorded mix is malformed (src/pretrain/mix.ts pretrainMixOf),
 *   or when a leaveOutMixOf base cannot be loaded (its mix is unknown, so the set cannot be drawn)
 */
export function baseMix(
  spec: ExperimentSpec,
  loads: ReadonlyMap<string, CheckpointLoad>,
  leaveOut: ReadonlyMap<string, CheckpointLoad> = new Map(),
): { ids: string[]; label: string } {
  const starting =
    spec.model.init === 'base'
      ? [...loads.values()].map((load) => [load.preset, 'ck' in load ? pretrainMixOf(load.ck.header.metadata) : NO_MIX] as const)
      : [];
  const extra = [...leaveOut].map(([key, load]) => {
    if (!('ck' in load)) throw new Error(`spec.evaluation.inSpace.leaveOutMixOf: the base ${key} cannot be loaded (${load.why})`);
    return [`left out ${key}`, pretrainMixOf(load.ck.header.metadata)] as const;
  });
  return mixUnion([...starting, ...extra]);
}

/**
 * What results.json records of the bases the runs started from (results_file.ts `bases`): each
 * loaded checkpoint's preset, exposure, file, digest and recorded mix; nothing for 'scratch'.
 */
export function startingBases(spec: ExperimentSpec, loads: ReadonlyMap<string, CheckpointLoad>): { bases?: StartingBase[] } {
  const bases: StartingBase[] = [];
  for (const load of loads.values()) {
    if (!('ck' in load)) continue;
    const file = load.explicit ? load.url : `public${load.url}`;
    bases.push({
      preset: load.preset,
      exposure: spec.model.exposure ?? 'broad',
      file,
      digest: load.ck.header.digest,
      mix: describeMix(pretrainMixOf(load.ck.header.metadata)),
    });
  }
  return bases.length ? { bases } : {};
}

/**
 * Whether each usable base cuts rollouts as it cut the rows it learned on (episode/budget.ts
 * checkRunBudget against the spec's budget), checked when the plan is made, before any rollout.
 * @returns the notes to show (a mismatch the spec allows, a checkpoint that records no reserve)
 * @throws BudgetMismatchError naming both budgets when they differ and spec.rollout.allowBudgetMismatch is not set
 */
export function baseBudgetNotes(spec: ExperimentSpec, loads: ReadonlyMap<string, CheckpointLoad>, tok: Tokenizer): string[] {
  const notes: string[] = [];
  for (const load of loads.values()) {
    if (!('ck' in load)) continue;
    const c = load.ck.header.config;
    const cfg = presetConfig(load.preset as PresetName, tok.vocabSize);
    // An unusable base (another config or tokenizer) is refused by startingParams with its reason.
    if (c.maxT !== cfg.maxT || c.vocabSize !== cfg.vocabSize || load.ck.header.tokenizer.name !== tok.name) continue;
    const note = checkRunBudget(
      checkpointBudget(c.maxT, load.ck.header.metadata),
      runBudget(cfg.maxT, spec.rollout),
      spec.rollout.allowBudgetMismatch === true,
    );
    if (note && !notes.includes(note)) notes.push(note);
  }
  return notes;
}

/** The ways out when a preset's base checkpoint is missing or unusable (the runner's and the CLI's refusals). */
export function missingBaseFix(preset: string, exposure?: string): string {
  const rebuild =
    exposure && exposure !== 'broad'
      ? `the rebuild command in docs/PRETRAIN.md "Bases by exposure"`
      : `\`npm run -s hlab -- pretrain --preset ${preset} --out public${baseCheckpointUrl(preset)}\``;
  return `build it with ${rebuild}, pass --base FILE, or set model.init to 'scratch'`;
}

/**
 * The starting parameters of a run of `method` (spec.model.init): for 'base' the base checkpoint
 * of its model preset from `loads` (loadStartingCheckpoints: public/base-<preset>.ckpt or --base),
 * which must exist and match the tokenizer and config, or for 'scratch' a seeded random init.
 * A random init never replaces an unusable checkpoint.
 * @returns the (P) f32 parameters and where they came from ('base checkpoint public/<file> (digest <12 hex>)',
 *   the file in the repository rather than the URL path the page fetches)
 * @throws Error naming the checkpoint and the ways out when it is unusable (the CLI refuses such a run before the browser starts)
 */
export function startingParams(
  spec: ExperimentSpec,
  method: MethodSpec,
  cfg: ModelConfig,
  seed: number,
  tok: Tokenizer,
  loads: ReadonlyMap<string, CheckpointLoad>,
): { params: Float32Array; source: string } {
  if (spec.model.init === 'scratch')
    return { params: initParams(cfg, Rng.derive(seed, 'init').int(2 ** 31)), source: 'scratch (seeded random init)' };
  const preset = method.modelPreset ?? spec.model.preset;
  const load = loads.get(preset);
  if (!load) throw new Error(`spec.model.init = 'base' but no base checkpoint was loaded for preset '${preset}'`);
  // Named by its file in the repository (public/…), not the URL path the page fetches it from.
  const file = load.explicit ? load.url : `public${load.url}`;
  let why = 'why' in load ? load.why : '';
  if ('ck' in load) {
    const ck = load.ck;
    const c = ck.header.config;
    if (c.vocabSize !== cfg.vocabSize || c.maxT !== cfg.maxT || c.C !== cfg.C || c.L !== cfg.L || c.NH !== cfg.NH)
      why = `its config ${JSON.stringify(c)} does not match preset '${preset}' ${JSON.stringify(cfg)}`;
    else if (ck.header.tokenizer.name !== tok.name) why = `it was trained with tokenizer '${ck.header.tokenizer.name}', not '${tok.name}'`;
    else return { params: ck.params, source: `base checkpoint ${file} (digest ${ck.header.digest.slice(0, 12)})` };
  }
  // Never replaced by a random init: only 'scratch' asks for one (the CLI verifies the files first; this guards the app and other callers).
  const fix = missingBaseFix(preset, spec.model.exposure);
  throw new Error(`${load.explicit ? '--base file' : `spec.model.init = 'base' but the checkpoint ${file}`} is unusable (${why}): ${fix}`);
}
